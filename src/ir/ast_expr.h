// isl's AST expressions as Loom expressions: how isl's printing of affine expressions and conditions reaches
// Loom (ir/affine.h prints functions and sets with it, codegen/isl_ast.h whole loop nests).
#pragma once

#include <isl/cpp.h>

#include "expr/expr.h"

namespace loom::affine {

/// An isl AST expression as a Loom expression. isl's floor division becomes FloorDiv, its non-negative
/// division/remainder become CDiv/CMod, `min`/`max` become calls, `cond`/`select` become If.
ExprPtr ast_expr_to_expr(const isl::ast_expr& e);

}  // namespace loom::affine
