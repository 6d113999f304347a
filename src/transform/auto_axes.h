// loopy's assign_automatic_axes: inames tagged "l.auto" get concrete local axes when the kernel is
// preprocessed, and right away when precompute or add_prefetch tag their new inames "l.auto" (as loopy's
// precompute does).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Gives each "l.auto" iname a local axis, axis by axis as loopy does: on an axis that numbered ("l.N")
/// inames already size, the auto iname of an instruction with the smallest stride in the global arrays it
/// accesses goes first (split to the axis's size when longer); auto inames left over take a free axis long
/// enough, or else the longest shorter one. With no axis for it, or without a constant length, an auto
/// iname becomes a sequential loop. Returns `k` when it has no "l.auto" iname.
Kernel assign_automatic_axes(const Kernel& k);

}  // namespace loom
