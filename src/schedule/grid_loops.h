// Running the launch grid as loops, for targets without hardware work-items (C; DESIGN decision 5).
//
// Group axes become the outermost loops (the first one parallel over threads). The group body is cut
// at every barrier into phases; each phase runs all work-items of the group in loops over the local axes
// before the next phase starts, which is exactly what the barrier guarantees. Private temporaries that a
// work-item keeps across phases get one copy per work-item (an extra axis per local axis).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// From a linearization with hardware axes as work-item ids (and barriers), one where they are loops.
Kernel grid_as_loops(const Kernel& k);

}  // namespace loom
