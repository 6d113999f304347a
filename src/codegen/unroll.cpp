#include "codegen/unroll.h"

#include <cstdint>
#include <map>
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
#include "support/limits.h"

namespace loom {

namespace {

bool is_sum(const ExprPtr& e) { return e->kind == ExprKind::Binary && (e->op == BinOp::Add || e->op == BinOp::Sub); }

// The terms of a sum, each with whether it is subtracted.
void append_terms(const ExprPtr& e, bool negated, std::vector<std::pair<bool, ExprPtr>>& out) {
    if (!is_sum(e)) return out.push_back({negated, e});
    append_terms(e->args[0], negated, out);
    append_terms(e->args[1], negated != (e->op == BinOp::Sub), out);
}

// A sum with its numbers added up after its other terms: a copy's number put into isl's `n >= c1 + 4*c0 + 1`
// gives `n >= 4*c0 + 2`, as isl would write it. `e` as it is where it has one number or starts with a
// subtracted term.
ExprPtr numbers_added(const ExprPtr& e) {
    std::vector<std::pair<bool, ExprPtr>> terms, rest;
    append_terms(e, false, terms);
    std::int64_t sum = 0;
    for (const auto& [negated, t] : terms) {
        if (t->kind != ExprKind::IntLit)
            rest.push_back({negated, t});
        else if (negated ? __builtin_sub_overflow(sum, t->ival, &sum) : __builtin_add_overflow(sum, t->ival, &sum))
            return e;
    }
    if (terms.size() - rest.size() < 2 || rest.empty() || rest[0].first || sum == INT64_MIN) return e;
    ExprPtr out = rest[0].second;
    for (std::size_t i = 1; i < rest.size(); ++i) out = binary(rest[i].first ? BinOp::Sub : BinOp::Add, out, rest[i].second);
    return sum == 0 ? out : binary(sum < 0 ? BinOp::Sub : BinOp::Add, out, int_lit(sum < 0 ? -sum : sum));
}

// `e` with its constant parts computed: a loop bound that a copy's value made constant prints as a number.
ExprPtr folded(const ExprPtr& e) {
    if (!e) return e;
    return rewrite(e, [](const ExprPtr& n) -> ExprPtr {
        if (n->kind == ExprKind::IntLit) return n;
        if (const std::optional<std::int64_t> v = eval_int(n, {})) return int_lit(*v);
        return is_sum(n) ? numbers_added(n) : n;
    });
}

// `s` with the parameters of `model`, to meet it.
isl::set within(const isl::set& s, const isl::set& model) { return isl_util::align_params(s, model.space()); }

bool is_binary(const ExprPtr& e, BinOp op) { return e->kind == ExprKind::Binary && e->op == op; }

// `cond` split at the operator `op` (And, Or), left to right.
void append_operands(const ExprPtr& cond, BinOp op, std::vector<ExprPtr>& out) {
    if (!is_binary(cond, op)) return out.push_back(cond);
    append_operands(cond->args[0], op, out);
    append_operands(cond->args[1], op, out);
}

// What holds at a point of the AST: the context and the conditions of the loops and guards around it, as isl
// sets built when a decision needs them, each on the one of the facts pushed before.
class Facts {
public:
    explicit Facts(isl::set context) : known_{std::move(context)} {}

    void push(const ExprPtr& cond) { conds_.push_back(cond); }
    void pop() {
        conds_.pop_back();
        if (known_.size() > conds_.size() + 1) known_.pop_back();
    }

    // The context and the facts, as one set; facts isl cannot express are left out (less known, never wrong).
    const isl::set& known() {
        while (known_.size() <= conds_.size()) {
            isl::set k = known_.back();
            if (const std::optional<isl::set> c = affine::condition_set(conds_[known_.size() - 1])) {
                k = within(k, *c);
                k = k.intersect(within(*c, k));
            }
            known_.push_back(std::move(k));
        }
        return known_.back();
    }

