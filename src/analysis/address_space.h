// Where temporaries live when the kernel does not say (loopy's find_temporary_address_space): a temporary
// whose writers index it by every local-axis iname they run in is shared by the work-group (local memory);
// by every group-axis iname too, it is global; otherwise it is private. A writer that indexes it by some but
// not all of its local (group) axes gets a WriteRaceConditionWarning, as in loopy.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Returns `k` with every temporary's address space decided. Writers that want different address spaces
/// for one temporary are a LoopyError.
Kernel resolve_address_spaces(const Kernel& k);

}  // namespace loom
