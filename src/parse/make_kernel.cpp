#include "parse/make_kernel.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/atomic.h"
#include "ir/layout.h"
#include "ir/names.h"
#include "ir/domain.h"
#include "ir/subst_rule.h"
#include "isl/budget.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "parse/array_decls.h"
#include "parse/instructions.h"
#include "parse/match.h"
#include "parse/sub_array_refs.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom {

namespace {

void parse_domains(KernelData& k, const std::vector<std::string>& texts) {
    std::set<std::string> seen;
    for (const std::string& t : texts) {
        isl::set d = parse_domain(t);
        for (const std::string& iname : isl_util::set_dim_names(d)) {
            user_assert(is_identifier(iname), error_kind::ParseError, "domain '", trim(t), "' has an unnamed dimension");
            user_assert(seen.insert(iname).second, error_kind::LoopyError, "iname '", iname,
                        "' is declared by more than one domain");
        }
        k.domains.push_back(d);
    }
}

// `max(x, y)`/`min(x, y)` parse as reductions when x looks like an iname list; they are function calls
// when x is not an iname of the kernel.
ExprPtr resolve_min_max(const ExprPtr& e, const std::vector<std::string>& inames) {
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if (n->kind != ExprKind::Reduction || (n->name != "max" && n->name != "min")) return n;
        const bool all_inames = std::all_of(n->inames.begin(), n->inames.end(),
                                            [&](const std::string& i) { return contains(inames, i); });
        if (all_inames || n->inames.size() != 1 || n->args.size() != 1) return n;
        return call(n->name, {var(n->inames[0]), n->args[0]});
    });
}

void check_reduction_inames(const Instruction& insn, const std::vector<std::string>& inames) {
    if (!insn.expression) return;
    for (const std::string& r : bound_inames(insn))
        user_assert(contains(inames, r), error_kind::LoopyError, "reduction in instruction '", insn.id,
                    "' is over unknown iname '", r, "'");
}

// Gives every instruction a unique id: as written, from its id_prefix, or "insn", "insn_0", ...
void assign_ids(KernelData& k) {
    std::set<std::string> used;
    for (const Instruction& insn : k.instructions)
        if (!insn.id.empty()) {
            user_assert(used.insert(insn.id).second, error_kind::LoopyError, "instruction id '", insn.id,
                        "' is used more than once (line ", insn.line, ")");
        }
    // The smallest free suffix of a base only grows: each search starts where the last one for its base stopped,
    // so that naming n instructions takes linear time.
    std::map<std::string, int> next;  // -1: the base itself
    for (Instruction& insn : k.instructions) {
        if (!insn.id.empty()) continue;
        const std::string base = insn.id_prefix.empty() ? "insn" : insn.id_prefix;
        int& n = next.try_emplace(base, -1).first->second;
        const auto candidate = [&] { return n < 0 ? base : cat(base, "_", n); };
        while (used.count(candidate())) ++n;
        insn.id = candidate();
        used.insert(insn.id);
    }
}

void declare_temporaries(KernelData& k) {
    for (const Instruction& insn : k.instructions) {
        if (!insn.declares_temporary) continue;
        for (const ExprPtr& a : insn.assignees) {
            const bool known = std::any_of(k.temporaries.begin(), k.temporaries.end(),
                                           [&](const Variable& t) { return t.name == a->name; });
            if (known) continue;
            Variable t;
            t.name = a->name;
            t.kind = VarKind::Temporary;
            t.dtype = insn.temp_var_type;
            t.is_array = a->kind == ExprKind::Subscript;
            t.shape_auto = t.is_array;
            k.temporaries.push_back(std::move(t));
        }
    }
}

struct NameUse {
    bool written = false;
    bool subscripted = false;
    std::string first_insn;
};

std::map<std::string, NameUse> collect_uses(const KernelData& k) {
    std::map<std::string, NameUse> uses;
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            NameUse& u = uses[a.name];
            u.written |= a.is_write;
            u.subscripted |= a.subscripted;
            if (u.first_insn.empty()) u.first_insn = insn.id;
        }
    return uses;
}

bool is_declared(const KernelData& k, const std::string& name) {
    auto same = [&](const Variable& v) { return v.name == name; };
    return std::any_of(k.args.begin(), k.args.end(), same) ||
           std::any_of(k.temporaries.begin(), k.temporaries.end(), same);
}