    // The largest value of `e` where the facts hold; nullopt where isl finds none.
    std::optional<long> most(const ExprPtr& e) {
        const isl::set k = isl_util::add_params(known(), referenced_names(e));
        const std::optional<isl::pw_aff> f = affine::to_pw_aff(e, k);
        return f ? isl_util::static_max(*f, k) : std::nullopt;
    }

private:
    std::vector<ExprPtr> conds_;
    std::vector<isl::set> known_;  // known_[n]: the context and the first n facts
};

// How a condition turns out in each copy of the unrolled loops around it, decided once for all of them: in
// the decision an unrolled iterator stands for its copy's number (0, 1, ...), and where the condition or a
// disjunct of it can hold, or where it or a conjunct is implied, are conditions on those numbers alone, which
// each copy evaluates.
struct Decision {
    struct Part {
        ExprPtr cond;    // a conjunct
        ExprPtr needed;  // where the facts do not imply it; nullptr: everywhere
    };
    struct Disjunct {
        ExprPtr possible;  // where it holds at some point of the facts; nullptr: everywhere
        std::vector<Part> parts;
    };
    ExprPtr possible;                // of the whole condition
    ExprPtr needed;                  // of the whole condition
    std::vector<Disjunct> disjuncts;  // the condition simplified where the facts hold
};

// An unrolled loop's copies, or a guard that reads unrolled iterators.
struct Plan {
    Decision decision;  // the guard's condition, or the loop's condition at each copy
    long count = 0;     // of copies, the most any copy of the loops around has
    long step = 0;
};

using Plans = std::unordered_map<const AstNode*, Plan>;

// Plans every unrolled loop and every guard on unrolled iterators once: the iterator of an unrolled loop is
// the number of the copy, the loop's value there is init + step * number, and the facts bound the number by
// the loop's copies. A decision so made holds in each copy: where the facts hold for a number, the
// simplified guard holds exactly where the guard does (gist(G, F) and F is G and F for every value).
class Planner {
public:
    Planner(const std::set<std::string>& unrolled, const isl::set& context) : unrolled_(unrolled), facts_(context) {}

    Plans plan(const AstNode& root) {
        block(root);
        return std::move(plans_);
    }

private:
    void block(const AstNode& b) {
        for (const AstNode& c : b.children) node(c);
    }

    void node(const AstNode& n) {
        switch (n.kind) {
            case AstNode::Kind::Block: block(n); break;
            case AstNode::Kind::User: break;
            case AstNode::Kind::If: guard(n); break;
            case AstNode::Kind::For:
                if (unrolled_.count(n.iterator))
                    copies(n);
                else
                    under({binary(BinOp::Ge, var(n.iterator), symbolic(n.init)), symbolic(n.cond)}, n.children[0]);
                break;
        }
    }

    // isl placed this guard for all values of the unrolled inames around it; one that reads them is decided
    // for each copy.
    void guard(const AstNode& n) {
        const ExprPtr cond = symbolic(n.cond);
        if (cond != n.cond) plans_[&n].decision = decide(cond);
        under({cond}, n.children[0]);
        if (n.children.size() > 1) block(n.children[1]);
    }

    void copies(const AstNode& n) {
        const ExprPtr init = symbolic(n.init);
        const std::optional<std::int64_t> step = eval_int(symbolic(n.inc), {});
        internal_assert(step && *step > 0, "unrolled loop over '", n.iterator, "' without a constant step");
        Plan& p = plans_[&n];
        p.step = *step;
        p.count = copy_count(n, init, symbolic(n.cond), *step);
        if (p.count == 0) return;
        const ExprPtr number = var(n.iterator);
        sym_[n.iterator] = *step == 1 && is_zero(init) ? number
                                                      : binary(BinOp::Add, init, binary(BinOp::Mul, int_lit(*step), number));
        facts_.push(binary(BinOp::Ge, number, int_lit(0)));
        facts_.push(binary(BinOp::Lt, number, int_lit(p.count)));
        const ExprPtr cond = symbolic(n.cond);
        p.decision = decide(cond);
        under({cond}, n.children[0]);
        facts_.pop();
        facts_.pop();
        sym_.erase(n.iterator);
    }

