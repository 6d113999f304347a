#include "codegen/unroll.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/affine.h"
#include "ir/eval.h"
#include "isl/isl.h"
#include "support/error.h"

namespace loom {

namespace {


// `e` with its constant parts computed: a loop bound that a copy's value made constant prints as a number.
ExprPtr folded(const ExprPtr& e) {
    if (!e) return e;
    return rewrite(e, [](const ExprPtr& n) -> ExprPtr {
        if (n->kind == ExprKind::IntLit) return n;
        const std::optional<std::int64_t> v = eval_int(n, {});
        return v ? int_lit(*v) : n;
    });
}

// What holds at a point of the AST: the context and the conditions of the loops and guards around it. A
// condition is read (its text, its iterators, its isl set) only when a guard needs it, which most copies
// (constant bounds) never do.
class Facts {
public:
    explicit Facts(isl::set context) : context_(std::move(context)) {}

    void enter_loop(const std::string& iterator) { iterators_.insert(iterator); }
    void leave_loop(const std::string& iterator) { iterators_.erase(iterator); }

    void push(const ExprPtr& cond) { facts_.push_back({cond, std::nullopt, {}}); }
    void pop() { facts_.pop_back(); }

    // The facts that bear on `cond`: those on parameters alone, and those on the loop iterators it reads or
    // that such facts tie to them. Copies of an unrolled loop differ in their guards on other iterators; left
    // out, these make the copies' facts equal (`key`), so that one decision serves them all. What they would
    // say of the parameters is lost, which can only leave a guard that could have been dropped.
    std::vector<std::size_t> bearing_on(const ExprPtr& cond) {
        std::set<std::string> reached = iterators_of(cond);
        std::vector<bool> taken(facts_.size(), false);
        for (bool grew = true; grew;) {
            grew = false;
            for (std::size_t i = 0; i < facts_.size(); ++i) {
                if (taken[i] || !ties(read(i).iterators, reached)) continue;
                taken[i] = grew = true;
                reached.insert(facts_[i].iterators.begin(), facts_[i].iterators.end());
            }
        }
        std::vector<std::size_t> out;
        for (std::size_t i = 0; i < facts_.size(); ++i)
            if (taken[i]) out.push_back(i);
        return out;
    }

    std::string key(const std::vector<std::size_t>& facts) {
        std::string k;
        for (std::size_t i : facts) k += *read(i).text + ";";
        return k;
    }

    // The context and those facts, as one set; facts isl cannot express are left out (less known, never wrong).
    const isl::set& known(const std::vector<std::size_t>& facts, const std::string& key) {
        const auto found = known_.find(key);
        if (found != known_.end()) return found->second;
        isl::set k = context_;
        for (std::size_t i : facts) {
            const std::optional<isl::set> c = affine::condition_set(facts_[i].cond);
            if (!c) continue;
            k = isl_util::align_params(k, c->space());
            k = k.intersect(isl_util::align_params(*c, k.space()));
        }
        return known_.emplace(key, std::move(k)).first->second;
    }

    // The largest value of `e` where the facts that bear on it hold; nullopt where isl finds none.
    std::optional<long> most(const ExprPtr& e) {
        const std::vector<std::size_t> facts = bearing_on(e);
        const isl::set k = isl_util::add_params(known(facts, key(facts)), referenced_names(e));
        const std::optional<isl::pw_aff> f = affine::to_pw_aff(e, k);
        return f ? isl_util::static_max(*f, k) : std::nullopt;
    }

private:
    struct Fact {
        ExprPtr cond;
        std::optional<std::string> text;  // read() fills it and `iterators`
        std::set<std::string> iterators;
    };

    // A fact read where it is used: the iterators of the loops entered since it was pushed are inside it and
    // cannot be among its names.
    const Fact& read(std::size_t i) {
        Fact& f = facts_[i];
        if (!f.text) {
            f.text = to_string(f.cond);
            f.iterators = iterators_of(f.cond);
        }
        return f;
    }