Variable guessed_arg(const std::string& name, const NameUse& use) {
    Variable v;
    v.name = name;
    if (use.subscripted || use.written) {
        v.kind = VarKind::GlobalArg;
        v.shape_auto = use.subscripted;
        v.is_array = true;
    } else {
        v.kind = VarKind::ValueArg;
        v.is_array = false;
    }
    return v;
}

// Adds arguments for every used name that is not declared (sorted by name, as loopy does), or complains
// about them when the argument list is final. `offset_auto`: guessed arrays take an offset argument.
void guess_args(KernelData& k, bool guess, bool offset_auto) {
    const std::vector<std::string> inames = all_inames(k);
    std::map<std::string, NameUse> uses = collect_uses(k);
    for (const isl::set& d : k.domains)
        for (const std::string& p : isl_util::param_names(d.space())) uses.try_emplace(p);
    for (const std::string& p : layout_names(k)) uses.try_emplace(p);
    std::vector<Variable> guessed;
    for (const auto& [name, use] : uses) {
        if (contains(inames, name) || is_declared(k, name)) continue;
        // As loopy, a parameter used only by domains and shapes may still be fixed (fix_parameters): code
        // generation reports it if it is not (check_kernel_structure).
        if (!guess && use.first_insn.empty()) continue;
        user_assert(guess, error_kind::LoopyError, "variable '", name, "' is used in instruction '", use.first_insn,
                    "' but is not an argument or temporary (add it to the arguments, or add \"...\")");
        guessed.push_back(guessed_arg(name, use));
        guessed.back().offset_auto = offset_auto && guessed.back().is_array;
    }
    for (Variable& v : guessed) k.args.push_back(std::move(v));
}

void check_no_iname_writes(const KernelData& k) {
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn))
            user_assert(!is_iname(k, w), error_kind::LoopyError, "instruction '", insn.id, "' writes iname '", w,
                        "' (variable '", w, "' not declared or not allowed for writing)");
}

void infer_io(KernelData& k) {
    const std::map<std::string, NameUse> uses = collect_uses(k);
    std::set<std::string> read;
    for (const Instruction& insn : k.instructions)
        for (const std::string& n : read_names(insn)) read.insert(n);
    for (Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const auto it = uses.find(v.name);
        const bool written = it != uses.end() && it->second.written;
        if (!v.is_output) v.is_output = written;
        if (!v.is_input) v.is_input = read.count(v.name) != 0 || !written;
        user_assert(!(written && v.kind == VarKind::ConstantArg), error_kind::LoopyError, "constant argument '", v.name,
                    "' is written");
    }
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn))
            for (const Variable& v : k.args)
                user_assert(!(v.name == w && v.kind == VarKind::ValueArg), error_kind::LoopyError, "instruction '", insn.id,
                            "' writes value argument '", w, "'");
}

std::set<std::string> inames_referenced(const Instruction& insn, const std::vector<std::string>& inames) {
    std::set<std::string> out;
    const std::set<std::string> bound = bound_inames(insn);
    for (const Access& a : accesses_of(insn))
        if (contains(inames, a.name) && !bound.count(a.name)) out.insert(a.name);
    return out;
}

// The loops that bound the loops of `insn`: inames that are parameters of their domains, and the loops of
// the writers of temporaries that are (loopy's domain-based propagation: an instruction in a nested loop
// runs inside the loops its bounds come from).
std::set<std::string> bounding_inames(const KernelData& k, const Instruction& insn) {
    std::set<std::string> out;
    for (const isl::set& d : k.domains) {
        const std::vector<std::string> dims = isl_util::set_dim_names(d);
        if (std::none_of(dims.begin(), dims.end(), [&](const std::string& i) { return insn.within_inames.count(i); }))
            continue;
        for (const std::string& p : isl_util::param_names(d.space())) {
            if (is_iname(k, p)) out.insert(p);
            if (!is_temporary(k, p)) continue;
            for (const Instruction& w : k.instructions)
                if (written_names(w).count(p)) out.insert(w.within_inames.begin(), w.within_inames.end());
        }
    }
    return out;
}

// The loops of writer `w` that its readers inherit: all but those its assignees are indexed by (each
// iteration of those writes a different element).
std::set<std::string> implicit_inames(const Instruction& w, const std::vector<std::string>& inames) {
    std::set<std::string> out = w.within_inames;
    for (const ExprPtr& lhs : w.assignees)
        for (const std::string& n : referenced_names(lhs))
            if (contains(inames, n)) out.erase(n);
    return out;
}

