// Linearization: one sequential order of loops and instructions that honours the dependencies.
//
// Dependencies act within the largest common set of shared inames: an instruction runs after its
// prerequisites in the same iteration of the loops they share, and a loop that the dependent does not share
// with its prerequisite is closed before the dependent runs. Loop priorities (prioritize_loops) and the
// nesting that domains require decide the order of loops where the dependencies leave a choice.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Returns `k` with `linearization` filled in. LoopyError when no order exists (cyclic dependencies).
/// With `hardware_as_loops` (targets that run the grid themselves, such as C) hardware axes become loops,
/// group axes outermost, then local axes.
Kernel linearize(const Kernel& k, bool hardware_as_loops = false);

}  // namespace loom
