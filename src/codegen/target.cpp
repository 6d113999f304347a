#include "codegen/target.h"

#include "support/error.h"

namespace loom {

const Target& opencl_target();  // target_opencl.cpp
const Target& c_target();       // target_c.cpp
const Target& cuda_target();    // target_cuda.cpp

TargetKind target_from_name(const std::string& name) {
    if (name == "opencl") return TargetKind::OpenCL;
    if (name == "c") return TargetKind::C;
    if (name == "cuda") return TargetKind::CUDA;
    user_error(error_kind::LoopyError, "unknown target '", name, "' (expected \"opencl\", \"c\" or \"cuda\")");
}

const Target& target_of(TargetKind t) {
    switch (t) {
        case TargetKind::OpenCL: return opencl_target();
        case TargetKind::C: return c_target();
        case TargetKind::CUDA: return cuda_target();
    }
    internal_error("a target kind without an implementation");
}

void Target::require_complex_support() const {
    user_assert(complex_style() != ComplexStyle::None, error_kind::LoopyError, "complex types are not supported on the ",
                name(), " target");
}

std::string Target::unroll_pragma(int factor) const {
    return "#pragma unroll" + (factor ? " " + std::to_string(factor) : "") + "\n";
}

std::string Target::math_function(const std::string& f, DType t) const { return t == DType::Float32 ? f + "f" : f; }

std::string Target::complex_declarations(const std::set<DType>& types) const { return ""; }

std::string Target::vector_type(DType d, std::int64_t n) const {
    internal_error("the ", name(), " target has no vector type of ", dtype_name(d));
}

std::string Target::hardware_index(const InameTag& tag) const {
    internal_error("the ", name(), " target has no hardware axis for an iname tagged ", tag);
}

}  // namespace loom