// The loops each instruction runs in: the inames it uses (always, as loopy's add_used_inames; plus enclosing
// `for` blocks and `inames=`),
// plus the inames shared by all writers of the temporaries it reads (loopy's heuristic), plus the loops
// bounding its loops.
void find_within_inames(KernelData& k) {
    const std::vector<std::string> inames = all_inames(k);
    for (Instruction& insn : k.instructions) {
        for (const std::string& i : insn.within_inames)
            user_assert(contains(inames, i), error_kind::LoopyError, "instruction '", insn.id, "' names unknown iname '", i,
                        "' (line ", insn.line, ")");
        // Even final iname sets get the inames the instruction uses (loopy's add_used_inames).
        for (const std::string& i : inames_referenced(insn, inames)) insn.within_inames.insert(i);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (Instruction& insn : k.instructions) {
            if (insn.within_inames_is_final) continue;
            for (const std::string& var_name : read_names(insn)) {
                if (!is_temporary(k, var_name)) continue;
                std::optional<std::set<std::string>> common;
                for (const Instruction& w : k.instructions) {
                    if (&w == &insn || !written_names(w).count(var_name)) continue;
                    const std::set<std::string> implicit = implicit_inames(w, inames);
                    if (!common) {
                        common = implicit;
                    } else {
                        std::set<std::string> both;
                        std::set_intersection(common->begin(), common->end(), implicit.begin(), implicit.end(),
                                              std::inserter(both, both.begin()));
                        common = both;
                    }
                }
                if (!common) continue;
                const std::set<std::string> bound = bound_inames(insn);
                for (const std::string& i : *common)
                    if (!bound.count(i) && insn.within_inames.insert(i).second) changed = true;
            }
            const std::set<std::string> reduced = bound_inames(insn);
            for (const std::string& i : bounding_inames(k, insn))
                if (!reduced.count(i) && insn.within_inames.insert(i).second) changed = true;
        }
    }
}

// Inames no instruction runs in may stay unbounded, as in loopy; loops need both bounds.
void check_looped_inames_bounded(const KernelData& k, const std::vector<std::string>& texts) {
    std::set<std::string> looped;
    for (const Instruction& insn : k.instructions) {
        looped.insert(insn.within_inames.begin(), insn.within_inames.end());
        if (insn.expression) looped.merge(bound_inames(insn));
    }
    for (std::size_t d = 0; d < texts.size(); ++d) check_bounded(texts[d], k.domains[d], looped);
}

// The ids of the instructions that `selects` picks (a glob of ids, or a match expression for the
// `*_query` attributes, which never pick the instruction itself). None is an error while the kernel checks
// dependency resolution, as in loopy.
std::set<std::string> resolve_ids(const KernelData& k, const Instruction& insn, const std::string& what,
                                  const std::string& selects, bool is_query) {
    const std::optional<Match> query = is_query ? std::optional<Match>(Match::parse(selects)) : std::nullopt;
    std::set<std::string> out;
    for (const Instruction& other : k.instructions)
        if (query ? other.id != insn.id && (*query)(other, k.name) : fnmatch(selects, other.id)) out.insert(other.id);
    user_assert(!out.empty() || !k.options.check_dep_resolution, error_kind::LoopyError, "instruction '", insn.id,
                "' declared ", what, " on '", selects, "', which did not resolve to any instruction present in the kernel '",
                k.name, "'. Set the kernel option 'check_dep_resolution' to False to disable this check.");
    return out;
}

// `nosync_query=QUERY@scope`: the query and its scope (`@any` when none is given).
std::pair<std::string, SyncScope> split_scope(const std::string& text) {
    static const std::map<std::string, SyncScope> scopes{
        {"local", SyncScope::Local}, {"global", SyncScope::Global}, {"any", SyncScope::Any}};
    const std::size_t at = text.rfind('@');
    if (at == std::string::npos) return {text, SyncScope::Any};
    const auto scope = scopes.find(trim(text.substr(at + 1)));
    user_assert(scope != scopes.end(), error_kind::LoopyError, "unknown nosync scope in '", text,
                "' (allowed scopes are 'local', 'global', 'any')");
    return {text.substr(0, at), scope->second};
}

