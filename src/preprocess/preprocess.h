// Preprocessing, the stages between a user's kernel and code generation (loopy's preprocess_kernel and
// linearization): callable kernels inlined, substitution rules expanded, automatic axes assigned, hardware
// axes counted from zero, types inferred, reductions and ILP realized, address spaces resolved, the kernel
// checked, then linearized with its barriers and the linearization verified.
#pragma once

#include <map>
#include <string>

#include "expr/dtype.h"
#include "ir/kernel.h"

namespace loom {

/// Type inference (with `dtypes` for still-unknown arguments), substitution, reduction and ILP realization, address
/// spaces and checks, without linearization (loopy's preprocess_kernel). Preprocessing its result again changes
/// nothing.
Kernel preprocess_unlinearized(const Kernel& k, const std::map<std::string, DType>& dtypes = {});

/// preprocess_unlinearized, then linearization and barriers: the kernel that code generation consumes (the
/// same for every target), its dependences checked (dependence_legality.h). Stages are dumped to stderr when
/// LOOM_DEBUG=2. The check's CPU time is added to `*legality_seconds` where given (bench/codegen_latency.lua).
Kernel preprocess_kernel(const Kernel& k, const std::map<std::string, DType>& dtypes = {},
                         double* legality_seconds = nullptr);

}  // namespace loom
