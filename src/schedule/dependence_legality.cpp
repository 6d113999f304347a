#include "schedule/dependence_legality.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/conflicts.h"
#include "analysis/delinearize.h"
#include "analysis/prerequisites.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/eval.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "schedule/kernel_split.h"
#include "schedule/linear_tree.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using isl_util::DimOrder;

// The pairs of `rel` whose input comes before (Less), at (Equal) or after (Greater) its output, lexicographically
// over `dims` (named in both). An empty `dims` orders no pair before another: all are Equal.
isl::map lex(const isl::map& rel, const std::vector<std::string>& dims, DimOrder order) {
    std::optional<isl::map> out;
    isl::map prefix = rel;  // equal on the dims before d
    for (const std::string& d : dims) {
        if (order != DimOrder::Equal) {
            const isl::map here = isl_util::constrain_dims(prefix, d, d, order);
            out = out ? isl_util::unite(*out, here) : here;
        }
        prefix = isl_util::constrain_dims(prefix, d, d, DimOrder::Equal);
    }
    if (order == DimOrder::Equal) return prefix;
    return out ? *out : isl::map::empty(rel.space());
}

// The pairs of `rel` whose output does not come after its input over `dims`: where `tie_ok`, those it comes
// before; otherwise those at the same point too.
isl::map not_after(const isl::map& rel, const std::vector<std::string>& dims, bool tie_ok) {
    const isl::map before = lex(rel, dims, DimOrder::Greater);
    return tie_ok ? before : isl_util::unite(before, lex(rel, dims, DimOrder::Equal));
}

// One hardware axis as a pair of instructions runs on it: the iname of each on it, none where one runs on every
// index of the axis.
struct Axis {
    InameTag tag;
    std::optional<std::string> first, second;
};
using Axes = std::vector<Axis>;

// The pairs of `rel` that may run on different indices of one of `axes`.
isl::map differing(const isl::map& rel, const Axes& axes) {
    std::optional<isl::map> out;
    for (const Axis& a : axes) {
        if (!a.first || !a.second) return rel;
        for (const DimOrder o : {DimOrder::Less, DimOrder::Greater}) {
            const isl::map here = isl_util::constrain_dims(rel, *a.first, *a.second, o);
            out = out ? isl_util::unite(*out, here) : here;
        }
    }
    return out ? *out : isl::map::empty(rel.space());
}

// The pairs of `rel` on the same index of each of `axes` (a copy of an instruction that runs on every index is on
// the index of the other).
isl::map equal_on(isl::map rel, const Axes& axes) {
    for (const Axis& a : axes)
        if (a.first && a.second) rel = isl_util::constrain_dims(rel, *a.first, *a.second, DimOrder::Equal);
    return rel;
}

Axes same_dims(const std::vector<std::string>& dims) {
    Axes out;
    for (const std::string& d : dims) out.push_back({InameTag{}, d, d});
    return out;
}

// A nosync of the instruction with itself in both scopes: its author says the order of its instances does not
// matter, which waives what no barrier could give either (an order isl cannot prove).
bool order_waived(const Instruction& insn) {
    return nosync(insn, insn, SyncScope::Local) && nosync(insn, insn, SyncScope::Global);
}

// The exact accesses of one instruction to one variable, as maps from its instances to elements.
struct ExactAccesses {
    std::optional<isl::map> reads, writes;
    /// An access that is not affine in the inames though no data decides it (`c[(m // 3)*i]`, a chunk over a
    /// parametric length): the elements it touches are known, but not to isl.
    std::optional<Access> unstated;
};

// Flow: the later instance reads what the earlier wrote; anti: writes what it read; output: writes what it wrote.
enum class DepKind { Flow, Anti, Output };

// How the instances of a pair of instructions run, the first's instance the earlier in the kernel's meaning (one
// instruction with itself, or two that a dep= chain orders): the hardware axes they run on, the loops around both
// as the linearization nests them (one loop for both), and their inames in the order the kernel means.
struct Roles {
    Axes groups, locals;
    std::vector<std::string> loops;          // around both, outermost first (ilp and vec loops included)
    std::vector<std::string> host_loops;     // those of `loops` around a global barrier: separate launches
    std::vector<std::string> ordered;        // `loops` without the vec lanes, which run at once
    std::vector<std::string> barrier_loops;  // `loops` at whose top a barrier can go: no ilp or vec loop
    std::vector<std::string> meaning;        // the inames both run in, as far as comparable, as the kernel means them
    bool first_in_code = false;              // where `loops` agree, the first's code runs before the second's
};

// A pair of instructions whose accesses to one variable are checked, `first` the earlier where the kernel's
// loops do not order two instances (the one a dep= chain orders first; both the same for an instruction with
// itself).
struct Pair {
    const Instruction* first;
    const Instruction* second;
    bool first_by_dep = false;  // `second` depends on `first`: its instance is the later at a tie of the loops
    bool self() const { return first == second; }
};