// Globs in `nosync=` and the `nosync_query` become the ids they name, each with its scope.
std::vector<NoSync> resolve_nosync(const KernelData& k, const Instruction& insn) {
    std::vector<NoSync> out;
    auto add = [&](const std::set<std::string>& ids, SyncScope scope) {
        for (const std::string& id : ids) out.push_back({id, scope});
    };
    for (const NoSync& ns : insn.no_sync_with) add(resolve_ids(k, insn, "nosync", ns.id_pattern, false), ns.scope);
    if (!insn.nosync_query.empty()) {
        const auto [query, scope] = split_scope(insn.nosync_query);
        add(resolve_ids(k, insn, "nosync", query, true), scope);
    }
    return out;
}

void resolve_dependencies(KernelData& k, bool seq_dependencies) {
    const KernelData all = k;
    const auto writers = writer_map(all);
    for (std::size_t n = 0; n < k.instructions.size(); ++n) {
        Instruction& insn = k.instructions[n];
        std::set<std::string> deps;
        for (const std::string& pattern : insn.depends_on) deps.merge(resolve_ids(all, insn, "a dependency", pattern, false));
        if (!insn.dep_query.empty()) deps.merge(resolve_ids(all, insn, "a dependency", insn.dep_query, true));
        insn.no_sync_with = resolve_nosync(all, insn);
        if (!insn.depends_on_is_final) {
            for (const std::string& r : read_names(insn)) {
                const auto it = writers.find(r);
                if (it != writers.end() && it->second.size() == 1 && it->second[0]->id != insn.id)
                    deps.insert(it->second[0]->id);
            }
        }
        if (seq_dependencies && n > 0) deps.insert(all.instructions[n - 1].id);
        deps.erase(insn.id);
        insn.depends_on = deps;
    }
}

// What the accesses to one array tell about its shape.
struct Footprint {
    std::optional<isl::set> touched;  // the index tuples of the accesses isl can follow, over the parameters
    std::vector<std::pair<isl::set, std::vector<ExprPtr>>> accesses;  // those accesses: loop domain, indices
    std::size_t ndim = 0;
    std::string undetermined;  // an index it cannot (loopy's bad subscripts), with its instruction; "" if none
};

// An index isl cannot follow: not affine, or reading a variable that is not a parameter (a temporary).
bool undetermined_index(const KernelData& k, const ExprPtr& index, const isl::set& dom) {
    for (const std::string& n : referenced_names(index))
        if (is_temporary(k, n)) return true;
    return !affine::to_pw_aff(index, dom);
}

// The subscripted accesses of each variable, with the instruction and the loops they run in: its inames, and
// for reads the inames of the reductions around them (a write is outside every reduction: an empty sum still
// writes its result). Gathered in one pass over the instructions, not one per variable.
struct PlacedAccess {
    const Instruction* insn;
    std::vector<std::string> loops;
    Access access;
};
using AccessIndex = std::map<std::string, std::vector<PlacedAccess>>;

AccessIndex subscripted_accesses(const KernelData& k) {
    AccessIndex out;
    for (const Instruction& insn : k.instructions)
        for (Access& a : accesses_of(insn))
            if (a.subscripted) {
                std::vector<std::string> loops = access_loops(insn, a);
                out[a.name].push_back({&insn, std::move(loops), std::move(a)});
            }
    return out;
}

Footprint access_footprint(const KernelData& k, const std::string& name, const AccessIndex& index) {
    Footprint out;
    const auto found = index.find(name);
    if (found == index.end()) return out;
    for (const auto& [insn, loops, a] : found->second) {
        user_assert(!a.linear, error_kind::LoopyError, "cannot find the shape of '", name, "': instruction '", insn->id,
                    "' indexes it with the linear subscript '", a.name, "[[", to_string(a.indices[0]),
                    "]]': declare its shape, or lp.none");
        user_assert(out.ndim == 0 || out.ndim == a.indices.size(), error_kind::LoopyError, "array '", name,
                    "' is accessed with different numbers of indices");
        out.ndim = a.indices.size();
        const isl::set dom = domain_of(k, loops);
        const auto bad = std::find_if(a.indices.begin(), a.indices.end(),
                                      [&](const ExprPtr& index) { return undetermined_index(k, index, dom); });
        if (bad != a.indices.end()) {
            out.undetermined = cat("'", to_string(*bad), "' in instruction '", insn->id, "'");
            continue;
        }
        const isl::set d = affine::exact_access_map(dom, a.indices)->range();
        out.accesses.emplace_back(dom, a.indices);
        out.touched = out.touched ? isl_util::unite(*out.touched, d) : d;
    }
    return out;
}

