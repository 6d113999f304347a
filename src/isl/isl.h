// Loom's access to isl: the shared context, conversion of isl failures into Loom errors, and the few
// helpers isl's C++ interface (isl/cpp.h) lacks. Raw isl_* pointers appear only in src/isl/, which knows
// nothing of Loom's expressions (ir/affine.h bridges the two).
#pragma once

#include <isl/cpp.h>

#include <functional>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace loom::isl_util {

/// The process-wide isl context (ISL_ON_ERROR_CONTINUE: isl failures surface as isl::exception, which
/// callers convert with `guard`). The engine is single-threaded per process.
isl::ctx ctx();

/// Runs f; an isl failure becomes loom::Error(kind, "<what>: <isl message>").
template <class F>
auto guard(const std::string& kind, const std::string& what, F&& f) -> decltype(f());

/// The most pieces (isl basic sets) a domain, or a product of domains, may have: each `!=` or `or` can double
/// them, and every product, projection and AST of the kernel slows down with them (loopy's domains are
/// single pieces).
constexpr int kMaxDomainPieces = 64;

/// What isl's reader made of the set `text` within `max_operations` isl operations.
struct SetReading {
    std::optional<isl::set> set;  // none where isl could not read it
    bool over_budget = false;     // it ran out of operations
};
SetReading read_set(const std::string& text, unsigned long max_operations);
/// The first two lines isl prints on failing to read `text` ("syntax error (LINE, COLUMN): WHAT", "got ..."),
/// or its message for running out of `max_operations`; nullopt when they cannot be captured.
std::optional<std::pair<std::string, std::string>> read_set_error(const std::string& text, unsigned long max_operations);
/// Whether set dimension `pos` of `s`, alone (the others projected out), has a lower and an upper bound.
std::pair<bool, bool> dim_has_bounds(const isl::set& s, int pos);

std::vector<std::string> set_dim_names(const isl::set& s);
std::vector<std::string> param_names(const isl::space& s);

/// The parameter set without parameters or constraints (`{ : }`), on which add_params builds.
isl::set params_universe();

/// Aligns a (parameter) set to the parameters of `model` so that the two can be intersected.
isl::set align_params(const isl::set& s, const isl::space& model);

/// `s` with those of `names` that are not yet its parameters added as parameters, after its own.
isl::set add_params(const isl::set& s, const std::vector<std::string>& names);
/// Set dimension or parameter `name` of `domain` as a function on the space of `domain` (defined everywhere
/// there), nullopt where `domain` has no such dimension.
std::optional<isl::pw_aff> var_on_domain(const isl::set& domain, const std::string& name);
/// The constant `v` as a function on the space of `domain` (defined everywhere there).
isl::pw_aff constant_on_domain(const isl::set& domain, long v);
/// Whether `a` is constant (isl_pw_aff_is_cst).
bool is_constant(const isl::pw_aff& a);

/// `a` as a function of the parameters alone (isl_aff_project_domain_on_params): an AST build over the
/// parameters prints only such functions.
isl::aff on_params(const isl::aff& a);
/// The pieces of `a`: each domain with the affine function that `a` is on it.
std::vector<std::pair<isl::set, isl::aff>> pieces(const isl::pw_aff& a);
/// Aligns an affine function to the parameters of `model`.
isl::aff align_params(const isl::aff& a, const isl::space& model);
/// Whether `p` is isl's void point (the sample of an empty set).
bool is_void(const isl::point& p);

/// Turns the set dimensions named in `names` into parameters of the same names.
isl::set dims_to_params(const isl::set& s, const std::vector<std::string>& names);

/// The smallest n such that 0 <= dimension `pos` of `s` < n for all its points, as a function of the
/// parameters, simplified under `context` (a parameter set); 0 where `s` is empty.
isl::pw_aff extent(const isl::set& s, int pos, const isl::set& context);

/// For a one-dimensional set over iname h: the parameter set { h : 0 <= h <= max(h) } (h becomes a
/// parameter). This is what a launch grid guarantees about a hardware index.
isl::set index_box(const isl::set& one_dim);

/// max + 1 of the single dimension of `one_dim` over all parameter values (parameters eliminated);
/// nullopt when unbounded. This is the static size a work-group axis needs.
std::optional<long> static_extent(const isl::set& one_dim);
/// The least and the greatest value of the single dimension of `one_dim` over all parameter values (parameters
/// eliminated); nullopt when unbounded.
std::optional<std::pair<long, long>> range_over_params(const isl::set& one_dim);
/// max - min + 1 of range_over_params. At least as large as the dimension's length for any one value of the
/// parameters.
std::optional<long> span_over_params(const isl::set& one_dim);

