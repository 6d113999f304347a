// Precomputation of substitution rules into temporaries, and prefetching of arrays (loopy's
// transform/precompute.py and add_prefetch in transform/data.py).
//
// The footprint of a rule is the set of argument tuples its uses touch for each iteration of the inames
// that are not swept. isl boxes it (a fixed-size box whose offset depends on the outer inames), the box's
// non-trivial axes become the temporary's axes and new inames, and a compute instruction fills the
// temporary over the footprint (or its bounding box) before the uses read it.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/names.h"
#include "ir/subst_rule.h"
#include "isl/budget.h"
#include "isl/isl.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"
#include "parse/match.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/auto_axes.h"
#include "transform/transforms.h"

namespace loom {

namespace {

std::set<std::string> inames_in(const KernelData& k, const ExprPtr& e) {
    std::set<std::string> out;
    for (const std::string& n : referenced_names(e))
        if (is_iname(k, n)) out.insert(n);
    return out;
}

bool only_inames_and_constants(const KernelData& k, const std::vector<ExprPtr>& args) {
    for (const ExprPtr& a : args)
        for (const std::string& n : referenced_names(a))
            if (!is_iname(k, n)) return false;
    return true;
}

// `e` in isl's simplest affine form (`16*i_outer + i_inner - 16*i_outer` is `i_inner`); unchanged when it is
// not affine, or affine only piecewise (`i % 3` is partial to isl, which then cannot print it).
ExprPtr simplify_affine(const ExprPtr& e) {
    const isl::set universe(isl_util::ctx(), "{ : }");
    const std::optional<isl::pw_aff> pa = affine::to_pw_aff(e, universe);
    if (!pa) return e;
    return affine::pw_aff_to_expr(*pa, universe);
}

ExprPtr plus(const ExprPtr& a, const ExprPtr& b) { return simplify_affine(binary(BinOp::Add, a, b)); }
ExprPtr minus(const ExprPtr& a, const ExprPtr& b) { return simplify_affine(binary(BinOp::Sub, a, b)); }

// One storage axis of the temporary: where its index comes from (a rule argument or an iname the rule's
// value depends on), the new iname that sweeps it, and its place in the footprint's box.
struct StorageAxis {
    int argument = -1;   // index into the rule's arguments, or -1
    std::string iname;   // the source iname when argument < 0
    std::string name;    // the new iname
    bool preexisting = false;  // `name` is an iname of the kernel already (given in precompute_inames)
    ExprPtr offset;  // of the storage's first element: affine in the outer inames and parameters
    ExprPtr size;    // the storage's extent: a constant, or (loopy's variable-size temporary) one in the parameters
    bool kept() const { return size->kind != ExprKind::IntLit || size->ival != 1; }
};

// What precompute works out before it edits the kernel.
struct Plan {
    const SubstitutionRule* rule = nullptr;
    std::vector<std::vector<ExprPtr>> accesses;  // argument tuples whose footprint is stored
    bool from_generators = false;                // accesses given by the caller, not gathered from the uses
    std::vector<std::string> sweep;
    std::vector<std::string> reused;             // existing inames of precompute_inames that are not swept
    std::set<std::string> usage_inames, value_inames;
    std::vector<StorageAxis> axes;
    int leaf = -1;                               // the domain that receives the new inames
    std::vector<std::string> space;              // inames of the footprint computation
    isl::set context;                            // their domain (ancestors' and assumptions' constraints included)
    isl::set footprint;                          // over (space minus sweep, storage indices)
};

// The inames of the storage axes longer than one element (the temporary's axes).
std::vector<std::string> kept_inames(const Plan& p) {
    std::vector<std::string> out;
    for (const StorageAxis& a : p.axes)
        if (a.kept()) out.push_back(a.name);
    return out;
}

// Those of them that precompute adds to the kernel.
std::vector<std::string> new_inames(const Plan& p) {
    std::vector<std::string> out;
    for (const StorageAxis& a : p.axes)
        if (a.kept() && !a.preexisting) out.push_back(a.name);
    return out;
}

// Whether node `n` is a use of `rule` that precompute handles: a call with the right number of arguments made
// of inames and constants (loopy ignores the others), or the rule's bare name when it has no arguments.
bool is_use_of(const KernelData& k, const ExprPtr& n, const SubstitutionRule& rule) {
    const bool call_like = n->kind == ExprKind::Call || (n->kind == ExprKind::Var && rule.arguments.empty());
    return call_like && n->name == rule.name && n->args.size() == rule.arguments.size() &&
           only_inames_and_constants(k, n->args);
}

void collect_uses(const KernelData& k, const ExprPtr& e, const SubstitutionRule& rule,
                  std::vector<std::vector<ExprPtr>>& out) {
    if (!e) return;
    visit(e, [&](const ExprPtr& n) {
        if (is_use_of(k, n, rule)) out.push_back(n->args);
    });
}

std::vector<std::vector<ExprPtr>> gather_uses(const KernelData& k, const SubstitutionRule& rule, const Match& within) {
    std::vector<std::vector<ExprPtr>> out;
    for (const Instruction& insn : k.instructions) {
        if (!within(insn, k.name)) continue;
        collect_uses(k, insn.expression, rule, out);
        for (const ExprPtr& a : insn.assignees)
            for (const ExprPtr& idx : a->args) collect_uses(k, idx, rule, out);
        for (const ExprPtr& p : insn.predicates) collect_uses(k, p, rule, out);
    }
    user_assert(!out.empty(), error_kind::LoopyError, "precompute: no invocations of '", rule.name, "' found");
    return out;
}

// The storage index expressions of one access, in axis order.
std::vector<ExprPtr> storage_exprs(const std::vector<StorageAxis>& axes, const std::vector<ExprPtr>& args) {
    std::vector<ExprPtr> out;
    for (const StorageAxis& a : axes) out.push_back(a.argument >= 0 ? args[static_cast<std::size_t>(a.argument)] : var(a.iname));
    return out;
}

std::string storage_dim(std::size_t i) { return cat("_loom_storage_", i); }

std::vector<std::string> storage_dims(const Plan& p) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < p.axes.size(); ++i) out.push_back(storage_dim(i));
    return out;
}

// The inames the footprint is taken over: the sweep, and the existing inames that become storage loops (the
// uses do not involve them, so for the footprint they are like swept inames).
std::vector<std::string> footprint_inames(const Plan& p) {
    std::vector<std::string> out = p.sweep;
    out.insert(out.end(), p.reused.begin(), p.reused.end());
    return out;
}

