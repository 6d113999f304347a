#include "codegen/target_common.h"

#include <algorithm>

#include "support/error.h"

namespace loom {

std::string fixed_width_type(DType d) {
    switch (d) {
        case DType::Bool: return "bool";
        case DType::Int8: return "int8_t";
        case DType::Int16: return "int16_t";
        case DType::Int32: return "int";
        case DType::Int64: return "int64_t";
        case DType::UInt8: return "uint8_t";
        case DType::UInt16: return "uint16_t";
        case DType::UInt32: return "unsigned int";
        case DType::UInt64: return "uint64_t";
        case DType::Float32: return "float";
        case DType::Float64: return "double";
        case DType::Complex64:
        case DType::Complex128: internal_error("complex type ", dtype_name(d), " has no fixed-width spelling");
        case DType::Unknown: break;
    }
    user_error(error_kind::TypeInferenceError, "a type is still unknown at code generation");
}

bool uses_type(const KernelData& k, std::initializer_list<DType> types) {
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars)
            if (std::find(types.begin(), types.end(), v.dtype) != types.end()) return true;
    return false;
}

bool is_32_bit_integer(DType t) { return t == DType::Int32 || t == DType::UInt32; }
bool is_64_bit_integer(DType t) { return t == DType::Int64 || t == DType::UInt64; }

const char* atomic_op_suffix(AtomicOp op) {
    switch (op) {
        case AtomicOp::Add: return "add";
        case AtomicOp::Sub: return "sub";
        case AtomicOp::Min: return "min";
        case AtomicOp::Max: return "max";
        case AtomicOp::And: return "and";
        case AtomicOp::Or: return "or";
        case AtomicOp::Xor: return "xor";
        case AtomicOp::Store: break;
    }
    return "xchg";
}

bool constant_work_group(const DeviceKernel& dk) {
    return std::all_of(dk.local.begin(), dk.local.end(), [](const ExprPtr& l) { return l->kind == ExprKind::IntLit; });
}

std::string cas_failed(const CasSpelling& s, const std::string& place, const std::string& old_value,
                       const std::string& new_value) {
    const auto bits = [&](const std::string& v) { return s.bits_open + v + s.bits_close; };
    return s.function + "(" + s.pointer_cast + "&(" + place + "), " + bits(old_value) + ", " + bits(new_value) +
           ") != " + bits(old_value);
}

}  // namespace loom
