// Atomic assignments (`{atomic}`, `{atomic=init}`) and the variables they update, with loopy's rules.
#pragma once

#include "ir/access.h"
#include "ir/kernel.h"

namespace loom {

/// Whether `a`, an access of `insn`, is part of an atomic update: the write of an `{atomic}` assignment and
/// every read of exactly its left-hand side (loopy: `z[i] = z[i] + a` is one atomic update, `z[i+1-1]` on
/// the right would be a separate, plain read). An `{atomic=init}` store is no update: it orders like a write.
bool is_atomic_update_access(const Instruction& insn, const Access& a);

/// Marks every variable an atomic assignment writes `for_atomic`. loopy insists on the declaration
/// (`lp.GlobalArg(..., for_atomic=True)`); here an atomic assignment is declaration enough.
void mark_atomic_variables(KernelData& k);

/// Whether `a` and `b` are the same expression tree.
bool same_expr(const ExprPtr& a, const ExprPtr& b);

}  // namespace loom
