// Conversion of isl's AST (loops, guards, statements) into Loom's own tree, so that codegen never touches
// raw isl pointers.
#pragma once

#include <isl/ast.h>
#include <isl/cpp.h>

#include <string>
#include <vector>

#include "ir/expr.h"

namespace loom::isl_util {

/// An isl AST expression as a Loom expression. isl's floor division becomes FloorDiv, its non-negative
/// division/remainder become CDiv/CMod, `min`/`max` become calls, `cond`/`select` become If.
ExprPtr ast_expr_to_expr(isl_ast_expr* e);

/// Loom's copy of an isl AST node.
struct AstNode {
    enum class Kind { Block, For, If, User } kind = Kind::Block;
    std::vector<AstNode> children;   // Block: statements; For: body (one Block); If: then, [else]
    std::string iterator;            // For
    ExprPtr init, cond, inc;         // For (cond is a comparison on the iterator); If uses cond
    std::string statement;           // User: the statement (instruction) name
    std::vector<ExprPtr> args;       // User: values of the statement's domain dimensions
};

/// Generates loops for `schedule` (a union map from statement instances to schedule time) under the
/// parameter constraints `context`, with isl's default AST build options.
AstNode generate_ast(const isl::union_map& schedule, const isl::set& context);

}  // namespace loom::isl_util
