// Scalar data types, named as numpy names them. Unknown means "decided at call time".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace loom {

enum class DType : unsigned char {
    Unknown,
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
    Complex64,
    Complex128,
};

/// Parses a numpy dtype name ("float32", "int64", "complex64", "bool"; also "float"/"double"/"int").
std::optional<DType> dtype_from_name(std::string_view name);
/// The numpy name ("float32"); "<auto/runtime>" for Unknown.
std::string dtype_name(DType t);
/// Size in bytes of one element; 0 for Unknown.
std::size_t dtype_size(DType t);

bool is_integer(DType t);  // Bool is not an integer here
bool is_signed(DType t);
bool is_float(DType t);
bool is_complex(DType t);

/// Whether the integer type `t` represents `v` (false for the other types).
bool holds(DType t, std::int64_t v);

/// The element type of a complex type (float32 for complex64); t itself otherwise.
DType real_part_type(DType t);

/// numpy's result_type for a binary arithmetic operation on two array types.
DType promote(DType a, DType b);

}  // namespace loom
