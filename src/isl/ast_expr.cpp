#include "isl/ast_expr.h"

#include <isl/ast.h>

#include "isl/isl.h"
#include "support/error.h"

namespace loom::isl_util {

namespace {

ExprPtr fold(const isl::ast_expr_op& e, const char* fn) {
    // isl's min/max take two or more arguments; Loom's calls take two.
    ExprPtr acc = ast_expr_to_expr(e.arg(0));
    for (unsigned i = 1; i < e.n_arg(); ++i) acc = call(fn, {acc, ast_expr_to_expr(e.arg(static_cast<int>(i)))});
    return acc;
}

ExprPtr op_to_expr(const isl::ast_expr_op& e) {
    const auto a = [&](int i) { return ast_expr_to_expr(e.arg(i)); };
    switch (isl_ast_expr_op_get_type(e.get())) {
        case isl_ast_expr_op_and:
        case isl_ast_expr_op_and_then: return binary(BinOp::And, a(0), a(1));
        case isl_ast_expr_op_or:
        case isl_ast_expr_op_or_else: return binary(BinOp::Or, a(0), a(1));
        case isl_ast_expr_op_max: return fold(e, "max");
        case isl_ast_expr_op_min: return fold(e, "min");
        case isl_ast_expr_op_minus: return unary("-", a(0));
        case isl_ast_expr_op_add: return binary(BinOp::Add, a(0), a(1));
        case isl_ast_expr_op_sub: return binary(BinOp::Sub, a(0), a(1));
        case isl_ast_expr_op_mul: return binary(BinOp::Mul, a(0), a(1));
        case isl_ast_expr_op_div:
        case isl_ast_expr_op_pdiv_q: return binary(BinOp::CDiv, a(0), a(1));
        case isl_ast_expr_op_fdiv_q: return binary(BinOp::FloorDiv, a(0), a(1));
        case isl_ast_expr_op_pdiv_r:
        case isl_ast_expr_op_zdiv_r: return binary(BinOp::CMod, a(0), a(1));
        case isl_ast_expr_op_cond:
        case isl_ast_expr_op_select: return if_then_else(a(0), a(1), a(2));
        case isl_ast_expr_op_eq: return binary(BinOp::Eq, a(0), a(1));
        case isl_ast_expr_op_le: return binary(BinOp::Le, a(0), a(1));
        case isl_ast_expr_op_lt: return binary(BinOp::Lt, a(0), a(1));
        case isl_ast_expr_op_ge: return binary(BinOp::Ge, a(0), a(1));
        case isl_ast_expr_op_gt: return binary(BinOp::Gt, a(0), a(1));
        default: internal_assert(false, "unexpected operation in isl AST expression"); return nullptr;
    }
}

}  // namespace

ExprPtr ast_expr_to_expr(const isl::ast_expr& e) {
    if (e.isa<isl::ast_expr_int>()) {
        const std::optional<long> v = long_value(e.as<isl::ast_expr_int>().val().get());
        internal_assert(v.has_value(), "non-integer value in isl AST");
        return int_lit(*v);
    }
    if (e.isa<isl::ast_expr_id>()) return var(e.as<isl::ast_expr_id>().id().name());
    internal_assert(e.isa<isl::ast_expr_op>(), "invalid isl AST expression");
    return op_to_expr(e.as<isl::ast_expr_op>());
}

}  // namespace loom::isl_util
