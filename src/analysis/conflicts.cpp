#include "analysis/conflicts.h"

#include <algorithm>
#include <optional>

#include "analysis/delinearize.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/atomic.h"
#include "ir/derived.h"
#include "ir/domain.h"
#include "isl/isl.h"

namespace loom {

namespace {

void add(std::optional<isl::map>& acc, const isl::map& m) { acc = acc ? isl_util::unite(*acc, m) : m; }

// The radix in which every access of `variable` writes its flat index, where one makes them exact (delinearize.h).
// Instances that do not run touch nothing: the access relations are over running_instances, so that the
// work-items of an OKL kernel's `if (i < j) swap(A(i,j), A(j,i))` conflict with no other.
std::optional<std::vector<ExprPtr>> radix(const KernelData& k, const std::string& variable) {
    return derived(k, &DerivedFacts::radixes, variable, [&] {
        return radix_bases(k, variable);
    });
}

AccessRelations relations(const KernelData& k, const Instruction& insn, const std::string& variable) {
    return derived(k, &DerivedFacts::access_relations, std::pair{insn.id, variable}, [&] {
        const isl::set dom = running_instances(k, insn);
        const std::optional<std::vector<ExprPtr>> bases = radix(k, variable);
        AccessRelations r;
        for (const Access& a : accesses_of(insn)) {
            if (a.name != variable) continue;
            std::vector<ExprPtr> indices = storage_indices(k, a);
            if (bases) indices = radix_digits(indices[0], *bases);
            add(is_atomic_update_access(insn, a) ? r.atomic : a.is_write ? r.writes : r.reads, affine::access_map(dom, indices));
        }
        return r;
    });
}

// The iname of `insn` implementing hardware axis `tag` (l.0), if any.
std::optional<std::string> axis_iname(const KernelData& k, const Instruction& insn, const InameTag& tag) {
    for (const std::string& i : insn.within_inames)
        if (iname_tag(k, i) == tag) return i;
    return std::nullopt;
}

// The axes of one kind (&InameTag::is_local or is_group) that the kernel's inames use.
std::vector<InameTag> axes(const KernelData& k, TagPredicate is_kind) {
    std::vector<InameTag> out;
    for (const auto& [iname, tag] : k.iname_tags)
        if ((tag.*is_kind)() && std::find(out.begin(), out.end(), tag) == out.end()) out.push_back(tag);
    return out;
}

// Whether instances of `rel` differ in at least one of the hardware axes of `kind`; false when none can
// differ (the two never run on different work-items of that kind). Each way to differ is tested on its own:
// the first that is not empty decides.
bool differ(const KernelData& k, const ConflictQuery& q, const isl::map& rel, TagPredicate kind) {
    for (const InameTag& tag : axes(k, kind)) {
        const auto a = axis_iname(k, *q.source, tag), b = axis_iname(k, *q.sink, tag);
        // An instruction outside an axis runs on every index of it: instances may differ.
        if (!a || !b) return !isl_util::is_empty(rel);
        for (const isl_util::DimOrder order : {isl_util::DimOrder::Less, isl_util::DimOrder::Greater})
            if (!isl_util::is_empty(isl_util::constrain_dims(rel, *a, *b, order))) return true;
    }
    return false;
}

isl::map same_axes(const KernelData& k, const ConflictQuery& q, isl::map rel, TagPredicate kind) {
    for (const InameTag& tag : axes(k, kind)) {
        const auto a = axis_iname(k, *q.source, tag), b = axis_iname(k, *q.sink, tag);
        if (a && b) rel = isl_util::constrain_dims(rel, *a, *b, isl_util::DimOrder::Equal);
    }
    return rel;
}

}  // namespace

std::vector<std::string> conflicting_variables(const Instruction& a, const Instruction& b) {
    const std::set<std::string> wa = written_names(a), wb = written_names(b);
    std::set<std::string> ra = read_names(a), rb = read_names(b);
    std::vector<std::string> out;
    auto consider = [&](const std::string& v) {
        const bool touched = (wa.count(v) || ra.count(v)) && (wb.count(v) || rb.count(v));
        if (touched && (wa.count(v) || wb.count(v)) && std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    };
    for (const std::string& v : wa) consider(v);
    for (const std::string& v : wb) consider(v);
    return out;
}

namespace {

// Whether instances of the pairs `rel` conflict in the sense of `q`.
bool conflicting_pairs(const KernelData& k, const ConflictQuery& q, isl::map rel) {
    for (const std::string& loop : q.same_iteration) rel = isl_util::constrain_dims(rel, loop, loop, isl_util::DimOrder::Equal);
    if (!q.carried_by.empty()) rel = isl_util::constrain_dims(rel, q.carried_by, q.carried_by, isl_util::DimOrder::Less);
    if (q.scope == ConflictScope::WorkItemsOfGroup)
        return differ(k, q, same_axes(k, q, rel, &InameTag::is_group), &InameTag::is_local);
    return differ(k, q, rel, &InameTag::is_group);
}

bool conflict_in_pairs(const KernelData& k, const ConflictQuery& q) {
    const AccessRelations s = relations(k, *q.source, q.variable), t = relations(k, *q.sink, q.variable);
    // Each access of the source against each of the sink, piece by piece: a conflict is usually found in the
    // first pair, and isl's operations on the union of all pairs (a stencil's reads of a fetch make seven)
    // cost several times more than on one piece.
    for (const auto& [a, b] : {std::pair{&s.writes, &t.reads}, {&s.reads, &t.writes}, {&s.writes, &t.writes},
                               {&s.atomic, &t.reads}, {&s.atomic, &t.writes}, {&s.reads, &t.atomic},
                               {&s.writes, &t.atomic}}) {
        if (!*a || !*b) continue;
        const std::vector<isl::map> sinks = isl_util::basic_maps(**b);
        for (const isl::map& x : isl_util::basic_maps(**a))
            for (const isl::map& y : sinks)
                if (conflicting_pairs(k, q, isl_util::touching_pairs(x, y))) return true;
    }
    return false;
}

// Whether instances of one instruction conflict in any iterations of its loops: where they do not (a fetch
// writes each element once), no loop's iterations need a barrier between them, and the query asked of each
// loop is answered by the first.
bool self_conflict(const KernelData& k, const ConflictQuery& q) {
    return derived(k, &DerivedFacts::self_conflicts, std::pair{q.source->id, q.variable}, [&] {
        return conflict_in_pairs(k, {q.source, q.sink, q.variable, {}, "", q.scope});
    });
}

}  // namespace

bool has_conflict(const KernelData& k, const ConflictQuery& q) {
    const bool constrained = !q.same_iteration.empty() || !q.carried_by.empty();
    if (q.source == q.sink && q.scope == ConflictScope::WorkItemsOfGroup && constrained && !self_conflict(k, q)) return false;
    return conflict_in_pairs(k, q);
}

}  // namespace loom