// The storage axes: the given ones (rule argument names or inames), or loopy's default: the swept inames
// the arguments do not use (the rule's value depends on them), then the arguments.
std::vector<StorageAxis> storage_axes(const KernelData& k, const Plan& p, const PrecomputeOptions& o, NameGenerator& names) {
    std::vector<std::string> sources = o.storage_axes;
    if (sources.empty()) {
        for (const std::string& i : p.sweep)
            if (!p.usage_inames.count(i)) sources.push_back(i);
        sources.insert(sources.end(), p.rule->arguments.begin(), p.rule->arguments.end());
    }
    std::vector<StorageAxis> axes;
    for (std::size_t i = 0; i < sources.size(); ++i) {
        user_assert(std::find(sources.begin(), sources.begin() + static_cast<std::ptrdiff_t>(i), sources[i]) ==
                        sources.begin() + static_cast<std::ptrdiff_t>(i),
                    error_kind::LoopyError, "precompute: storage axis '", sources[i], "' is given more than once");
        StorageAxis a;
        const auto arg = std::find(p.rule->arguments.begin(), p.rule->arguments.end(), sources[i]);
        std::string base;
        if (arg != p.rule->arguments.end()) {
            a.argument = static_cast<int>(arg - p.rule->arguments.begin());
            base = sources[i];
        } else {
            user_assert(is_iname(k, sources[i]), error_kind::LoopyError, "precompute: storage axis '", sources[i],
                        "' is neither an argument of '", p.rule->name, "' nor an iname");
            a.iname = sources[i];
            base = cat(p.rule->name, "_", sources[i]);
        }
        if (i < o.precompute_inames.size() && !o.precompute_inames[i].empty()) {
            a.name = o.precompute_inames[i];
            a.preexisting = is_iname(k, a.name);
            if (!a.preexisting) check_name(a.name, "storage axis name", "precompute");
            user_assert(a.preexisting || !names.is_taken(a.name), error_kind::LoopyError,
                        "precompute: new storage axis name '", a.name, "' conflicts with existing name");
            names.take(a.name);
        } else {
            a.name = names(base);
        }
        axes.push_back(std::move(a));
    }
    for (std::size_t j = 0; j < p.rule->arguments.size(); ++j)
        user_assert(std::any_of(axes.begin(), axes.end(), [&](const StorageAxis& a) { return a.argument == static_cast<int>(j); }),
                    error_kind::LoopyError, "precompute: argument '", p.rule->arguments[j], "' of '", p.rule->name,
                    "' has no storage axis");
    return axes;
}

// The leaf domain of the inames the footprint involves (the deepest of their home domains), where the new
// inames go, as loopy's DomainChanger; the swept inames must live there.
void find_leaf_domain(const KernelData& k, Plan& p) {
    std::set<std::string> expanding(p.sweep.begin(), p.sweep.end());
    expanding.insert(p.usage_inames.begin(), p.usage_inames.end());
    expanding.insert(p.reused.begin(), p.reused.end());
    for (const std::string& i : expanding) p.leaf = std::max(p.leaf, home_domain(k, i));
    user_assert(p.leaf >= 0, error_kind::LoopyError, "precompute: the uses of '", p.rule->name, "' involve no iname to sweep");
    for (const std::string& i : p.sweep)
        user_assert(home_domain(k, i) == p.leaf, error_kind::LoopyError, "precompute: sweep iname '", i,
                    "' is not 'at home' in the sweep's leaf domain");
    for (const std::string& i : p.reused)
        user_assert(home_domain(k, i) == p.leaf, error_kind::LoopyError, "precompute: existing iname '", i,
                    "' in precompute_inames is not 'at home' in the sweep's leaf domain");
    const isl::set& leaf = k.domains[static_cast<std::size_t>(p.leaf)];
    std::vector<std::string> space = isl_util::set_dim_names(leaf);
    for (const std::string& n : isl_util::param_names(leaf.space()))
        if (is_iname(k, n)) expanding.insert(n);
    for (const std::string& i : expanding)
        if (std::find(space.begin(), space.end(), i) == space.end()) space.insert(space.begin(), i);
    p.space = space;
    p.context = domain_of(k, space);
}

// The storage points one access touches for each iteration of the outer inames: a set over (space minus
// sweep, storage indices).
isl::set access_footprint(const Plan& p, const std::vector<ExprPtr>& args) {
    const std::vector<ExprPtr> exprs = storage_exprs(p.axes, args);
    const std::vector<std::string> dims = storage_dims(p);
    isl::set s = isl_util::add_named_dims(p.context, dims, false);
    for (std::size_t i = 0; i < exprs.size(); ++i) {
        const std::optional<isl::set> indexed = affine::try_add_constraint(s, var(dims[i]), BinOp::Eq, exprs[i]);
        user_assert(indexed.has_value(), error_kind::LoopyError, "precompute: index '", to_string(exprs[i]), "' of a use of '",
                    p.rule->name, "' is not affine");
        s = *indexed;
    }
    return isl_util::project_out(s, footprint_inames(p));
}

// The inames the footprint varies with: the compute instruction's outer loops.
std::vector<std::string> outer_dims(const Plan& p) {
    const std::vector<std::string> inner = footprint_inames(p);
    std::vector<std::string> out;
    for (const std::string& i : p.space)
        if (std::find(inner.begin(), inner.end(), i) == inner.end()) out.push_back(i);
    return out;
}

// loopy's find_max_of_pwaff_with_params: the largest value of `size` (in the parameters and the outer inames)
// over the outer iterations of the footprint, as an expression in the parameters alone.
std::optional<ExprPtr> max_over_outer(const Plan& p, const isl::pw_aff& size, const isl::set& context) {
    const std::optional<ExprPtr> in_outer = affine::dominating_piece_expr(size, context);
    if (!in_outer) return std::nullopt;
    const std::string value = "_loom_size";
    isl::set sizes = isl_util::add_named_dims(isl_util::project_onto(p.footprint, outer_dims(p)), {value}, false);
    sizes = isl_util::project_onto(affine::add_constraint(sizes, var(value), BinOp::Eq, *in_outer), {value});
    return affine::dominating_piece_expr(isl_util::dim_max(sizes, 0), context);
}

// loopy's base_index_and_length for storage axis `pos`: the smallest index (one affine piece in the outer
// inames and parameters) and the largest extent from it over all outer iterations allowed by `context`, a
// constant where there is one, else (as loopy's static_max_of_pw_aff) one in the parameters.
std::optional<std::pair<ExprPtr, ExprPtr>> widest_extent(const Plan& p, const isl::set& per_outer, int pos,
                                                         const isl::set& context) {
    const std::optional<ExprPtr> base = affine::single_piece_expr(isl_util::dim_min(per_outer, pos), context);
    if (!base) return std::nullopt;
    const isl::pw_aff size = isl_util::dim_size(per_outer, pos);
    if (const std::optional<long> n = isl_util::static_max(size, context)) return std::pair{*base, int_lit(*n)};
    const std::optional<ExprPtr> in_params = max_over_outer(p, size, context);
    if (!in_params) return std::nullopt;
    return std::pair{*base, *in_params};
}

