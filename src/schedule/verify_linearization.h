// The linearization verifier (DESIGN decision 3a): the linearizer may be heuristic, this check is exact, and
// it runs on every kernel before any code is printed.
//
// Every instance of an instruction runs at the time the linearization gives it: the 2d+1 schedule of its
// sequence positions and loop counters (linear_places). Hardware inames are no loops: the work-items run the
// linearization in lockstep, as the barriers make them, and an instruction outside a hardware axis runs on
// every index of it. Checked under the kernel's assumptions:
//  1. Dependencies, in loopy's meaning: every instance of a prerequisite runs before every instance of its
//     dependent that agrees with it on the inames they share (hardware inames included).
//  2. Dataflow: when isl's dataflow analysis finds that a read of a temporary or argument gets the value a
//     prerequisite of the reader wrote, that write is in the same iteration of the sequential loops the two
//     share, wherever the prerequisite writes the element read in that iteration at all. This finds the value
//     a dependence meant overwritten by another iteration before the read (the writer of a private temporary
//     and its reader in two loop nests; all fetches of a prefetch run before all of its readers), and leaves
//     alone reads of another iteration's value by design (t[j-1]) and a reduction reading its own previous
//     update. Private temporaries are per work-item, local ones per work-group, the others global.
// The order of the items settles most checks exactly without isl (a prerequisite placed first, in the same
// loops); isl decides the rest. Writes under a predicate or through a data-dependent index may or may not
// happen and so are never the certain last writer; reads of a predicated instruction or through a
// data-dependent index are not checked.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Checks the linearization of `k` (on the work-item view: hardware inames are no loops), including that it
/// runs every instruction exactly once, inside the loops of its sequential inames and no others. A violation
/// is an InternalError naming both instructions, the variable and the loops.
void verify_linearization(const KernelData& k);

}  // namespace loom