// An extent found from a footprint. A temporary's must be a constant to declare it: the largest value the
// extent takes under the assumptions when it depends on the parameters.
ExprPtr auto_extent(const isl::pw_aff& size, const isl::set& ctx, const Variable& v) {
    const std::optional<ExprPtr> exact = affine::single_piece_expr(size, ctx);
    if (exact && (*exact)->kind == ExprKind::IntLit) return *exact;
    if (v.kind == VarKind::Temporary)
        if (const std::optional<long> most = isl_util::static_max(size, ctx)) return int_lit(*most);
    if (exact) return *exact;
    if (const std::optional<ExprPtr> bound = affine::dominating_piece_expr(size, ctx)) return *bound;
    throw Error(error_kind::StaticValueFindingError, cat("a static maximum was not found for PwAff '", isl_util::to_str(size), "'"));
}

// The largest value of the quasi-affine `e` over `dom` when `upper` (else the smallest), as a function of the
// parameters, bounded term by term: each term is a small problem of its own where the whole may not be. Not
// tight where terms share an iname (i % 20 + i is at most 19 + n - 1), but a shape may be larger than its
// footprint.
isl::pw_aff term_bound(const ExprPtr& e, const isl::set& dom, bool upper) {
    if (e->kind == ExprKind::Binary && (e->op == BinOp::Add || e->op == BinOp::Sub)) {
        const isl::pw_aff a = term_bound(e->args[0], dom, upper);
        const isl::pw_aff b = term_bound(e->args[1], dom, e->op == BinOp::Add ? upper : !upper);
        return e->op == BinOp::Add ? a.add(b) : a.sub(b);
    }
    if (e->kind == ExprKind::Unary && e->unop == "-") return term_bound(e->args[0], dom, !upper).neg();
    if (e->kind == ExprKind::Binary && e->op == BinOp::Mul)
        for (std::size_t c = 0; c < 2; ++c) {
            if (e->args[c]->kind != ExprKind::IntLit) continue;
            const std::int64_t factor = e->args[c]->ival;
            const isl::pw_aff bound = term_bound(e->args[1 - c], dom, factor >= 0 ? upper : !upper);
            return isl_util::scale(bound, factor);
        }
    const std::optional<isl::map> values = affine::exact_access_map(dom, {e});
    user_assert(values.has_value(), error_kind::StaticValueFindingError, "cannot bound the index term '", to_string(e), "'");
    return upper ? isl_util::dim_max(values->range(), 0) : isl_util::dim_min(values->range(), 0);
}

// One more than the largest index of axis j over all accesses, bounded term by term.
isl::pw_aff term_extent(const Footprint& f, std::size_t j) {
    std::optional<isl::pw_aff> most;
    for (const auto& [dom, indices] : f.accesses) {
        isl::pw_aff bound = term_bound(indices[j], dom, true);
        most = most ? isl_util::union_max(*most, bound) : bound;
    }
    return isl_util::add_constant(*most, 1);
}

// isl operations allowed to each way of finding the extent of one axis. The exact maximum of a quasi-affine
// footprint is a parametric integer program that can take isl minutes (out[i % 16 + j % 4 + i]: 35 s, its
// shape a 13 KB expression; docs/reliability.md finding 11). 10,000 operations take hundredths of a second
// and hold affine footprints; past them, the bound from the index terms is used.
constexpr unsigned long extent_operations = 10000;

// Axes of one array whose exact extent may run out of those operations: each costs up to 10,000 of them, which
// with dozens of parameters take tens of milliseconds, and 36 such axes took seconds (docs/reliability.md
// finding 45). Past them the shape is given up on.
constexpr int max_inexact_axes = 4;

ExprPtr axis_extent(const Footprint& f, std::size_t j, const isl::set& ctx, const Variable& v, int& inexact) {
    const int axis = static_cast<int>(j);
    if (const auto exact = isl_util::within_operations(
            extent_operations, [&] {
                return auto_extent(isl_util::add_constant(isl_util::dim_max(isl_util::axis_values(*f.touched, axis), 0), 1), ctx, v);
            }))
        return *exact;
    user_assert(++inexact <= max_inexact_axes, error_kind::StaticValueFindingError, "the shape of '", v.name,
                "' takes too long to find from its accesses (more than ", max_inexact_axes,
                " axes without an exact extent): declare it explicitly");
    const auto bounded =
        isl_util::within_operations(extent_operations, [&] { return auto_extent(term_extent(f, j), ctx, v); });
    user_assert(bounded.has_value(), error_kind::StaticValueFindingError, "the shape of '", v.name,
                "' takes too long to find from its accesses: declare it explicitly");
    return *bounded;
}

