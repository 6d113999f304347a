// What distinguishes the C-family targets. One emitter serves all of them (DESIGN decision 5).
#pragma once

#include <cstdint>
#include <string>

#include "expr/dtype.h"

namespace loom {

enum class TargetKind { OpenCL, C, CUDA };

/// Parses "opencl", "c" or "cuda" (LoopyError otherwise).
TargetKind target_from_name(const std::string& name);
std::string target_name(TargetKind t);

/// LoopyError unless target `t` has complex numbers (CUDA has none here).
void require_complex_support(TargetKind t);

/// The C type spelling of a scalar type on target `t` ("float", "long", "int64_t", ...).
std::string c_type(DType d, TargetKind t);

/// OpenCL's vector type of `n` entries of scalar type `d` ("float4", "uint2"); LoopyError for types
/// without one (complex).
std::string vector_type(DType d, std::int64_t n);

}  // namespace loom
