#include "codegen/unroll.h"

#include <optional>
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

// What holds at a point of the AST: the context and the conditions of the loops and guards around it. The
// conditions become isl sets only when one is needed, which most copies (constant bounds) never need.
class Facts {
public:
    explicit Facts(isl::set context) : sets_{std::move(context)} {}

    void push(ExprPtr cond) { conds_.push_back(std::move(cond)); }

    void pop() {
        conds_.pop_back();
        if (sets_.size() > conds_.size() + 1) sets_.resize(conds_.size() + 1);
    }

    const isl::set& known() {
        while (sets_.size() <= conds_.size()) {
            const isl::set& outer = sets_.back();
            // A condition isl cannot express is left out: what is known is then less, never wrong.
            const std::optional<isl::set> c = affine::condition_set(conds_[sets_.size() - 1]);
            if (!c) {
                sets_.push_back(outer);
                continue;
            }
            const isl::set both = isl_util::align_params(outer, c->space());
            sets_.push_back(both.intersect(isl_util::align_params(*c, both.space())));
        }
        return sets_.back();
    }

private:
    std::vector<ExprPtr> conds_;
    std::vector<isl::set> sets_;  // sets_[i]: the context and conds_[0..i)
};

// How a condition turns out where the facts hold; `guard` is the condition to test where it depends.
struct Verdict {
    enum class Kind { Always, Never, Depends } kind;
    ExprPtr guard;
};

Verdict decide(const ExprPtr& cond, Facts& facts) {
    if (const std::optional<std::int64_t> v = eval_int(cond, {}))
        return {*v ? Verdict::Kind::Always : Verdict::Kind::Never, nullptr};
    const std::optional<isl::set> s = affine::condition_set(cond);
    if (!s) return {Verdict::Kind::Depends, cond};
    const isl::set known = isl_util::align_params(facts.known(), s->space());
    const isl::set holds = isl_util::align_params(*s, known.space());
    if (holds.intersect(known).is_empty()) return {Verdict::Kind::Never, nullptr};
    if (known.is_subset(holds)) return {Verdict::Kind::Always, nullptr};
    return {Verdict::Kind::Depends, affine::condition_expr(holds, known)};
}

class Unroller {
public:
    Unroller(const std::map<std::string, long>& lengths, const isl::set& context)
        : lengths_(lengths), facts_(context) {}

    AstNode block(const AstNode& b) {
        AstNode out;
        for (const AstNode& c : b.children) node(c, out.children);
        return out;
    }

private:
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
                if (lengths_.count(n.iterator))
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
        facts_.push(binary(BinOp::Ge, var(n.iterator), f.init));
        facts_.push(f.cond);
        f.children.push_back(block(n.children[0]));
        facts_.pop();
        facts_.pop();
        out.push_back(std::move(f));
    }

    // isl placed this guard for all values of the unrolled inames around it; one that depends on the value a
    // copy fixed is decided again.
    void guard(const AstNode& n, std::vector<AstNode>& out) {
        const ExprPtr cond = substitute(n.cond, values_);
        const Verdict v = cond == n.cond ? Verdict{Verdict::Kind::Depends, cond} : decide(cond, facts_);
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

    // One copy of the body per value init, init + inc, ... (loopy's lower bound plus 0, 1, ...), each under
    // the loop's condition at that value.
    void copies(const AstNode& n, std::vector<AstNode>& out) {
        const ExprPtr init = folded(substitute(n.init, values_));
        const ExprPtr cond = substitute(n.cond, values_);
        const std::optional<std::int64_t> step = eval_int(substitute(n.inc, values_), {});
        internal_assert(step && *step > 0, "unrolled loop over '", n.iterator, "' without a constant step");
        const long count = (lengths_.at(n.iterator) + *step - 1) / *step;
        for (long i = 0; i < count; ++i) {
            const ExprPtr value = folded(i == 0 ? init : binary(BinOp::Add, init, int_lit(i * *step)));
            const Verdict v = decide(folded(substitute(cond, {{n.iterator, value}})), facts_);
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

    const std::map<std::string, long>& lengths_;
    Facts facts_;
    std::map<std::string, ExprPtr> values_;  // the unrolled inames of the copy being built
};

}  // namespace

AstNode unroll_loops(const AstNode& root, const std::map<std::string, long>& lengths, const isl::set& context) {
    if (lengths.empty()) return root;
    return Unroller(lengths, context).block(root);
}

}  // namespace loom
