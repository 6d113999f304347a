// Vectorization of instructions over an iname tagged `vec` (loopy's VectorizabilityChecker): on OpenCL an
// instruction whose subscripts use the iname only as the whole index along arrays' `vec` axes runs once on
// vector values (`a[i] = b[i] + 2.0f * c[i]` on float4) instead of once per entry.
#pragma once

#include <cstdint>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Whether `insn` can run on all `length` values of `iname` at once as OpenCL vector operations. As in loopy:
/// the iname appears only as the index along `vec` axes of that length; function calls, logical operations,
/// reductions and atomics do not take vectors. Stricter than loopy, so that no operation converts a vector:
/// the assignee must be a vector, every vector value must have its type, and predicates must not use the
/// iname. The caller falls back to unrolling when it cannot.
bool is_vectorizable(const KernelData& k, const Instruction& insn, const std::string& iname, std::int64_t length);

}  // namespace loom
