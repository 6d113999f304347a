// Loom's access to isl: the shared context, conversion of isl failures into Loom errors, and the few
// helpers isl's C++ interface (isl/cpp.h) lacks. Raw isl_* pointers appear only in src/isl/.
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace loom::isl_util {

/// The process-wide isl context (ISL_ON_ERROR_CONTINUE: isl failures surface as isl::exception, which
/// callers convert with `guard`). The engine is single-threaded per process.
isl::ctx ctx();

/// Runs f; an isl failure becomes loom::Error(kind, "<what>: <isl message>").
template <class F>
auto guard(const std::string& kind, const std::string& what, F&& f) -> decltype(f());

/// Parses a domain in isl syntax, declaring as parameters the identifiers it uses that are neither set
/// dimensions nor bound by `exists` (loopy finds parameters automatically). ParseError on bad syntax.
isl::set parse_domain(const std::string& text);
/// Parses a parameter set such as "n >= 1 and n mod 16 = 0" (the `{ : ... }` and parameter list optional).
isl::set parse_assumptions(const std::string& text);

std::vector<std::string> set_dim_names(const isl::set& s);
std::vector<std::string> param_names(const isl::space& s);

/// Aligns a (parameter) set to the parameters of `model` so that the two can be intersected.
isl::set align_params(const isl::set& s, const isl::space& model);

/// `e` as a piecewise affine function on `domain` (its set dims are inames, its params parameters);
/// nullopt when `e` is not quasi-affine (data-dependent, non-constant product, ...).
std::optional<isl::pw_aff> to_pw_aff(const ExprPtr& e, const isl::set& domain);

/// An isl affine expression back as a Loom expression (constant first, as loopy prints bounds).
ExprPtr aff_to_expr(const isl::aff& a);

/// Maximum of set dimension `pos` over `s`, as a function of the parameters.
isl::pw_aff dim_max(const isl::set& s, int pos);
isl::pw_aff dim_min(const isl::set& s, int pos);

/// Projects `s` onto the dimensions named in `keep` (in that order), existentially quantifying the rest.
isl::set project_onto(const isl::set& s, const std::vector<std::string>& keep);

/// The schedule `{ name[domain dims] -> [t_0, ..., t_{n-1}] }` restricted to `domain`: t_k is set dimension
/// `dim_of[k]` of the domain, or the constant `constant[k]` where dim_of[k] < 0.
isl::map schedule_map(const isl::set& domain, const std::string& name, const std::vector<int>& dim_of,
                      const std::vector<long>& constant);

std::string to_str(const isl::set& s);
std::string to_str(const isl::pw_aff& a);

}  // namespace loom::isl_util

#include "isl/isl_guard.inl"