// Sizes each storage axis by the fixed box around the footprint, with the outer inames as parameters; where
// isl finds none (the footprint's size varies with the outer inames), by the largest extent it takes.
void box_footprint(const KernelData& k, Plan& p, const std::string& temporary) {
    const isl::set per_outer = isl_util::dims_to_params(p.footprint, outer_dims(p));
    const auto box = isl_util::guard(error_kind::LoopyError, "precompute", [&] { return affine::fixed_box_hull(per_outer); });
    for (std::size_t i = 0; i < p.axes.size(); ++i) {
        const auto axis = box ? std::optional(std::pair{(*box)[i].offset, int_lit((*box)[i].size)})
                              : widest_extent(p, per_outer, static_cast<int>(i), assumption_context(k));
        user_assert(axis.has_value(), error_kind::StaticValueFindingError, "precompute: a static size was not found for axis ", i,
                    " of the footprint ", isl_util::to_str(per_outer), " of '", p.rule->name, "' (storing it in '",
                    temporary, "' needs a size in the parameters)");
        std::tie(p.axes[i].offset, p.axes[i].size) = *axis;
    }
}

bool is_swept(const Plan& p, const std::string& iname) {
    return std::find(p.sweep.begin(), p.sweep.end(), iname) != p.sweep.end();
}

// Whether the rule's value or its uses involve `iname`: then the footprint varies with it.
bool involved(const Plan& p, const std::string& iname) {
    return p.usage_inames.count(iname) || p.value_inames.count(iname);
}

// Storage axes mapped to inames of the kernel (loopy's preexisting precompute inames) must be longer than
// one element, and unless swept, not involved in the footprint: each value of such an iname stands for one
// storage index. Whether their ranges fit the footprint is checked once it is known (check_preexisting_domain).
void check_preexisting_axes(const Plan& p) {
    for (std::size_t i = 0; i < p.axes.size(); ++i) {
        const StorageAxis& a = p.axes[i];
        if (!a.preexisting) continue;
        user_assert(a.kept(), error_kind::LoopyError, "precompute: precompute axis ", i + 1,
                    " (1-based) was eliminated as having length 1 but also mapped to existing iname '", a.name, "'");
        user_assert(is_swept(p, a.name) || !involved(p, a.name), error_kind::LoopyError, "precompute: existing iname '", a.name,
                    "' in precompute_inames is used by '", p.rule->name,
                    "' or its uses, so it cannot also number a storage axis unless it is swept");
    }
}

// The existing inames of precompute_inames that are neither swept nor involved in the footprint (e.g. those
// an earlier precompute created): they become the compute instruction's storage loops.
std::vector<std::string> reused_inames(const Plan& p) {
    std::vector<std::string> out;
    for (const StorageAxis& a : p.axes)
        if (a.preexisting && !is_swept(p, a.name) && !involved(p, a.name)) out.push_back(a.name);
    return out;
}

Plan make_plan(const KernelData& k, const SubstitutionRule& rule, const std::vector<std::vector<ExprPtr>>& generators,
               const std::vector<std::string>& sweep, const PrecomputeOptions& o, const std::string& temporary,
               NameGenerator& names) {
    Plan p;
    p.rule = &rule;
    p.sweep = sweep;
    for (const std::string& i : sweep) user_assert(is_iname(k, i), error_kind::LoopyError, "precompute: sweep iname '", i, "' is not a known iname");
    p.from_generators = !generators.empty();
    p.accesses = p.from_generators ? generators : gather_uses(k, rule, Match::parse(o.within));
    // A use naming what the kernel does not know (e.g. an iname since split) would match no invocation.
    for (const auto& args : generators)
        for (const ExprPtr& a : args)
            for (const std::string& n : referenced_names(a))
                user_assert(is_iname(k, n) || find_variable(k, n), error_kind::LoopyError, "precompute: a use of '", rule.name,
                            "' given refers to '", n, "', which is neither an iname nor a variable of the kernel");
    for (const auto& args : p.accesses)
        for (const ExprPtr& a : args)
            for (const std::string& i : inames_in(k, a)) p.usage_inames.insert(i);
    p.value_inames = inames_in(k, expand_rules(rule.expression, k.substitutions));
    for (const std::string& a : rule.arguments) p.value_inames.erase(a);
    for (const std::string& i : sweep)
        user_assert(p.usage_inames.count(i) || p.value_inames.count(i), error_kind::LoopyError,
                    "precompute: unreferenced sweep inames specified: ", i);
    p.axes = storage_axes(k, p, o, names);
    if (p.axes.empty()) return p;  // one value: no footprint to box, no new inames
    p.reused = reused_inames(p);
    find_leaf_domain(k, p);
    // Each use's footprint is a box that moves with the outer iterations, simplified under their bounds
    // (whose consequences for the storage indices would otherwise repeat in every piece): the union of a
    // stencil's shifted boxes then merges in a few steps, and the bounds come back once.
    const isl::set outer = isl_util::add_named_dims(isl_util::project_onto(p.context, outer_dims(p)), storage_dims(p), false);
    isl::set moving;
    for (const auto& args : p.accesses) {
        const isl::set box = access_footprint(p, args).gist(outer);
        moving = moving.is_null() ? box : moving.unite(box).coalesce();
    }
    p.footprint = moving.intersect(outer).coalesce();
    box_footprint(k, p, temporary);
    check_preexisting_axes(p);
    return p;
}

// The points of `s` (over `order`: outer inames, then `axes`) with each of `axes` ranging, for each outer
// iteration, over everything from its smallest to its largest value in `s` (loopy's boxify).
isl::set bounding_box_of(const isl::set& footprint, const std::vector<std::string>& axes,
                         const std::vector<std::string>& order) {
    // A stencil's footprint is a union of shifted boxes: merged first, each step below handles a few pieces.
    const isl::set s = footprint.coalesce();
    isl::set box = isl_util::project_onto(isl_util::add_named_dims(isl_util::project_out(s, axes), axes, false), order);
    for (const std::string& x : axes) {
        std::vector<std::string> others;
        for (const std::string& o : axes)
            if (o != x) others.push_back(o);
        const isl::set values = isl_util::rename_dim(isl_util::project_out(s, others).coalesce(), x, x + "'");
        const isl::set pairs = isl_util::add_named_dims(values, {x}, false);
        const isl::set above_min = isl_util::project_out(affine::add_constraint(pairs, var(x + "'"), BinOp::Le, var(x)), {x + "'"});
        const isl::set below_max = isl_util::project_out(affine::add_constraint(pairs, var(x + "'"), BinOp::Ge, var(x)), {x + "'"});
        const isl::set slab = above_min.coalesce().intersect(below_max.coalesce());
        box = box.intersect(isl_util::project_onto(isl_util::add_named_dims(slab, others, false), order));
    }
    return box;
}