class LegalityChecker {
public:
    explicit LegalityChecker(const KernelData& k) : k_(k) {
        const std::vector<std::string> inames = all_inames(k);
        inames_.insert(inames.begin(), inames.end());
        writers_ = writer_map(k);
        for (const std::string& i : inames) users_[i];
        for (const Instruction& insn : k.instructions)
            for (const std::string& i : insn.within_inames) users_[i].insert(insn.id);
        // The hardware axes of each device kernel (between CALL and RETURN markers), and which each instruction
        // runs in.
        std::size_t segment = 0;
        bool called = false;
        segment_axes_.emplace_back();
        for (const LinearItem& item : k.linearization) {
            if (item.kind == LinearItem::Kind::CallKernel) {
                if (called) {
                    segment_axes_.emplace_back();
                    ++segment;
                }
                called = true;
            }
            if (item.kind != LinearItem::Kind::RunInstruction) continue;
            segment_of_[item.name] = segment;
            if (const Instruction* insn = find_instruction(k, item.name))
                for (const std::string& i : insn->within_inames)
                    if (iname_tag(k, i).is_hardware()) segment_axes_.back().insert(iname_tag(k, i));
        }
        for (const LinearPlace& place : linear_places(k.linearization)) {
            if (place.item->kind != LinearItem::Kind::RunInstruction) continue;
            const Instruction* insn = find_instruction(k, place.item->name);
            if (!insn) continue;
            places_.emplace(insn->id, place);
            if (is_global_barrier(*insn)) host_loops_.insert(place.loops.begin(), place.loops.end());
        }
    }

    // An instruction that reads and writes a variable, against its own instances.
    void check(const Instruction& insn) {
        if (!checked(insn)) return;
        check_repeated_updates(insn);
        const bool concurrent = has_concurrent(insn);
        // Without concurrent inames, and with the loops the kernel has always had, it runs as it means.
        if (!concurrent && !k_.meant.instructions.count(insn.id)) return;
        const Pair pair{&insn, &insn};
        const std::set<std::string> read = read_names(insn);
        for (const std::string& v : written_names(insn)) {
            if (!read.count(v) || !find_variable(k_, v)) continue;
            const isl::set* instances = instances_of(insn);
            if (!instances) return;  // which instances run depends on data: beyond an exact check
            const ExactAccesses& a = accesses(insn, v);
            if (a.unstated && concurrent) refuse_unproven(insn, v, *a.unstated);
            if (!a.reads || !a.writes) continue;
            const Roles& roles = roles_of(pair);
            // Against the loops meant before transformations only where it writes `v` alone: another writer (an
            // accumulator's initialization) may overwrite `v` between two of its instances in that order, which
            // then do not depend on each other; only the order of its loops and dep= tell how.
            const Meant meant = writers_.at(v).size() == 1 ? meant_times(pair, roles) : Meant{};
            const isl::map flow = isl_util::touching_pairs(*a.writes, *a.reads);
            const isl::map anti = isl_util::touching_pairs(*a.reads, *a.writes);
            const Axes dims = same_dims(roles.meaning);
            if (meant.unproven && !(isl_util::is_empty(differing(flow, dims)) && isl_util::is_empty(differing(anti, dims))))
                refuse_unproven_order(pair, v, meant, roles);
            check_pairs(pair, v, roles, meant, DepKind::Flow, flow);
            check_pairs(pair, v, roles, meant, DepKind::Anti, anti);
        }
    }

