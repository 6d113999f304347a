// The OpenCL C target: kernels for clBuildProgram, work-item ids through macros over get_group_id and
// get_local_id (loopy's `gid(N)`, `lid(N)`), complex numbers as pyopencl's `cfloat_t` vectors.
#include "codegen/atomics.h"
#include "codegen/opencl_names.h"
#include "codegen/target_common.h"
#include "support/error.h"

namespace loom {

namespace {

// The work-group size of `dk` as reqd_work_group_size takes it: three constants.
std::string work_group_size(const DeviceKernel& dk) {
    std::vector<std::string> sizes;
    for (std::size_t i = 0; i < 3; ++i)
        sizes.push_back(i < dk.local.size() ? to_string(dk.local[i]) : "1");
    return sizes[0] + ", " + sizes[1] + ", " + sizes[2];
}

class OpenCLTarget final : public Target {
public:
    std::string name() const override { return "opencl"; }

    std::string scalar_type(DType d) const override {
        switch (d) {
            case DType::Bool: case DType::Int8: return "char";
            case DType::Int16: return "short";
            case DType::Int64: return "long";
            case DType::UInt8: return "unsigned char";
            case DType::UInt16: return "unsigned short";
            case DType::UInt64: return "unsigned long";
            case DType::Complex64: return "cfloat_t";
            case DType::Complex128: return "cdouble_t";
            default: return fixed_width_type(d);  // int, unsigned int, float, double: C's names
        }
    }

    bool has_vector_types() const override { return true; }

    std::string vector_type(DType d, std::int64_t n) const override {
        std::string scalar;
        switch (d) {
            case DType::Bool: case DType::Int8: scalar = "char"; break;
            case DType::UInt8: scalar = "uchar"; break;
            case DType::Int16: scalar = "short"; break;
            case DType::UInt16: scalar = "ushort"; break;
            case DType::UInt32: scalar = "uint"; break;
            case DType::Int64: scalar = "long"; break;
            case DType::UInt64: scalar = "ulong"; break;
            case DType::Int32: case DType::Float32: case DType::Float64: scalar = scalar_type(d); break;
            default: user_error(error_kind::LoopyError, "type ", dtype_name(d), " has no vector type");
        }
        return scalar + std::to_string(n);
    }

    ComplexStyle complex_style() const override { return ComplexStyle::Helpers; }

    std::string complex_declarations(const std::set<DType>& types) const override {
        std::string out;
        for (DType t : types) out += t == DType::Complex64 ? "typedef float2 cfloat_t;\n" : "typedef double2 cdouble_t;\n";
        return out + "\n";
    }

    std::string preamble(const KernelData& k) const override {
        const std::string index = "((" + scalar_type(k.options.index_dtype) + ") ";
        std::string p = int64_atomics_pragmas(k) + "#define lid(N) " + index + "get_local_id(N))\n#define gid(N) " + index +
                        "get_group_id(N))\n";
        if (uses_type(k, {DType::Float64, DType::Complex128}))
            p += "#if __OPENCL_C_VERSION__ < 120\n#pragma OPENCL EXTENSION cl_khr_fp64: enable\n#endif\n";
        return p + "\n";
    }

    std::string table_qualifier() const override { return "__constant "; }

    // The kernel name is the one the OpenCL program exports, so it is not renamed as on the C target.
    std::string kernel_symbol(const std::string& name) const override { return name; }

    void check_kernel_name(const std::string& name) const override { check_opencl_kernel_name(name); }

    void check_identifier(const std::string& name) const override {
        user_assert(!is_opencl_reserved(name), error_kind::LoopyError, "'", name,
                    "' is reserved in OpenCL C (a keyword, type or macro) and cannot name a variable or iname: rename it");
    }

    std::string kernel_signature(const DeviceKernel& dk, const std::string& params) const override {
        if (!constant_work_group(dk)) return "__kernel void " + dk.name + "(" + params + ")";
        return "__kernel void __attribute__ ((reqd_work_group_size(" + work_group_size(dk) + "))) " + dk.name + "(" +
               params + ")";
    }

    std::string pointer_qualifiers(const Variable& v) const override {
        const std::string space = v.kind == VarKind::ConstantArg ? "__constant " : "__global ";
        return v.for_atomic ? space + "volatile " : space;  // as loopy declares atomic arrays
    }

    std::string local_qualifier() const override { return "__local "; }

    std::string hardware_index(const InameTag& tag) const override {
        return (tag.is_group() ? "gid(" : "lid(") + std::to_string(tag.number) + ")";
    }

    std::string barrier(const LinearItem& b) const override {
        return std::string("barrier(") + (b.name == "global" ? "CLK_GLOBAL_MEM_FENCE" : "CLK_LOCAL_MEM_FENCE") + ")";
    }

    std::string math_function(const std::string& f, DType t) const override { return f; }  // overloaded
    bool overloaded_integer_builtins() const override { return true; }

    // OpenCL 1.1 has integer atomics of 32 bits (atomic_xchg also for float); extensions add 64 bits.
    std::optional<NativeAtomic> native_atomic(AtomicOp op, DType t) const override {
        if (is_32_bit_integer(t) || (t == DType::Float32 && op == AtomicOp::Store))
            return NativeAtomic{std::string("atomic_") + atomic_op_suffix(op), "", ""};
        if (is_64_bit_integer(t)) return NativeAtomic{std::string("atom_") + atomic_op_suffix(op), "", ""};
        return std::nullopt;
    }

    std::string atomic_increment(bool up, DType t) const override {
        return std::string(dtype_size(t) == 4 ? "atomic_" : "atom_") + (up ? "inc" : "dec");
    }

    std::optional<std::string> compare_and_swap_failed(DType t, bool local, const std::string& place,
                                                       const std::string& old_value,
                                                       const std::string& new_value) const override {
        const std::size_t size = dtype_size(t);
        if (is_complex(t) || (size != 4 && size != 8)) return std::nullopt;
        CasSpelling s{size == 4 ? "atomic_cmpxchg" : "atom_cmpxchg", "", "", ""};
        if (is_float(t)) {  // compared as integer bits
            const std::string bits = size == 4 ? "int" : "long";
            s = {s.function, "(volatile " + std::string(local ? "__local " : "__global ") + bits + " *) ", "as_" + bits + "(", ")"};
        }
        return cas_failed(s, place, old_value, new_value);
    }

private:
    // The extensions that 64-bit atomics need, one pragma per line.
    std::string int64_atomics_pragmas(const KernelData& k) const {
        const Int64Atomics used = int64_atomics(k, *this);
        std::string out;
        if (used.base) out += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
        if (used.extended) out += "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
        return out;
    }
};

}  // namespace

const Target& opencl_target() {
    static const OpenCLTarget target;
    return target;
}

}  // namespace loom
