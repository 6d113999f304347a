#include "analysis/write_races.h"

#include <algorithm>
#include <set>
#include <vector>

#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/warnings.h"

namespace loom {

void warn_with_kernel(const KernelData& k, const std::string& id, const std::string& text, const std::string& kind) {
    const bool silenced = std::any_of(k.silenced_warnings.begin(), k.silenced_warnings.end(),
                                      [&](const std::string& pattern) { return fnmatch(pattern, id); });
    if (silenced) return;
    warn(kind, cat("in kernel ", k.name, ": ", text, " (add '", id, "' to silenced_warnings kernel attribute to disable)"));
}

namespace {

// Whether running across an iname tagged `tag` makes writes to `v` from different iterations collide.
bool races_on(const Variable& v, const InameTag& tag) {
    if (!tag.is_concurrent()) return false;
    if (v.kind != VarKind::Temporary) return true;
    switch (v.address_space) {
        case AddressSpace::Private: return !tag.is_hardware();
        case AddressSpace::Local: return !tag.is_group();
        case AddressSpace::Global: return true;
        case AddressSpace::Auto: internal_assert(false, "address space of '", v.name, "' is not resolved yet");
    }
    return false;
}

}  // namespace

void check_for_write_races(const KernelData& k) {
    for (const Instruction& insn : k.instructions)
        for (const ExprPtr& lhs : insn.assignees) {
            const Variable* v = find_variable(k, lhs->name);
            if (!v) continue;
            const std::vector<std::string> indexed = referenced_names(lhs);
            std::set<std::string> racing;
            for (const std::string& i : insn.within_inames) {
                if (!races_on(*v, iname_tag(k, i))) continue;
                // An iname with one value runs one instance: nothing to race with (a tree reduction's last stage).
                if (extent_bound(k, i) == std::optional<long>(1)) continue;
                if (std::find(indexed.begin(), indexed.end(), i) == indexed.end()) racing.insert(i);
            }
            if (racing.empty()) continue;
            warn_with_kernel(k, cat("write_race(", insn.id, ")"),
                             cat("instruction '", insn.id,
                                 "' contains a write race: instruction will be run across parallel iname(s) '",
                                 join({racing.begin(), racing.end()}, ","),
                                 "', which is/are not referenced in the lhs index"),
                             error_kind::WriteRaceConditionWarning);
        }
}

}  // namespace loom