// isl operations allowed to the convex hull of a footprint in pieces: for a stencil's footprint over a
// parametric sweep it can take isl minutes (finding 27 of docs/reliability.md). The largest of the tests (a
// stencil's halo split over work-items) takes between 400,000 and 600,000; 2,000,000 take isl about 0.5 s.
// A footprint that keeps existentially quantified variables once coalesced gets a tenth: isl's tableau is
// larger at each of its pivots, and 2,000,000 took up to 2.3 s (finding 40); the one such footprint of the
// tests is decided within it.
constexpr unsigned long kConvexityOperations = 2000000;
constexpr unsigned long kConvexityOperationsWithExistentials = kConvexityOperations / 10;

// A set over (outer inames, kept new inames): for each outer iteration, the storage points to compute,
// numbered from the box's offset. With `bounding_box`, each axis spans its whole range (no holes, no
// missing corners); else the footprint itself, which must be convex.
isl::set new_iname_domain(const Plan& p, bool bounding_box) {
    std::vector<std::string> kept, storage;
    isl::set s = p.footprint;
    for (std::size_t i = 0; i < p.axes.size(); ++i) {
        storage.push_back(storage_dim(i));
        if (!p.axes[i].kept()) continue;
        kept.push_back(p.axes[i].name);
        s = isl_util::add_named_dims(s, {p.axes[i].name}, false);
        s = affine::add_constraint(s, var(storage_dim(i)), BinOp::Eq, plus(var(p.axes[i].name), p.axes[i].offset));
    }
    s = isl_util::project_out(s, storage);
    std::vector<std::string> order = outer_dims(p);
    order.insert(order.end(), kept.begin(), kept.end());
    if (bounding_box) s = bounding_box_of(s, kept, order);
    s = s.coalesce();
    if (!bounding_box && s.n_basic_set() > 1) {
        const unsigned long budget =
            isl_util::existentials(s) > 0 ? kConvexityOperationsWithExistentials : kConvexityOperations;
        const std::optional<bool> convex = isl_util::within_operations(budget, [&] {
            const isl::set hull(s.polyhedral_hull());
            const bool whole = hull.is_subset(s);
            if (whole) s = hull;
            return whole;
        });
        user_assert(convex.has_value(), error_kind::LoopyError, "precompute: the footprint of '", p.rule->name,
                    "' takes isl more than ", budget, " operations to find convex or not (",
                    isl_util::to_str(s), "); pass fetch_bounding_box=true to compute its bounding box");
        user_assert(*convex, error_kind::LoopyError, "precompute: the footprint of '", p.rule->name,
                    "' is not convex (", isl_util::to_str(s), "); pass fetch_bounding_box=true to compute its bounding box");
    }
    return isl_util::project_onto(s, order);
}

// With existing inames as storage axes, they must range over exactly what the footprint (`news`) needs:
// cover it, and lose no iteration of the original domain once constrained to it.
void check_preexisting_domain(const Plan& p, const isl::set& news) {
    if (std::none_of(p.axes.begin(), p.axes.end(), [](const StorageAxis& a) { return a.preexisting; })) return;
    const std::vector<std::string> added = new_inames(p);
    std::vector<std::string> absent, order = p.space;
    for (const std::string& i : p.space)
        if (!isl_util::has_dim(news, i)) absent.push_back(i);
    order.insert(order.end(), added.begin(), added.end());
    const isl::set constraint = isl_util::project_onto(isl_util::add_named_dims(news, absent, false), order);
    const isl::set remaining =
        isl_util::project_out(constraint.intersect(isl_util::add_named_dims(p.context, added, false)), added);
    std::vector<std::string> existing, reused = outer_dims(p);
    for (const StorageAxis& a : p.axes)
        if (a.preexisting) existing.push_back(cat("'", a.name, "'"));
    for (const StorageAxis& a : p.axes)
        if (a.preexisting) reused.push_back(a.name);
    const bool covered = isl_util::project_onto(news, reused).is_subset(isl_util::project_onto(p.context, reused));
    user_assert(covered, error_kind::LoopyError, "precompute: the existing inames ", join(existing, ", "),
                " in precompute_inames do not range over the footprint ", isl_util::to_str(news), " of '", p.rule->name,
                "' (domain of preexisting inames does not match domain needed for precompute)");
    user_assert(remaining.is_equal(p.context), error_kind::LoopyError, "precompute: the existing inames ", join(existing, ", "),
                " in precompute_inames range beyond the footprint ", isl_util::to_str(news), " of '", p.rule->name,
                "' (original domain got shrunk by applying the precompute)");
}

// The leaf domain with the new inames added, constrained by `news` (over outer inames and new inames).
isl::set extended_leaf(const KernelData& k, const Plan& p, const isl::set& news) {
    const isl::set& leaf = k.domains[static_cast<std::size_t>(p.leaf)];
    const std::vector<std::string> own = isl_util::set_dim_names(leaf);
    const std::vector<std::string> added = new_inames(p);
    std::vector<std::string> parents, missing;
    for (const std::string& i : outer_dims(p))
        if (std::find(own.begin(), own.end(), i) == own.end()) parents.push_back(i);
    for (const std::string& i : own)
        if (!isl_util::has_dim(news, i)) missing.push_back(i);
    std::vector<std::string> order = own;
    order.insert(order.end(), added.begin(), added.end());
    isl::set constraint = isl_util::dims_to_params(news, parents);
    constraint = isl_util::project_onto(isl_util::add_named_dims(constraint, missing, false), order);
    isl::set out = isl_util::add_named_dims(leaf, added, false);
    out = isl_util::align_params(out, constraint.space());
    constraint = isl_util::align_params(constraint, out.space());
    // The footprint repeats the constraints of the loops around it. Where they have existentially quantified
    // variables, isl keeps both copies, and every projection of the domain costs with each (three prefetches
    // of prefetches: 10 of them, minutes for isl; reliability.md 37): then only what the leaf does not imply
    // is added.
    const isl::set extended = out.intersect(constraint);
    if (isl_util::existentials(extended) <= isl_util::existentials(out)) return extended.coalesce();
    return out.intersect(constraint.gist(out)).coalesce();
}

// Whether the storage points of `args` (a use) lie in the footprint, for every outer iteration.
bool in_footprint(const KernelData& k, const Plan& p, const std::vector<ExprPtr>& args) {
    if (!p.from_generators || p.axes.empty()) return true;
    for (const ExprPtr& a : args)
        for (const std::string& i : inames_in(k, a))
            if (std::find(p.space.begin(), p.space.end(), i) == p.space.end()) return false;
    return access_footprint(p, args).is_subset(p.footprint);
}

