#include "isl/isl.h"
#include "isl/budget.h"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/mat.h>
#include <isl/options.h>
#include <isl/point.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/space.h>
#include <isl/stream.h>
#include <isl/map.h>
#include <isl/local_space.h>
#include <isl/val.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include <unistd.h>

#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom::isl_util {

isl::ctx ctx() {
    // Never freed: kernels alive until exit hold objects of this context.
    static isl_ctx* const c = [] {
        isl_ctx* raw = isl_ctx_alloc();
        isl_options_set_on_error(raw, ISL_ON_ERROR_CONTINUE);
        // A deadline, or memory past the cap, stops an isl computation in progress: isl_ctx_abort, made to be
        // called from another thread or a signal handler, fails every isl step after it until isl_ctx_resume,
        // when the limits go; the run's LimitError or MemoryError follows.
        set_work_interrupt({[] { isl_ctx_abort(ctx().get()); },
                                [] {
                                    isl_ctx_resume(ctx().get());
                                    isl_ctx_reset_error(ctx().get());
                                }});
        return raw;
    }();
    return isl::ctx(c);
}

namespace {

struct FreeSet {
    void operator()(isl_set* s) const { isl_set_free(s); }
};
using OwnedSet = std::unique_ptr<isl_set, FreeSet>;  // which may be null, unlike an isl::set

// isl_set_read_from_str without its leak: on some malformed texts (`{ exists{`) isl's reader stops with
// several tokens pushed back on its stream, and isl_stream_free frees only the first of them (isl 0.25).
// Null where isl could not read the text.
isl_set* raw_read_set(const std::string& text) {
    isl_stream* stream = isl_stream_new_str(ctx().get(), text.c_str());
    if (!stream) return nullptr;
    isl_set* out = isl_stream_read_set(stream);
    isl_stream_flush_tokens(stream);
    isl_stream_free(stream);
    return out;
}

// Where `name` lives in `s`: (isl_dim_set or isl_dim_param, position), or position -1.
std::pair<isl_dim_type, int> find_dim(isl_set* s, const std::string& name) {
    const int pos = isl_set_find_dim_by_name(s, isl_dim_set, name.c_str());
    if (pos >= 0) return {isl_dim_set, pos};
    return {isl_dim_param, isl_set_find_dim_by_name(s, isl_dim_param, name.c_str())};
}

}  // namespace

// isl says where a syntax error is only on stderr, and only when asked to warn: the text is parsed once more
// with stderr captured. Where the reading runs out of its budget, isl's message for that comes first: the
// reader may go on to report a syntax error of its own (and last), but prints it later.
std::optional<std::pair<std::string, std::string>> read_set_error(const std::string& text, unsigned long max_operations) {
    std::fflush(stderr);
    FILE* capture = std::tmpfile();
    if (!capture) return std::nullopt;
    const int saved = dup(fileno(stderr));
    dup2(fileno(capture), fileno(stderr));
    isl_options_set_on_error(ctx().get(), ISL_ON_ERROR_WARN);
    within_operations(max_operations, [&] { return OwnedSet(raw_read_set(text)); });
    isl_options_set_on_error(ctx().get(), ISL_ON_ERROR_CONTINUE);
    std::fflush(stderr);
    dup2(saved, fileno(stderr));
    close(saved);
    std::rewind(capture);
    std::string lines[2];
    char buf[512];
    for (std::string& line : lines)
        if (std::fgets(buf, sizeof buf, capture)) line = trim(buf);
    std::fclose(capture);
    return std::make_pair(lines[0], lines[1]);
}

SetReading read_set(const std::string& text, unsigned long max_operations) {
    std::optional<OwnedSet> read = within_operations(max_operations, [&] { return OwnedSet(raw_read_set(text)); });
    if (!read) return {std::nullopt, true};
    if (!*read) return {std::nullopt, false};
    return {isl::manage(read->release()), false};
}

std::pair<bool, bool> dim_has_bounds(const isl::set& s, int pos) {
    const unsigned n = static_cast<unsigned>(isl_set_dim(s.get(), isl_dim_set));
    const auto p = static_cast<unsigned>(pos);
    isl_set* alone = isl_set_project_out(s.copy(), isl_dim_set, p + 1, n - p - 1);
    alone = isl_set_project_out(alone, isl_dim_set, 0, p);
    const bool lower = isl_set_dim_has_lower_bound(alone, isl_dim_set, 0) == isl_bool_true;
    const bool upper = isl_set_dim_has_upper_bound(alone, isl_dim_set, 0) == isl_bool_true;
    isl_set_free(alone);
    return {lower, upper};
}


std::vector<std::string> set_dim_names(const isl::set& s) {
    std::vector<std::string> out;
    const int n = static_cast<int>(s.tuple_dim());
    for (int i = 0; i < n; ++i) {
        const char* name = isl_set_get_dim_name(s.get(), isl_dim_set, i);
        out.emplace_back(name ? name : "");
    }
    return out;
}

std::vector<std::string> param_names(const isl::space& s) {
    std::vector<std::string> out;
    const int n = isl_space_dim(s.get(), isl_dim_param);
    for (int i = 0; i < n; ++i) out.emplace_back(isl_space_get_dim_name(s.get(), isl_dim_param, i));
    return out;
}

isl::set params_universe() { return isl::manage(isl_set_universe(isl_space_params_alloc(ctx().get(), 0))); }

isl::set align_params(const isl::set& s, const isl::space& model) {
    return isl::manage(isl_set_align_params(s.copy(), isl_space_params(model.copy())));
}

isl::set add_params(const isl::set& s, const std::vector<std::string>& names) {
    isl_space* sp = isl_space_params(isl_set_get_space(s.get()));
    for (const std::string& n : names) {
        if (isl_space_find_dim_by_name(sp, isl_dim_param, n.c_str()) >= 0) continue;
        const int pos = isl_space_dim(sp, isl_dim_param);
        sp = isl_space_add_dims(sp, isl_dim_param, 1);
        sp = isl_space_set_dim_name(sp, isl_dim_param, pos, n.c_str());
    }
    return isl::manage(isl_set_align_params(s.copy(), sp));
}

std::optional<isl::pw_aff> var_on_domain(const isl::set& domain, const std::string& name) {
    const auto [type, pos] = find_dim(domain.get(), name);
    if (pos < 0) return std::nullopt;
    isl_local_space* ls = isl_local_space_from_space(isl_set_get_space(domain.get()));
    return isl::manage(isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, type, static_cast<unsigned>(pos))));
}

isl::pw_aff constant_on_domain(const isl::set& domain, long v) {
    isl_local_space* ls = isl_local_space_from_space(isl_set_get_space(domain.get()));
    return isl::manage(isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, isl_val_int_from_si(ctx().get(), v))));
}

bool is_constant(const isl::pw_aff& a) { return isl_pw_aff_is_cst(a.get()) == isl_bool_true; }

isl::aff on_params(const isl::aff& a) { return isl::manage(isl_aff_project_domain_on_params(a.copy())); }

