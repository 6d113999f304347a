// What distinguishes the C-family targets. One emitter serves all of them (DESIGN decision 5): it asks a
// Target for every spelling and fact in which they differ, and each target implements the interface in a file
// of its own (target_opencl.cpp, target_c.cpp, target_cuda.cpp), as loopy's ASTBuilder and Halide's CodeGen
// classes do. Adding a target is one more implementation, named in target_of.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "expr/dtype.h"
#include "ir/iname_tags.h"
#include "ir/kernel.h"

namespace loom {

/// Which target a kernel's code is for: the value of its `target` option, parsed.
enum class TargetKind { OpenCL, C, CUDA };

/// Parses "opencl", "c" or "cuda" (LoopyError otherwise).
TargetKind target_from_name(const std::string& name);

struct DeviceKernel;  // codegen/lower.h

/// The operations that atomic assignments are made of (codegen/atomics.h).
enum class AtomicOp { Add, Sub, Min, Max, And, Or, Xor, Store };

/// A target's function for a native atomic operation: `function(pointer, value<trailing>)`, `as` naming the
/// type that pointer and operand are reinterpreted as when the function has no overload for the element type
/// ("" when it has), `trailing` the arguments after the value (a memory order).
struct NativeAtomic {
    std::string function;
    std::string as;
    std::string trailing;
};

/// How complex numbers are spelled: not at all, as C99's `_Complex` types with their operators and
/// <complex.h>'s functions, or as pyopencl-style vector types (`cfloat_t`) with helper functions
/// (`cfloat_mul`, `cfloat_new`, ...).
enum class ComplexStyle { None, C99, Helpers };

class Target {
public:
    virtual ~Target() = default;

    /// The name of the `target` option ("opencl").
    virtual std::string name() const = 0;

    // --- Types

    /// The spelling of a scalar type ("float", "long", "int64_t", "cfloat_t", ...); LoopyError for a complex
    /// type where the target has none.
    virtual std::string scalar_type(DType d) const = 0;
    /// Whether an array with a `vec` axis is an array of the target's vector types (OpenCL's `float4`), indexed
    /// in whole vectors with `.sN` for an entry; otherwise the target addresses a vector's entries as scalars.
    virtual bool has_vector_types() const { return false; }
    /// The vector type of `n` entries of scalar type `d` ("float4"); only where has_vector_types.
    virtual std::string vector_type(DType d, std::int64_t n) const;
    /// How complex numbers are spelled, if at all.
    virtual ComplexStyle complex_style() const = 0;
    /// LoopyError unless the target has complex numbers.
    void require_complex_support() const;
    /// The declarations code with complex numbers of `types` needs before the helper functions (none by
    /// default).
    virtual std::string complex_declarations(const std::set<DType>& types) const;

    // --- The program around the kernels

    /// What the code starts with: includes, extension pragmas, the work-item id macros.
    virtual std::string preamble(const KernelData& k) const = 0;
    /// The qualifiers of a helper function the code defines ("static inline").
    virtual std::string helper_qualifier() const { return "static inline"; }
    /// The qualifier (with its space) of a read-only table at program scope.
    virtual std::string table_qualifier() const = 0;

    // --- Kernels

    /// Whether the device kernels are C functions run on the host: the grid is loops (OpenMP-parallel over
    /// the groups), barriers are the boundaries of those loops' phases, local memory is ordinary arrays, every
    /// read-only table lives at program scope (shared by the threads instead of copied by each), and the host
    /// program is a C function calling the kernels in turn.
    virtual bool runs_on_host() const { return false; }
    /// The symbol of device kernel `name` in the code.
    virtual std::string kernel_symbol(const std::string& name) const = 0;
    /// LoopyError when the code cannot export a kernel called `name`.
    virtual void check_kernel_name(const std::string& name) const {}
    /// LoopyError when `name`, a variable or iname, is reserved in the target's language (beyond C's names,
    /// which every target checks).
    virtual void check_identifier(const std::string& name) const {}
    /// The signature of device kernel `dk`, whose parameter declarations are `params`.
    virtual std::string kernel_signature(const DeviceKernel& dk, const std::string& params) const = 0;
    /// The address-space qualifiers (with their space) of a pointer parameter to argument or temporary `v`.
    virtual std::string pointer_qualifiers(const Variable& v) const { return ""; }
    /// The qualifier (with its space) of a local temporary declared in a kernel.
    virtual std::string local_qualifier() const { return ""; }
    /// Whether a local temporary may have an initializer.
    virtual bool initializes_local_memory() const { return false; }
    /// Whether a private array may have a size given by the parameters (C99's variable-length arrays).
    virtual bool has_variable_length_arrays() const { return false; }
    /// The work-item or group id a hardware iname tagged `tag` stands for (only where !runs_on_host).
    virtual std::string hardware_index(const InameTag& tag) const;
    /// The barrier statement (without `;`) for barrier `b`; "" where none is needed.
    virtual std::string barrier(const LinearItem& b) const = 0;
    /// The pragma line (with its newline) asking to unroll a loop by `factor` (0: the compiler's choice);
    /// "" for none. By default `#pragma unroll [N]`.
    virtual std::string unroll_pragma(int factor) const;
    /// Whether loops over "unr", "ilp" and "ilp.unr" inames stay loops, for the compiler to unroll as it sees
    /// fit, instead of being written out as copies: where the compiler optimizes the copies it makes better
    /// than copies it is given ("unr_hint.N" still asks it for a factor).
    virtual bool compiler_unrolls() const { return false; }

    // --- Expressions

    /// The name of math function `f` (C's spelling, for double) on arguments of type `t`. By default C's:
    /// <math.h> has separate float versions ("sinf").
    virtual std::string math_function(const std::string& f, DType t) const;
    /// Whether abs, min, max and clamp are built-ins overloaded for every integer type (and clamp for floats);
    /// otherwise the library has only abs, llabs and the floating fmin and fmax.
    virtual bool overloaded_integer_builtins() const { return false; }
    /// Whether rsqrt is a library function.
    virtual bool has_rsqrt() const { return true; }
    /// Whether an integer division by zero (or of the most negative value by -1) kills the process, so that
    /// divisions that may meet one go through helpers that give numpy's values instead.
    virtual bool integer_division_traps() const { return false; }
    /// Whether a flat index prints its constant offset last (`b[base + 1]`) instead of first.
    virtual bool constant_offset_last() const { return false; }

    // --- Atomics

    /// The native atomic operation `op` on elements of type `t`, if the target has one.
    virtual std::optional<NativeAtomic> native_atomic(AtomicOp op, DType t) const = 0;
    /// The function incrementing (`up`) or decrementing an element of type `t` by one; "" where there is none.
    virtual std::string atomic_increment(bool up, DType t) const { return ""; }
    /// The statement (with `;`) reading the element at `place` atomically into `old_value` before a
    /// compare-and-swap; "" where a plain read will do.
    virtual std::string atomic_load(const std::string& place, const std::string& old_value) const { return ""; }
    /// The condition under which the compare-and-swap of `old_value` for `new_value` at `place`, an element of
    /// type `t` in local memory if `local`, failed (another work-item changed the element in between); none
    /// where the target has no compare-and-swap for `t`.
    virtual std::optional<std::string> compare_and_swap_failed(DType t, bool local, const std::string& place,
                                                               const std::string& old_value,
                                                               const std::string& new_value) const = 0;
};

/// The implementation of target `t`.
const Target& target_of(TargetKind t);

}  // namespace loom
