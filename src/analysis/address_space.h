// Where temporaries live when the kernel does not say (loopy's rule): a temporary written with a subscript
// that uses a local-axis iname is shared by the work-group (local memory), unless a write runs on a local
// axis its subscript does not use (a write race); any other one is private.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Returns `k` with every temporary's address space decided.
Kernel resolve_address_spaces(const Kernel& k);

}  // namespace loom