// lp.auto, as loopy finds it: the box from zero holding every access; an argument only ever used as a scalar
// has shape (), and one indexed by one index that isl cannot follow has no shape (a pointer, loopy's None).
void find_auto_shape(const KernelData& k, const AccessIndex& accesses, Variable& v) {
    const Footprint footprint = access_footprint(k, v.name, accesses);
    v.shape.clear();
    v.shape_auto = false;
    if (!footprint.undetermined.empty()) {
        user_assert(footprint.ndim == 1 && v.kind != VarKind::Temporary, error_kind::StaticValueFindingError,
                    "cannot find the shape of '", v.name, "' from the index ", footprint.undetermined,
                    ": declare its shape explicitly");
        v.no_shape = true;
        return;
    }
    if (!footprint.touched) {
        // Never subscripted: a temporary is a scalar, an argument an array of shape () (as loopy's).
        v.is_array = v.kind != VarKind::Temporary;
        return;
    }
    const isl::set ctx = isl_util::align_params(assumption_context(k), footprint.touched->space());
    int inexact = 0;
    for (std::size_t j = 0; j < footprint.ndim; ++j) {
        const ExprPtr extent = axis_extent(footprint, j, ctx, v, inexact);
        for (const std::string& name : referenced_names(extent))
            user_assert(!is_temporary(k, name), error_kind::StaticValueFindingError, "the shape of '", v.name,
                        "' would depend on '", name, "', a temporary bounding a data-dependent loop: declare the shape explicitly");
        v.shape.push_back(extent);
    }
}

// Rules live in the namespace of variables and inames, as in loopy.
void check_rule_names(const KernelData& k) {
    for (const SubstitutionRule& r : k.substitutions)
        user_assert(!find_variable(k, r.name) && !is_iname(k, r.name), error_kind::LoopyError, "substitution rule '", r.name,
                    "' has the name of ", is_iname(k, r.name) ? "an iname" : "a variable");
}

// Puts back the expressions as written (with their rule uses) after the analyses of the expanded ones.
void restore_rule_uses(KernelData& k, const std::vector<Instruction>& as_written) {
    for (std::size_t n = 0; n < k.instructions.size(); ++n) {
        k.instructions[n].expression = as_written[n].expression;
        k.instructions[n].assignees = as_written[n].assignees;
        k.instructions[n].predicates = as_written[n].predicates;
    }
}

}  // namespace

void set_default_strides(Variable& v) {
    const auto fixed = [](const DimTag& t) { return t.kind == DimTag::Kind::Stride && t.level < 0; };
    if (v.no_shape && !v.dim_tags.empty() && std::all_of(v.dim_tags.begin(), v.dim_tags.end(), fixed)) {
        // loopy's shape=None with strides: an axis per stride, each extent unknown.
        for (const DimTag& t : v.dim_tags) v.strides.push_back(t.stride);
        v.stride_levels.assign(v.strides.size(), -1);
        return;
    }
    if (v.no_shape) {
        // Its storage is indexed directly: at most one layout tag, for that one contiguous axis, which says
        // nothing more (and is dropped: no axes to lay out). `sep` and `vec` need an extent it does not have.
        const auto layout_only = [](const DimTag& t) {
            if (t.kind == DimTag::Kind::Sep || t.kind == DimTag::Kind::Vec) return false;
            return t.kind != DimTag::Kind::Stride || (t.stride->kind == ExprKind::IntLit && t.stride->ival == 1);
        };
        const bool contiguous = v.dim_tags.empty() || (v.dim_tags.size() == 1 && layout_only(v.dim_tags[0]));
        user_assert(contiguous, error_kind::LoopyError, "array '", v.name,
                    "' has no shape (lp.none): its storage is indexed directly, so it takes no layout but one contiguous axis");
        v.dim_tags.clear();
        return;
    }
    if (!v.is_array || !v.strides.empty()) return;
    compute_layout(v);
}