/// `v` (not taken) as a long: nullopt where it is no integer (NaN, infinity, a fraction). isl computes with
/// unbounded integers, the generated code with 64 bits: an integer beyond them is a LoopyError naming it.
std::optional<long> long_value(isl_val* v);
/// long_value of an owned value.
inline std::optional<long> long_value(const isl::val& v) { return long_value(v.get()); }

/// Whether `v` is an integer that a long holds (long_value without the error, for isl's C callbacks).
bool fits_long(isl_val* v);

/// The first coefficient of a variable in `s`'s constraints (parameters, set dimensions and divisions; not the
/// constants) that is no long or for which `fits` is false, as text; nullopt when every one fits.
std::optional<std::string> coefficient_not_fitting(const isl::set& s, const std::function<bool(long)>& fits);

/// [lo, hi] where set dimension `pos` of `s` takes every value from lo to hi, both constants, for every point
/// of the other dimensions and parameters of `s` (s is the product of the rest and that range); nullopt
/// otherwise.
std::optional<std::pair<long, long>> independent_range(const isl::set& s, int pos);

/// The parameter set { : lo <= name <= hi }.
isl::set param_range(const std::string& name, long lo, long hi);

/// Maximum of set dimension `pos` over `s`, as a function of the parameters.
isl::pw_aff dim_max(const isl::set& s, int pos);
isl::pw_aff dim_min(const isl::set& s, int pos);
/// The values set dimension `pos` of `s` takes, as a one-dimensional set over the parameters, its pieces
/// merged: a union of shifted boxes (a stencil's accesses) becomes one interval per axis, whose optimum is one
/// small problem instead of one per piece.
isl::set axis_values(const isl::set& s, int pos);
/// Whether `s` has no constraints (isl's plain check: no emptiness or redundancy test).
bool plain_is_universe(const isl::set& s);
/// Whether an inequality of `s` bounds one of its set dimensions, scaled by more than 1, by one of the
/// parameters `params` (a loop bound isl derives from it divides an expression of the parameter: a fetch loop
/// split by the work-group size, bounded per work-item, costs isl's AST generator milliseconds), and no
/// equality ties one of them to a set dimension (a loop that one value of the parameter fixes).
bool scaled_against_params(const isl::set& s, const std::vector<std::string>& params);
/// Whether set dimension `pos` of `s` has a lower bound (dim_min needs one).
bool has_lower_bound(const isl::set& s, int pos);

/// Projects `s` onto the dimensions named in `keep` (in that order), existentially quantifying the rest.
isl::set project_onto(const isl::set& s, const std::vector<std::string>& keep);

/// `s` as sets over groups of its set dimensions that no constraint relates, directly or through
/// existentially quantified variables (a domain after split_iname: the i inames, the j inames, ...). Their
/// intersection, each extended by the other dimensions, is `s`; each keeps the constraints on the
/// parameters alone. isl's operations cost with every constraint they consider at once, so a projection is
/// much cheaper on the groups it keeps. `{s}` when `s` is a union of several basic sets.
std::vector<isl::set> independent_factors(const isl::set& s);

/// An isl identifier named `name` as it is (isl::id's constructor parses the text: "i#3" would become "i").
isl::id named_id(const std::string& name);
/// `first`, then `second` (schedule trees with disjoint statements).
isl::schedule sequence(const isl::schedule& first, const isl::schedule& second);
/// `body` inside a band whose one dimension `times` gives for every statement instance.
isl::schedule insert_band(const isl::schedule& body, const isl::union_map& times);

/// The schedule `{ name[domain dims] -> [t_0, ..., t_{n-1}] }` restricted to `domain`: t_k is set dimension
/// `dim_of[k]` of the domain, or the constant `constant[k]` where dim_of[k] < 0.
isl::map schedule_map(const isl::set& domain, const std::string& name, const std::vector<int>& dim_of,
                      const std::vector<long>& constant);

/// `s` as the relation from its first `n_in` set dimensions to the others.
isl::map as_relation(const isl::set& s, int n_in);

/// The range of an access relation as elements of `array`: its tuple named `array`, its dimensions unnamed
/// (isl prints them i0, i1, ...), so that the elements of all accesses to `array` share one space.
isl::set as_elements(const isl::set& range, const std::string& array);

/// The most existentially quantified variables (divs) a disjunct of `s` has.
int existentials(const isl::set& s);
/// `s` with its existentially quantified variables eliminated (isl_set_remove_divs, loopy's
/// Set.remove_divs): a superset that has lost its strides.
isl::set remove_divs(const isl::set& s);

