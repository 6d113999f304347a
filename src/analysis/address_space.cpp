#include "analysis/address_space.h"

#include <algorithm>
#include <set>
#include <vector>

#include "analysis/write_races.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// The inames of `insn` on hardware axes of one kind (local or group), and those of them that index `lhs`.
struct Axes {
    std::set<std::string> compute, assignee;
};

Axes axes_of(const KernelData& k, const Instruction& insn, const ExprPtr& lhs, TagPredicate is_kind) {
    Axes out;
    const std::vector<std::string> indexed = referenced_names(lhs);
    for (const std::string& i : insn.within_inames) {
        if (!(iname_tag(k, i).*is_kind)()) continue;
        out.compute.insert(i);
        if (std::find(indexed.begin(), indexed.end(), i) != indexed.end()) out.assignee.insert(i);
    }
    return out;
}

// The address space one writer wants for temporary `t` (private < local < global), warning where the
// assignee uses some but not all of the writer's parallel axes of a kind.
AddressSpace desired_by(const KernelData& k, const Instruction& insn, const ExprPtr& lhs, const std::string& t) {
    struct Kind {
        TagPredicate is_kind;
        const char* ids;    // "local IDs"
        const char* space;  // "local"
        AddressSpace aspace;
    };
    AddressSpace desired = AddressSpace::Private;
    for (const Kind& kind : {Kind{&InameTag::is_local, "local", "local", AddressSpace::Local},
                             Kind{&InameTag::is_group, "group", "global", AddressSpace::Global}}) {
        const Axes a = axes_of(k, insn, lhs, kind.is_kind);
        if (!a.assignee.empty() && a.assignee != a.compute) {
            std::vector<std::string> missing;
            std::set_difference(a.compute.begin(), a.compute.end(), a.assignee.begin(), a.assignee.end(),
                                std::back_inserter(missing));
            warn_with_kernel(k, cat("write_race_", kind.space, "(", insn.id, ")"),
                             cat("instruction '", insn.id, "' looks invalid: it assigns to indices based on ", kind.ids,
                                 " IDs, but its temporary '", t, "' cannot be made ", kind.space,
                                 " because a write race across the iname(s) '", join(missing, ", "),
                                 "' would emerge. (Do you need to add an extra iname to your prefetch?)"),
                             error_kind::WriteRaceConditionWarning);
        }
        if (!a.compute.empty() && a.assignee == a.compute) desired = kind.aspace;
    }
    return desired;
}

AddressSpace resolve(const KernelData& k, const Variable& t) {
    std::vector<AddressSpace> wanted;
    for (const Instruction& insn : k.instructions)
        for (const ExprPtr& lhs : insn.assignees)
            if (lhs->name == t.name) wanted.push_back(desired_by(k, insn, lhs, t.name));
    if (wanted.empty()) return AddressSpace::Private;
    user_assert(std::all_of(wanted.begin(), wanted.end(), [&](AddressSpace s) { return s == wanted.front(); }),
                error_kind::LoopyError, "not all instructions agree on the desired address space (private/local/global) of "
                "the temporary '", t.name, "'");
    return wanted.front();
}

}  // namespace

Kernel resolve_address_spaces(const Kernel& kernel) {
    KernelData k = kernel.copy();
    bool changed = false;
    for (Variable& t : k.temporaries) {
        if (t.address_space != AddressSpace::Auto) continue;
        t.address_space = resolve(*kernel, t);
        changed = true;
    }
    return changed ? Kernel(std::move(k)) : kernel;
}

}  // namespace loom
