// The bridge between Loom's expressions and isl: quasi-affine expressions as isl functions, constraints and
// access relations, and isl's functions and sets printed back as expressions (through isl's AST generator,
// as loopy prints bounds). Built on isl's C++ interface and the helpers of src/isl, which knows nothing of
// expressions.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "expr/expr.h"

namespace loom::affine {

/// `e` as a piecewise affine function on `domain` (its set dims are inames, its params parameters);
/// nullopt when `e` is not quasi-affine (data-dependent, non-constant product, ...).
std::optional<isl::pw_aff> to_pw_aff(const ExprPtr& e, const isl::set& domain);

/// An isl affine expression back as a Loom expression (constant first, as loopy prints bounds).
ExprPtr aff_to_expr(const isl::aff& a);

/// A piecewise affine function as one expression (pieces become conditionals), valid where `context` holds.
ExprPtr pw_aff_to_expr(const isl::pw_aff& a, const isl::set& context);

/// `a` simplified under the parameter set `context` as one expression; nullopt when it keeps several pieces.
std::optional<ExprPtr> single_piece_expr(const isl::pw_aff& a, const isl::set& context);

/// The piece of `a` that is at least every other piece wherever `a` is defined under `context` (constants
/// tried first), as loopy's static_max_of_pw_aff picks a shape from a piecewise extent; nullopt if none is.
/// Quadratic in the number of pieces at worst, but a candidate costs integer programs only once it has held
/// at one point of every piece.
std::optional<ExprPtr> dominating_piece_expr(const isl::pw_aff& a, const isl::set& context);

/// `s` intersected with `lhs rel rhs` (rel: Eq, Le, Lt, Ge or Gt), both quasi-affine in the dimensions and
/// parameters of `s`; other names they use become parameters.
isl::set add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs);

/// add_constraint, or nullopt where a side is not quasi-affine.
std::optional<isl::set> try_add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs);

/// The relation { instance of `domain` -> [indices...] }. An index that is not quasi-affine leaves its axis
/// unconstrained (any element may be touched), which keeps analyses based on it conservative.
isl::map access_map(const isl::set& domain, const std::vector<ExprPtr>& indices);
/// The access relation when every index is quasi-affine (names other than set dimensions taken as parameters),
/// nullopt otherwise.
std::optional<isl::map> exact_access_map(const isl::set& domain, const std::vector<ExprPtr>& indices);

/// The parameter set where `cond` holds: comparisons of quasi-affine expressions (a side may be a `min` or
/// `max` of them, as isl's loop bounds are) joined by `and`/`or`, every name a parameter. nullopt for any
/// other condition.
std::optional<isl::set> condition_set(const ExprPtr& cond);
/// The parameter set where the predicate `cond` holds as C reads it: condition_set's comparisons, `not` of a
/// predicate, and a number, which holds where it is not 0 (`x[i-1] if i else 0`). nullopt for any other.
std::optional<isl::set> predicate_set(const ExprPtr& cond);

/// The parameter set `s` as one condition, as isl's AST generator writes guards, simplified where the
/// parameter set `context` holds.
ExprPtr condition_expr(const isl::set& s, const isl::set& context);

/// One axis of a box: the elements offset <= x < offset + size.
struct BoxAxis {
    ExprPtr offset;  // affine in the parameters of the boxed set
    long size = 0;
};

/// isl's simple fixed box hull of `s` (isl_util::fixed_box_hull) with its offsets as expressions.
std::optional<std::vector<BoxAxis>> fixed_box_hull(const isl::set& s);

/// `e`, a polynomial in the names it uses, as isl prints it over those names sorted (`ell * m`, `128`);
/// nullopt when `e` is no polynomial (a division, a call, ...). Equal polynomials give equal text.
std::optional<std::string> polynomial_text(const ExprPtr& e);

}  // namespace loom::affine
