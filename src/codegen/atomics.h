// Atomic assignments as C-family code (loopy's emit_atomic_update and emit_atomic_init).
//
//  * An update `x = x OP e` (or `e OP x`, `max(x, e)`, ...) computed in x's type, for which the target has a
//    native atomic operation, becomes that operation: OpenCL's atomic_add/atomic_inc/atomic_min/... on 32-bit
//    integers and atom_add/... on 64-bit ones (cl_khr_int64_base_atomics, _extended_atomics for min, max and
//    the bit operations), C's __atomic_fetch_add/... on integers, CUDA's atomicAdd (also on floats)/atomicMin/...
//    An `{atomic=init}` store becomes an atomic exchange (C: __atomic_store_n).
//  * Every other atomic assignment (floats on OpenCL, min/max on C, products, any expression of the old
//    value) becomes loopy's compare-and-swap loop: read the old value, compute the new one with the old value
//    in place of the left-hand side, and store it only if the element still holds the old value (compared as
//    integer bits, so floats work too), else retry.
// Atomics need local or global memory: an atomic assignment to a private variable is a LoopyError, and so is
// a type the target has no atomics of (complex numbers; 8- and 16-bit integers on OpenCL and CUDA).
#pragma once

#include <string>
#include <vector>

#include "codegen/c_expr.h"
#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

/// Adds to `k`'s temporaries the scalars that the compare-and-swap loops of its atomic assignments use
/// (`loopy_old_val` and `loopy_new_val`, suffixed by the type when several types are updated), so that the
/// expressions printed over them are typed. Each loop declares them in its own block; they are not
/// declared with the other temporaries (no instruction uses them).
void add_atomic_scratch_variables(KernelData& k);

/// Whether atomic assignment `insn` is emitted as a block (a compare-and-swap loop) rather than one call.
bool atomic_needs_block(const KernelData& k, const Target& target, const Instruction& insn);

/// The code of atomic assignment `insn`, whose left-hand side and right-hand side with the loop variables of
/// the generated code substituted are `lhs` and `rhs`: one statement line, or the lines of a block (`{`
/// first, `}` last), unindented.
std::vector<std::string> atomic_assignment(const KernelData& k, CExprPrinter& printer, const Target& target,
                                           const Instruction& insn, const ExprPtr& lhs, const ExprPtr& rhs);

/// Which 64-bit atomics `k`'s atomic assignments use on `target`: any (`base`), and min, max or bit
/// operations (`extended`), which OpenCL enables by separate extensions.
struct Int64Atomics {
    bool base = false, extended = false;
};
Int64Atomics int64_atomics(const KernelData& k, const Target& target);

}  // namespace loom
