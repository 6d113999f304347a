#include "ir/affine.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "ir/ast_expr.h"
#include "isl/box.h"
#include "isl/counting.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom::affine {

namespace {

std::optional<isl::pw_aff> build_pw_aff(const ExprPtr& e, const isl::set& dom);

// Integer constant of `e`, if it is one.
std::optional<std::int64_t> int_constant(const ExprPtr& e) {
    if (e->kind == ExprKind::IntLit) return e->ival;
    if (e->kind == ExprKind::Unary && e->unop == "-" && e->args[0]->kind == ExprKind::IntLit) return -e->args[0]->ival;
    return std::nullopt;
}

std::optional<isl::pw_aff> binary_aff(const ExprPtr& e, const isl::set& dom) {
    const auto rhs_const = int_constant(e->args[1]);
    // C division and remainder come from isl's own expressions, where they equal the floored ones.
    const bool division = e->op == BinOp::FloorDiv || e->op == BinOp::CDiv;
    const bool remainder = e->op == BinOp::Mod || e->op == BinOp::CMod;
    if ((division || remainder) && !(rhs_const && *rhs_const > 0)) return std::nullopt;
    const std::optional<isl::pw_aff> a = build_pw_aff(e->args[0], dom);
    if (!a) return std::nullopt;
    if (division || remainder) {
        const isl::val d(dom.ctx(), *rhs_const);
        return remainder ? a->mod(d) : a->scale_down(d).floor();
    }
    const std::optional<isl::pw_aff> b = build_pw_aff(e->args[1], dom);
    if (!b) return std::nullopt;
    switch (e->op) {
        case BinOp::Add: return a->add(*b);
        case BinOp::Sub: return a->sub(*b);
        case BinOp::Mul:
            if (isl_util::is_constant(*a) || isl_util::is_constant(*b)) return a->mul(*b);
            break;
        default: break;
    }
    return std::nullopt;
}

std::optional<isl::pw_aff> build_pw_aff(const ExprPtr& e, const isl::set& dom) {
    switch (e->kind) {
        case ExprKind::IntLit: return isl_util::constant_on_domain(dom, e->ival);
        case ExprKind::Var: return isl_util::var_on_domain(dom, e->name);
        case ExprKind::Unary:
            if (e->unop == "-") {
                const std::optional<isl::pw_aff> a = build_pw_aff(e->args[0], dom);
                if (a) return a->neg();
            }
            return std::nullopt;
        case ExprKind::Binary: return binary_aff(e, dom);
        case ExprKind::Call: {
            // isl's own loop bounds: min and max of two affine expressions.
            if ((e->name != "min" && e->name != "max") || e->args.size() != 2) return std::nullopt;
            const std::optional<isl::pw_aff> a = build_pw_aff(e->args[0], dom), b = build_pw_aff(e->args[1], dom);
            if (!a || !b) return std::nullopt;
            return e->name == "min" ? a->min(*b) : a->max(*b);
        }
        default: return std::nullopt;
    }
}

}  // namespace

std::optional<isl::pw_aff> to_pw_aff(const ExprPtr& e, const isl::set& domain) {
    std::vector<std::string> names;
    const std::vector<std::string> dims = isl_util::set_dim_names(domain);
    for (const std::string& n : referenced_names(e))
        if (std::find(dims.begin(), dims.end(), n) == dims.end()) names.push_back(n);
    const isl::set dom = isl_util::add_params(domain, names);
    const std::optional<isl::pw_aff> pa = build_pw_aff(e, dom);
    if (!pa) return std::nullopt;
    return pa->intersect_domain(dom);
}

ExprPtr aff_to_expr(const isl::aff& a) {
    const isl::ast_build build = isl::ast_build::from_context(isl::set::universe(a.space().params()));
    // The build's space is that of the parameters: an aff over a zero-dimensional set (a fixed box's offset)
    // must be over them too, or isl cannot print its integer divisions.
    return ast_expr_to_expr(build.expr_from(isl::pw_aff(isl_util::on_params(a))));
}

