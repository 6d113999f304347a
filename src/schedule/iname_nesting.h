// loopy's pre-linearization check that the instructions' loops can nest at all (has_schedulable_iname_nesting).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// LoopyError unless the sets of sequential inames the instructions run in admit one loop nest: recursively,
/// the inames all of them share nest outermost, and the rest must fall apart into groups of instructions
/// with disjoint inames. Otherwise no linearization runs every instruction in the loop iterations it belongs
/// to (a prefetch into a loop that is also the reduction of a row loop, say); the message lists options for
/// duplicate_inames, as loopy's get_iname_duplication_options does.
void check_schedulable_iname_nesting(const KernelData& k);

}  // namespace loom
