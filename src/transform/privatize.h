// Extra axes on temporaries: one entry per iteration of some inames (ILP, work-items of the C target).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// Gives temporary `name` new axes of `extents` (before its axes when `leading`, after them otherwise);
/// every access of instruction `insn` to it is indexed by `index_of(insn)` on the new axes. The layout is
/// made afresh: declared dim tags described the old axes.
void add_temporary_axes(KernelData& k, const std::string& name, const std::vector<ExprPtr>& extents, bool leading,
                        const std::function<std::vector<ExprPtr>(const Instruction&)>& index_of);

/// loopy's realize_ilp: privatizes the temporaries written inside ILP inames over them, so that the ILP
/// iterations are independent. Returns `k` when it has no ILP iname.
Kernel realize_ilp(const Kernel& k);

}  // namespace loom