void finish_array_layouts(KernelData& k) {
    KernelData snapshot = k;
    for (Instruction& insn : snapshot.instructions) insn = expand_rules(insn, k.substitutions);
    const AccessIndex accesses = subscripted_accesses(snapshot);
    for (std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (Variable& v : *vars) {
            if (v.shape_auto) {
                v.strides.clear();
                find_auto_shape(snapshot, accesses, v);
            }
            set_default_strides(v);
        }
}

// Runs `step` on `k` knowing the values of `known` (loopy fixes parameters before it finds shapes): they are
// assumed, and substituted into the declared shapes.
void with_known_parameters(KernelData& k, const std::map<std::string, long>& known, void (*step)(KernelData&)) {
    const isl::set assumptions = k.assumptions;
    std::map<std::string, ExprPtr> values;
    for (const auto& [name, value] : known) {
        k.assumptions = k.assumptions.intersect(
            parse_assumptions(cat("[", name, "] -> { : ", name, " = ", value, " }")));
        values[name] = int_lit(value);
    }
    if (!values.empty())
        for (std::vector<Variable>* vars : {&k.args, &k.temporaries})
            for (Variable& v : *vars)
                for (ExprPtr& s : v.shape) s = substitute(s, values);
    step(k);
    k.assumptions = assumptions;
}

Kernel make_kernel(const MakeKernelInput& in) {
    KernelData k;
    user_assert(is_identifier(in.name), error_kind::LoopyError, "kernel name '", in.name,
                "' is not an identifier (letters, digits and '_', not starting with a digit)");
    k.name = in.name;
    k.is_entrypoint = in.is_entrypoint;
    k.options.target = in.target;
    k.options.index_dtype = in.index_dtype;
    k.silenced_warnings = in.silenced_warnings;
    parse_domains(k, in.domains);
    k.assumptions = in.assumptions.empty() ? isl::set(isl_util::ctx(), "{ : }") : parse_assumptions(in.assumptions);

    // The deadline of a sandboxed run is checked between the passes, each linear in the instructions (20,000
    // statements took 17 s in one stage before).
    ParsedInstructions parsed = parse_instructions(in.instructions);
    check_deadline("make_kernel: parsing the instructions");
    k.instructions = std::move(parsed.instructions);
    k.substitutions = std::move(parsed.substitutions);
    for (const Variable& v : in.args) {
        check_name(v.name, v.kind == VarKind::Temporary ? "temporary" : "argument", "make_kernel");
        (v.kind == VarKind::Temporary ? k.temporaries : k.args).push_back(v);
    }
    assign_ids(k);
    expand_slices(k);  // their new inames are checked and named like the others
    for (const std::string& iname : all_inames(k)) check_name(iname, "iname", "make_kernel");

    const std::vector<std::string> inames = all_inames(k);
    for (Instruction& insn : k.instructions)
        if (insn.expression) insn.expression = resolve_min_max(insn.expression, inames);
    for (SubstitutionRule& r : k.substitutions) r.expression = resolve_min_max(r.expression, inames);
    k.options.check_dep_resolution = in.check_dep_resolution;

    // The analyses look through substitution rules; the instructions keep using the rules until
    // preprocessing expands them (precompute and friends need them).
    const std::vector<Instruction> as_written = k.instructions;
    for (Instruction& insn : k.instructions) {
        insn = expand_rules(insn, k.substitutions);
        check_reduction_inames(insn, inames);
    }
    check_deadline("make_kernel: expanding substitution rules");
    add_offset_args(k);
    add_stride_args(k);
    const std::size_t declared_args = k.args.size(), declared_temporaries = k.temporaries.size();
    check_no_iname_writes(k);
    declare_temporaries(k);
    guess_args(k, in.guess_remaining_args, in.default_offset_auto);
    add_offset_args(k);  // those of guessed arrays
    for (std::size_t i = declared_args; i < k.args.size(); ++i) k.args[i].order = in.default_order;
    for (std::size_t i = declared_temporaries; i < k.temporaries.size(); ++i) k.temporaries[i].order = in.default_order;
    infer_io(k);
    mark_atomic_variables(k);
    find_within_inames(k);
    check_deadline("make_kernel: finding the instructions' inames");
    check_looped_inames_bounded(k, in.domains);
    resolve_dependencies(k, in.seq_dependencies);
    check_deadline("make_kernel: resolving dependencies");
    check_rule_names(k);
    check_loop_bounds(k);
    with_known_parameters(k, in.known_parameters, finish_array_layouts);
    check_temporaries(k);
    restore_rule_uses(k, as_written);
    return Kernel(std::move(k));
}

}  // namespace loom