ExprPtr pw_aff_to_expr(const isl::pw_aff& a, const isl::set& context) {
    // No piece: defined nowhere (an extent over an empty domain, under assumptions that cannot hold), where isl
    // has no expression to print ("void expression"); an extent is 0 where its domain is empty.
    if (a.n_piece() == 0) return int_lit(0);
    const isl::set params = isl_util::align_params(context, a.space()).params();
    return ast_expr_to_expr(isl::ast_build::from_context(params).expr_from(a));
}

namespace {

// `a` simplified where the parameter set `params` (aligned to it) holds.
isl::pw_aff simplified(const isl::pw_aff& a, const isl::set& params) { return a.gist_params(params).coalesce(); }

}  // namespace

std::optional<ExprPtr> single_piece_expr(const isl::pw_aff& a, const isl::set& context) {
    const isl::pw_aff simple = simplified(a, isl_util::align_params(context, a.space()));
    if (simple.n_piece() != 1) return std::nullopt;
    return aff_to_expr(isl_util::pieces(simple).front().second);
}

namespace {

// One piece of a piecewise affine function, its domain restricted to the parameter context, with the value the
// function takes at one point of that domain (none when the domain is empty there).
struct Piece {
    isl::set domain;
    isl::aff value;
    std::optional<isl::point> sample;
    std::optional<isl::val> sampled;
};

std::vector<Piece> pieces_of(const isl::pw_aff& a, const isl::set& params) {
    std::vector<Piece> out;
    for (const auto& [domain, value] : isl_util::pieces(a)) {
        // The context may name parameters the function does not: every piece takes them all.
        Piece p{domain.intersect_params(params), value, {}, {}};
        p.value = isl_util::align_params(p.value, p.domain.space());
        isl::point at = p.domain.sample_point();
        if (!isl_util::is_void(at)) {
            p.sampled = p.value.eval(at);
            p.sample = std::move(at);
        }
        out.push_back(std::move(p));
    }
    return out;
}

// Whether `candidate` is at least every piece on that piece's domain. The sampled points rule out most
// candidates without an integer program; the rest take one emptiness test per piece, which stays cheap where a
// single subset test of the whole domain against the comparison with all pieces at once (a union of as many
// quasi-affine sets) took seconds for 20 pieces (docs/reliability.md, finding 8).
bool dominates(const isl::aff& candidate, const std::vector<Piece>& pieces) {
    for (const Piece& p : pieces)
        if (p.sample && candidate.eval(*p.sample).lt(*p.sampled)) return false;
    for (const Piece& p : pieces) {
        if (!p.sample || &p.value == &candidate) continue;
        if (!p.value.gt_set(candidate).intersect(p.domain).is_empty()) return false;
    }
    return true;
}

}  // namespace

std::optional<ExprPtr> dominating_piece_expr(const isl::pw_aff& a, const isl::set& context) {
    const isl::set params = isl_util::align_params(context, a.space());
    const std::vector<Piece> pieces = pieces_of(simplified(a, params), params);
    std::vector<const isl::aff*> candidates;
    for (const Piece& p : pieces) candidates.push_back(&p.value);
    // Constants first: they make the simplest shapes.
    std::stable_partition(candidates.begin(), candidates.end(), [](const isl::aff* c) { return c->is_cst(); });
    for (const isl::aff* candidate : candidates)
        if (dominates(*candidate, pieces)) return aff_to_expr(*candidate);
    return std::nullopt;
}

namespace {

// `lhs rel rhs` for a comparison `rel` other than != as `d = 0`, `d >= 0` or `d > 0` of a difference d;
// nullopt for any other operator.
struct SignOfDifference {
    ExprPtr difference;
    isl_util::Sign sign;
};
std::optional<SignOfDifference> as_sign(const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs) {
    const bool less = rel == BinOp::Le || rel == BinOp::Lt;
    const ExprPtr difference = less ? binary(BinOp::Sub, rhs, lhs) : binary(BinOp::Sub, lhs, rhs);
    switch (rel) {
        case BinOp::Eq: return SignOfDifference{difference, isl_util::Sign::Zero};
        case BinOp::Le:
        case BinOp::Ge: return SignOfDifference{difference, isl_util::Sign::NonNegative};
        case BinOp::Lt:
        case BinOp::Gt: return SignOfDifference{difference, isl_util::Sign::Positive};
        default: return std::nullopt;
    }
}

}  // namespace