/// Relation helpers addressing dimensions by name: `in` is an input dimension, `out` an output one.
enum class DimOrder { Equal, Less, Greater };
isl::map constrain_dims(const isl::map& m, const std::string& in, const std::string& out, DimOrder order);
/// { a -> b : a R c and b S c }: pairs of instances that touch a common element.
isl::map touching_pairs(const isl::map& a, const isl::map& b);
/// The union, each operand first given the parameters of the other.
isl::map unite(const isl::map& a, const isl::map& b);
isl::set unite(const isl::set& a, const isl::set& b);
/// The basic maps (disjuncts) of `m`, each as a map.
std::vector<isl::map> basic_maps(const isl::map& m);

/// Whether the relation is empty.
bool is_empty(const isl::map& m);

/// The points of `s` at least `distance` above (`above`) or below some point of `s` that agrees with them in
/// every other set dimension, along set dimension `pos`: with distance h, the points past the first h values
/// of that dimension (slabs of split_iname).
isl::set beyond(const isl::set& s, int pos, int distance, bool above);

// --- Sets edited by dimension name (the iname transformations). A name is a set dimension or a parameter.

/// Whether `name` is a set dimension or a parameter of `s`.
bool has_dim(const isl::set& s, const std::string& name);
bool is_param(const isl::set& s, const std::string& name);
/// The position of set dimension `name` of `s`, or -1.
int set_dim_position(const isl::set& s, const std::string& name);

/// The points of the space of `s` outside it.
isl::set complement(const isl::set& s);

/// The larger of `a` and `b` where both are defined, the one defined elsewhere (parameters aligned).
isl::pw_aff union_max(const isl::pw_aff& a, const isl::pw_aff& b);
/// `a` plus the constant `c`, and `a` times the constant `factor`, where `a` is defined.
isl::pw_aff add_constant(const isl::pw_aff& a, long c);
isl::pw_aff scale(const isl::pw_aff& a, long factor);

/// `s` with new unconstrained dimensions `names`: set dimensions appended, or parameters where `as_params`.
isl::set add_named_dims(const isl::set& s, const std::vector<std::string>& names, bool as_params);
/// `s` with a new set dimension `name` at position `pos` (unconstrained).
isl::set insert_named_dim(const isl::set& s, int pos, const std::string& name);

/// The number of values of set dimension `pos` of `s` from its minimum to its maximum, as a function of
/// the parameters.
isl::pw_aff dim_size(const isl::set& s, int pos);

/// How a constraint compares a function d to 0: `d = 0`, `d >= 0` or `d > 0`.
enum class Sign { Zero, NonNegative, Positive };
/// Where `d` has `sign`.
isl::set sign_set(const isl::pw_aff& d, Sign sign);
/// `s` intersected with sign_set(d, sign), `d` being on the space of `s`. Where `d` is one affine function
/// without divisions, its constraint goes into every disjunct of `s` without isl's emptiness test of each (an
/// ILP): a disjunct it empties without isl noticing stays, and every later isl operation treats it as empty.
isl::set constrain(const isl::set& s, const isl::pw_aff& d, Sign sign);
/// s.intersect_params(params) and isl_set_flat_product(a, b) without isl's emptiness test of every
/// disjunct (an ILP each): a disjunct that is empty without isl noticing may stay.
isl::set plain_intersect_params(const isl::set& s, const isl::set& params);
isl::set plain_flat_product(const isl::set& a, const isl::set& b);

/// Whether set dimension `name` of `s` takes every value that `range` (a parameter set with a parameter
/// `name`) allows, whatever values the other dimensions take: `s` constrains it no further.
bool spans(const isl::set& s, const std::string& name, const isl::set& range);

/// `s` with the named dimensions (set or parameter) projected out; names `s` lacks are ignored.
isl::set project_out(const isl::set& s, const std::vector<std::string>& names);

/// `s` with each parameter that has the name of a set dimension identified with that dimension and then
/// dropped: how a nested domain's bounds refer to the inames of the domains around it.
isl::set bind_params_to_dims(const isl::set& s);

/// `s` without constraints on the named set dimension or parameter (the dimension stays, unbounded).
isl::set eliminate_dim(const isl::set& s, const std::string& name);

/// `s` with set dimension or parameter `from` renamed `to`.
isl::set rename_dim(const isl::set& s, const std::string& from, const std::string& to);

/// `s` with a new set dimension `copy`, right after set dimension `original`, bounded exactly like it but
/// independent of it (loopy's duplicate_axes).
isl::set duplicate_dim(const isl::set& s, const std::string& original, const std::string& copy);

/// `s` with the set dimension or parameter `name` fixed to `value` and projected out.
isl::set fix_dim(const isl::set& s, const std::string& name, long value);

/// The largest value `a` takes where the parameter set `context` holds; nullopt when unbounded or empty.
std::optional<long> static_max(const isl::pw_aff& a, const isl::set& context);

std::string to_str(const isl::set& s);
std::string to_str(const isl::pw_aff& a);

}  // namespace loom::isl_util

#include "isl/isl_guard.inl"