    std::set<std::string> iterators_of(const ExprPtr& cond) const {
        std::set<std::string> out;
        for (const std::string& n : referenced_names(cond))
            if (iterators_.count(n)) out.insert(n);
        return out;
    }

    static bool ties(const std::set<std::string>& iterators, const std::set<std::string>& reached) {
        return iterators.empty() || std::any_of(iterators.begin(), iterators.end(),
                                                [&](const std::string& n) { return reached.count(n) > 0; });
    }

    isl::set context_;
    std::set<std::string> iterators_;  // of the loops around, those kept as loops
    std::vector<Fact> facts_;
    std::unordered_map<std::string, isl::set> known_;  // by key
};

// How a condition turns out where the facts hold; `guard` is the condition to test where it depends.
struct Verdict {
    enum class Kind { Always, Never, Depends } kind;
    ExprPtr guard;
};

Verdict decide_with_isl(const ExprPtr& cond, const isl::set& facts) {
    const std::optional<isl::set> s = affine::condition_set(cond);
    if (!s) return {Verdict::Kind::Depends, cond};
    const isl::set known = isl_util::align_params(facts, s->space());
    const isl::set holds = isl_util::align_params(*s, known.space());
    if (holds.intersect(known).is_empty()) return {Verdict::Kind::Never, nullptr};
    if (known.is_subset(holds)) return {Verdict::Kind::Always, nullptr};
    return {Verdict::Kind::Depends, affine::condition_expr(holds, known)};
}

class Unroller {
public:
    Unroller(const std::set<std::string>& unrolled, const isl::set& context) : unrolled_(unrolled), facts_(context) {}

    AstNode block(const AstNode& b) {
        AstNode out;
        for (const AstNode& c : b.children) node(c, out.children);
        return out;
    }

private:
    Verdict decide(const ExprPtr& cond) {
        if (const std::optional<std::int64_t> v = eval_int(cond, {}))
            return {*v ? Verdict::Kind::Always : Verdict::Kind::Never, nullptr};
        const std::vector<std::size_t> facts = facts_.bearing_on(cond);
        const std::string facts_key = facts_.key(facts);
        std::string key = facts_key + "|" + to_string(cond);
        const auto found = decided_.find(key);
        if (found != decided_.end()) return found->second;
        const Verdict v = decide_with_isl(cond, facts_.known(facts, facts_key));
        return decided_.emplace(std::move(key), v).first->second;
    }

    void node(const AstNode& n, std::vector<AstNode>& out) {
        switch (n.kind) {
            case AstNode::Kind::Block:
                for (const AstNode& c : n.children) node(c, out);
                break;
            case AstNode::Kind::User: {
                AstNode u = n;
                for (ExprPtr& a : u.args) a = substitute(a, values_);
                out.push_back(std::move(u));
                break;
            }
            case AstNode::Kind::If: guard(n, out); break;
            case AstNode::Kind::For:
                if (unrolled_.count(n.iterator))
                    copies(n, out);
                else
                    loop(n, out);
                break;
        }
    }

    void loop(const AstNode& n, std::vector<AstNode>& out) {
        AstNode f;
        f.kind = AstNode::Kind::For;
        f.iterator = n.iterator;
        f.init = folded(substitute(n.init, values_));
        f.cond = folded(substitute(n.cond, values_));
        f.inc = n.inc;
        facts_.enter_loop(n.iterator);
        facts_.push(binary(BinOp::Ge, var(n.iterator), f.init));
        facts_.push(f.cond);
        f.children.push_back(block(n.children[0]));
        facts_.pop();
        facts_.pop();
        facts_.leave_loop(n.iterator);
        out.push_back(std::move(f));
    }