// The read of the temporary that replaces a use with arguments `args`.
ExprPtr temporary_read(const Plan& p, const std::string& temporary, const std::vector<ExprPtr>& args) {
    const std::vector<ExprPtr> exprs = storage_exprs(p.axes, args);
    std::vector<ExprPtr> idx;
    for (std::size_t i = 0; i < p.axes.size(); ++i)
        if (p.axes[i].kept()) idx.push_back(minus(exprs[i], p.axes[i].offset));
    return idx.empty() ? var(temporary) : subscript(temporary, std::move(idx));
}

// What storage axis `a` stands for at the compute instruction's iteration: its iname plus the box's offset.
ExprPtr storage_value(const StorageAxis& a) { return a.kept() ? plus(var(a.name), a.offset) : a.offset; }

// The swept inames the rule's value depends on (storage axes that are no argument), at the storage points.
std::map<std::string, ExprPtr> swept_iname_values(const Plan& p) {
    std::map<std::string, ExprPtr> out;
    for (const StorageAxis& a : p.axes)
        if (a.argument < 0) out[a.iname] = storage_value(a);
    return out;
}

// Replaces inames by expressions in an expression and in the rules it uses, as loopy's rule-aware mappers
// do: a rule whose expression (or a rule it uses) involves a replaced iname gets a copy with the iname
// replaced (named after it, e.g. E_0), which finish() renames to the original's name once the original is
// unused. A rule's own arguments shadow inames of the same name.
class RuleAwareInameSubstitution {
public:
    RuleAwareInameSubstitution(KernelData& k, NameGenerator& names, std::map<std::string, ExprPtr> values)
        : k_(k), names_(names), values_(std::move(values)) {}

    ExprPtr operator()(const ExprPtr& e) { return apply(e, values_); }

    void finish() {
        for (const auto& [original, copy] : copies_) {
            if (find_rule(k_.substitutions, original) || !find_rule(k_.substitutions, copy)) continue;
            // Init-captures: clang before 16 cannot capture structured bindings.
            const auto renamed = [&copy = copy, &original = original](const ExprPtr& e) -> ExprPtr {
                return rewrite(e, [&](const ExprPtr& n) { return rule_use_named(n, copy, original); });
            };
            for (Instruction& insn : k_.instructions) rewrite_instruction(insn, renamed);
            for (SubstitutionRule& r : k_.substitutions) {
                r.expression = renamed(r.expression);
                if (r.name == copy) r.name = original;
            }
        }
    }

private:
    // `n` under rule name `to` when it is a use of rule `from` (a call, or the bare name); else `n`.
    static ExprPtr rule_use_named(const ExprPtr& n, const std::string& from, const std::string& to) {
        if ((n->kind != ExprKind::Call && n->kind != ExprKind::Var) || n->name != from || from == to) return n;
        return n->kind == ExprKind::Var ? var(to) : call(to, n->args);
    }

    ExprPtr apply(const ExprPtr& e, const std::map<std::string, ExprPtr>& values) {
        return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
            if (n->kind != ExprKind::Call && n->kind != ExprKind::Var) return n;
            if (find_rule(k_.substitutions, n->name)) return rule_use_named(n, n->name, copy_of(n->name));
            if (n->kind != ExprKind::Var) return n;
            const auto it = values.find(n->name);
            return it == values.end() ? n : it->second;
        });
    }

    // The rule to use in place of `name`: itself when the replacement changes nothing in it.
    std::string copy_of(const std::string& name) {
        if (const auto it = copies_by_rule_.find(name); it != copies_by_rule_.end()) return it->second;
        copies_by_rule_[name] = name;
        const SubstitutionRule rule = *find_rule(k_.substitutions, name);
        std::map<std::string, ExprPtr> scoped = values_;
        for (const std::string& a : rule.arguments) scoped.erase(a);
        const ExprPtr body = apply(rule.expression, scoped);
        if (body == rule.expression) return name;
        const std::string copy = names_(name);
        k_.substitutions.push_back(SubstitutionRule{copy, rule.arguments, body});
        copies_.emplace_back(name, copy);
        copies_by_rule_[name] = copy;
        return copy;
    }

    KernelData& k_;
    NameGenerator& names_;
    std::map<std::string, ExprPtr> values_;
    std::map<std::string, std::string> copies_by_rule_;
    std::vector<std::pair<std::string, std::string>> copies_;  // (original, copy)
};

// The compute instruction's right-hand side: the rule's value at each storage point, with the swept inames
// replaced by the storage inames also inside the rules it uses (see RuleAwareInameSubstitution).
ExprPtr compute_expression(const Plan& p, RuleAwareInameSubstitution& substitution) {
    std::vector<ExprPtr> args(p.rule->arguments.size());
    for (const StorageAxis& a : p.axes)
        if (a.argument >= 0) args[static_cast<std::size_t>(a.argument)] = storage_value(a);
    const ExprPtr use = args.empty() ? var(p.rule->name) : call(p.rule->name, args);
    return substitution(expand_rules(use, {*p.rule}));
}

// With a footprint given (a use, or a prefetch subscript), whether a use lies in it is decided by isl: a use
// whose arguments are not made of inames and constants (`map1[indirect[i], j]`) cannot be placed, a
// LoopyError as in loopy (which fails converting it to an affine expression) rather than a fetch nothing reads.
void check_use_followable(const KernelData& k, const Plan& p, const ExprPtr& n) {
    if (!p.from_generators || n->kind != ExprKind::Call || n->name != p.rule->name) return;
    user_assert(only_inames_and_constants(k, n->args), error_kind::LoopyError, "precompute: the use '", to_string(n),
                "' has arguments that are not affine in the inames: whether it lies in the footprint given cannot be told");
}

// Replaces the uses of the rule in the footprint by reads of the temporary, in the instructions `within`
// selects; returns the ids of the instructions changed.
std::set<std::string> replace_uses(KernelData& k, const Plan& p, const std::string& temporary, const Match& within) {
    std::set<std::string> changed;
    auto replace = [&](const ExprPtr& e, bool& hit) -> ExprPtr {
        if (!e) return e;
        return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
            check_use_followable(k, p, n);
            if (!is_use_of(k, n, *p.rule) || !in_footprint(k, p, n->args)) return n;
            hit = true;
            return temporary_read(p, temporary, n->args);
        });
    };
    for (Instruction& insn : k.instructions) {
        if (!within(insn, k.name)) continue;
        bool hit = false;
        insn.expression = replace(insn.expression, hit);
        for (ExprPtr& pred : insn.predicates) pred = replace(pred, hit);
        for (ExprPtr& a : insn.assignees) {
            std::vector<ExprPtr> idx = a->args;
            for (ExprPtr& i : idx) i = replace(i, hit);
            if (a->kind == ExprKind::Subscript)
                a = a->linear ? linear_subscript(a->name, idx[0]) : subscript(a->name, std::move(idx));
        }
        if (hit) changed.insert(insn.id);
    }
    return changed;
}

