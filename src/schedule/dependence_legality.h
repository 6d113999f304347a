// Every variant legal or refused (DESIGN decision 10): an instruction's dependences on its own instances,
// checked against the concurrent execution its tags ask for.
//
// The kernel means its sequential order without parallel tags: the loops it had before the first
// transformation that changed its inames or priorities (KernelData::meant: a split, join, rename or
// prioritize_loops is checked against them, for an instruction that alone writes the variable), then the
// linearization's loops, with each concurrent iname (g.*, l.*, ilp, vec) put back where the kernel's iname
// order and loop priorities nest it (nesting_order). Two instances of one instruction depend on each other when
// they touch one element and the earlier in that order writes it (flow) or reads it (anti), exactly as isl
// finds them. Run concurrently:
//  - in different work-groups, they must be separated by a host loop (a loop around a global barrier, whose
//    iterations are separate launches); no barrier can go between two instances of one instruction otherwise;
//  - on different work-items of one group, the earlier one's iteration of the sequential loops must come
//    first (barrier insertion then orders them); at the same point of the code, or reversed, nothing can;
//  - on one work-item, its loops must run the earlier one first; the lanes of a `vec` iname run at once (all
//    reads before all writes), so a flow between lanes is lost, an anti-dependence kept.
// Exempt, as in loopy's model: atomic updates, a `nosync` of the instruction with itself (for the scope
// named), and accesses isl cannot state exactly (data-dependent indices, instances under predicates it cannot
// read): the check refuses what it proves. Dependences between different instructions are loopy's `dep=`
// edges, ordered by the linearization (verify_linearization.h) and by barriers (barriers.h).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// DependenceViolationError naming the instruction, the array, the iname and a witness pair of instances when
/// an instruction's tags or loop order run two dependent instances of it unordered or reversed; `k` is
/// linearized (on the work-item view), global barriers in place.
void check_dependence_legality(const KernelData& k);

}  // namespace loom
