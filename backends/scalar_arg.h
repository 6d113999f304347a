// A kernel argument as the bytes of the C type it is passed as: what clSetKernelArg and ffi_call both take.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backends/runtime.h"
#include "support/error.h"

namespace loom::backend {

struct ScalarBytes {
    alignas(16) unsigned char bytes[16];
    std::size_t size;
};

template <class T>
ScalarBytes scalar_bytes_of(T value) {
    static_assert(sizeof(T) <= sizeof(ScalarBytes::bytes));
    ScalarBytes s{};
    std::memcpy(s.bytes, &value, sizeof value);
    s.size = sizeof value;
    return s;
}

template <class T>
ScalarBytes converted_scalar(const Arg& arg) {
    return scalar_bytes_of(arg.kind == Arg::Kind::Float ? static_cast<T>(arg.f) : static_cast<T>(arg.i));
}

// A complex value as its two parts in a row: the layout of C's `T _Complex` and of OpenCL's `T2`.
template <class T>
ScalarBytes complex_scalar(const Arg& arg) {
    const T parts[2] = {static_cast<T>(arg.kind == Arg::Kind::Int ? static_cast<double>(arg.i) : arg.f),
                        static_cast<T>(arg.kind == Arg::Kind::Complex ? arg.im : 0.0)};
    ScalarBytes s{};
    std::memcpy(s.bytes, parts, sizeof parts);
    s.size = sizeof parts;
    return s;
}

/// `arg` converted to the C type of `type` (bool travels as an unsigned char: OpenCL forbids bool arguments).
inline ScalarBytes scalar_bytes(const Arg& arg, DType type) {
    switch (type) {
        case DType::Bool:
        case DType::UInt8: return converted_scalar<std::uint8_t>(arg);
        case DType::Int8: return converted_scalar<std::int8_t>(arg);
        case DType::Int16: return converted_scalar<std::int16_t>(arg);
        case DType::Int32: return converted_scalar<std::int32_t>(arg);
        case DType::Int64: return converted_scalar<std::int64_t>(arg);
        case DType::UInt16: return converted_scalar<std::uint16_t>(arg);
        case DType::UInt32: return converted_scalar<std::uint32_t>(arg);
        case DType::UInt64: return converted_scalar<std::uint64_t>(arg);
        case DType::Float32: return converted_scalar<float>(arg);
        case DType::Float64: return converted_scalar<double>(arg);
        case DType::Complex64: return complex_scalar<float>(arg);
        case DType::Complex128: return complex_scalar<double>(arg);
        default: user_error(error_kind::RuntimeError, "scalar kernel arguments of type ", dtype_name(type), " are not supported");
    }
}

}  // namespace loom::backend