// The global barrier that `id` waits for last (the one that waits for all the others), if any.
std::optional<std::string> latest_global_barrier(const KernelData& k, const std::string& id) {
    std::vector<std::string> barriers;
    for (const std::string& d : all_dependencies(k, id)) {
        const Instruction* insn = find_instruction(k, d);
        if (insn && insn->kind == InsnKind::Barrier && insn->barrier_kind == "global") barriers.push_back(d);
    }
    for (const std::string& b : barriers) {
        const std::set<std::string> before = all_dependencies(k, b);
        if (std::all_of(barriers.begin(), barriers.end(), [&](const std::string& o) { return o == b || before.count(o); }))
            return b;
    }
    return std::nullopt;
}

// The compute instruction must follow what the instructions it serves wait for where that writes a
// variable it reads, and the last global barrier they wait for (loopy's rules).
std::set<std::string> compute_dependencies(const KernelData& k, const Instruction& compute, const std::set<std::string>& users) {
    const std::set<std::string> reads = read_names(compute);
    std::set<std::string> out;
    for (const Instruction& insn : k.instructions) {
        if (!users.count(insn.id)) continue;
        for (const std::string& d : insn.depends_on) {
            const Instruction* dep = find_instruction(k, d);
            if (!dep) continue;
            const std::set<std::string> writes = written_names(*dep);
            if (std::any_of(writes.begin(), writes.end(), [&](const std::string& w) { return reads.count(w) != 0; }))
                out.insert(insn.depends_on.begin(), insn.depends_on.end());
        }
    }
    for (const std::string& id : users)
        if (const std::optional<std::string> barrier = latest_global_barrier(k, id)) out.insert(*barrier);
    for (const std::string& u : users) out.erase(u);
    out.erase(compute.id);
    return out;
}

Kernel tag_new_inames(const Kernel& k, const Plan& p, const std::string& tag) {
    const std::optional<TagRequest> request = parse_tag_request(tag);
    if (request && request->kind == TagRequest::Kind::None) return k;  // an unknown tag is tag_inames' error
    // "l.auto" stays a tag here; precompute and add_prefetch assign the axes once done (with_auto_axes).
    const std::vector<std::string> kept = new_inames(p);
    std::vector<std::pair<std::string, std::string>> tags;
    for (const std::string& n : kept) tags.emplace_back(n, tag);
    return tag_inames(k, tags);
}

// Expands, in the instructions `within` selects, the other rules through which they use rule `name`, so that
// every use of it appears in the instructions themselves (loopy follows them through the rules instead).
void expose_nested_uses(KernelData& k, const std::string& name, const Match& within) {
    std::set<std::string> using_it{name};
    std::vector<SubstitutionRule> carriers;
    for (bool grew = true; grew;) {
        grew = false;
        for (const SubstitutionRule& r : k.substitutions) {
            if (using_it.count(r.name)) continue;
            const std::vector<std::string> used = rules_used(r.expression, k.substitutions);
            if (std::none_of(used.begin(), used.end(), [&](const std::string& u) { return using_it.count(u) != 0; })) continue;
            using_it.insert(r.name);
            carriers.push_back(r);
            grew = true;
        }
    }
    if (carriers.empty()) return;
    for (Instruction& insn : k.instructions)
        if (within(insn, k.name)) insn = expand_rules(insn, carriers);
}

// `base`, or base_0, base_1, ...: the first id no instruction has (instruction ids are a namespace of their own).
std::string unique_insn_id(const KernelData& k, const std::string& base) {
    std::string id = base;
    for (int n = 0; find_instruction(k, id); ++n) id = cat(base, "_", n);
    return id;
}

// The loops an instruction reading what others write must run in: for each variable it reads, the loops
// all its writers share, less those that index the written element (loopy's
// guess_iname_deps_based_on_var_use).
std::set<std::string> loops_of_writers(const KernelData& k, const Instruction& reader) {
    std::set<std::string> out;
    for (const std::string& name : read_names(reader)) {
        std::optional<std::set<std::string>> shared;
        for (const Instruction& w : k.instructions) {
            if (!written_names(w).count(name)) continue;
            std::set<std::string> loops = w.within_inames;
            for (const ExprPtr& a : w.assignees)
                for (const std::string& i : inames_in(k, a)) loops.erase(i);
            if (!shared) {
                shared = loops;
                continue;
            }
            std::erase_if(*shared, [&](const std::string& i) { return !loops.count(i); });
        }
        if (shared) out.insert(shared->begin(), shared->end());
    }
    return out;
}

// A temporary in global memory is filled by all work-groups before any reads it: a global barrier follows
// the compute instruction (as loopy adds one), and the users wait for the barrier.
Instruction global_barrier_after(const KernelData& k, const Instruction& compute) {
    Instruction barrier;
    barrier.kind = InsnKind::Barrier;
    barrier.id = unique_insn_id(k, compute.id + "_barrier");
    barrier.barrier_kind = "global";
    barrier.mem_kind = "global";
    barrier.depends_on = {compute.id};
    barrier.within_inames_is_final = true;
    return barrier;
}

// The instruction that fills the temporary, in the loops over the new inames and the outer ones (given, or
// those the uses and the rule's value involve, and those of the writers of what it reads).
Instruction compute_instruction(const KernelData& k, const Plan& p, const PrecomputeOptions& o, const std::string& id,
                                const std::string& temporary, const ExprPtr& expression) {
    Instruction compute;
    compute.id = id;
    std::vector<ExprPtr> idx;
    for (const std::string& n : kept_inames(p)) idx.push_back(var(n));
    compute.assignees = {idx.empty() ? var(temporary) : subscript(temporary, idx)};
    compute.expression = expression;
    if (o.precompute_outer_inames) {
        compute.within_inames.insert(o.precompute_outer_inames->begin(), o.precompute_outer_inames->end());
    } else {
        compute.within_inames = p.usage_inames;
        compute.within_inames.insert(p.value_inames.begin(), p.value_inames.end());
        for (const std::string& i : p.sweep) compute.within_inames.erase(i);
        const std::set<std::string> writers_loops = loops_of_writers(k, expand_rules(compute, k.substitutions));
        compute.within_inames.insert(writers_loops.begin(), writers_loops.end());
    }
    for (const std::string& n : kept_inames(p)) compute.within_inames.insert(n);
    compute.within_inames_is_final = true;
    return compute;
}