    void under(const std::vector<ExprPtr>& conds, const AstNode& body) {
        for (const ExprPtr& c : conds) facts_.push(c);
        block(body);
        for (std::size_t i = 0; i < conds.size(); ++i) facts_.pop();
    }

    Decision decide(const ExprPtr& cond) {
        const std::optional<isl::set> s = affine::condition_set(cond);
        if (!s) return {nullptr, nullptr, {{nullptr, {{cond, nullptr}}}}};
        const isl::set& known = facts_.known();
        const isl::set holds = within(*s, known);
        const isl::set k = within(known, holds);
        Decision d{over_copies(holds.intersect(k)), over_copies(k.subtract(holds)), {}};
        std::vector<ExprPtr> disjuncts;
        append_operands(affine::condition_expr(holds, k), BinOp::Or, disjuncts);
        for (const ExprPtr& disjunct : disjuncts) d.disjuncts.push_back(decide_disjunct(disjunct, k, disjuncts.size() > 1));
        return d;
    }

    // A disjunct's own conditions where they can differ from the whole condition's: a sole disjunct holds where
    // the condition does, and a sole conjunct is implied where the condition is (the copy is then left bare).
    Decision::Disjunct decide_disjunct(const ExprPtr& disjunct, const isl::set& known, bool several) const {
        const auto where = [&](const ExprPtr& c, auto&& of) -> ExprPtr {
            const std::optional<isl::set> s = affine::condition_set(c);
            return s ? over_copies(of(within(*s, known))) : nullptr;
        };
        Decision::Disjunct d{several ? where(disjunct, [&](const isl::set& s) { return s.intersect(known); }) : nullptr, {}};
        std::vector<ExprPtr> parts;
        append_operands(disjunct, BinOp::And, parts);
        for (const ExprPtr& c : parts)
            d.parts.push_back({c, parts.size() > 1 ? where(c, [&](const isl::set& s) { return known.subtract(s); }) : nullptr});
        return d;
    }

    // The copies' numbers for which `s` has a point, as a condition on them.
    ExprPtr over_copies(const isl::set& s) const {
        isl::set numbers = s;
        for (const std::string& p : isl_util::param_names(s.space()))
            if (!sym_.count(p)) numbers = numbers.project_out_param(isl_util::named_id(p));
        return affine::condition_expr(numbers, isl_util::params_universe());
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

    static bool is_zero(const ExprPtr& e) { return e->kind == ExprKind::IntLit && e->ival == 0; }

    ExprPtr symbolic(const ExprPtr& e) const { return substitute(e, sym_); }

    const std::set<std::string>& unrolled_;
    Facts facts_;
    std::map<std::string, ExprPtr> sym_;  // each unrolled iterator around: its value from its copy's number
    Plans plans_;
};

// How a condition turns out in one copy; `guard` is the condition to test where it depends.
struct Verdict {
    enum class Kind { Always, Never, Depends } kind;
    ExprPtr guard;
};

// Makes the copies that the plans describe: each unrolled loop's body once per number, its iterator replaced by
// its value there, under what its decisions leave of the guards at that number.
class Expander {
public:
    explicit Expander(const Plans& plans) : plans_(plans) {}

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
                if (plans_.count(&n))
                    copies(n, plans_.at(&n), out);
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
        f.children.push_back(block(n.children[0]));
        out.push_back(std::move(f));
    }

    void guard(const AstNode& n, std::vector<AstNode>& out) {
        const auto plan = plans_.find(&n);
        const Verdict v = plan == plans_.end() ? Verdict{Verdict::Kind::Depends, n.cond} : at(plan->second.decision);
        if (v.kind != Verdict::Kind::Depends) {
            const std::size_t branch = v.kind == Verdict::Kind::Always ? 0 : 1;
            if (branch < n.children.size()) node(n.children[branch], out);
            return;
        }
        AstNode g = guarded(v.guard, n.children[0]);
        if (n.children.size() > 1) g.children.push_back(block(n.children[1]));
        out.push_back(std::move(g));
    }

