// The C target: device kernels are C functions that run the grid as loops, the groups on OpenMP threads
// (DESIGN decision 5); a host function calls them in turn. Complex numbers are C99's.
#include "codegen/target_common.h"
#include "support/c_names.h"

namespace loom {

namespace {

class CTarget final : public Target {
public:
    std::string name() const override { return "c"; }

    std::string scalar_type(DType d) const override {
        if (d == DType::Complex64) return "float _Complex";
        if (d == DType::Complex128) return "double _Complex";
        return fixed_width_type(d);
    }

    ComplexStyle complex_style() const override { return ComplexStyle::C99; }

    std::string complex_declarations(const std::set<DType>& types) const override { return "#include <complex.h>\n\n"; }

    std::string preamble(const KernelData& k) const override {
        return "#include <math.h>\n#include <stdbool.h>\n#include <stdint.h>\n\n";
    }

    std::string table_qualifier() const override { return "static "; }
    bool runs_on_host() const override { return true; }
    std::string kernel_symbol(const std::string& name) const override { return c_kernel_symbol(name); }

    std::string kernel_signature(const DeviceKernel& dk, const std::string& params) const override {
        return "void " + dk.name + "(" + params + ")";
    }

    // A local temporary is an ordinary array (as loopy's C target declares it): an initialized one is a table.
    bool initializes_local_memory() const override { return true; }
    bool has_variable_length_arrays() const override { return true; }

    // The phases of the grid loops already order the work-items.
    std::string barrier(const LinearItem& b) const override { return ""; }

    // gcc has no factor-less form: a bare hint leaves the choice to the compiler.
    std::string unroll_pragma(int factor) const override {
        return factor ? "#pragma GCC unroll " + std::to_string(factor) + "\n" : "";
    }

    // gcc -O3 unrolls the small constant loops of a register tile itself and packs the copies into vector
    // operations, which it does not do with the same copies written out: written-out 4x4 and 8x8 GEMM tiles ran
    // at 0.56x and 0.48x the speed of the same tiles as loops (bench/unrolled_tiles.lua), and cost gcc seconds
    // to compile. Asking it to unroll them all (`#pragma GCC unroll N` on each) was no better on 8x8 (6.4
    // against 18 GFLOP/s): it decides.
    bool compiler_unrolls() const override { return true; }

    bool has_rsqrt() const override { return false; }
    bool integer_division_traps() const override { return true; }

    // The unrolled copies of a register tile then index `b[base + 1]`, `b[base + 2]`, ... with one base, which
    // gcc's vectorizer needs to see them as consecutive (with the constant first it packs none of them:
    // measured 8 times slower on a GEMM tile).
    bool constant_offset_last() const override { return true; }

    // GCC's and Clang's builtins have no min or max.
    std::optional<NativeAtomic> native_atomic(AtomicOp op, DType t) const override {
        if (!is_integer(t) || op == AtomicOp::Min || op == AtomicOp::Max) return std::nullopt;
        const char* order = ", __ATOMIC_SEQ_CST";
        if (op == AtomicOp::Store) return NativeAtomic{"__atomic_store_n", "", order};
        return NativeAtomic{std::string("__atomic_fetch_") + atomic_op_suffix(op), "", order};
    }

    // A plain read racing with the stores is undefined in C.
    std::string atomic_load(const std::string& place, const std::string& old_value) const override {
        return "__atomic_load(&(" + place + "), &" + old_value + ", __ATOMIC_RELAXED);";
    }

    std::optional<std::string> compare_and_swap_failed(DType t, bool local, const std::string& place,
                                                       const std::string& old_value,
                                                       const std::string& new_value) const override {
        if (is_complex(t)) return std::nullopt;
        return "!__atomic_compare_exchange(&(" + place + "), &" + old_value + ", &" + new_value +
               ", 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)";
    }
};

}  // namespace

const Target& c_target() {
    static const CTarget target;
    return target;
}

}  // namespace loom