Variable storage_temporary(const Plan& p, const PrecomputeOptions& o, const std::string& name) {
    Variable t;
    t.name = name;
    t.kind = VarKind::Temporary;
    t.dtype = o.dtype;
    t.address_space = o.temporary_address_space;
    for (const StorageAxis& a : p.axes)
        if (a.kept()) t.shape.push_back(a.size);
    t.is_array = !t.shape.empty();
    set_default_strides(t);
    return t;
}

// Whether two dtypes agree, DType::Unknown agreeing with any.
bool compatible(DType a, DType b) { return a == DType::Unknown || b == DType::Unknown || a == b; }

// Adds temporary `t`, or, when one of its name exists (an earlier precompute into the same temporary, as
// loopy allows), widens that one to hold both: the dtypes, numbers of axes and address spaces must agree,
// and each axis takes the larger length.
void store_in_temporary(KernelData& k, Variable t) {
    const auto old = std::find_if(k.temporaries.begin(), k.temporaries.end(), [&](const Variable& v) { return v.name == t.name; });
    if (old == k.temporaries.end()) {
        k.temporaries.push_back(std::move(t));
        return;
    }
    Variable& v = *old;
    user_assert(!v.read_only && v.initializer.empty(), error_kind::LoopyError, "precompute: existing temporary '", t.name,
                "' is read-only: it cannot store the precomputed values");
    user_assert(compatible(v.dtype, t.dtype), error_kind::LoopyError, "precompute: existing and new dtype of temporary '", t.name,
                "' do not match (existing: ", dtype_name(v.dtype), ", new: ", dtype_name(t.dtype), ")");
    user_assert(v.is_array == t.is_array && v.shape.size() == t.shape.size(), error_kind::LoopyError, "precompute: existing and new temporary '",
                t.name, "' do not have matching number of dimensions (", v.shape.size(), " vs. ", t.shape.size(), ")");
    const bool spaces_agree = v.address_space == t.address_space || v.address_space == AddressSpace::Auto ||
                              t.address_space == AddressSpace::Auto;
    user_assert(spaces_agree, error_kind::LoopyError, "precompute: existing and new temporary '", t.name,
                "' do not have matching address spaces (existing: ", address_space_name(v.address_space), ", new: ",
                address_space_name(t.address_space), ")");
    if (v.dtype == DType::Unknown) v.dtype = t.dtype;
    if (v.address_space == AddressSpace::Auto) v.address_space = t.address_space;
    bool grew = false;
    for (std::size_t i = 0; i < v.shape.size(); ++i) {
        for (const Variable* x : {&v, &t})
            user_assert(x->shape[i]->kind == ExprKind::IntLit, error_kind::LoopyError, "precompute: ", x == &v ? "existing" : "new",
                        " temporary '", t.name, "' has a non-constant length ", to_string(x->shape[i]), " on axis ", i,
                        ": the two cannot be merged");
        if (t.shape[i]->ival <= v.shape[i]->ival) continue;
        v.shape[i] = t.shape[i];
        grew = true;
    }
    if (!grew) return;
    v.strides.clear();
    set_default_strides(v);
}

// The core of precompute, with the footprint generators already parsed (add_prefetch builds its own).
Kernel precompute_rule(const Kernel& kernel, const std::string& rule_name, const std::vector<std::vector<ExprPtr>>& generators,
                       const std::vector<std::string>& sweep, const PrecomputeOptions& o) {
    const SubstitutionRule* found = find_rule(kernel->substitutions, rule_name);
    user_assert(found != nullptr, error_kind::LoopyError, "precompute: substitution rule '", rule_name, "' not found");
    const SubstitutionRule rule = *found;
    NameGenerator names(*kernel);
    if (!o.temporary_name.empty()) check_name(o.temporary_name, "temporary name", "precompute");
    const std::string temporary = o.temporary_name.empty() ? names(rule.name) : o.temporary_name;
    const Variable* existing = kernel.find_variable(temporary);
    user_assert((!existing || !existing->is_arg()) && !is_iname(*kernel, temporary), error_kind::LoopyError,
                "precompute: temporary name '", temporary, "' is already in use", existing ? " by an argument" : " by an iname");
    names.take(temporary);
    const std::string compute_id = o.compute_insn_id.empty() ? unique_insn_id(*kernel, rule.name) : o.compute_insn_id;
    user_assert(!kernel.find_instruction(compute_id), error_kind::LoopyError, "precompute: instruction id '", compute_id,
                "' is already in use");
    KernelData k = kernel.copy();
    expose_nested_uses(k, rule.name, Match::parse(o.within));
    const Plan p = make_plan(k, rule, generators, sweep, o, temporary, names);

    if (!kept_inames(p).empty()) {
        const isl::set news = new_iname_domain(p, o.fetch_bounding_box);
        check_preexisting_domain(p, news);
        k.domains[static_cast<std::size_t>(p.leaf)] = extended_leaf(k, p, news);
    }
    RuleAwareInameSubstitution substitution(k, names, swept_iname_values(p));
    const ExprPtr value = compute_expression(p, substitution);
    Instruction compute = compute_instruction(k, p, o, compute_id, temporary, value);
    const std::set<std::string> users = replace_uses(k, p, temporary, Match::parse(o.within));
    compute.depends_on = compute_dependencies(k, compute, users);
    std::vector<Instruction> added{compute};
    if (o.temporary_address_space == AddressSpace::Global) added.push_back(global_barrier_after(k, compute));
    for (Instruction& insn : k.instructions)
        if (users.count(insn.id)) insn.depends_on.insert(added.back().id);
    k.instructions.insert(k.instructions.begin(), added.begin(), added.end());
    store_in_temporary(k, storage_temporary(p, o, temporary));
    drop_unused_rules(k);
    substitution.finish();
    return tag_new_inames(Kernel(std::move(k)), p, o.default_tag);
}

// loopy's precompute assigns the local axes of "l.auto" inames at once rather than leaving them to
// preprocessing, so the inames an axis assignment creates (`a_dim_0_outer` when the fetch is longer than
// the work-group) exist for later transforms such as prioritize_loops. It uses the work-group the kernel has
// now: with no local axes yet, the new inames become loops.
Kernel with_auto_axes(const Kernel& k, const std::string& default_tag) {
    return parse_iname_tag(default_tag) == InameTag{InameTag::Kind::LocalAuto} ? assign_automatic_axes(k) : k;
}

// --- add_prefetch

// The entries of a subscript list "i, :, j+1" (commas inside parentheses or brackets do not split).
std::vector<std::string> subscript_entries(const std::string& text) {
    std::vector<std::string> out(1);
    int depth = 0;
    for (char c : text) {
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c == ',' && depth == 0) out.emplace_back();
        else out.back() += c;
    }
    for (std::string& e : out) e = trim(e);
    return out;
}

