// loopy's check_bounds (loopy/check.py): no instance of an instruction accesses an array outside its declared
// shape; the generated code does not check indices, so such an access would read or corrupt other memory.
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// LoopyError naming the instruction, the array access and an offending index (with the iname and parameter
/// values that reach it) when some instance of an instruction, under the kernel's assumptions and the
/// instruction's predicates and `if` conditions, may access an array outside 0 <= index < extent on some axis.
/// As in loopy, what cannot be decided is not checked: indices or extents that are not quasi-affine in the
/// instruction's inames and the value arguments (data-dependent indices, reduction inames not yet realized),
/// and instructions whose domain depends on data.
void check_bounds(const KernelData& k);

/// An access check_bounds cannot decide: the instruction, the subscript (a node of its expressions) and the
/// axes whose index it cannot prove inside the extent (all of them where the instruction's instances depend on
/// data); `flat` for an index into the storage (a linear subscript), checked against the array's size.
struct UnprovenAccess {
    std::string insn;
    const Expr* access;
    std::vector<std::size_t> axes;
    bool flat = false;
};

/// The accesses of `k` whose indices check_bounds cannot prove inside their arrays (for checked kernels,
/// preprocess/checked_accesses.h), after it found no access outside them.
std::vector<UnprovenAccess> unproven_accesses(const KernelData& k);

}  // namespace loom
