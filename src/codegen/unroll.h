// Unrolled loops as loopy's generate_unroll_loop emits them. isl's AST generator builds every loop of the
// schedule, unrolled ones included, as plain loops: its `unroll` option costs seconds to minutes on register
// tiles. Each loop over an unrolled iname (`unr`, `ilp`, `ilp.unr`, `vec` lanes that are not one vector
// operation) then becomes one copy of its body per value, which costs what printing the copies costs.
#pragma once

#include <isl/cpp.h>

#include <set>
#include <string>

#include "codegen/isl_ast.h"

namespace loom {

/// `root` with each loop over an iname of `unrolled` replaced by its copies: the body once per value of the
/// loop's bounds, the iname replaced by the value, under the condition that isl's loop bounds put on that
/// value. isl simplifies each condition where the loops and guards around it and `context` (a
/// parameter set) hold, once for all the copies (the copies' numbers symbolic): a copy that always runs has
/// no guard, one that never runs is left out, and guards inside a copy that depend on the value are decided
/// again at its numbers.
AstNode unroll_loops(const AstNode& root, const std::set<std::string>& unrolled, const isl::set& context);

}  // namespace loom
