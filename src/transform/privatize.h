// Extra axes on temporaries: one entry per iteration of some inames (ILP, work-items of the C target).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// Gives temporary `name` new axes of `extents` (before its axes when `leading`, after them otherwise);
/// every access of instruction `insn` to it is indexed by `index_of(insn)` on the new axes. The layout is
/// made afresh, in C order: declared dim tags described the old axes. Only `vec` axes stay: an old one, and
/// the new axes that `axis_tags` tags `vec` (the others, and those it leaves out, are `c`).
void add_temporary_axes(KernelData& k, const std::string& name, const std::vector<ExprPtr>& extents, bool leading,
                        const std::function<std::vector<ExprPtr>(const Instruction&)>& index_of,
                        std::vector<std::string> axis_tags = {});

/// loopy's realize_ilp: privatizes the temporaries written inside ILP and `vec` inames over them, so that
/// those iterations are independent (and vec loops run on vectors). Returns `k` when it has no such iname.
Kernel realize_ilp(const Kernel& k);

}  // namespace loom