std::optional<isl::set> try_add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs) {
    const std::optional<SignOfDifference> c = as_sign(lhs, rel, rhs);
    internal_assert(c.has_value(), "add_constraint: '", binop_text(rel), "' is not a comparison");
    // Built on the universe of the space: building it on `s` itself makes isl simplify every piece against `s`.
    const std::optional<isl::pw_aff> d = to_pw_aff(c->difference, isl::set::universe(s.space()));
    if (!d) return std::nullopt;
    return isl_util::constrain(s, *d, c->sign);
}

isl::set add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs) {
    std::optional<isl::set> out = try_add_constraint(s, lhs, rel, rhs);
    internal_assert(out.has_value(), "constraint '", to_string(lhs), " ", binop_text(rel), " ", to_string(rhs),
                    "' is not affine");
    return *out;
}

namespace {

// The access relation of `indices` on `domain`; `exact` tells whether every index was quasi-affine.
isl::map access_relation(const isl::set& domain, const std::vector<ExprPtr>& indices, bool& exact) {
    exact = true;
    std::vector<std::string> axes;
    for (std::size_t j = 0; j < indices.size(); ++j) axes.push_back(cat("_loom_idx", j));
    isl::set d = isl_util::add_named_dims(domain, axes, false);
    for (std::size_t j = 0; j < indices.size(); ++j) {
        std::optional<isl::set> indexed = try_add_constraint(d, var(axes[j]), BinOp::Eq, indices[j]);
        exact = exact && indexed.has_value();
        if (indexed) d = std::move(*indexed);
    }
    return isl_util::as_relation(d, static_cast<int>(domain.tuple_dim()));
}

}  // namespace

isl::map access_map(const isl::set& domain, const std::vector<ExprPtr>& indices) {
    bool exact = true;
    return access_relation(domain, indices, exact);
}

std::optional<isl::map> exact_access_map(const isl::set& domain, const std::vector<ExprPtr>& indices) {
    bool exact = true;
    isl::map m = access_relation(domain, indices, exact);
    if (!exact) return std::nullopt;
    return m;
}

namespace {

struct NotAffine {};

isl::set comparison_set(const ExprPtr& a, BinOp op, const ExprPtr& b);

// Where `a op b` holds with `a` or `b` a min or max: `x <= min(y, z)` is `x <= y and x <= z`, and so on.
std::optional<isl::set> min_max_comparison(const ExprPtr& a, BinOp op, const ExprPtr& b) {
    const auto is_min_max = [](const ExprPtr& e) {
        return e->kind == ExprKind::Call && (e->name == "min" || e->name == "max") && e->args.size() == 2;
    };
    const bool left = is_min_max(a);
    if (!left && !is_min_max(b)) return std::nullopt;
    const ExprPtr& m = left ? a : b;
    // Both sides hold (intersection) where the smaller side must be small: min on the left of `<` or max on
    // the right; otherwise one side suffices.
    const bool less = op == BinOp::Le || op == BinOp::Lt;
    const bool both = (m->name == "max") == (left == less);
    const auto side = [&](std::size_t i) {
        return left ? comparison_set(m->args[i], op, b) : comparison_set(a, op, m->args[i]);
    };
    const isl::set x = side(0), y = side(1);
    const isl::set x_aligned = isl_util::align_params(x, y.space()), y_aligned = isl_util::align_params(y, x_aligned.space());
    return both ? x_aligned.intersect(y_aligned) : x_aligned.unite(y_aligned);
}

// Where `a op b` holds (op a comparison other than !=); throws NotAffine where a side is not quasi-affine.
isl::set comparison_set(const ExprPtr& a, BinOp op, const ExprPtr& b) {
    if (const auto m = min_max_comparison(a, op, b)) return *m;
    const std::optional<SignOfDifference> c = as_sign(a, op, b);
    if (!c) throw NotAffine{};
    const std::optional<isl::pw_aff> d = to_pw_aff(c->difference, isl_util::params_universe());
    if (!d) throw NotAffine{};
    return isl_util::sign_set(*d, c->sign);
}

isl::set condition_set_of(const ExprPtr& cond) {
    if (cond->kind != ExprKind::Binary) throw NotAffine{};
    if (cond->op == BinOp::And || cond->op == BinOp::Or) {
        const isl::set a = condition_set_of(cond->args[0]);
        const isl::set b = isl_util::align_params(condition_set_of(cond->args[1]), a.space());
        const isl::set a_aligned = isl_util::align_params(a, b.space());
        return cond->op == BinOp::And ? a_aligned.intersect(b) : a_aligned.unite(b);
    }
    return comparison_set(cond->args[0], cond->op, cond->args[1]);
}

}  // namespace