isl::set dims_to_params(const isl::set& s, const std::vector<std::string>& names) {
    isl_set* cur = s.copy();
    for (const std::string& n : names) {
        const int pos = isl_set_find_dim_by_name(cur, isl_dim_set, n.c_str());
        if (pos < 0) continue;
        const int np = isl_set_dim(cur, isl_dim_param);
        cur = isl_set_move_dims(cur, isl_dim_param, static_cast<unsigned>(np), isl_dim_set, static_cast<unsigned>(pos), 1);
    }
    return isl::manage(cur);
}

namespace {

// One piece's formula when it gives the value of `pw` everywhere on pw's domain (isl's coalescing keeps
// e.g. the n = 0 piece of floor((127 + n)/128) apart); otherwise `pw` itself.
isl_pw_aff* single_piece_if_equal(isl_pw_aff* pw) {
    struct Search {
        isl_pw_aff* whole;
        isl_pw_aff* found = nullptr;
    } search{pw};
    isl_pw_aff_foreach_piece(
        pw,
        [](isl_set* piece, isl_aff* aff, void* user) {
            auto* s = static_cast<Search*>(user);
            isl_set_free(piece);
            isl_pw_aff* candidate = isl_pw_aff_intersect_domain(isl_pw_aff_from_aff(aff), isl_set_coalesce(isl_pw_aff_domain(isl_pw_aff_copy(s->whole))));
            if (!s->found && isl_pw_aff_is_equal(candidate, s->whole) == isl_bool_true) {
                s->found = candidate;
                return isl_stat_error;  // stops the walk
            }
            isl_pw_aff_free(candidate);
            return isl_stat_ok;
        },
        &search);
    if (!search.found) return pw;
    isl_pw_aff_free(pw);
    return search.found;
}

}  // namespace

isl::pw_aff extent(const isl::set& s, int pos, const isl::set& context) {
    isl_pw_aff* max = isl_set_dim_max(s.copy(), pos);
    isl_pw_aff* one = isl_pw_aff_val_on_domain(isl_pw_aff_domain(isl_pw_aff_copy(max)), isl_val_one(isl_set_get_ctx(s.get())));
    isl_pw_aff* size = isl_pw_aff_add(max, one);
    // Where the set is empty the extent is 0; that piece folds into the formula when the formula gives 0 there.
    isl_set* params = isl_set_align_params(context.copy(), isl_pw_aff_get_space(size));
    isl_pw_aff* zero = isl_pw_aff_zero_on_domain(isl_local_space_from_space(isl_set_get_space(params)));
    zero = isl_pw_aff_intersect_domain(zero, isl_set_copy(params));
    size = isl_pw_aff_union_max(size, zero);
    size = isl_pw_aff_coalesce(isl_pw_aff_gist_params(size, isl_set_copy(params)));
    return isl::manage(isl_pw_aff_gist_params(single_piece_if_equal(size), params));
}

isl::set index_box(const isl::set& one_dim) {
    internal_assert(isl_set_dim(one_dim.get(), isl_dim_set) == 1, "index_box needs a one-dimensional set");
    // { h : exists h' in one_dim with h <= h' } and h >= 0.
    isl_map* le = isl_map_lex_le(isl_set_get_space(one_dim.get()));
    isl_set* below = isl_map_domain(isl_map_intersect_range(le, one_dim.copy()));
    below = isl_set_lower_bound_si(below, isl_dim_set, 0, 0);
    const std::string name = isl_set_get_dim_name(one_dim.get(), isl_dim_set, 0);
    const isl::set moved = dims_to_params(isl::manage(isl_set_coalesce(below)), {name});
    return isl::manage(isl_set_params(moved.copy()));
}

namespace {

std::string val_text(isl_val* v) {
    char* text = isl_val_to_str(v);
    const std::string out = text ? text : "?";
    std::free(text);
    return out;
}

// The first coefficient of constraint matrix `m` (taken) that is no long or that `fits` refuses, as text.
std::optional<std::string> coefficient_not_fitting(isl_mat* m, const std::function<bool(long)>& fits) {
    std::optional<std::string> found;
    const isl_size rows = isl_mat_rows(m), cols = isl_mat_cols(m);
    for (isl_size r = 0; r < rows && !found; ++r)
        for (isl_size c = 1; c < cols && !found; ++c) {  // column 0 holds the constants
            const isl::val v = isl::manage(isl_mat_get_element_val(m, r, c));
            if (!fits_long(v.get()) || !fits(isl_val_get_num_si(v.get()))) found = val_text(v.get());
        }
    isl_mat_free(m);
    return found;
}

}  // namespace

std::optional<std::string> coefficient_not_fitting(const isl::set& s, const std::function<bool(long)>& fits) {
    std::optional<std::string> found;
    isl_basic_set_list* list = isl_set_get_basic_set_list(s.get());
    for (int i = 0, n = isl_basic_set_list_n_basic_set(list); i < n && !found; ++i) {
        const isl::basic_set b = isl::manage(isl_basic_set_list_get_basic_set(list, i));
        found = coefficient_not_fitting(isl_basic_set_equalities_matrix(b.get(), isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div), fits);
        if (!found)
            found = coefficient_not_fitting(isl_basic_set_inequalities_matrix(b.get(), isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div), fits);
    }
    isl_basic_set_list_free(list);
    return found;
}

bool fits_long(isl_val* v) {
    if (!v || isl_val_is_int(v) != isl_bool_true) return false;
    // One 64-bit chunk below 2^63 in magnitude (isl_val_get_num_si would wrap silently).
    std::uint64_t chunk = 0;
    return isl_val_n_abs_num_chunks(v, sizeof chunk) <= 1 &&
           isl_val_get_abs_num_chunks(v, sizeof chunk, &chunk) == isl_stat_ok &&
           chunk <= static_cast<std::uint64_t>(std::numeric_limits<long>::max());
}

std::optional<long> long_value(isl_val* v) {
    if (!v || isl_val_is_int(v) != isl_bool_true) return std::nullopt;
    if (!fits_long(v)) throw Error(error_kind::LoopyError, cat("the integer ", val_text(v), " does not fit in 64 bits"));
    return isl_val_get_num_si(v);
}

std::optional<long> static_extent(const isl::set& one_dim) {
    const std::optional<long> top = long_value(one_dim.project_out_all_params().dim_max_val(0));
    if (!top) return std::nullopt;
    return *top + 1;
}

std::optional<std::pair<long, long>> range_over_params(const isl::set& one_dim) {
    const isl::set alone = one_dim.project_out_all_params();
    const std::optional<long> lo = long_value(alone.dim_min_val(0)), hi = long_value(alone.dim_max_val(0));
    if (!lo || !hi) return std::nullopt;
    return std::pair{*lo, *hi};
}

std::optional<long> span_over_params(const isl::set& one_dim) {
    const std::optional<std::pair<long, long>> range = range_over_params(one_dim);
    if (!range) return std::nullopt;
    return range->second - range->first + 1;
}

