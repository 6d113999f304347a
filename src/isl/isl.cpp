#include "isl/isl.h"
#include "isl/budget.h"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/id.h>
#include <isl/ast.h>
#include <isl/ast_build.h>
#include <isl/options.h>
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

#include "isl/ast_expr.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom::isl_util {

isl::ctx ctx() {
    // Never freed: kernels alive until exit hold objects of this context.
    static isl_ctx* const c = [] {
        isl_ctx* raw = isl_ctx_alloc();
        isl_options_set_on_error(raw, ISL_ON_ERROR_CONTINUE);
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

isl::set align_params(const isl::set& s, const isl::space& model) {
    return isl::manage(isl_set_align_params(s.copy(), isl_space_params(model.copy())));
}

namespace {

// Adds `names` as parameters of `s` where missing.
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

isl_pw_aff* build_pw_aff(const ExprPtr& e, isl_set* dom);

isl_pw_aff* var_aff(const std::string& name, isl_set* dom) {
    isl_local_space* ls = isl_local_space_from_space(isl_set_get_space(dom));
    int pos = isl_set_find_dim_by_name(dom, isl_dim_set, name.c_str());
    isl_dim_type type = isl_dim_set;
    if (pos < 0) {
        pos = isl_set_find_dim_by_name(dom, isl_dim_param, name.c_str());
        type = isl_dim_param;
    }
    if (pos < 0) {
        isl_local_space_free(ls);
        return nullptr;
    }
    return isl_pw_aff_from_aff(isl_aff_var_on_domain(ls, type, pos));
}

isl_pw_aff* const_aff(std::int64_t v, isl_set* dom) {
    isl_local_space* ls = isl_local_space_from_space(isl_set_get_space(dom));
    isl_val* val = isl_val_int_from_si(isl_set_get_ctx(dom), v);
    return isl_pw_aff_from_aff(isl_aff_val_on_domain(ls, val));
}

// Integer constant of `e`, if it is one.
std::optional<std::int64_t> int_constant(const ExprPtr& e) {
    if (e->kind == ExprKind::IntLit) return e->ival;
    if (e->kind == ExprKind::Unary && e->unop == "-" && e->args[0]->kind == ExprKind::IntLit) return -e->args[0]->ival;
    return std::nullopt;
}

isl_pw_aff* binary_aff(const ExprPtr& e, isl_set* dom) {
    const auto rhs_const = int_constant(e->args[1]);
    // C division and remainder come from isl's own expressions, where they equal the floored ones.
    const bool division = e->op == BinOp::FloorDiv || e->op == BinOp::CDiv;
    const bool remainder = e->op == BinOp::Mod || e->op == BinOp::CMod;
    if ((division || remainder) && !(rhs_const && *rhs_const > 0)) return nullptr;
    isl_pw_aff* a = build_pw_aff(e->args[0], dom);
    if (!a) return nullptr;
    if (division || remainder) {
        isl_val* d = isl_val_int_from_si(isl_set_get_ctx(dom), *rhs_const);
        if (remainder) return isl_pw_aff_mod_val(a, d);
        return isl_pw_aff_floor(isl_pw_aff_scale_down_val(a, d));
    }
    isl_pw_aff* b = build_pw_aff(e->args[1], dom);
    if (!b) {
        isl_pw_aff_free(a);
        return nullptr;
    }
    switch (e->op) {
        case BinOp::Add: return isl_pw_aff_add(a, b);
        case BinOp::Sub: return isl_pw_aff_sub(a, b);
        case BinOp::Mul:
            if (isl_pw_aff_is_cst(a) || isl_pw_aff_is_cst(b)) return isl_pw_aff_mul(a, b);
            break;
        default: break;
    }
    isl_pw_aff_free(a);
    isl_pw_aff_free(b);
    return nullptr;
}

isl_pw_aff* build_pw_aff(const ExprPtr& e, isl_set* dom) {
    switch (e->kind) {
        case ExprKind::IntLit: return const_aff(e->ival, dom);
        case ExprKind::Var: return var_aff(e->name, dom);
        case ExprKind::Unary:
            if (e->unop == "-") {
                isl_pw_aff* a = build_pw_aff(e->args[0], dom);
                return a ? isl_pw_aff_neg(a) : nullptr;
            }
            return nullptr;
        case ExprKind::Binary: return binary_aff(e, dom);
        default: return nullptr;
    }
}

}  // namespace

std::optional<isl::pw_aff> to_pw_aff(const ExprPtr& e, const isl::set& domain) {
    std::vector<std::string> names;
    const std::vector<std::string> dims = set_dim_names(domain);
    for (const std::string& n : referenced_names(e))
        if (std::find(dims.begin(), dims.end(), n) == dims.end()) names.push_back(n);
    const isl::set dom = add_params(domain, names);
    isl_pw_aff* pa = build_pw_aff(e, dom.get());
    if (!pa) return std::nullopt;
    return isl::manage(isl_pw_aff_intersect_domain(pa, dom.copy()));
}

ExprPtr aff_to_expr(const isl::aff& a) {
    isl_set* ctx_set = isl_set_universe(isl_space_params(isl_aff_get_domain_space(a.get())));
    isl_ast_build* build = isl_ast_build_from_context(ctx_set);
    // The build's space is that of the parameters: an aff over a zero-dimensional set (a fixed box's offset)
    // must be over them too, or isl cannot print its integer divisions.
    isl_aff* on_params = isl_aff_project_domain_on_params(a.copy());
    isl_ast_expr* e = isl_ast_build_expr_from_pw_aff(build, isl_pw_aff_from_aff(on_params));
    isl_ast_build_free(build);
    internal_assert(e != nullptr, "cannot print affine expression");
    return ast_expr_to_expr(isl::manage(e));
}

ExprPtr pw_aff_to_expr(const isl::pw_aff& a, const isl::set& context) {
    // No piece: defined nowhere (an extent over an empty domain, under assumptions that cannot hold), where isl
    // has no expression to print ("void expression"); an extent is 0 where its domain is empty.
    if (isl_pw_aff_n_piece(a.get()) == 0) return int_lit(0);
    isl_set* ctx_set = isl_set_align_params(context.copy(), isl_pw_aff_get_space(a.get()));
    isl_ast_build* build = isl_ast_build_from_context(isl_set_params(ctx_set));
    isl_ast_expr* e = isl_ast_build_expr_from_pw_aff(build, a.copy());
    isl_ast_build_free(build);
    internal_assert(e != nullptr, "cannot print piecewise affine expression");
    return ast_expr_to_expr(isl::manage(e));
}

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
    if (!fits_long(v)) {
        char* text = isl_val_to_str(v);
        const std::string digits = text ? text : "?";
        std::free(text);
        throw Error(error_kind::LoopyError, cat("the integer ", digits, " does not fit in 64 bits"));
    }
    return isl_val_get_num_si(v);
}

std::optional<long> static_extent(const isl::set& one_dim) {
    isl_set* s = isl_set_project_out(one_dim.copy(), isl_dim_param, 0, static_cast<unsigned>(isl_set_dim(one_dim.get(), isl_dim_param)));
    isl_val* max = isl_set_dim_max_val(s, 0);
    const isl::val held = isl::manage(max);
    const std::optional<long> top = long_value(held.get());
    if (!top) return std::nullopt;
    return *top + 1;
}

std::optional<std::pair<long, long>> independent_range(const isl::set& s, int pos) {
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

// For each set dimension of `bs`, the representative of its group: dimensions that a constraint relates,
// directly or through divs (their constraints and definitions), share one.
std::vector<int> dimension_groups(isl_basic_set* bs) {
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
    for (int i = 0; i < n; ++i) out.push_back(walk.related.root(i));
    return out;
}

// `s` without its set dimensions outside `wanted` (by group of `groups`), which no constraint relates to
// the wanted ones: their constraints are dropped and they are removed, which is exact and needs no
// elimination.
isl_set* only_groups(isl_set* s, const std::vector<int>& groups, const std::set<int>& wanted) {
    // Each run of consecutive unwanted dimensions goes in one call: every call copies and simplifies the set.
    std::vector<std::pair<unsigned, unsigned>> runs;  // first dimension, count
    for (unsigned i = 0; i < groups.size(); ++i) {
        if (wanted.count(groups[i])) continue;
        if (!runs.empty() && runs.back().first + runs.back().second == i)
            ++runs.back().second;
        else
            runs.emplace_back(i, 1);
    }
    for (const auto& [first, count] : runs) s = isl_set_drop_constraints_involving_dims(s, isl_dim_set, first, count);
    for (auto run = runs.rbegin(); run != runs.rend(); ++run) s = isl_set_remove_dims(s, isl_dim_set, run->first, run->second);
    return s;
}

}  // namespace

std::vector<isl::set> independent_factors(const isl::set& s) {
    if (isl_set_n_basic_set(s.get()) != 1 || isl_set_dim(s.get(), isl_dim_set) == 0) return {s};
    isl_basic_set_list* list = isl_set_get_basic_set_list(s.get());
    isl_basic_set* bs = isl_basic_set_list_get_basic_set(list, 0);
    const std::vector<int> groups = dimension_groups(bs);
    isl_basic_set_free(bs);
    isl_basic_set_list_free(list);
    std::vector<isl::set> out;
    std::set<int> seen;
    for (int g : groups)
        if (seen.insert(g).second) out.push_back(isl::manage(only_groups(s.copy(), groups, {g})));
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

namespace {

// The access relation of `indices` on `domain`; `exact` tells whether every index was quasi-affine.
isl::map access_relation(const isl::set& domain, const std::vector<ExprPtr>& indices, bool& exact) {
    exact = true;
    const int n_in = static_cast<int>(isl_set_dim(domain.get(), isl_dim_set));
    const int n_out = static_cast<int>(indices.size());
    isl::set d = isl::manage(isl_set_add_dims(domain.copy(), isl_dim_set, static_cast<unsigned>(n_out)));
    for (int j = 0; j < n_out; ++j)
        d = isl::manage(isl_set_set_dim_name(d.copy(), isl_dim_set, n_in + j, cat("_loom_idx", j).c_str()));
    for (int j = 0; j < n_out; ++j) {
        std::optional<isl::set> indexed =
            try_add_constraint(d, var(cat("_loom_idx", j)), BinOp::Eq, indices[static_cast<std::size_t>(j)]);
        exact = exact && indexed.has_value();
        if (indexed) d = std::move(*indexed);
    }
    isl_map* m = isl_map_from_range(d.copy());
    m = isl_map_move_dims(m, isl_dim_in, 0, isl_dim_out, 0, static_cast<unsigned>(n_in));
    return isl::manage(m);
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

isl::set as_elements(const isl::set& range, const std::string& array) {
    isl_set* s = isl_set_set_tuple_name(range.copy(), array.c_str());
    for (int i = 0, n = static_cast<int>(isl_set_dim(s, isl_dim_set)); i < n; ++i)
        s = isl_set_set_dim_name(s, isl_dim_set, static_cast<unsigned>(i), nullptr);
    return isl::manage(s);
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

// Where `name` lives in `s`: (isl_dim_set or isl_dim_param, position), or position -1.
std::pair<isl_dim_type, int> find_dim(isl_set* s, const std::string& name) {
    const int pos = isl_set_find_dim_by_name(s, isl_dim_set, name.c_str());
    if (pos >= 0) return {isl_dim_set, pos};
    return {isl_dim_param, isl_set_find_dim_by_name(s, isl_dim_param, name.c_str())};
}

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

isl::pw_aff dim_size(const isl::set& s, int pos) {
    const isl::pw_aff hi = dim_max(s, pos), lo = dim_min(s, pos);  // an unbounded dimension is a typed error
    isl_pw_aff* span = isl_pw_aff_sub(hi.copy(), lo.copy());
    isl_pw_aff* one = isl_pw_aff_val_on_domain(isl_pw_aff_domain(isl_pw_aff_copy(span)), isl_val_one(isl_set_get_ctx(s.get())));
    return isl::manage(isl_pw_aff_add(span, one));
}

namespace {

// `s` with `pa rel 0` (rel one of =, >=, >), or null where that takes more than adding one constraint to each
// disjunct. This skips the emptiness test per disjunct that isl_set_intersect (and isl_set_add_constraint) make,
// an ILP each: most of a tiled GEMM's split_iname and add_prefetch time went there. A disjunct the constraint
// empties without isl noticing stays; every later isl operation treats it as empty.
isl_set* add_single_constraint(const isl::set& s, const isl::pw_aff& pa, BinOp rel) {
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
    if (rel == BinOp::Gt) aff = isl_aff_add_constant_si(aff, -1);
    isl_constraint* c = rel == BinOp::Eq ? isl_equality_from_aff(aff) : isl_inequality_from_aff(aff);
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

// `combine` applied to every pair of disjuncts of `a` and `b` (parameters aligned), united; null when either
// has none. isl's own set operations test each resulting disjunct for emptiness, an ILP each; here a
// disjunct that is empty without isl noticing stays, and every later isl operation treats it as empty.
template <class Combine>
isl_set* per_disjunct(const isl::set& a, const isl::set& b, Combine combine) {
    isl_set* x = isl_set_align_params(a.copy(), isl_set_get_space(b.get()));
    isl_set* y = isl_set_align_params(b.copy(), isl_set_get_space(x));
    isl_basic_set_list* xs = isl_set_get_basic_set_list(x);
    isl_basic_set_list* ys = isl_set_get_basic_set_list(y);
    isl_set* out = nullptr;
    for (int i = 0, n = isl_basic_set_list_n_basic_set(xs); i < n; ++i)
        for (int j = 0, m = isl_basic_set_list_n_basic_set(ys); j < m; ++j) {
            isl_set* part = isl_set_from_basic_set(
                combine(isl_basic_set_list_get_basic_set(xs, i), isl_basic_set_list_get_basic_set(ys, j)));
            out = out ? isl_set_union(out, part) : part;
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

std::optional<isl::set> try_add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs) {
    internal_assert(rel == BinOp::Eq || rel == BinOp::Le || rel == BinOp::Lt || rel == BinOp::Ge || rel == BinOp::Gt,
                    "add_constraint: '", binop_text(rel), "' is not a comparison");
    const bool flipped = rel == BinOp::Le || rel == BinOp::Lt;
    const ExprPtr diff = flipped ? binary(BinOp::Sub, rhs, lhs) : binary(BinOp::Sub, lhs, rhs);
    const BinOp sign = rel == BinOp::Eq ? BinOp::Eq : rel == BinOp::Le || rel == BinOp::Ge ? BinOp::Ge : BinOp::Gt;
    // Built on the universe of the space: building it on `s` itself makes isl simplify every piece against `s`.
    const isl::set universe = isl::manage(isl_set_universe(isl_set_get_space(s.get())));
    const std::optional<isl::pw_aff> pa = to_pw_aff(diff, universe);
    if (!pa) return std::nullopt;
    if (isl_set* direct = add_single_constraint(s, *pa, sign)) return isl::manage(direct);
    isl_set* where = sign == BinOp::Eq   ? isl_pw_aff_zero_set(pa->copy())
                     : sign == BinOp::Ge ? isl_pw_aff_nonneg_set(pa->copy())
                                         : isl_pw_aff_pos_set(pa->copy());
    return isl::manage(isl_set_intersect(s.copy(), where));
}

isl::set add_constraint(const isl::set& s, const ExprPtr& lhs, BinOp rel, const ExprPtr& rhs) {
    std::optional<isl::set> out = try_add_constraint(s, lhs, rel, rhs);
    internal_assert(out.has_value(), "constraint '", to_string(lhs), " ", binop_text(rel), " ", to_string(rhs),
                    "' is not affine");
    return *out;
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
    dims.push_back(copy);
    // The constraints of `original` restated on `copy`, alongside the unchanged set.
    return with_set_dims(s, dims).intersect(with_set_dims(rename_dim(s, original, copy), dims));
}

isl::set fix_dim(const isl::set& s, const std::string& name, long value) {
    const auto [type, pos] = find_dim(s.get(), name);
    internal_assert(pos >= 0, "fix_dim: no dimension '", name, "'");
    isl_set* fixed = isl_set_fix_val(s.copy(), type, static_cast<unsigned>(pos), isl_val_int_from_si(ctx().get(), value));
    return isl::manage(isl_set_project_out(fixed, type, static_cast<unsigned>(pos), 1));
}

std::optional<ExprPtr> single_piece_expr(const isl::pw_aff& a, const isl::set& context) {
    const isl::set params = align_params(context, a.space());
    const isl::pw_aff simple = isl::manage(isl_pw_aff_coalesce(isl_pw_aff_gist_params(a.copy(), params.copy())));
    if (isl_pw_aff_n_piece(simple.get()) != 1) return std::nullopt;
    std::optional<isl::aff> piece;
    isl_pw_aff_foreach_piece(
        simple.get(),
        [](isl_set* dom, isl_aff* aff, void* user) {
            *static_cast<std::optional<isl::aff>*>(user) = isl::manage(aff);
            isl_set_free(dom);
            return isl_stat_ok;
        },
        &piece);
    return aff_to_expr(*piece);
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
    isl_pw_aff_foreach_piece(
        a.get(),
        [](isl_set* dom, isl_aff* aff, void* user) {
            static_cast<std::vector<Piece>*>(user)->push_back({isl::manage(dom), isl::manage(aff), {}, {}});
            return isl_stat_ok;
        },
        &out);
    for (Piece& p : out) {
        // The context may name parameters the function does not: every piece takes them all.
        p.domain = p.domain.intersect_params(params);
        p.value = isl::manage(isl_aff_align_params(p.value.copy(), isl_set_get_space(p.domain.get())));
        isl::point at = p.domain.sample_point();
        if (isl_point_is_void(at.get()) == isl_bool_true) continue;
        p.sampled = p.value.eval(at);
        p.sample = std::move(at);
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
    const isl::set params = align_params(context, a.space());
    const isl::pw_aff simple = isl::manage(isl_pw_aff_coalesce(isl_pw_aff_gist_params(a.copy(), params.copy())));
    const std::vector<Piece> pieces = pieces_of(simple, params);
    std::vector<const isl::aff*> candidates;
    for (const Piece& p : pieces) candidates.push_back(&p.value);
    // Constants first: they make the simplest shapes.
    std::stable_partition(candidates.begin(), candidates.end(),
                          [](const isl::aff* c) { return isl_aff_is_cst(c->get()) == isl_bool_true; });
    for (const isl::aff* candidate : candidates)
        if (dominates(*candidate, pieces)) return aff_to_expr(*candidate);
    return std::nullopt;
}

std::optional<long> static_max(const isl::pw_aff& a, const isl::set& context) {
    const isl::set params = align_params(context, a.space());
    // isl's maximum takes integer expressions only; a size isl writes as an exact division ((G + 4e)/4, an
    // integer wherever it applies) is floored first, which changes no value (fuzz_pipeline, docs/reliability.md).
    isl_pw_aff* integral = isl_pw_aff_floor(isl_pw_aff_intersect_params(a.copy(), params.copy()));
    const isl::val v = isl::manage(isl_pw_aff_max_val(integral));
    return long_value(v.get());
}

namespace {

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
    const isl::set x_aligned = align_params(x, y.space()), y_aligned = align_params(y, x_aligned.space());
    return both ? x_aligned.intersect(y_aligned) : x_aligned.unite(y_aligned);
}

struct NotAffine {};

// Where `a op b` holds (op a comparison other than !=); throws NotAffine where a side is not quasi-affine.
isl::set comparison_set(const ExprPtr& a, BinOp op, const ExprPtr& b) {
    if (const auto m = min_max_comparison(a, op, b)) return *m;
    const isl::set universe = isl::manage(isl_set_universe(isl_space_params_alloc(ctx().get(), 0)));
    // Every comparison as `d >= 0`, `d > 0` or `d = 0` of a difference d.
    const bool less = op == BinOp::Le || op == BinOp::Lt;
    const ExprPtr difference = less ? binary(BinOp::Sub, b, a) : binary(BinOp::Sub, a, b);
    const std::optional<isl::pw_aff> d = to_pw_aff(difference, universe);
    if (!d) throw NotAffine{};
    switch (op) {
        case BinOp::Eq: return isl::manage(isl_pw_aff_zero_set(d->copy()));
        case BinOp::Le:
        case BinOp::Ge: return isl::manage(isl_pw_aff_nonneg_set(d->copy()));
        case BinOp::Lt:
        case BinOp::Gt: return isl::manage(isl_pw_aff_pos_set(d->copy()));
        default: throw NotAffine{};
    }
}

isl::set condition_set_of(const ExprPtr& cond) {
    if (cond->kind != ExprKind::Binary) throw NotAffine{};
    if (cond->op == BinOp::And || cond->op == BinOp::Or) {
        const isl::set a = condition_set_of(cond->args[0]);
        const isl::set b = align_params(condition_set_of(cond->args[1]), a.space());
        const isl::set a_aligned = align_params(a, b.space());
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

ExprPtr condition_expr(const isl::set& s, const isl::set& context) {
    const isl::set known = align_params(context, s.space());
    isl_ast_build* build = isl_ast_build_from_context(known.copy());
    isl_ast_expr* e = isl_ast_build_expr_from_set(build, align_params(s, known.space()).release());
    isl_ast_build_free(build);
    internal_assert(e != nullptr, "cannot print condition ", to_str(s));
    return ast_expr_to_expr(isl::manage(e));
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