    // Two instructions, `second` after `first` by a dep= chain, against each other's instances: where their
    // loops today run an instance of one before the instance of the other that the kernel means first (a loop
    // order, an iname on l.*, the lanes of a vec iname). Accesses isl cannot state are left out, as data-dependent
    // ones (no refusal of what it cannot prove here: two instructions are ordered by dep=, barriers and
    // global barriers in loopy's model, the loops of one by this check alone).
    void check(const Instruction& first, const Instruction& second) {
        if (!checked(first) || !checked(second)) return;
        if (!has_concurrent(first) && !has_concurrent(second) && !k_.meant.instructions.count(first.id) &&
            !k_.meant.instructions.count(second.id))
            return;
        for (const std::string& v : conflicting_variables(first, second)) {
            const Variable* var = find_variable(k_, v);
            if (!var) continue;
            const Pair forward{&first, &second, true}, backward{&second, &first, false};
            const Roles& roles = roles_of(forward);
            Meant meant = meant_times(forward, roles);
            if ((meant.first_times || meant.unproven) && reused(v)) meant = Meant{};
            if (runs_as_meant(roles, meant, *var)) continue;
            if (!instances_of(first) || !instances_of(second)) return;  // which run depends on data
            const ExactAccesses& x = accesses(first, v);
            const ExactAccesses& y = accesses(second, v);
            if (meant.unproven) refuse_unproven_order(forward, v, meant, roles);
            // Each way round: `first`'s instance earlier (ties too), or `second`'s strictly earlier.
            for (const auto& [p, from, to] : {std::tuple{forward, &x, &y}, std::tuple{backward, &y, &x}}) {
                const Roles& r = roles_of(p);
                const Meant m = p.first_by_dep ? meant : reversed(meant);
                if (from->writes && to->reads) check_pairs(p, v, r, m, DepKind::Flow, isl_util::touching_pairs(*from->writes, *to->reads));
                if (from->reads && to->writes) check_pairs(p, v, r, m, DepKind::Anti, isl_util::touching_pairs(*from->reads, *to->writes));
                if (from->writes && to->writes) check_pairs(p, v, r, m, DepKind::Output, isl_util::touching_pairs(*from->writes, *to->writes));
            }
        }
    }

private:
    // An instruction that reads and writes one element of shared memory runs once per work-item of every
    // hardware axis of its device kernel that it has no iname on: each applies the update again (c[j] = 0.5*c[j]
    // beside a fetch on l.1 of 3 work-items halved c three times). A plain write repeats harmlessly.
    void check_repeated_updates(const Instruction& insn) const {
        std::set<InameTag> own;
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k_, i).is_hardware()) own.insert(iname_tag(k_, i));
        const auto segment = segment_of_.find(insn.id);
        if (segment == segment_of_.end()) return;
        const std::set<std::string> read = read_names(insn);
        for (const std::string& v : written_names(insn)) {
            const Variable* var = find_variable(k_, v);
            if (!read.count(v) || !var || (var->kind == VarKind::Temporary && var->address_space == AddressSpace::Private)) continue;
            const bool local = var->kind == VarKind::Temporary && var->address_space == AddressSpace::Local;
            for (const InameTag& axis : segment_axes_.at(segment->second)) {
                if (own.count(axis) || (local && axis.is_group()) || nosync(insn, insn, axis.is_group() ? SyncScope::Global : SyncScope::Local))
                    continue;
                user_error(error_kind::DependenceViolationError, k_.name, ": '", insn.id, "' reads and writes ", v,
                           " but has no iname on ", axis, ", which its device kernel runs on: every work-item along ",
                           axis, " runs it, and each applies the update again; run it in an iname on ", axis,
                           " (one whose only value does the update), or state with a nosync of the instruction with ",
                           "itself that repeating it is meant");
            }
        }
    }

    bool checked(const Instruction& insn) const {
        return insn.kind == InsnKind::Assignment && !insn.atomic && places_.count(insn.id);
    }

    bool has_concurrent(const Instruction& insn) const {
        return std::any_of(insn.within_inames.begin(), insn.within_inames.end(),
                           [&](const std::string& i) { return iname_tag(k_, i).is_concurrent(); });
    }

    // Whether some writer of `v` writes one element from two of its instances: then another instruction's access
    // between them in one order is not between them in the other, and the order of pairs of instances alone
    // (isl's memory-based dependences) cannot tell a reorder that keeps every value (a scalar temporary reused in
    // each iteration) from one that does not. Such variables are checked in today's loop order only.
    bool reused(const std::string& v) {
        const auto [it, fresh] = reused_.emplace(v, false);
        if (!fresh) return it->second;
        for (const Instruction* w : writers_.at(v)) {
            const isl::set* instances = instances_of(*w);
            const ExactAccesses& a = accesses(*w, v);
            if (!instances || a.unstated || !a.writes || !isl_util::is_empty(differing(isl_util::touching_pairs(*a.writes, *a.writes), same_dims(isl_util::set_dim_names(*instances)))))
                return it->second = true;
        }
        return false;
    }

    // The loops the kernel meant for a pair before transformations changed its inames or priorities
    // (KernelData::meant), as far as both run in them: their names, and each instance's values of them.
    struct Meant {
        std::vector<std::string> names;
        std::optional<isl::map> first_times, second_times;  // none where today's loops run them in order
        bool unproven = false;  // today's loops reorder them, and isl cannot state their values
    };

    static Meant reversed(const Meant& m) { return {m.names, m.second_times, m.first_times, m.unproven}; }

    // `r.meaning` is the order of today's loops: where the meant loops are those inames in that order, they add
    // nothing to it, and no isl map is made.
    Meant meant_times(const Pair& p, const Roles& r) {
        Meant out;
        if (!k_.meant.instructions.count(p.first->id) || !k_.meant.instructions.count(p.second->id)) return out;
        std::vector<ExprPtr> values;
        std::vector<std::vector<std::string>> inames_of;  // per meant loop, the inames its value reads
        for (const auto& [name, e] : k_.meant.loops) {
            const std::vector<std::string> names = referenced_names(e);
            std::vector<std::string> own;
            for (const std::string& n : names)
                if (inames_.count(n)) own.push_back(n);
            // A loop one of them left (duplicate_inames), or not shared today: what comes after cannot be compared.
            if (std::any_of(own.begin(), own.end(), [&](const std::string& n) {
                    return std::find(r.meaning.begin(), r.meaning.end(), n) == r.meaning.end();
                }))
                break;
            if (own.empty()) continue;
            out.names.push_back(name);
            values.push_back(e);
            inames_of.push_back(std::move(own));
        }
        if (values.empty() || (!std::any_of(values.begin(), values.end(), [&](const ExprPtr& e) { return joined(e); }) && runs_in_meant_order(inames_of, r.meaning)))
            return out;
        const isl::set* first = instances_of(*p.first);
        const isl::set* second = instances_of(*p.second);
        if (!first || !second) return out;  // which instances run depends on data: beyond an exact check
        out.first_times = affine::exact_access_map(*first, values);
        out.second_times = affine::exact_access_map(*second, values);
        out.unproven = !out.first_times || !out.second_times;
        if (out.unproven) out.first_times = out.second_times = std::nullopt;
        return out;
    }

    // Whether a meant loop's value has a join's `//` or `%` of inames: it does not grow with them lexicographically.
    bool joined(const ExprPtr& value) const {
        bool found = false;
        visit(value, [&](const ExprPtr& n) {
            if (found || n->kind != ExprKind::Binary || (n->op != BinOp::FloorDiv && n->op != BinOp::Mod)) return;
            const std::vector<std::string> names = referenced_names(n->args[0]);
            found = std::any_of(names.begin(), names.end(), [&](const std::string& x) { return inames_.count(x) != 0; });
        });
        return found;
    }

    // Whether today's loops (`today`) run the meant loops in their order without isl (values without a join): each meant loop's value
    // reads inames of its own (none shared, as a join shares one), today's loops take them one meant loop after
    // the other, and each meant loop's inames in the kernel's iname order, in which a split or chunk puts the
    // outer part first (its value then grows with them lexicographically).
    bool runs_in_meant_order(const std::vector<std::vector<std::string>>& inames_of, const std::vector<std::string>& today) const {
        const std::vector<std::string> order = all_inames(k_);
        const auto rank = [&](const std::string& i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
        std::vector<std::string> expected;
        for (std::vector<std::string> own : inames_of) {
            std::sort(own.begin(), own.end(), [&](const std::string& a, const std::string& b) {
                return rank(a) < rank(b);
            });
            for (const std::string& i : own) {
                if (std::find(expected.begin(), expected.end(), i) != expected.end()) return false;
                expected.push_back(i);
            }
        }
        std::vector<std::string> ran;
        for (const std::string& i : today)
            if (std::find(expected.begin(), expected.end(), i) != expected.end()) ran.push_back(i);
        return ran == expected;
    }

    // Every instance the kernel means: a checked kernel's guards of out-of-bounds writes (predicates through data
    // that isl cannot state) are left out, so that guarding an access never exempts its instruction from the check.
    const isl::set* instances_of(const Instruction& insn) {
        auto it = instances_.find(insn.id);
        if (it == instances_.end()) {
            Instruction meant = insn;
            for (const std::string& tag : insn.tags)
                if (tag.starts_with(kBoundGuardsTag)) {
                    const std::size_t guards = std::stoul(tag.substr(std::string_view(kBoundGuardsTag).size()));
                    meant.predicates.resize(meant.predicates.size() - std::min(guards, meant.predicates.size()));
                }
            std::optional<isl::set> s = certain_instances(k_, meant);
            if (s) s = with_assumptions(*s);
            it = instances_.emplace(insn.id, std::move(s)).first;
        }
        return it->second ? &*it->second : nullptr;
    }

    isl::set with_assumptions(const isl::set& s) const {
        const isl::set context = assumption_context(k_);
        const isl::set aligned = isl_util::align_params(s, context.space());
        return aligned.intersect_params(isl_util::align_params(context, aligned.space()));
    }

    // Accesses isl states exactly; a data-dependent index (`a[idx[i]]`) touches elements no check can know.
    const ExactAccesses& accesses(const Instruction& insn, const std::string& v) {
        const auto key = std::pair{insn.id, v};
        if (const auto it = accesses_.find(key); it != accesses_.end()) return it->second;
        ExactAccesses out;
        const isl::set& instances = *instances_of(insn);
        const std::optional<std::vector<ExprPtr>> bases = radix_bases(k_, v);
        for (const Access& a : accesses_of(insn)) {
            if (a.name != v || data_dependent(k_, a) || !a.reduction_scope.empty()) continue;
            std::vector<ExprPtr> indices = storage_indices(k_, a);
            if (bases) indices = radix_digits(indices[0], *bases);  // b[i + n*j]: digits i and j (delinearize.h)
            const std::optional<isl::map> m = affine::exact_access_map(instances, indices);
            if (!m && !out.unstated) out.unstated = a;
            if (!m) continue;
            std::optional<isl::map>& slot = a.is_write ? out.writes : out.reads;
            slot = slot ? isl_util::unite(*slot, *m) : *m;
        }
        return accesses_.emplace(key, std::move(out)).first->second;
    }

    const Roles& roles_of(const Pair& p) {
        const auto key = std::pair{p.first->id, p.second->id};
        if (const auto it = roles_.find(key); it != roles_.end()) return it->second;
        const LinearPlace& a = places_.at(p.first->id);
        const LinearPlace& b = places_.at(p.second->id);
        Roles r;
        std::size_t d = 0;  // the loops both run in: one node of the linearization
        while (d < a.loops.size() && d < b.loops.size() && a.loops[d] == b.loops[d] && a.positions[d] == b.positions[d]) ++d;
        r.loops.assign(a.loops.begin(), a.loops.begin() + static_cast<long>(d));
        r.first_in_code = !p.self() && a.positions[d] < b.positions[d];
        for (const std::string& l : r.loops) {
            const InameTag tag = iname_tag(k_, l);
            if (host_loops_.count(l)) r.host_loops.push_back(l);
            if (!tag.is_vec()) r.ordered.push_back(l);
            if (!tag.is_innermost()) r.barrier_loops.push_back(l);
        }
        for (const auto& [kind, axes] : {std::pair{&InameTag::is_group, &r.groups}, {&InameTag::is_local, &r.locals}})
            for (const InameTag& tag : axes_of(*p.first, *p.second, kind))
                axes->push_back({tag, iname_on(*p.first, tag), iname_on(*p.second, tag)});
        // Two instructions' instances are ordered by the loops they share, then by dep=; a dep= across a
        // concurrent iname orders all instances of one before all of the other (loopy's model: a barrier, the
        // lanes of a vector one instruction after the other), so these are no shared loops of their meaning.
        for (const std::string& i : meaning_order(*p.first, a.loops))
            if (p.self() || std::find(r.ordered.begin(), r.ordered.end(), i) != r.ordered.end()) r.meaning.push_back(i);
        return roles_.emplace(key, std::move(r)).first->second;
    }

    // The hardware axes of one kind either instruction runs on.
    std::vector<InameTag> axes_of(const Instruction& a, const Instruction& b, TagPredicate kind) const {
        std::vector<InameTag> out;
        for (const Instruction* insn : {&a, &b})
            for (const std::string& i : insn->within_inames) {
                const InameTag tag = iname_tag(k_, i);
                if ((tag.*kind)() && std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(tag);
            }
        return out;
    }

    std::optional<std::string> iname_on(const Instruction& insn, const InameTag& tag) const {
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k_, i) == tag) return i;
        return std::nullopt;
    }

    // Whether today's loops order every pair of instances of two instructions as the kernel means, with no isl:
    // no meant loop they share was reordered, today's loops around both are the meant ones in the meant order, the first's code
    // comes first, and a barrier can go at the top of each loop (no ilp or vec loop), unless `v` is private (one
    // work-item's alone).
    static bool runs_as_meant(const Roles& r, const Meant& meant, const Variable& v) {
        if (meant.first_times || meant.unproven) return false;
        const bool one_item = v.kind == VarKind::Temporary && v.address_space == AddressSpace::Private;
        return r.first_in_code && r.meaning == r.ordered && r.ordered == r.loops && (one_item || r.barrier_loops == r.loops);
    }

    // `r` with each list of inames cut down to those in `keep` (in their order).
    static Roles restricted(const Roles& r, const std::vector<std::string>& keep) {
        const auto kept = [&](const std::string& i) { return std::find(keep.begin(), keep.end(), i) != keep.end(); };
        const auto cut = [&](const std::vector<std::string>& list) {
            std::vector<std::string> out;
            std::copy_if(list.begin(), list.end(), std::back_inserter(out), kept);
            return out;
        };
        const auto cut_axes = [&](const Axes& axes) {
            Axes out;
            std::copy_if(axes.begin(), axes.end(), std::back_inserter(out), [&](const Axis& a) { return a.first && kept(*a.first); });
            return out;
        };
        return {cut_axes(r.groups), cut_axes(r.locals), cut(r.loops), cut(r.host_loops), cut(r.ordered),
                cut(r.barrier_loops), cut(r.meaning), r.first_in_code};
    }

    // The instruction's inames in the order the kernel means: the sequential loops as the linearization nests
    // them, and each concurrent iname where loop priorities and the kernel's iname order (nesting_order) place
    // it; an ilp or vec iname, a loop without its tag, also around an iname whose every user it shares and
    // more, as the linearizer would nest it (loopy's loop_nest_around_map). Hardware axes are no loops in
    // loopy's model, nor in OKL's (whose @inner loops sit inside the sequential loops around them): only
    // priorities and the iname order place them.
    std::vector<std::string> meaning_order(const Instruction& insn, const std::vector<std::string>& loops) const {
        const std::vector<std::string> order = nesting_order(k_, {insn.within_inames.begin(), insn.within_inames.end()});
        const auto rank = [&](const std::string& i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
        std::vector<std::string> sequential;
        for (const std::string& l : loops)
            if (!iname_tag(k_, l).is_concurrent()) sequential.push_back(l);
        // Whether `a` must nest outside `b`.
        const auto outside = [&](const std::string& a, const std::string& b) {
            const auto sa = std::find(sequential.begin(), sequential.end(), a), sb = std::find(sequential.begin(), sequential.end(), b);
            if (sa != sequential.end() && sb != sequential.end()) return sa < sb;
            if (iname_tag(k_, a).is_hardware() || iname_tag(k_, b).is_hardware()) return false;
            const std::set<std::string>& ua = users_.at(a);
            const std::set<std::string>& ub = users_.at(b);
            return ub.size() < ua.size() && std::includes(ua.begin(), ua.end(), ub.begin(), ub.end());
        };
        std::vector<std::string> rest = order, out;
        while (!rest.empty()) {
            // The first iname (in nesting_order) that nothing left must nest outside of.
            auto next = std::find_if(rest.begin(), rest.end(), [&](const std::string& i) {
                return std::none_of(rest.begin(), rest.end(), [&](const std::string& o) { return o != i && outside(o, i); });
            });
            if (next == rest.end()) next = std::min_element(rest.begin(), rest.end(), [&](const std::string& x, const std::string& y) {
                return rank(x) < rank(y);
            });
            out.push_back(*next);
            rest.erase(next);
        }
        return out;
    }

    void check_pairs(const Pair& p, const std::string& v, const Roles& all, const Meant& meant, DepKind kind,
                     const isl::map& all_touching) {
        const Variable* var = find_variable(k_, v);
        const bool is_private = var->kind == VarKind::Temporary && var->address_space == AddressSpace::Private;
        const bool is_local = var->kind == VarKind::Temporary && var->address_space == AddressSpace::Local;
        // Private temporaries exist once per work-item, local ones once per work-group: instances on different
        // copies touch different elements.
        const isl::map touching = is_private ? equal_on(equal_on(all_touching, all.groups), all.locals)
                                  : is_local ? equal_on(all_touching, all.groups)
                                             : all_touching;
        // Pairs of one instruction agree on the dims their accesses fix (an accumulator's own iname): the orders
        // need only the others.
        const Roles r = p.self() ? restricted(all, isl_util::varying_dims(touching)) : all;
        if (p.self()) {
            if (r.meaning.empty()) return;
            // One work-item (no hardware iname varies), its loops in the kernel's order, no lanes: nothing to prove.
            std::vector<std::string> sequential_meaning;
            for (const std::string& i : r.meaning)
                if (!iname_tag(k_, i).is_hardware()) sequential_meaning.push_back(i);
            if (!meant.first_times && r.groups.empty() && r.locals.empty() && sequential_meaning == r.ordered && r.ordered == r.loops) return;
        }
        const isl::map dependent = dependent_pairs(touching, r, meant, p.first_by_dep);
        if (isl_util::is_empty(dependent)) return;
        if (!is_private && !is_local && !nosync(*p.second, *p.first, SyncScope::Global)) {
            // Different work-groups: only separate launches order them (and for two instructions, a global
            // barrier between them in one launch, which check_global_dependencies asks for).
            const isl::map groups = differing(dependent, r.groups);
            const isl::map bad = p.self() ? not_after(groups, r.host_loops, false) : lex(groups, r.host_loops, DimOrder::Greater);
            if (!isl_util::is_empty(bad)) report(p, v, all, r, meant, kind, bad, Crossing::Groups);
        }
        const isl::map same_group = equal_on(dependent, r.groups);
        if (!is_private && !nosync(*p.second, *p.first, SyncScope::Local)) {
            // Different work-items of a group: a barrier at the top of the loop whose iteration comes first, or
            // between the two instructions in the code (barrier insertion puts it there).
            const isl::map bad = not_after(differing(same_group, r.locals), r.barrier_loops, r.first_in_code);
            if (!isl_util::is_empty(bad)) report(p, v, all, r, meant, kind, bad, Crossing::WorkItems);
        }
        // One work-item: its loops run the earlier one first; vec lanes run at once, each instruction on all lanes
        // before the next, reads before writes.
        const isl::map same_item = equal_on(same_group, r.locals);
        const bool tie_ok = p.self() ? kind == DepKind::Anti : r.first_in_code;
        const isl::map bad = not_after(same_item, r.ordered, tie_ok);
        if (!isl_util::is_empty(bad)) report(p, v, all, r, meant, kind, bad, Crossing::Order);
    }

    // The pairs of `touching` whose first instance comes first in the order the kernel means: that of the loops
    // it meant before transformations (where recorded), then that of today's loops (`r.meaning`), then (`tie`)
    // that of the dep= chain.
    static isl::map dependent_pairs(const isl::map& touching, const Roles& r, const Meant& meant, bool tie) {
        isl::map by_loops = lex(touching, r.meaning, DimOrder::Less);
        if (tie) by_loops = isl_util::unite(by_loops, lex(touching, r.meaning, DimOrder::Equal));
        if (!meant.first_times) return by_loops;
        const isl::map& a = *meant.first_times;
        const isl::map& b = *meant.second_times;
        const isl::map same = a.apply_range(b.reverse());
        return isl_util::unite(touching.intersect(isl_util::before(a, b)), by_loops.intersect(same));
    }

    // An instruction that reads and writes `v` at indices isl cannot state, under concurrent inames: its
    // instances' order cannot be proven, so the tags are refused, unless the instruction says the order does
    // not matter (a nosync with itself).
    void refuse_unproven(const Instruction& insn, const std::string& v, const Access& a) const {
        if (order_waived(insn)) return;
        std::vector<std::string> tagged;
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k_, i).is_concurrent()) tagged.push_back(cat(i, " on ", iname_tag(k_, i)));
        std::vector<std::string> indices;
        for (const ExprPtr& e : a.indices) indices.push_back(to_string(e));
        user_error(error_kind::DependenceViolationError, k_.name, ": '", insn.id, "' reads and writes ", v,
                   ", and its access ", v, "[", join(indices, ", "), "] is not affine in its inames, so no order of its ",
                   "instances can be proven for the concurrent inames (", join(tagged, ", "), "): fix the parameters ",
                   "that multiply inames (lp.fix_parameters; a chunk_iname over a parametric length makes such ",
                   "indices), or state that the order does not matter with a nosync of the instruction with itself");
    }

    // Loops that today run in another order than the kernel meant, where isl cannot state the meant loops' values
    // (a chunk over a parametric length): that the order keeps the dependences is unproven.
    void refuse_unproven_order(const Pair& p, const std::string& v, const Meant& meant, const Roles& r) const {
        if (p.self() ? order_waived(*p.first) : nosync(*p.second, *p.first, SyncScope::Local)) return;
        const std::string who = p.self() ? cat("'", p.first->id, "' reads and writes ", v)
                                         : cat("'", p.first->id, "' and '", p.second->id, "' access ", v);
        user_error(error_kind::DependenceViolationError, k_.name, ": ", who, ", and ", p.self() ? "its" : "their",
                   " loops now run in another order (",
                   join(r.loops, ", "), ") than the kernel meant (", join(meant.names, ", "), "), whose values are not ",
                   "affine in today's inames, so no order of the instances can be proven: fix the parameters that ",
                   "multiply inames (lp.fix_parameters; a chunk_iname over a parametric length makes such values), keep ",
                   "the order, or state that it does not matter with a nosync");
    }

    enum class Crossing { Groups, WorkItems, Order };

    // "i_outer=1, i_inner=0" from the coordinates of an instance, starting at `first`.
    static std::string instance(const std::vector<std::string>& dims, const std::vector<long>& coords, std::size_t first) {
        std::vector<std::string> parts;
        for (std::size_t d = 0; d < dims.size(); ++d) parts.push_back(cat(dims[d], "=", coords[first + d]));
        return join(parts, ", ");
    }

    // `a[255]`: the element an access of `insn` to `v` touches at the instance `values`, as written; of several,
    // one that `other`'s access touches at `other_values` too.
    std::string element(const Instruction& insn, const std::string& v, bool write, const std::map<std::string, std::int64_t>& values,
                        const Instruction& other, bool other_write, const std::map<std::string, std::int64_t>& other_values) const {
        std::vector<std::vector<std::int64_t>> other_elements;
        for (const Access& a : accesses_of(other))
            if (a.name == v && a.is_write == other_write)
                if (const auto e = evaluated(a, other_values)) other_elements.push_back(*e);
        std::string fallback = v;
        for (const Access& a : accesses_of(insn)) {
            if (a.name != v || a.is_write != write) continue;
            const auto e = evaluated(a, values);
            if (!e) continue;
            std::vector<std::string> text;
            for (const std::int64_t x : *e) text.push_back(std::to_string(x));
            const std::string shown = text.empty() ? v : cat(v, "[", join(text, ", "), "]");
            if (std::find(other_elements.begin(), other_elements.end(), *e) != other_elements.end()) return shown;
            fallback = shown;
        }
        return fallback;
    }

    static std::optional<std::vector<std::int64_t>> evaluated(const Access& a, const std::map<std::string, std::int64_t>& values) {
        std::vector<std::int64_t> out;
        for (const ExprPtr& e : a.indices) {
            const std::optional<std::int64_t> x = eval_int(e, values);
            if (!x) return std::nullopt;
            out.push_back(*x);
        }
        return out;
    }

    // The first of `axes` on which the witness pair differs, with its tag: "i_outer on g.0"; "g.0" where one of
    // them runs on every index of it.
    static std::string differing_axis(const Axes& axes, const std::map<std::string, std::int64_t>& x,
                                      const std::map<std::string, std::int64_t>& y) {
        for (const Axis& a : axes) {
            if (!a.first || !a.second) return cat(a.first ? *a.first : a.second ? *a.second : std::string("an iname"), " on ", a.tag);
            if (x.at(*a.first) != y.at(*a.second)) return cat(*a.first, " on ", a.tag);
        }
        return "";
    }

    // `all` names the inames of the pair for the message, `r` those the witness pair may differ in.
    [[noreturn]] void report(const Pair& p, const std::string& v, const Roles& all, const Roles& r, const Meant& meant,
                             DepKind kind, const isl::map& bad, Crossing crossing) const {
        const isl_util::PointValues pt = *isl_util::sample_point(bad.wrap());
        const std::vector<std::string> first_dims = isl_util::set_dim_names(bad.domain());
        const std::vector<std::string> second_dims = isl_util::set_dim_names(bad.range());
        std::map<std::string, std::int64_t> x, y;
        for (const auto& [name, value] : pt.params) x[name] = y[name] = value;
        for (std::size_t d = 0; d < first_dims.size(); ++d) x[first_dims[d]] = pt.coordinates[d];
        for (std::size_t d = 0; d < second_dims.size(); ++d) y[second_dims[d]] = pt.coordinates[first_dims.size() + d];
        // The later instance (y) reads what the earlier (x) wrote, or writes what it read or wrote.
        const std::string later = cat("instance (", instance(second_dims, pt.coordinates, first_dims.size()), ") of '", p.second->id, "'");
        const std::string earlier = p.self() ? cat("its instance (", instance(first_dims, pt.coordinates, 0), ")")
                                             : cat("instance (", instance(first_dims, pt.coordinates, 0), ") of '", p.first->id, "'");
        const bool reads = kind == DepKind::Flow, earlier_wrote = kind != DepKind::Anti;
        const std::string what = cat(later, reads ? " reads " : " writes ", element(*p.second, v, !reads, y, *p.first, earlier_wrote, x),
                                     earlier_wrote ? ", written by " : ", read by ", earlier);
        std::string why;
        switch (crossing) {
            case Crossing::Groups: {
                const bool same_launch = r.host_loops.empty() || !isl_util::is_empty(lex(bad, r.host_loops, DimOrder::Equal));
                why = cat("which runs in another work-group (", differing_axis(r.groups, x, y), ")",
                          same_launch ? "" : cat(" in an earlier launch of the host loops (", join(all.host_loops, ", "), ")"),
                          same_launch ? ": only a global barrier orders work-groups, and none can go between two "
                                        "instances of one instruction"
                                      : "",
                          "; keep the iname that carries the dependence sequential");
                break;
            }
            case Crossing::WorkItems:
                why = cat("which runs on another work-item of the group (", differing_axis(r.locals, x, y), ") ",
                          isl_util::is_empty(lex(bad, r.barrier_loops, DimOrder::Equal)) || !p.self() ? "later in the code" : "at the same point of the code",
                          ": no barrier can order them; keep the iname that carries the dependence sequential");
                break;
            case Crossing::Order: {
                const std::string lanes = differing_axis(same_dims(r.ordered), x, y).empty() ? lane_note(x, y) : "";
                const std::string loops = all.loops.empty() ? "" : cat(" (", join(all.loops, ", "), ")");
                if (!lanes.empty() && p.self())
                    why = cat("which runs at once with it as lanes of one vector (", lanes, "): all lanes read before any writes");
                else if (!lanes.empty())
                    why = cat("which runs before it as a lane of one vector (", lanes, "): each instruction runs on all ",
                              "lanes before the next");
                else
                    why = cat("which the loop order", loops, " now runs after it");
                break;
            }
        }
        std::vector<std::string> params;
        for (const auto& [name, value] : pt.params) params.push_back(cat(name, "=", value));
        const std::string order = meant.first_times ? cat(join(meant.names, ", "), " as before the transformations")
                                                    : join(all.meaning, ", ");
        user_error(error_kind::DependenceViolationError, k_.name, ": ", what, " earlier in the kernel's sequential order (",
                   order, "), ", why, params.empty() ? "" : cat(" (with ", join(params, ", "), ")"));
    }

    std::string lane_note(const std::map<std::string, std::int64_t>& x, const std::map<std::string, std::int64_t>& y) const {
        for (const auto& [name, value] : x)
            if (iname_tag(k_, name).is_vec() && y.count(name) && y.at(name) != value) return cat(name, " on vec");
        return "";
    }

    const KernelData& k_;
    std::set<std::string> inames_;
    std::map<std::string, std::vector<const Instruction*>> writers_;  // variable -> the instructions writing it
    std::map<std::string, std::set<std::string>> users_;              // iname -> the instructions running in it
    std::map<std::string, LinearPlace> places_;                       // instruction -> where it runs
    std::set<std::string> host_loops_;
    std::map<std::string, std::optional<isl::set>> instances_;        // instruction -> its instances, where certain
    std::map<std::pair<std::string, std::string>, ExactAccesses> accesses_;  // (instruction, variable) -> accesses
    std::map<std::pair<std::string, std::string>, Roles> roles_;     // (first, second) -> how they run
    std::map<std::string, bool> reused_;                              // variable -> whether reused()
    std::vector<std::set<InameTag>> segment_axes_;                    // device kernel -> its hardware axes
    std::map<std::string, std::size_t> segment_of_;                   // instruction -> its device kernel
};

}  // namespace

void check_dependence_legality(const KernelData& k) {
    isl_util::guard(error_kind::InternalError, cat("checking the dependences of kernel '", k.name, "'"), [&] {
        LegalityChecker checker(k);
        const Prerequisites prerequisites(k);
        for (const Instruction& insn : k.instructions) {
            checker.check(insn);
            for (const std::string& dep : prerequisites.of(insn))
                if (const Instruction* first = find_instruction(k, dep)) checker.check(*first, insn);
        }
    });
}

}  // namespace loom