isl::set param_range(const std::string& name, long lo, long hi) {
    isl_space* sp = isl_space_params_alloc(ctx().get(), 1);
    sp = isl_space_set_dim_name(sp, isl_dim_param, 0, name.c_str());
    isl_set* s = isl_set_universe(sp);
    // The _val forms: the _si ones take an int.
    s = isl_set_lower_bound_val(s, isl_dim_param, 0, isl_val_int_from_si(ctx().get(), lo));
    s = isl_set_upper_bound_val(s, isl_dim_param, 0, isl_val_int_from_si(ctx().get(), hi));
    return isl::manage(s);
}

namespace {

// isl's optimum of a dimension it finds unbounded is no value: a typed error naming the dimension, whatever
// transformation or analysis asked (an iname no instruction runs in may be unbounded). A computation stopped
// by an operation budget (budget.h) stays isl's quota error.
isl::pw_aff optimum(isl_pw_aff* found, const isl::set& s, int pos, const char* side) {
    if (!found && isl_ctx_last_error(ctx().get()) != isl_error_quota) {
        isl_ctx_reset_error(ctx().get());
        const std::vector<std::string> names = set_dim_names(s);
        const std::string name = static_cast<std::size_t>(pos) < names.size() ? names[pos] : std::to_string(pos);
        throw Error(error_kind::StaticValueFindingError, cat("'", name, "' has no ", side, " bound in ", to_str(s)));
    }
    return isl::manage(found);
}

}  // namespace

isl::pw_aff dim_max(const isl::set& s, int pos) { return optimum(isl_set_dim_max(s.copy(), pos), s, pos, "upper"); }
isl::pw_aff dim_min(const isl::set& s, int pos) { return optimum(isl_set_dim_min(s.copy(), pos), s, pos, "lower"); }

namespace {

struct ScaledSearch {
    std::vector<int> params;  // positions of the parameters searched for
    bool scaled = false;      // an inequality bounds a set dimension scaled by more than 1 by one of them
    bool equated = false;     // an equality relates one of them to a set dimension
};

isl_stat scaled_constraint(isl_constraint* c, void* user) {
    ScaledSearch& t = *static_cast<ScaledSearch*>(user);
    const bool by_param = std::any_of(t.params.begin(), t.params.end(), [c](int p) {
        return isl_constraint_involves_dims(c, isl_dim_param, static_cast<unsigned>(p), 1) == isl_bool_true;
    });
    const bool equality = isl_constraint_is_equality(c) == isl_bool_true;
    for (int d = 0; by_param && d < isl_constraint_dim(c, isl_dim_set); ++d) {
        isl_val* a = isl_val_abs(isl_constraint_get_coefficient_val(c, isl_dim_set, d));
        if (equality) t.equated = t.equated || isl_val_is_zero(a) != isl_bool_true;
        else t.scaled = t.scaled || isl_val_cmp_si(a, 1) > 0;
        isl_val_free(a);
    }
    isl_constraint_free(c);
    return isl_stat_ok;
}

isl_stat scaled_basic_set(isl_basic_set* b, void* user) {
    isl_basic_set_foreach_constraint(b, scaled_constraint, user);
    isl_basic_set_free(b);
    return isl_stat_ok;
}

}  // namespace

bool plain_is_universe(const isl::set& s) { return isl_set_plain_is_universe(s.get()) == isl_bool_true; }

bool scaled_against_params(const isl::set& s, const std::vector<std::string>& params) {
    ScaledSearch search;
    for (const std::string& p : params)
        if (const int at = isl_set_find_dim_by_name(s.get(), isl_dim_param, p.c_str()); at >= 0) search.params.push_back(at);
    if (!search.params.empty()) isl_set_foreach_basic_set(s.get(), scaled_basic_set, &search);
    return search.scaled && !search.equated;
}

isl::set axis_values(const isl::set& s, int pos) {
    const unsigned n = static_cast<unsigned>(isl_set_dim(s.get(), isl_dim_set)), at = static_cast<unsigned>(pos);
    isl_set* cur = isl_set_project_out(s.copy(), isl_dim_set, at + 1, n - at - 1);
    return isl::manage(isl_set_coalesce(isl_set_project_out(cur, isl_dim_set, 0, at)));
}
bool has_lower_bound(const isl::set& s, int pos) {
    return isl_set_dim_has_lower_bound(s.get(), isl_dim_set, static_cast<unsigned>(pos)) == isl_bool_true;
}