std::optional<isl::set> condition_set(const ExprPtr& cond) {
    try {
        return condition_set_of(cond);
    } catch (const NotAffine&) {
        return std::nullopt;
    }
}

std::optional<isl::set> predicate_set(const ExprPtr& cond) {
    if (cond->kind == ExprKind::Unary && cond->unop == "not") {
        const std::optional<isl::set> c = predicate_set(cond->args[0]);
        return c ? std::optional(isl_util::complement(*c)) : std::nullopt;
    }
    if (std::optional<isl::set> c = condition_set(cond)) return c;
    return condition_set(binary(BinOp::Or, binary(BinOp::Lt, cond, int_lit(0)), binary(BinOp::Gt, cond, int_lit(0))));
}

ExprPtr condition_expr(const isl::set& s, const isl::set& context) {
    const isl::set known = isl_util::align_params(context, s.space());
    return ast_expr_to_expr(isl::ast_build::from_context(known).expr_from(isl_util::align_params(s, known.space())));
}

std::optional<std::vector<BoxAxis>> fixed_box_hull(const isl::set& s) {
    const std::optional<isl_util::FixedBox> box = isl_util::fixed_box_hull(s);
    if (!box) return std::nullopt;
    std::vector<BoxAxis> out;
    for (std::size_t i = 0; i < box->size.size(); ++i)
        out.push_back({aff_to_expr(box->offset.at(static_cast<int>(i))), box->size[i]});
    return out;
}

namespace {

// `e` over the parameters `params` (the names it uses); nullopt when `e` is no polynomial.
std::optional<isl_util::PwQPolynomial> polynomial_of(const ExprPtr& e, const std::vector<std::string>& params) {
    const auto operand = [&](std::size_t i) { return polynomial_of(e->args[i], params); };
    switch (e->kind) {
        case ExprKind::IntLit: return isl_util::PwQPolynomial::constant(params, e->ival);
        case ExprKind::Var: return isl_util::PwQPolynomial::parameter(params, e->name);
        case ExprKind::Unary:
            if (e->unop != "-") return std::nullopt;
            if (const auto a = operand(0)) return a->scaled(-1);
            return std::nullopt;
        case ExprKind::Binary: {
            if (e->op != BinOp::Add && e->op != BinOp::Sub && e->op != BinOp::Mul) return std::nullopt;
            const auto a = operand(0), b = operand(1);
            if (!a || !b) return std::nullopt;
            if (e->op == BinOp::Mul) return *a * *b;
            return e->op == BinOp::Sub ? *a - *b : *a + *b;
        }
        default: return std::nullopt;
    }
}

}  // namespace

std::optional<std::string> polynomial_text(const ExprPtr& e) {
    std::vector<std::string> names = referenced_names(e);
    std::sort(names.begin(), names.end());
    const std::optional<isl_util::PwQPolynomial> q = polynomial_of(e, names);
    if (!q) return std::nullopt;
    // isl prints `[ell, m] -> { ell * m }`: the polynomial is what the braces hold.
    const std::string text = q->to_str();
    const std::size_t open = text.find("{ ");
    return text.substr(open + 2, text.size() - open - 4);
}

}  // namespace loom::affine
