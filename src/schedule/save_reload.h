// Saving temporaries across device kernels (loopy's save_and_reload_temporaries).
//
// A global barrier splits a kernel into device kernels, and private and local temporaries do not survive
// from one to the next. Liveness analysis on the linearization finds the temporaries live across a split;
// each gets a global "save slot" array `<name>_save_slot` indexed by the hardware axes its instructions
// run on (group axes, then local axes; local temporaries only by group axes) and then its own axes. A save
// instruction copies the temporary into its slot at the end of every device kernel that writes it while it
// is live, and a reload copies it back at the start of every later device kernel that uses it. They run
// over new inames, as loopy names them: `<name>_save_hw_dim_<k>_<kernel>` on the slot's hardware axes (the
// whole grid) and `<name>_save_axis_<d>_<kernel>` over the temporary's own axes (`reload` likewise).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Adds the save and reload instructions to the linearized (split) kernel `k`. The result is not
/// linearized: its next linearization places the new instructions. Returns `k` when nothing is live
/// across a split.
Kernel save_and_reload_temporaries(const Kernel& k);

}  // namespace loom
