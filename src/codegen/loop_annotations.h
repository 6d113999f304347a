// What the C-family emitter writes around loops besides the loops themselves: unroll pragmas for
// "unr_hint" inames and loopy's comments naming the slabs of split_iname.
#pragma once

#include <string>
#include <vector>

#include "codegen/loop_nest.h"
#include "codegen/target.h"

namespace loom {

/// The pragma line (without indentation, with its newline) asking the compiler to unroll the loop over
/// `iname`, "" when its tag is no "unr_hint"/"unr_hint.N" (Target::unroll_pragma spells it).
std::string unroll_pragma(const KernelData& k, const std::string& iname, const Target& target);

/// loopy's comment for the slab that AST node `n` emits ("bulk slab for 'i_outer'"): that of the first loop
/// around its statements that is not among `open_loops`; "" when that loop has a single slab or none.
std::string slab_comment(const LoopNest& nest, const AstNode& n, const std::vector<std::string>& open_loops);

}  // namespace loom
