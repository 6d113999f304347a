#include "expr/dtype.h"

#include <array>

namespace loom {

namespace {

struct Info {
    DType type;
    const char* name;
    std::size_t size;
};

constexpr std::array<Info, 14> kInfo{{
    {DType::Unknown, "<auto/runtime>", 0},
    {DType::Bool, "bool", 1},
    {DType::Int8, "int8", 1},
    {DType::Int16, "int16", 2},
    {DType::Int32, "int32", 4},
    {DType::Int64, "int64", 8},
    {DType::UInt8, "uint8", 1},
    {DType::UInt16, "uint16", 2},
    {DType::UInt32, "uint32", 4},
    {DType::UInt64, "uint64", 8},
    {DType::Float32, "float32", 4},
    {DType::Float64, "float64", 8},
    {DType::Complex64, "complex64", 8},
    {DType::Complex128, "complex128", 16},
}};

const Info& info(DType t) { return kInfo[static_cast<std::size_t>(t)]; }

int int_bits(DType t) { return static_cast<int>(dtype_size(t)) * 8; }

}  // namespace

std::optional<DType> dtype_from_name(std::string_view name) {
    for (const Info& i : kInfo)
        if (i.type != DType::Unknown && name == i.name) return i.type;
    if (name == "float" || name == "single") return DType::Float32;
    if (name == "double") return DType::Float64;
    if (name == "int") return DType::Int32;
    if (name == "long") return DType::Int64;
    if (name == "uint") return DType::UInt32;
    if (name == "bool_" || name == "bool8") return DType::Bool;
    return std::nullopt;
}

std::string dtype_name(DType t) { return info(t).name; }
std::size_t dtype_size(DType t) { return info(t).size; }

bool is_integer(DType t) { return t >= DType::Int8 && t <= DType::UInt64; }
bool is_signed(DType t) { return (t >= DType::Int8 && t <= DType::Int64) || is_float(t) || is_complex(t); }
bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }

bool holds(DType t, std::int64_t v) {
    switch (t) {
        case DType::Int8: return v >= INT8_MIN && v <= INT8_MAX;
        case DType::Int16: return v >= INT16_MIN && v <= INT16_MAX;
        case DType::Int32: return v >= INT32_MIN && v <= INT32_MAX;
        case DType::Int64: return true;
        case DType::UInt8: return v >= 0 && v <= UINT8_MAX;
        case DType::UInt16: return v >= 0 && v <= UINT16_MAX;
        case DType::UInt32: return v >= 0 && v <= UINT32_MAX;
        case DType::UInt64: return v >= 0;
        default: return false;
    }
}

DType real_part_type(DType t) {
    if (t == DType::Complex64) return DType::Float32;
    if (t == DType::Complex128) return DType::Float64;
    return t;
}

DType promote(DType a, DType b) {
    if (a == DType::Unknown || b == DType::Unknown) return DType::Unknown;
    if (a == b) return a;
    if (a == DType::Bool) return b;
    if (b == DType::Bool) return a;
    if (is_complex(a) || is_complex(b)) {
        // complex64 with float64 (or a wide integer) needs complex128, as in numpy.
        const DType ra = real_part_type(a), rb = real_part_type(b);
        const bool wide = ra == DType::Float64 || rb == DType::Float64 ||
                          (is_integer(ra) && dtype_size(ra) >= 4) || (is_integer(rb) && dtype_size(rb) >= 4);
        return wide ? DType::Complex128 : DType::Complex64;
    }
    if (is_float(a) || is_float(b)) {
        if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
        const DType other = is_float(a) ? b : a;  // float32 with an integer
        if (is_float(other)) return DType::Float32;
        return dtype_size(other) <= 2 ? DType::Float32 : DType::Float64;
    }
    // Two integers.
    const bool sa = is_signed(a), sb = is_signed(b);
    const int ba = int_bits(a), bb = int_bits(b);
    if (sa == sb) return ba >= bb ? a : b;
    const DType s = sa ? a : b, u = sa ? b : a;
    if (int_bits(s) > int_bits(u)) return s;
    switch (int_bits(u)) {
        case 8: return DType::Int16;
        case 16: return DType::Int32;
        case 32: return DType::Int64;
        default: return DType::Float64;
    }
}

}  // namespace loom
