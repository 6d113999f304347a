// What several targets' implementations share (codegen/target.h): C's type spellings (C, CUDA, OpenCL's int),
// the facts of a device kernel's grid and the compare-and-swap condition of device atomics (OpenCL, CUDA).
#pragma once

#include <initializer_list>
#include <string>

#include "codegen/lower.h"

namespace loom {

/// C's spelling of a real scalar type with <stdint.h>'s fixed-width names ("int64_t", "bool", "float");
/// TypeInferenceError for an unknown one.
std::string fixed_width_type(DType d);

/// Whether a variable of `k` has one of `types`.
bool uses_type(const KernelData& k, std::initializer_list<DType> types);

bool is_32_bit_integer(DType t);
bool is_64_bit_integer(DType t);

/// The name of atomic operation `op` in the targets' function names ("add"; "xchg" for a store).
const char* atomic_op_suffix(AtomicOp op);

/// Whether every work-group size of `dk` is a constant.
bool constant_work_group(const DeviceKernel& dk);

/// A device compare-and-swap: `function(pointer_cast&(place), bits(old), bits(new))` returns the element's
/// old value, compared as the integer type the function takes (`bits_open` and `bits_close` around a value
/// reinterpret it as that type, `pointer_cast` the pointer).
struct CasSpelling {
    std::string function;
    std::string pointer_cast;
    std::string bits_open, bits_close;
};

/// The condition under which compare-and-swap `s` of `old_value` for `new_value` at `place` failed.
std::string cas_failed(const CasSpelling& s, const std::string& place, const std::string& old_value,
                       const std::string& new_value);

}  // namespace loom
