// Barrier insertion (DESIGN decision 4). A local barrier goes exactly where a dependency between two
// instructions crosses work-items of one group on memory they share (local temporaries, and global
// arrays within a group): before the dependent instruction, or at the top of a loop for a hazard carried
// from one iteration to the next ("rev-depends"). A dependency that crosses work-groups inside one device
// kernel is a MissingBarrierError: only a global barrier (a kernel split) can order it.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Returns the linearized kernel `k` with barriers in its linearization.
Kernel insert_barriers(const Kernel& k);

}  // namespace loom