    // isl placed this guard for all values of the unrolled inames around it; one that depends on the value a
    // copy fixed is decided again.
    void guard(const AstNode& n, std::vector<AstNode>& out) {
        const ExprPtr cond = substitute(n.cond, values_);
        const Verdict v = cond == n.cond ? Verdict{Verdict::Kind::Depends, cond} : decide(cond);
        if (v.kind != Verdict::Kind::Depends) {
            const std::size_t branch = v.kind == Verdict::Kind::Always ? 0 : 1;
            if (branch < n.children.size()) node(n.children[branch], out);
            return;
        }
        AstNode g = guarded(v.guard, n.children[0]);
        if (n.children.size() > 1) g.children.push_back(block(n.children[1]));
        out.push_back(std::move(g));
    }

    // `if (cond) body`, the body emitted knowing that `cond` holds.
    AstNode guarded(const ExprPtr& cond, const AstNode& body) {
        AstNode g;
        g.kind = AstNode::Kind::If;
        g.cond = cond;
        facts_.push(cond);
        g.children.push_back(block(body));
        facts_.pop();
        return g;
    }

    // One copy of the body per value init, init + inc, ... up to the loop's upper bound (copy_count), each
    // under the loop's condition at that value.
    void copies(const AstNode& n, std::vector<AstNode>& out) {
        const ExprPtr init = folded(substitute(n.init, values_));
        const ExprPtr cond = substitute(n.cond, values_);
        const std::optional<std::int64_t> step = eval_int(substitute(n.inc, values_), {});
        internal_assert(step && *step > 0, "unrolled loop over '", n.iterator, "' without a constant step");
        const long count = copy_count(n, init, cond, *step);
        for (long i = 0; i < count; ++i) {
            const ExprPtr value = folded(i == 0 ? init : binary(BinOp::Add, init, int_lit(i * *step)));
            const Verdict v = decide(folded(substitute(cond, {{n.iterator, value}})));
            if (v.kind == Verdict::Kind::Never) continue;
            values_[n.iterator] = value;
            if (v.kind == Verdict::Kind::Always) {
                node(n.children[0], out);
            } else {
                out.push_back(guarded(v.guard, n.children[0]));
            }
        }
        values_.erase(n.iterator);
    }

    // The copies that cover the loop: its own span, from isl's lower bound to its upper bound (the most it can be
    // where the facts hold). The iname's length is no count: it counts the iname's values from the least one for
    // the parameters, and isl's lower bound can lie below it where the bounds have divisions (finding 36).
    long copy_count(const AstNode& n, const ExprPtr& init, const ExprPtr& cond, long step) {
        ExprPtr upper;
        if (cond->kind == ExprKind::Binary && cond->args[0]->kind == ExprKind::Var && cond->args[0]->name == n.iterator) {
            if (cond->op == BinOp::Le) upper = cond->args[1];
            if (cond->op == BinOp::Lt) upper = binary(BinOp::Sub, cond->args[1], int_lit(1));
        }
        internal_assert(upper != nullptr, "unrolled loop over '", n.iterator, "' with the condition ", to_string(cond));
        // Equal bounds (isl writes a single value's as the same conditional expression twice) are one copy.
        const ExprPtr span = to_string(upper) == to_string(init) ? int_lit(0) : folded(binary(BinOp::Sub, upper, init));
        std::optional<long> most = eval_int(span, {});
        if (!most) most = facts_.most(span);
        user_assert(most.has_value(), error_kind::LoopyError, "cannot unroll the loop over '", n.iterator,
                    "': the span of its bounds (", to_string(span), ") has no constant maximum");
        return *most < 0 ? 0 : *most / step + 1;
    }

    const std::set<std::string>& unrolled_;
    Facts facts_;
    std::map<std::string, ExprPtr> values_;  // the unrolled inames of the copy being built
    std::unordered_map<std::string, Verdict> decided_;  // by the facts that bear on a condition, and it
};

}  // namespace

AstNode unroll_loops(const AstNode& root, const std::set<std::string>& unrolled, const isl::set& context) {
    if (unrolled.empty()) return root;
    return Unroller(unrolled, context).block(root);
}

}  // namespace loom
