// loopy's `insert_gbarriers` option: global barriers where dependencies need them.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// For every dependency `t depends on s` whose instances touch global memory across work-groups (what
/// barrier insertion reports as a MissingBarrierError), puts a `... gbarrier` instruction between them:
/// it depends on s, and t on it instead of s. Dependencies inside a shared sequential loop are left
/// alone: a barrier there would move the loop to the host (kernel_split.h), which is the user's choice.
/// Returns `k` when none is needed.
Kernel insert_global_barriers(const Kernel& k);

}  // namespace loom
