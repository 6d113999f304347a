#include "codegen/target.h"

#include "support/error.h"

namespace loom {

TargetKind target_from_name(const std::string& name) {
    if (name == "opencl") return TargetKind::OpenCL;
    if (name == "c") return TargetKind::C;
    if (name == "cuda") return TargetKind::CUDA;
    user_error(error_kind::LoopyError, "unknown target '", name, "' (expected \"opencl\", \"c\" or \"cuda\")");
}

std::string target_name(TargetKind t) {
    switch (t) {
        case TargetKind::OpenCL: return "opencl";
        case TargetKind::C: return "c";
        case TargetKind::CUDA: return "cuda";
    }
    return "opencl";
}

void require_complex_support(TargetKind t) {
    user_assert(t != TargetKind::CUDA, error_kind::LoopyError, "complex types are not supported on the cuda target");
}

std::string c_type(DType d, TargetKind t) {
    const bool cl = t == TargetKind::OpenCL;
    switch (d) {
        case DType::Bool: return cl ? "char" : "bool";
        case DType::Int8: return cl ? "char" : "int8_t";
        case DType::Int16: return cl ? "short" : "int16_t";
        case DType::Int32: return "int";
        case DType::Int64: return cl ? "long" : "int64_t";
        case DType::UInt8: return cl ? "unsigned char" : "uint8_t";
        case DType::UInt16: return cl ? "unsigned short" : "uint16_t";
        case DType::UInt32: return "unsigned int";
        case DType::UInt64: return cl ? "unsigned long" : "uint64_t";
        case DType::Float32: return "float";
        case DType::Float64: return "double";
        case DType::Complex64:
        case DType::Complex128:
            require_complex_support(t);
            if (cl) return d == DType::Complex64 ? "cfloat_t" : "cdouble_t";
            return d == DType::Complex64 ? "float _Complex" : "double _Complex";
        case DType::Unknown: break;
    }
    user_error(error_kind::TypeInferenceError, "a type is still unknown at code generation");
}

std::string vector_type(DType d, std::int64_t n) {
    std::string scalar;
    switch (d) {
        case DType::Bool: case DType::Int8: scalar = "char"; break;
        case DType::UInt8: scalar = "uchar"; break;
        case DType::Int16: scalar = "short"; break;
        case DType::UInt16: scalar = "ushort"; break;
        case DType::UInt32: scalar = "uint"; break;
        case DType::Int64: scalar = "long"; break;
        case DType::UInt64: scalar = "ulong"; break;
        case DType::Int32: case DType::Float32: case DType::Float64: scalar = c_type(d, TargetKind::OpenCL); break;
        default: user_error(error_kind::LoopyError, "type ", dtype_name(d), " has no vector type");
    }
    return scalar + std::to_string(n);
}

}  // namespace loom
