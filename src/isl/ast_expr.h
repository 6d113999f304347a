// isl's AST expressions as Loom expressions: how isl's printing of affine expressions and conditions reaches
// Loom (codegen/isl_ast.h converts whole loop nests with it).
#pragma once

#include <isl/cpp.h>

#include "expr/expr.h"

namespace loom::isl_util {

/// An isl AST expression as a Loom expression. isl's floor division becomes FloorDiv, its non-negative
/// division/remainder become CDiv/CMod, `min`/`max` become calls, `cond`/`select` become If.
ExprPtr ast_expr_to_expr(const isl::ast_expr& e);

}  // namespace loom::isl_util