// The variable name and, when written as `a[i, :]`, the footprint subscript entries.
std::pair<std::string, std::optional<std::vector<std::string>>> parse_prefetch_target(const std::string& text) {
    const std::string target = trim(text);
    const std::size_t open = target.find('[');
    const std::string name = trim(target.substr(0, open));
    user_assert(is_identifier(name) && (open == std::string::npos || target.back() == ']'), error_kind::LoopyError,
                "add_prefetch: '", text, "' is neither a variable name nor a subscript");
    if (open == std::string::npos) return {name, std::nullopt};
    return {name, subscript_entries(target.substr(open + 1, target.size() - open - 2))};
}

// Adds iname `name` with 0 <= name < extent to the domain of `near` (loopy's _add_kernel_axis): the sweep of
// a `:` entry of a footprint subscript.
void add_slice_axis(KernelData& k, const std::string& name, const ExprPtr& extent, const std::vector<std::string>& near) {
    int d = 0;
    for (const std::string& i : near) d = std::max(d, home_domain(k, i));
    isl::set& dom = k.domains[static_cast<std::size_t>(d)];
    dom = isl_util::add_named_dims(dom, {name}, false);
    dom = affine::add_constraint(dom, var(name), BinOp::Ge, int_lit(0));
    dom = affine::add_constraint(dom, var(name), BinOp::Lt, extent);
}

// A use or footprint subscript as the user wrote it, in terms of inames that splits have since replaced.
ExprPtr with_iname_rewrites(const KernelData& k, ExprPtr e) {
    for (const std::map<std::string, ExprPtr>& rewrites : k.applied_iname_rewrites) e = substitute(e, rewrites);
    return e;
}

}  // namespace

Kernel precompute(const Kernel& kernel, const std::vector<std::string>& subst_uses, const std::vector<std::string>& sweep_inames,
                  const PrecomputeOptions& options) {
    user_assert(!subst_uses.empty(), error_kind::LoopyError, "precompute: no substitution rule given");
    std::string name;
    std::vector<std::vector<ExprPtr>> generators;
    for (const std::string& text : subst_uses) {
        const ExprPtr use = parse_expression(text);
        user_assert(use->kind == ExprKind::Var || use->kind == ExprKind::Call, error_kind::LoopyError, "precompute: '", text,
                    "' is neither a rule name nor a use of a rule");
        user_assert(name.empty() || name == use->name, error_kind::LoopyError, "precompute: not all uses in subst_use agree on rule name");
        name = use->name;
        if (use->kind == ExprKind::Call) {
            std::vector<ExprPtr> args;
            for (const ExprPtr& a : use->args) args.push_back(with_iname_rewrites(*kernel, a));
            generators.push_back(std::move(args));
        }
    }
    return with_auto_axes(precompute_rule(kernel, name, generators, sweep_inames, options), options.default_tag);
}

Kernel add_prefetch(const Kernel& kernel, const std::string& var_name, const std::vector<std::string>& sweep_inames,
                    const PrefetchOptions& o) {
    const auto [name, entries] = parse_prefetch_target(var_name);
    const Variable* v = kernel.find_variable(name);
    user_assert(v != nullptr, error_kind::LoopyError, "add_prefetch: no variable named '", name, "'");
    user_assert(!v->no_shape && !indexed_linearly(*kernel, name), error_kind::LoopyError, "add_prefetch: '", name, "' ",
                v->no_shape ? "has no shape (lp.none)" : "is indexed with a linear subscript",
                ": a prefetch needs its axes");
    const std::size_t ndim = v->is_array ? v->shape.size() : 0;

    if (!o.temporary_name.empty()) check_name(o.temporary_name, "temporary name", "add_prefetch");
    for (const std::string& d : o.dim_arg_names) check_name(d, "dim_arg_names entry", "add_prefetch");
    NameGenerator names(*kernel);
    const std::string rule_name = names(name + "_fetch_rule");
    const std::string temporary = o.temporary_name.empty() ? names(name + "_fetch") : o.temporary_name;
    std::vector<std::string> params;
    for (std::size_t i = 0; i < ndim; ++i)
        params.push_back(names(i < o.dim_arg_names.size() ? o.dim_arg_names[i] : cat(name, "_dim_", i)));
    const std::string templ = params.empty() ? name : cat(name, "[", join(params, ", "), "]");
    Kernel k = extract_subst(kernel, rule_name, templ, params, o.within);

    std::vector<std::string> sweep = sweep_inames;
    std::vector<std::string> slice_axes;
    std::vector<std::vector<ExprPtr>> generators;
    if (entries) {
        user_assert(entries->size() == ndim, error_kind::LoopyError, "add_prefetch: sweep index '", var_name,
                    "' has the wrong number of dimensions (", name, " has ", ndim, ")");
        KernelData data = k.copy();
        std::vector<ExprPtr> args;
        for (std::size_t i = 0; i < ndim; ++i) {
            if ((*entries)[i] != ":") {
                args.push_back(with_iname_rewrites(data, parse_expression((*entries)[i])));
                continue;
            }
            const std::string axis = names(cat(name, "_fetch_axis_", i));
            std::vector<std::string> near = sweep;
            for (const ExprPtr& a : args)
                for (const std::string& n : inames_in(data, a)) near.push_back(n);
            add_slice_axis(data, axis, v->shape[i], near);
            slice_axes.push_back(axis);
            sweep.push_back(axis);
            args.push_back(var(axis));
        }
        generators.push_back(std::move(args));
        k = Kernel(std::move(data));
    }

    PrecomputeOptions po;
    po.precompute_inames = o.dim_arg_names;
    po.precompute_outer_inames = o.fetch_outer_inames;
    po.temporary_name = temporary;
    po.temporary_address_space = o.temporary_address_space;
    po.default_tag = o.default_tag;
    po.within = o.within;
    po.fetch_bounding_box = o.fetch_bounding_box;
    po.compute_insn_id = o.prefetch_insn_id.empty() ? rule_name : o.prefetch_insn_id;
    po.dtype = v->dtype;
    KernelData out = precompute_rule(k, rule_name, generators, sweep, po).copy();

    for (const std::string& axis : slice_axes) {
        isl::set& dom = out.domains[static_cast<std::size_t>(home_domain(out, axis))];
        dom = isl_util::project_out(dom, {axis});
    }
    // Uses outside the footprint the subscript names read the variable again.
    if (const SubstitutionRule* rule = find_rule(out.substitutions, rule_name)) {
        const SubstitutionRule left = *rule;
        for (Instruction& insn : out.instructions) insn = expand_rules(insn, {left});
        drop_unused_rules(out);
    }
    return with_auto_axes(Kernel(std::move(out)), o.default_tag);
}

}  // namespace loom
