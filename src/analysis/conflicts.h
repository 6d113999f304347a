// Exact memory conflicts between two instructions, from isl access relations: do instances of `source`
// and `sink` touch a common element of a variable (at least one of them writing it) across work-items
// that a barrier would have to separate? Two atomic updates (`{atomic}`) of one element never conflict; an
// atomic update and a plain access, or an `{atomic=init}` store, do.
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

enum class ConflictScope {
    WorkItemsOfGroup,  // same work-group, different work-items: a local barrier separates them
    Groups,            // different work-groups: only a global barrier (a kernel split) separates them
};

struct ConflictQuery {
    const Instruction* source = nullptr;  // runs first
    const Instruction* sink = nullptr;    // runs later
    std::string variable;
    /// Sequential loops both run in whose iteration is the same for the two instances.
    std::vector<std::string> same_iteration;
    /// A loop whose iteration of `sink` comes after that of `source` ("" when none: same iteration).
    std::string carried_by;
    ConflictScope scope = ConflictScope::WorkItemsOfGroup;
};

bool has_conflict(const KernelData& k, const ConflictQuery& q);

/// Variables both instructions access, at least one of them writing.
std::vector<std::string> conflicting_variables(const Instruction& a, const Instruction& b);

}  // namespace loom
