// loopy's pre-linearization checks of a kernel (loopy/check.py) that Loom would otherwise turn into wrong or
// uncompilable code: each raises a LoopyError naming the instruction or domain and the inames at fault.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Every parameter is an argument; every instruction uses each hardware axis through at most one iname; every iname an instruction's
/// expressions reference is one of its inames; no domain with a hardware-parallel iname has a bound read from a
/// temporary (its size would not be known at launch).
void check_kernel_structure(const KernelData& k);

}  // namespace loom
