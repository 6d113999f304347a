// loopy's check_variable_access_ordered: a write and any other access to the same variable that may touch the
// same element must be ordered by a (possibly indirect) dependency, or waive it with a nosync on both sides;
// otherwise their order would be whatever the linearizer picked.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Under the kernel option `enforce_variable_access_ordered` (true, the default: a VariableAccessNotOrdered
/// error naming both instructions and the variable; false: the same as a warning; "no_check": nothing).
/// Access ranges are compared with isl over each instruction's loops, conservatively where an index is not
/// affine; accesses without subscripts (scalars) take part in no pair, as in loopy. Address spaces must be
/// resolved.
void check_variable_access_ordered(const KernelData& k);

}  // namespace loom
