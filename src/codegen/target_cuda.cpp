// The CUDA target: `extern "C" __global__` kernels for NVRTC or nvcc, work-item ids as blockIdx/threadIdx,
// C's type and math names. It has no complex numbers.
#include "codegen/target_common.h"
#include "support/c_names.h"
#include "support/error.h"

namespace loom {

namespace {

class CudaTarget final : public Target {
public:
    std::string name() const override { return "cuda"; }

    std::string scalar_type(DType d) const override {
        if (is_complex(d)) require_complex_support();
        return fixed_width_type(d);
    }

    ComplexStyle complex_style() const override { return ComplexStyle::None; }

    // The fixed-width names C spells these types with (nvcc's own headers define only some).
    std::string preamble(const KernelData& k) const override {
        if (k.options.index_dtype != DType::Int32 ||
            uses_type(k, {DType::Int8, DType::Int16, DType::Int64, DType::UInt8, DType::UInt16, DType::UInt64}))
            return "#include <stdint.h>\n\n";
        return "";
    }

    std::string helper_qualifier() const override { return "inline __device__"; }
    std::string table_qualifier() const override { return "__constant__ "; }
    std::string kernel_symbol(const std::string& name) const override { return c_kernel_symbol(name); }

    std::string kernel_signature(const DeviceKernel& dk, const std::string& params) const override {
        if (!constant_work_group(dk)) return "extern \"C\" __global__ void " + dk.name + "(" + params + ")";
        std::int64_t threads = 1;
        for (const ExprPtr& l : dk.local) threads *= l->ival;
        return "extern \"C\" __global__ void __launch_bounds__(" + std::to_string(threads) + ") " + dk.name + "(" +
               params + ")";
    }

    std::string local_qualifier() const override { return "__shared__ "; }

    std::string hardware_index(const InameTag& tag) const override {
        const char* xyz[] = {"x", "y", "z"};
        const int n = tag.number;
        return std::string("((int) ") + (tag.is_group() ? "blockIdx." : "threadIdx.") + xyz[n < 3 ? n : 0] + ")";
    }

    std::string barrier(const LinearItem& b) const override { return "__syncthreads()"; }

    // CUDA's atomic functions have overloads for int, unsigned int, unsigned long long (and long long for
    // min/max) and, for add and exchange, float (and double for add).
    std::optional<NativeAtomic> native_atomic(AtomicOp op, DType t) const override {
        const bool float_ok = (op == AtomicOp::Add && is_float(t)) || (op == AtomicOp::Store && t == DType::Float32);
        if (is_32_bit_integer(t) || float_ok) return NativeAtomic{function(op), "", ""};
        if (!is_64_bit_integer(t) || op == AtomicOp::Sub) return std::nullopt;
        const bool signed_order = t == DType::Int64 && (op == AtomicOp::Min || op == AtomicOp::Max);
        return NativeAtomic{function(op), signed_order ? "long long" : "unsigned long long", ""};
    }

    std::optional<std::string> compare_and_swap_failed(DType t, bool local, const std::string& place,
                                                       const std::string& old_value,
                                                       const std::string& new_value) const override {
        const std::size_t size = dtype_size(t);
        if (is_complex(t) || (size != 4 && size != 8)) return std::nullopt;
        return cas_failed(cas_spelling(t), place, old_value, new_value);
    }

private:
    static std::string function(AtomicOp op) {
        switch (op) {
            case AtomicOp::Add: return "atomicAdd";
            case AtomicOp::Sub: return "atomicSub";
            case AtomicOp::Min: return "atomicMin";
            case AtomicOp::Max: return "atomicMax";
            case AtomicOp::And: return "atomicAnd";
            case AtomicOp::Or: return "atomicOr";
            case AtomicOp::Xor: return "atomicXor";
            case AtomicOp::Store: break;
        }
        return "atomicExch";
    }

    // atomicCAS takes int, unsigned int and unsigned long long: floats are compared as their bits.
    static CasSpelling cas_spelling(DType t) {
        if (is_32_bit_integer(t)) return {"atomicCAS", "", "", ""};
        if (t == DType::Float32) return {"atomicCAS", "(int *) ", "__float_as_int(", ")"};
        if (t == DType::Float64)
            return {"atomicCAS", "(unsigned long long *) ", "(unsigned long long) __double_as_longlong(", ")"};
        return {"atomicCAS", "(unsigned long long *) ", "(unsigned long long) (", ")"};
    }
};

}  // namespace

const Target& cuda_target() {
    static const CudaTarget target;
    return target;
}

}  // namespace loom
