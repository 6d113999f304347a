// Hardware axes count from zero: an iname on a group or local axis whose values start elsewhere is shifted so
// that it does, as loopy's code generator adds the lower bound to the work-item id (`lid(0) + 1` for
// `1 <= k < 98` on l.0, with 97 work-items rather than 98 and a guard).
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Each iname tagged "g.N" or "l.N" whose smallest value is a nonzero expression of the parameters (the same for
/// every value of the other inames' bounds) is replaced in the domains and instructions by itself plus that
/// value. Inames that bound a nested domain are left alone. Returns `k` when no iname needs it.
Kernel shift_hardware_inames_to_zero(const Kernel& k);

}  // namespace loom
