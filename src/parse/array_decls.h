// Kernel creation steps for declared arrays: offset arguments, the parameters their layouts use, and the
// rules of initialized and read-only temporaries.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Adds the value argument `<name>_offset` (of the index type) right after each array argument declared with
/// an lp.auto offset, and makes it that array's offset, as loopy does.
void add_offset_args(KernelData& k);

/// loopy's stride:auto dim tags (parsed as the stride `auto`, a C keyword, so no variable's name): each becomes
/// the value argument `<array>_stride<axis>`, appended to the arguments; a call takes its value from the array
/// passed.
void add_stride_args(KernelData& k);

/// The variables that shapes, strides and offsets of the declared arrays and temporaries refer to (they are
/// parameters, so undeclared ones become value arguments).
std::set<std::string> layout_names(const KernelData& k);

/// Checks initializers and read_only (LoopyError): only temporaries are initialized, an initializer goes with
/// read_only both ways, it has as many values as the constant shape has elements, it is not in local memory,
/// and no instruction writes a read-only temporary. Shapes must be final.
void check_temporaries(const KernelData& k);

}  // namespace loom