namespace {

// Union-find over the set dimensions and the existentially quantified variables (divs) of a basic set.
class Relatedness {
public:
    explicit Relatedness(int n) : parent_(static_cast<std::size_t>(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
    int root(int x) {
        int& parent = parent_[static_cast<std::size_t>(x)];
        return parent == x ? x : parent = root(parent);
    }
    void relate(int a, int b) { parent_[static_cast<std::size_t>(root(a))] = root(b); }

private:
    std::vector<int> parent_;
};

// Relates in `related` the variables of a basic set with `n` dimensions and `n_div` divs (dimensions first,
// then divs) that `involves(type, position)` says one constraint or div definition mentions; returns one of
// them, -1 for none.
template <class F>
int relate_involved(Relatedness& related, int n, int n_div, const F& involves) {
    int first = -1;
    for (int v = 0; v < n + n_div; ++v) {
        const bool dim = v < n;
        if (!involves(dim ? isl_dim_set : isl_dim_div, static_cast<unsigned>(dim ? v : v - n))) continue;
        if (first < 0) first = v;
        else related.relate(v, first);
    }
    return first;
}

// For each set dimension of `bs` and then each div, the representative of its group: variables that a
// constraint relates, directly or through divs (their constraints and definitions), share one.
std::vector<int> variable_groups(isl_basic_set* bs) {
    struct Walk {
        Relatedness related;
        int n, n_div;
    };
    const int n = isl_basic_set_dim(bs, isl_dim_set), n_div = isl_basic_set_dim(bs, isl_dim_div);
    Walk walk{Relatedness(n + n_div), n, n_div};
    isl_basic_set_foreach_constraint(
        bs,
        [](isl_constraint* c, void* user) {
            Walk& w = *static_cast<Walk*>(user);
            relate_involved(w.related, w.n, w.n_div, [&](isl_dim_type type, unsigned pos) {
                return isl_constraint_involves_dims(c, type, pos, 1) == isl_bool_true;
            });
            isl_constraint_free(c);
            return isl_stat_ok;
        },
        &walk);
    for (int j = 0; j < n_div; ++j) {
        isl_aff* definition = isl_basic_set_get_div(bs, j);
        const int first = relate_involved(walk.related, n, n_div, [&](isl_dim_type type, unsigned pos) {
            return isl_aff_involves_dims(definition, type == isl_dim_set ? isl_dim_in : type, pos, 1) == isl_bool_true;
        });
        if (first >= 0) walk.related.relate(n + j, first);
        isl_aff_free(definition);
    }
    std::vector<int> out;
    for (int v = 0; v < n + n_div; ++v) out.push_back(walk.related.root(v));
    return out;
}

// The rows of `m` (constraints over the columns constant, parameters, variables) whose coefficients of the
// variables outside `keep` are all zero, restricted to the constant, the parameters and the kept variables.
isl_mat* kept_constraints(isl_mat* m, unsigned params, const std::vector<bool>& keep) {
    for (int r = isl_mat_rows(m) - 1; r >= 0; --r)
        for (unsigned v = 0; v < keep.size(); ++v) {
            if (keep[v]) continue;
            isl_val* x = isl_mat_get_element_val(m, r, static_cast<int>(1 + params + v));
            const bool zero = isl_val_is_zero(x) == isl_bool_true;
            isl_val_free(x);
            if (!zero) {
                m = isl_mat_drop_rows(m, static_cast<unsigned>(r), 1);
                break;
            }
        }
    for (unsigned v = static_cast<unsigned>(keep.size()); v-- > 0;)
        if (!keep[v]) m = isl_mat_drop_cols(m, 1 + params + v, 1);
    return m;
}

// The factor of `bs` over the set dimensions of group `wanted` (`groups` from variable_groups). No constraint
// relates the other groups to it, so it is the basic set without their constraints and columns: made from
// the constraint matrices, as isl's own dropping of constraints eliminates the divs it removes (Fourier-Motzkin,
// which a few prefetch footprints make take minutes).
isl_set* only_group(isl_basic_set* bs, const std::vector<int>& groups, int wanted) {
    const unsigned params = static_cast<unsigned>(isl_basic_set_dim(bs, isl_dim_param));
    const unsigned n = static_cast<unsigned>(isl_basic_set_dim(bs, isl_dim_set));
    // Divs in no group of a set dimension only bound the parameters: every factor keeps them.
    const std::set<int> dimension_groups(groups.begin(), groups.begin() + n);
    std::vector<bool> keep;
    for (int g : groups) keep.push_back(g == wanted || !dimension_groups.count(g));
    isl_space* space = isl_basic_set_get_space(bs);
    for (unsigned v = n; v-- > 0;)
        if (!keep[v]) space = isl_space_drop_dims(space, isl_dim_set, v, 1);
    const auto matrix = [&](auto of) {
        return kept_constraints(of(bs, isl_dim_cst, isl_dim_param, isl_dim_set, isl_dim_div), params, keep);
    };
    return isl_set_from_basic_set(isl_basic_set_from_constraint_matrices(
        space, matrix(isl_basic_set_equalities_matrix), matrix(isl_basic_set_inequalities_matrix), isl_dim_cst,
        isl_dim_param, isl_dim_set, isl_dim_div));
}

}  // namespace

std::vector<isl::set> independent_factors(const isl::set& s) {
    if (isl_set_n_basic_set(s.get()) != 1 || isl_set_dim(s.get(), isl_dim_set) == 0) return {s};
    isl_basic_set_list* list = isl_set_get_basic_set_list(s.get());
    isl_basic_set* bs = isl_basic_set_list_get_basic_set(list, 0);
    isl_basic_set_list_free(list);
    const std::vector<int> groups = variable_groups(bs);
    const std::size_t n = static_cast<std::size_t>(isl_basic_set_dim(bs, isl_dim_set));
    std::vector<isl::set> out;
    std::set<int> seen;
    for (std::size_t i = 0; i < n; ++i)
        if (seen.insert(groups[i]).second) out.push_back(isl::manage(only_group(bs, groups, groups[i])));
    isl_basic_set_free(bs);
    return out;
}

isl::set project_onto(const isl::set& s, const std::vector<std::string>& keep) {
    isl_set* cur = s.copy();
    // The kept dimensions first, in `keep`'s order, each moved through the parameters: moving dimensions
    // renumbers the constraints without the simplification that applying a permutation map costs. The rest
    // then goes in one projection, which isl does faster than one dimension at a time.
    const unsigned params = static_cast<unsigned>(isl_set_dim(cur, isl_dim_param));
    unsigned kept = 0;
    for (const std::string& k : keep) {
        const int from = isl_set_find_dim_by_name(cur, isl_dim_set, k.c_str());
        if (from < 0 || from < static_cast<int>(kept)) continue;
        if (from != static_cast<int>(kept)) {
            cur = isl_set_move_dims(cur, isl_dim_param, params, isl_dim_set, static_cast<unsigned>(from), 1);
            cur = isl_set_move_dims(cur, isl_dim_set, kept, isl_dim_param, params, 1);
        }
        ++kept;
    }
    const unsigned n = static_cast<unsigned>(isl_set_dim(cur, isl_dim_set));
    if (n > kept) cur = isl_set_project_out(cur, isl_dim_set, kept, n - kept);
    return isl::manage(cur);
}

isl::id named_id(const std::string& name) { return isl::manage(isl_id_alloc(ctx().get(), name.c_str(), nullptr)); }

isl::schedule sequence(const isl::schedule& first, const isl::schedule& second) {
    return isl::manage(isl_schedule_sequence(first.copy(), second.copy()));
}

isl::schedule insert_band(const isl::schedule& body, const isl::union_map& times) {
    return isl::manage(isl_schedule_insert_partial_schedule(body.copy(), isl_multi_union_pw_aff_from_union_map(times.copy())));
}

isl::map schedule_map(const isl::set& domain, const std::string& name, const std::vector<int>& dim_of,
                      const std::vector<long>& constant) {
    isl_set* dom = isl_set_set_tuple_name(domain.copy(), name.c_str());
    isl_space* range = isl_space_set_alloc(isl_set_get_ctx(dom), 0, static_cast<unsigned>(dim_of.size()));
    isl_space* sp = isl_space_map_from_domain_and_range(isl_set_get_space(dom), isl_space_align_params(range, isl_set_get_space(dom)));
    isl_local_space* ls = isl_local_space_from_space(isl_space_domain(isl_space_copy(sp)));
    isl_multi_aff* ma = isl_multi_aff_zero(sp);
    for (std::size_t k = 0; k < dim_of.size(); ++k) {
        isl_aff* a = dim_of[k] >= 0
                         ? isl_aff_var_on_domain(isl_local_space_copy(ls), isl_dim_set, static_cast<unsigned>(dim_of[k]))
                         : isl_aff_val_on_domain(isl_local_space_copy(ls), isl_val_int_from_si(isl_set_get_ctx(dom), constant[k]));
        ma = isl_multi_aff_set_aff(ma, static_cast<int>(k), a);
    }
    isl_local_space_free(ls);
    return isl::manage(isl_map_intersect_domain(isl_map_from_multi_aff(ma), dom));
}

isl::map as_relation(const isl::set& s, int n_in) {
    isl_map* m = isl_map_from_range(s.copy());
    return isl::manage(isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 0, static_cast<unsigned>(n_in)));
}

isl::set as_elements(const isl::set& range, const std::string& array) {
    isl_set* s = isl_set_set_tuple_name(range.copy(), array.c_str());
    for (int i = 0, n = static_cast<int>(isl_set_dim(s, isl_dim_set)); i < n; ++i)
        s = isl_set_set_dim_name(s, isl_dim_set, static_cast<unsigned>(i), nullptr);
    return isl::manage(s);
}

int existentials(const isl::set& s) {
    int most = 0;
    isl_set_foreach_basic_set(
        s.get(),
        [](isl_basic_set* b, void* user) {
            int& most = *static_cast<int*>(user);
            most = std::max(most, static_cast<int>(isl_basic_set_dim(b, isl_dim_div)));
            isl_basic_set_free(b);
            return isl_stat_ok;
        },
        &most);
    return most;
}

isl::set remove_divs(const isl::set& s) { return isl::manage(isl_set_remove_divs(s.copy())); }

isl::map constrain_dims(const isl::map& m, const std::string& in, const std::string& out, DimOrder order) {
    const int pi = isl_map_find_dim_by_name(m.get(), isl_dim_in, in.c_str());
    const int po = isl_map_find_dim_by_name(m.get(), isl_dim_out, out.c_str());
    internal_assert(pi >= 0 && po >= 0, "constrain_dims: no dimension '", in, "' or '", out, "'");
    const auto i = static_cast<unsigned>(pi), o = static_cast<unsigned>(po);
    // Per disjunct: isl_map_equate and isl_map_order_* intersect, which tests every disjunct for emptiness
    // (an ILP each); the callers test the result once.
    isl_basic_map_list* parts = isl_map_get_basic_map_list(m.get());
    isl_map* result = nullptr;
    for (int n = 0, count = isl_basic_map_list_n_basic_map(parts); n < count; ++n) {
        isl_basic_map* b = isl_basic_map_list_get_basic_map(parts, n);
        switch (order) {
            case DimOrder::Equal: b = isl_basic_map_equate(b, isl_dim_in, i, isl_dim_out, o); break;
            case DimOrder::Less: b = isl_basic_map_order_gt(b, isl_dim_out, o, isl_dim_in, i); break;
            case DimOrder::Greater: b = isl_basic_map_order_gt(b, isl_dim_in, i, isl_dim_out, o); break;
        }
        result = result ? isl_map_union(result, isl_map_from_basic_map(b)) : isl_map_from_basic_map(b);
    }
    isl_basic_map_list_free(parts);
    if (!result) result = isl_map_empty(isl_map_get_space(m.get()));
    return isl::manage(result);
}

namespace {

void align_pair(isl_map*& a, isl_map*& b) {
    a = isl_map_align_params(a, isl_map_get_space(b));
    b = isl_map_align_params(b, isl_map_get_space(a));
}

}  // namespace

std::vector<isl::map> basic_maps(const isl::map& m) {
    std::vector<isl::map> out;
    isl_basic_map_list* list = isl_map_get_basic_map_list(m.get());
    for (int i = 0, n = isl_basic_map_list_n_basic_map(list); i < n; ++i)
        out.push_back(isl::manage(isl_map_from_basic_map(isl_basic_map_list_get_basic_map(list, i))));
    isl_basic_map_list_free(list);
    return out;
}

isl::map touching_pairs(const isl::map& a, const isl::map& b) {
    isl_map* x = a.copy();
    isl_map* y = b.copy();
    align_pair(x, y);
    return isl::manage(isl_map_apply_range(x, isl_map_reverse(y)));
}

isl::map unite(const isl::map& a, const isl::map& b) {
    isl_map* x = a.copy();
    isl_map* y = b.copy();
    align_pair(x, y);
    return isl::manage(isl_map_union(x, y));
}

isl::set unite(const isl::set& a, const isl::set& b) {
    const isl::set y = align_params(b, a.space());
    return align_params(a, y.space()).unite(y);
}

bool is_empty(const isl::map& m) { return isl_map_is_empty(m.get()) == isl_bool_true; }

isl::set beyond(const isl::set& s, int pos, int distance, bool above) {
    isl_map* m = isl_map_universe(isl_space_map_from_set(isl_set_get_space(s.get())));
    const int n = static_cast<int>(isl_set_dim(s.get(), isl_dim_set));
    for (int d = 0; d < n; ++d)
        if (d != pos) m = isl_map_equate(m, isl_dim_in, d, isl_dim_out, d);
    // above: out - in - distance >= 0; below: in - out - distance >= 0.
    isl_constraint* c = isl_constraint_alloc_inequality(isl_local_space_from_space(isl_map_get_space(m)));
    c = isl_constraint_set_coefficient_si(c, isl_dim_out, pos, above ? 1 : -1);
    c = isl_constraint_set_coefficient_si(c, isl_dim_in, pos, above ? -1 : 1);
    c = isl_constraint_set_constant_si(c, -distance);
    m = isl_map_add_constraint(m, c);
    return isl::manage(isl_set_intersect(isl_set_apply(s.copy(), m), s.copy()));
}

namespace {

// `s` with exactly the set dimensions `names`, in that order: missing ones are added unconstrained.
isl::set with_set_dims(const isl::set& s, const std::vector<std::string>& names) {
    std::vector<std::string> missing;
    for (const std::string& n : names)
        if (isl_set_find_dim_by_name(s.get(), isl_dim_set, n.c_str()) < 0) missing.push_back(n);
    return project_onto(add_named_dims(s, missing, false), names);
}

}  // namespace

bool has_dim(const isl::set& s, const std::string& name) { return find_dim(s.get(), name).second >= 0; }

bool is_param(const isl::set& s, const std::string& name) {
    return isl_set_find_dim_by_name(s.get(), isl_dim_param, name.c_str()) >= 0;
}

int set_dim_position(const isl::set& s, const std::string& name) {
    return isl_set_find_dim_by_name(s.get(), isl_dim_set, name.c_str());
}

isl::set complement(const isl::set& s) { return isl::manage(isl_set_complement(s.copy())); }

isl::pw_aff union_max(const isl::pw_aff& a, const isl::pw_aff& b) {
    isl_pw_aff* x = isl_pw_aff_align_params(a.copy(), isl_pw_aff_get_space(b.get()));
    isl_pw_aff* y = isl_pw_aff_align_params(b.copy(), isl_pw_aff_get_space(x));
    return isl::manage(isl_pw_aff_union_max(x, y));
}

isl::pw_aff add_constant(const isl::pw_aff& a, long c) {
    isl_val* v = isl_val_int_from_si(isl_pw_aff_get_ctx(a.get()), c);
    return isl::manage(isl_pw_aff_add(a.copy(), isl_pw_aff_val_on_domain(isl_set_params(isl_pw_aff_domain(a.copy())), v)));
}

isl::pw_aff scale(const isl::pw_aff& a, long factor) {
    return isl::manage(isl_pw_aff_scale_val(a.copy(), isl_val_int_from_si(isl_pw_aff_get_ctx(a.get()), factor)));
}

isl::set add_named_dims(const isl::set& s, const std::vector<std::string>& names, bool as_params) {
    const isl_dim_type type = as_params ? isl_dim_param : isl_dim_set;
    isl_set* cur = s.copy();
    for (const std::string& n : names) {
        const int pos = isl_set_dim(cur, type);
        cur = isl_set_add_dims(cur, type, 1);
        cur = isl_set_set_dim_name(cur, type, static_cast<unsigned>(pos), n.c_str());
    }
    return isl::manage(cur);
}

isl::set insert_named_dim(const isl::set& s, int pos, const std::string& name) {
    isl_set* cur = isl_set_insert_dims(s.copy(), isl_dim_set, static_cast<unsigned>(pos), 1);
    return isl::manage(isl_set_set_dim_name(cur, isl_dim_set, static_cast<unsigned>(pos), name.c_str()));
}

isl::pw_aff dim_size(const isl::set& s, int pos) {
    const isl::pw_aff hi = dim_max(s, pos), lo = dim_min(s, pos);  // an unbounded dimension is a typed error
    isl_pw_aff* span = isl_pw_aff_sub(hi.copy(), lo.copy());
    isl_pw_aff* one = isl_pw_aff_val_on_domain(isl_pw_aff_domain(isl_pw_aff_copy(span)), isl_val_one(isl_set_get_ctx(s.get())));
    return isl::manage(isl_pw_aff_add(span, one));
}

namespace {

// `s` with `pa = 0`, `pa >= 0` or `pa > 0` (sign), or null where that takes more than adding one constraint to
// each disjunct. This skips the emptiness test per disjunct that isl_set_intersect (and isl_set_add_constraint) make,
// an ILP each: most of a tiled GEMM's split_iname and add_prefetch time went there. A disjunct the constraint
// empties without isl noticing stays; every later isl operation treats it as empty.
isl_set* add_single_constraint(const isl::set& s, const isl::pw_aff& pa, Sign sign) {
    if (isl_pw_aff_isa_aff(pa.get()) != isl_bool_true) return nullptr;
    isl_aff* aff = isl_pw_aff_as_aff(pa.copy());
    isl_space* aff_space = isl_aff_get_domain_space(aff);
    isl_space* set_space = isl_set_get_space(s.get());
    const bool plain = isl_aff_dim(aff, isl_dim_div) == 0 && isl_space_is_equal(aff_space, set_space) == isl_bool_true;
    isl_space_free(aff_space);
    isl_space_free(set_space);
    if (!plain) {
        isl_aff_free(aff);
        return nullptr;
    }
    if (sign == Sign::Positive) aff = isl_aff_add_constant_si(aff, -1);
    isl_constraint* c = sign == Sign::Zero ? isl_equality_from_aff(aff) : isl_inequality_from_aff(aff);
    isl_basic_set_list* parts = isl_set_get_basic_set_list(s.get());
    isl_set* out = nullptr;
    for (int i = 0, n = isl_basic_set_list_n_basic_set(parts); i < n; ++i) {
        isl_set* part = isl_set_from_basic_set(
            isl_basic_set_add_constraint(isl_basic_set_list_get_basic_set(parts, i), isl_constraint_copy(c)));
        out = out ? isl_set_union(out, part) : part;
    }
    if (!out) out = isl_set_empty(isl_set_get_space(s.get()));
    isl_basic_set_list_free(parts);
    isl_constraint_free(c);
    return out;
}

}  // namespace

namespace {

// `combine` applied to every pair of disjuncts of `a` and `b` (parameters aligned), united; null when none is
// left. isl's own set operations test each resulting disjunct for emptiness, an ILP each; here a disjunct that
// is empty without isl noticing stays, and every later isl operation treats it as empty. One that isl found
// empty is dropped: isl_basic_set_intersect_params may return it in the space of the parameters alone, without
// the set's dimensions (finding 30 of docs/reliability.md), and the caller's isl operation then gives the empty
// set in the right space.
template <class Combine>
isl_set* per_disjunct(const isl::set& a, const isl::set& b, Combine combine) {
    isl_set* x = isl_set_align_params(a.copy(), isl_set_get_space(b.get()));
    isl_set* y = isl_set_align_params(b.copy(), isl_set_get_space(x));
    isl_basic_set_list* xs = isl_set_get_basic_set_list(x);
    isl_basic_set_list* ys = isl_set_get_basic_set_list(y);
    isl_set* out = nullptr;
    for (int i = 0, n = isl_basic_set_list_n_basic_set(xs); i < n; ++i)
        for (int j = 0, m = isl_basic_set_list_n_basic_set(ys); j < m; ++j) {
            isl_basic_set* part = combine(isl_basic_set_list_get_basic_set(xs, i), isl_basic_set_list_get_basic_set(ys, j));
            if (isl_basic_set_plain_is_empty(part) == isl_bool_true) {
                isl_basic_set_free(part);
                continue;
            }
            out = out ? isl_set_union(out, isl_set_from_basic_set(part)) : isl_set_from_basic_set(part);
        }
    isl_basic_set_list_free(xs);
    isl_basic_set_list_free(ys);
    isl_set_free(x);
    isl_set_free(y);
    return out;
}

}  // namespace

isl::set plain_intersect_params(const isl::set& s, const isl::set& params) {
    isl_set* out = per_disjunct(s, params, isl_basic_set_intersect_params);
    return out ? isl::manage(out) : s.intersect_params(params);
}

isl::set plain_flat_product(const isl::set& a, const isl::set& b) {
    isl_set* out = per_disjunct(a, b, isl_basic_set_flat_product);
    return out ? isl::manage(out) : isl::manage(isl_set_flat_product(a.copy(), b.copy()));
}

isl::set sign_set(const isl::pw_aff& d, Sign sign) {
    switch (sign) {
        case Sign::Zero: return isl::manage(isl_pw_aff_zero_set(d.copy()));
        case Sign::NonNegative: return isl::manage(isl_pw_aff_nonneg_set(d.copy()));
        case Sign::Positive: break;
    }
    return isl::manage(isl_pw_aff_pos_set(d.copy()));
}

isl::set constrain(const isl::set& s, const isl::pw_aff& d, Sign sign) {
    if (isl_set* direct = add_single_constraint(s, d, sign)) return isl::manage(direct);
    return s.intersect(sign_set(d, sign));
}

isl::set project_out(const isl::set& s, const std::vector<std::string>& names) {
    isl_set* cur = s.copy();
    for (const std::string& n : names) {
        const auto [type, pos] = find_dim(cur, n);
        if (pos >= 0) cur = isl_set_project_out(cur, type, static_cast<unsigned>(pos), 1);
    }
    return isl::manage(cur);
}

namespace {

// The interval of integers that `range`, a set of its one parameter `name`, is exactly; nullopt for any other
// range (a work-group axis sized at launch).
std::optional<std::pair<long, long>> constant_interval(const isl::set& range, const std::string& name) {
    if (isl_set_dim(range.get(), isl_dim_param) != 1 || !is_param(range, name)) return std::nullopt;
    const isl::set values = isl::manage(isl_set_move_dims(range.copy(), isl_dim_set, 0, isl_dim_param, 0, 1));
    const isl::val low = isl::manage(isl_set_dim_min_val(values.copy(), 0));
    const isl::val high = isl::manage(isl_set_dim_max_val(values.copy(), 0));
    const std::optional<long> lo = long_value(low.get()), hi = long_value(high.get());
    if (!lo || !hi) return std::nullopt;
    isl_set* box = isl_set_universe(isl_set_get_space(values.get()));
    box = isl_set_lower_bound_val(box, isl_dim_set, 0, low.copy());
    box = isl_set_upper_bound_val(box, isl_dim_set, 0, high.copy());
    const bool exact = isl_set_is_equal(box, values.get()) == isl_bool_true;
    isl_set_free(box);
    return exact ? std::optional(std::pair{*lo, *hi}) : std::nullopt;
}

// Whether a division of `b` depends on set dimension `pos`, directly or through another division.
bool divisions_involve(isl_basic_set* b, unsigned pos) {
    isl_local_space* ls = isl_basic_set_get_local_space(b);
    const int n = isl_local_space_dim(ls, isl_dim_div);
    std::vector<bool> involved;
    for (int d = 0; d < n; ++d) {
        isl_aff* def = isl_local_space_get_div(ls, d);
        bool in = isl_aff_involves_dims(def, isl_dim_in, pos, 1) == isl_bool_true;
        for (int e = 0; e < d && !in; ++e)
            in = involved[static_cast<std::size_t>(e)] &&
                 isl_aff_involves_dims(def, isl_dim_div, static_cast<unsigned>(e), 1) == isl_bool_true;
        isl_aff_free(def);
        involved.push_back(in);
    }
    isl_local_space_free(ls);
    return std::find(involved.begin(), involved.end(), true) != involved.end();
}

// isl_util::spans for the one basic set `b` and set dimension `pos` ranging over [lo, hi]: each constraint is
// affine in that dimension, so it holds over the interval where it holds at both ends, and it does for every
// value of the others unless a point of `b` violates it once the dimension is moved to an end. Nullopt where
// this does not apply (an equality fixes the dimension, or a division depends on it).
std::optional<bool> spans_interval(isl_basic_set* b, unsigned pos, long lo, long hi) {
    if (divisions_involve(b, pos)) return std::nullopt;
    struct Test {
        isl_basic_set* b;
        unsigned pos;
        long ends[2];
        std::optional<bool> result = true;
    } t{b, pos, {lo, hi}};
    isl_basic_set_foreach_constraint(b, [](isl_constraint* c, void* user) {
        Test& t = *static_cast<Test*>(user);
        const bool involved = isl_constraint_involves_dims(c, isl_dim_set, t.pos, 1) == isl_bool_true;
        if (involved && isl_constraint_is_equality(c) == isl_bool_true) t.result = std::nullopt;
        for (int e = 0; e < 2 && involved && t.result == true; ++e) {
            // The constraint with the dimension at the end, negated (f >= 0 becomes -f - 1 >= 0), added to b.
            isl_val* a = isl_constraint_get_coefficient_val(c, isl_dim_set, static_cast<int>(t.pos));
            isl_val* k = isl_val_add(isl_constraint_get_constant_val(c),
                                     isl_val_mul(a, isl_val_int_from_si(isl_constraint_get_ctx(c), t.ends[e])));
            isl_constraint* at_end = isl_constraint_set_coefficient_si(isl_constraint_copy(c), isl_dim_set, static_cast<int>(t.pos), 0);
            at_end = isl_constraint_negate(isl_constraint_set_constant_val(at_end, k));
            isl_basic_set* violating = isl_basic_set_add_constraint(isl_basic_set_copy(t.b), at_end);
            if (isl_basic_set_is_empty(violating) != isl_bool_true) t.result = false;
            isl_basic_set_free(violating);
        }
        isl_constraint_free(c);
        return isl_stat_ok;
    }, &t);
    return t.result;
}

}  // namespace

bool spans(const isl::set& s, const std::string& name, const isl::set& range) {
    const int pos = isl_set_find_dim_by_name(s.get(), isl_dim_set, name.c_str());
    const std::vector<std::string> dims = set_dim_names(s);
    const bool unique = std::count(dims.begin(), dims.end(), name) == 1;  // a product may repeat a name
    const auto interval = constant_interval(range, name);
    if (pos >= 0 && unique && interval && isl_set_n_basic_set(s.get()) == 1) {
        isl_basic_set_list* parts = isl_set_get_basic_set_list(s.get());
        isl_basic_set* b = isl_basic_set_list_get_basic_set(parts, 0);
        const std::optional<bool> quick = spans_interval(b, static_cast<unsigned>(pos), interval->first, interval->second);
        isl_basic_set_free(b);
        isl_basic_set_list_free(parts);
        if (quick) return *quick;
    }
    const isl::set with_param = dims_to_params(s, {name});
    const isl::set others = project_out(with_param, {name});
    const isl::set bounds = align_params(range, with_param.space());
    const isl::set every = align_params(others, bounds.space()).intersect_params(bounds);
    return every.is_subset(align_params(with_param, every.space()));
}

namespace {

// Whether constraint `c` involves set dimension `pos` and nothing else: no other dimension, parameter or
// division.
bool on_dimension_alone(isl_constraint* c, unsigned pos) {
    const auto involves = [c](isl_dim_type type, unsigned first, unsigned n) {
        return n > 0 && isl_constraint_involves_dims(c, type, first, n) == isl_bool_true;
    };
    const auto dims = [c](isl_dim_type type) { return static_cast<unsigned>(isl_constraint_dim(c, type)); };
    return !involves(isl_dim_set, 0, pos) && !involves(isl_dim_set, pos + 1, dims(isl_dim_set) - pos - 1) &&
           !involves(isl_dim_param, 0, dims(isl_dim_param)) && !involves(isl_dim_div, 0, dims(isl_dim_div));
}

// The bounds of set dimension `pos` of `b` where every constraint on it involves nothing else (and no division
// depends on it), so that `b` is the product of the rest and those bounds: [lo, hi]. isl normalizes such a
// constraint to x >= lo or -x + hi >= 0 (or both, an equality); nullopt where it did not, where some constraint
// ties the dimension to something else, or where a side is unbounded (then isl decides). No exception may
// leave isl's callback: values are read with fits_long.
std::optional<std::pair<long, long>> bounds_alone(isl_basic_set* b, unsigned pos) {
    if (divisions_involve(b, pos)) return std::nullopt;
    struct Scan {
        unsigned pos;
        std::optional<long> lo, hi;
        bool alone = true;
    } scan{pos, std::nullopt, std::nullopt};
    isl_basic_set_foreach_constraint(b, [](isl_constraint* c, void* user) {
        Scan& t = *static_cast<Scan*>(user);
        if (isl_constraint_involves_dims(c, isl_dim_set, t.pos, 1) == isl_bool_true) {
            const isl::val a = isl::manage(isl_constraint_get_coefficient_val(c, isl_dim_set, static_cast<int>(t.pos)));
            const isl::val k = isl::manage(isl_constraint_get_constant_val(c));
            const bool unit = isl_val_is_one(a.get()) == isl_bool_true || isl_val_is_negone(a.get()) == isl_bool_true;
            t.alone = t.alone && unit && fits_long(k.get()) && on_dimension_alone(c, t.pos);
            if (t.alone) {
                const long constant = isl_val_get_num_si(k.get());
                const bool lower = isl_val_is_one(a.get()) == isl_bool_true;  // x + k >= 0, else -x + k >= 0
                const bool equality = isl_constraint_is_equality(c) == isl_bool_true;
                const long at = lower ? -constant : constant;
                if (lower || equality) t.lo = t.lo ? std::max(*t.lo, at) : at;
                if (!lower || equality) t.hi = t.hi ? std::min(*t.hi, at) : at;
            }
        }
        isl_constraint_free(c);
        return isl_stat_ok;
    }, &scan);
    if (!scan.alone || !scan.lo || !scan.hi) return std::nullopt;
    return std::pair{*scan.lo, *scan.hi};
}

}  // namespace

std::optional<std::pair<long, long>> independent_range(const isl::set& s, int pos) {
    // Most loops of tiled kernels have constant bounds of their own: read off the constraints, without isl's
    // projections and integer programs. The product is then `s` by construction, if `s` has a point at all.
    if (isl_set_n_basic_set(s.get()) == 1) {
        isl_basic_set_list* parts = isl_set_get_basic_set_list(s.get());
        isl_basic_set* b = isl_basic_set_list_get_basic_set(parts, 0);
        const std::optional<std::pair<long, long>> alone = bounds_alone(b, static_cast<unsigned>(pos));
        isl_basic_set_free(b);
        isl_basic_set_list_free(parts);
        if (alone) return alone->first <= alone->second && !s.is_empty() ? alone : std::nullopt;
    }
    isl_set* alone = isl_set_project_out(s.copy(), isl_dim_param, 0, static_cast<unsigned>(isl_set_dim(s.get(), isl_dim_param)));
    alone = isl_set_project_out(alone, isl_dim_set, static_cast<unsigned>(pos) + 1,
                                static_cast<unsigned>(isl_set_dim(s.get(), isl_dim_set) - pos - 1));
    alone = isl_set_project_out(alone, isl_dim_set, 0, static_cast<unsigned>(pos));
    isl_val* lo = isl_set_dim_min_val(isl_set_copy(alone), 0);
    isl_val* hi = isl_set_dim_max_val(alone, 0);
    const isl::val low = isl::manage(lo), high = isl::manage(hi);
    std::optional<std::pair<long, long>> out;
    const std::optional<long> first = long_value(low.get()), last = long_value(high.get());
    if (first && last) out = std::pair{*first, *last};
    if (!out) return out;
    // s is contained in the product of the rest and [lo, hi]; the product must be contained in s.
    isl_set* product = isl_set_project_out(s.copy(), isl_dim_set, static_cast<unsigned>(pos), 1);
    product = isl_set_insert_dims(product, isl_dim_set, static_cast<unsigned>(pos), 1);
    product = isl_set_set_dim_id(product, isl_dim_set, static_cast<unsigned>(pos), isl_set_get_dim_id(s.get(), isl_dim_set, static_cast<unsigned>(pos)));
    product = isl_set_lower_bound_val(product, isl_dim_set, static_cast<unsigned>(pos), isl_val_int_from_si(ctx().get(), out->first));
    product = isl_set_upper_bound_val(product, isl_dim_set, static_cast<unsigned>(pos), isl_val_int_from_si(ctx().get(), out->second));
    const bool independent = isl_set_is_subset(product, s.get()) == isl_bool_true;
    isl_set_free(product);
    return independent ? out : std::nullopt;
}

isl::set bind_params_to_dims(const isl::set& s) {
    isl_set* cur = s.copy();
    for (int p = isl_set_dim(cur, isl_dim_param) - 1; p >= 0; --p) {
        const int d = isl_set_find_dim_by_name(cur, isl_dim_set, isl_set_get_dim_name(cur, isl_dim_param, p));
        if (d < 0) continue;
        cur = isl_set_equate(cur, isl_dim_param, p, isl_dim_set, d);
        cur = isl_set_project_out(cur, isl_dim_param, static_cast<unsigned>(p), 1);
    }
    return isl::manage(cur);
}

isl::set eliminate_dim(const isl::set& s, const std::string& name) {
    const auto [type, pos] = find_dim(s.get(), name);
    internal_assert(pos >= 0, "eliminate_dim: no dimension '", name, "'");
    return isl::manage(isl_set_eliminate(s.copy(), type, static_cast<unsigned>(pos), 1));
}

isl::set rename_dim(const isl::set& s, const std::string& from, const std::string& to) {
    const auto [type, pos] = find_dim(s.get(), from);
    internal_assert(pos >= 0, "rename_dim: no dimension '", from, "'");
    return isl::manage(isl_set_set_dim_name(s.copy(), type, static_cast<unsigned>(pos), to.c_str()));
}

isl::set duplicate_dim(const isl::set& s, const std::string& original, const std::string& copy) {
    std::vector<std::string> dims = set_dim_names(s);
    const auto at = std::find(dims.begin(), dims.end(), original);
    dims.insert(at == dims.end() ? at : at + 1, copy);  // beside it in the iname order
    // The constraints of `original` restated on `copy`, alongside the unchanged set.
    return with_set_dims(s, dims).intersect(with_set_dims(rename_dim(s, original, copy), dims));
}

isl::set fix_dim(const isl::set& s, const std::string& name, long value) {
    const auto [type, pos] = find_dim(s.get(), name);
    internal_assert(pos >= 0, "fix_dim: no dimension '", name, "'");
    isl_set* fixed = isl_set_fix_val(s.copy(), type, static_cast<unsigned>(pos), isl_val_int_from_si(ctx().get(), value));
    return isl::manage(isl_set_project_out(fixed, type, static_cast<unsigned>(pos), 1));
}

std::vector<std::pair<isl::set, isl::aff>> pieces(const isl::pw_aff& a) {
    std::vector<std::pair<isl::set, isl::aff>> out;
    isl_pw_aff_foreach_piece(
        a.get(),
        [](isl_set* dom, isl_aff* aff, void* user) {
            static_cast<std::vector<std::pair<isl::set, isl::aff>>*>(user)->emplace_back(isl::manage(dom), isl::manage(aff));
            return isl_stat_ok;
        },
        &out);
    return out;
}

isl::aff align_params(const isl::aff& a, const isl::space& model) {
    return isl::manage(isl_aff_align_params(a.copy(), model.copy()));
}

bool is_void(const isl::point& p) { return isl_point_is_void(p.get()) == isl_bool_true; }

std::optional<long> static_max(const isl::pw_aff& a, const isl::set& context) {
    const isl::set params = align_params(context, a.space());
    // isl's maximum takes integer expressions only; a size isl writes as an exact division ((G + 4e)/4, an
    // integer wherever it applies) is floored first, which changes no value (fuzz_pipeline, docs/reliability.md).
    isl_pw_aff* integral = isl_pw_aff_floor(isl_pw_aff_intersect_params(a.copy(), params.copy()));
    const isl::val v = isl::manage(isl_pw_aff_max_val(integral));
    return long_value(v.get());
}

namespace {

std::string take_string(char* s) {
    std::string out = s ? s : "";
    free(s);
    return out;
}

}  // namespace

std::string to_str(const isl::set& s) { return take_string(isl_set_to_str(s.get())); }
std::string to_str(const isl::pw_aff& a) { return take_string(isl_pw_aff_to_str(a.get())); }

}  // namespace loom::isl_util