    AstNode guarded(const ExprPtr& cond, const AstNode& body) {
        AstNode g;
        g.kind = AstNode::Kind::If;
        g.cond = cond;
        g.children.push_back(block(body));
        return g;
    }

    // One copy of the body per number 0, 1, ... below the plan's count, at the value init + step * number,
    // each under what the loop's condition is there.
    void copies(const AstNode& n, const Plan& p, std::vector<AstNode>& out) {
        const ExprPtr init = folded(substitute(n.init, values_));
        const std::size_t copy_bytes = kNodeBytes * nodes_in(n.children[0]);
        for (long i = 0; i < p.count; ++i) {
            stage_work(copy_bytes);  // a copy of 100 statements 16384 times ran 40 s past a 2 s deadline
            numbers_[n.iterator] = i;
            number_exprs_[n.iterator] = int_lit(i);
            const Verdict v = at(p.decision);
            if (v.kind == Verdict::Kind::Never) continue;
            values_[n.iterator] = folded(i == 0 ? init : binary(BinOp::Add, init, int_lit(i * p.step)));
            if (v.kind == Verdict::Kind::Always)
                node(n.children[0], out);
            else
                out.push_back(guarded(v.guard, n.children[0]));
        }
        numbers_.erase(n.iterator);
        number_exprs_.erase(n.iterator);
        values_.erase(n.iterator);
    }

    // About what a node of the unrolled tree and what the code printed from it take.
    static constexpr std::size_t kNodeBytes = 512;

    static std::size_t nodes_in(const AstNode& n) {
        std::size_t count = 1;
        for (const AstNode& c : n.children) count += nodes_in(c);
        return count;
    }

    // The decision at the current copies' numbers: the disjuncts that cannot hold there and the conjuncts implied
    // there are left out. A condition on the numbers that does not evaluate (past 64 bits) leaves its part,
    // which is never wrong.
    Verdict at(const Decision& d) const {
        if (d.possible && eval_int(d.possible, numbers_) == 0) return {Verdict::Kind::Never, nullptr};
        if (d.needed && eval_int(d.needed, numbers_) == 0) return {Verdict::Kind::Always, nullptr};
        ExprPtr guard;
        for (const Decision::Disjunct& disjunct : d.disjuncts) {
            if (disjunct.possible && eval_int(disjunct.possible, numbers_) == 0) continue;
            const std::optional<ExprPtr> g = conjunction(disjunct.parts);
            if (!g) continue;
            if (!*g) return {Verdict::Kind::Always, nullptr};
            guard = guard ? binary(BinOp::Or, guard, *g) : *g;
        }
        return guard ? Verdict{Verdict::Kind::Depends, guard} : Verdict{Verdict::Kind::Never, nullptr};
    }

    // The parts not implied at the current numbers, joined: nullptr where none is left, nullopt where one is
    // false there.
    std::optional<ExprPtr> conjunction(const std::vector<Decision::Part>& parts) const {
        ExprPtr out;
        for (const Decision::Part& part : parts) {
            if (part.needed && eval_int(part.needed, numbers_) == 0) continue;
            const ExprPtr c = folded(substitute(part.cond, number_exprs_));
            if (c->kind == ExprKind::IntLit) {
                if (c->ival == 0) return std::nullopt;
                continue;
            }
            out = out ? binary(BinOp::And, out, c) : c;
        }
        return out;
    }

    const Plans& plans_;
    std::map<std::string, ExprPtr> values_;             // the unrolled inames of the copy being built
    std::map<std::string, std::int64_t> numbers_;       // their copies' numbers
    std::map<std::string, ExprPtr> number_exprs_;       // the same, as expressions
};

}  // namespace

AstNode unroll_loops(const AstNode& root, const std::set<std::string>& unrolled, const isl::set& context) {
    if (unrolled.empty()) return root;
    return Expander(Planner(unrolled, context).plan(root)).block(root);
}

}  // namespace loom
