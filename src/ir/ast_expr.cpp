#include "ir/ast_expr.h"

#include <optional>

#include "isl/isl.h"
#include "support/error.h"

namespace loom::affine {

namespace {

ExprPtr fold(const isl::ast_expr_op& e, const char* fn) {
    // isl's min/max take two or more arguments; Loom's calls take two.
    ExprPtr acc = ast_expr_to_expr(e.arg(0));
    for (unsigned i = 1; i < e.n_arg(); ++i) acc = call(fn, {acc, ast_expr_to_expr(e.arg(static_cast<int>(i)))});
    return acc;
}

// The binary operation of an isl operation with two arguments that is one, nullopt for any other.
std::optional<BinOp> binary_op(const isl::ast_expr_op& e) {
    if (e.isa<isl::ast_expr_op_and>() || e.isa<isl::ast_expr_op_and_then>()) return BinOp::And;
    if (e.isa<isl::ast_expr_op_or>() || e.isa<isl::ast_expr_op_or_else>()) return BinOp::Or;
    if (e.isa<isl::ast_expr_op_add>()) return BinOp::Add;
    if (e.isa<isl::ast_expr_op_sub>()) return BinOp::Sub;
    if (e.isa<isl::ast_expr_op_mul>()) return BinOp::Mul;
    if (e.isa<isl::ast_expr_op_div>() || e.isa<isl::ast_expr_op_pdiv_q>()) return BinOp::CDiv;
    if (e.isa<isl::ast_expr_op_fdiv_q>()) return BinOp::FloorDiv;
    if (e.isa<isl::ast_expr_op_pdiv_r>() || e.isa<isl::ast_expr_op_zdiv_r>()) return BinOp::CMod;
    if (e.isa<isl::ast_expr_op_eq>()) return BinOp::Eq;
    if (e.isa<isl::ast_expr_op_le>()) return BinOp::Le;
    if (e.isa<isl::ast_expr_op_lt>()) return BinOp::Lt;
    if (e.isa<isl::ast_expr_op_ge>()) return BinOp::Ge;
    if (e.isa<isl::ast_expr_op_gt>()) return BinOp::Gt;
    return std::nullopt;
}

ExprPtr op_to_expr(const isl::ast_expr_op& e) {
    const auto a = [&](int i) { return ast_expr_to_expr(e.arg(i)); };
    if (const std::optional<BinOp> op = binary_op(e)) return binary(*op, a(0), a(1));
    if (e.isa<isl::ast_expr_op_max>()) return fold(e, "max");
    if (e.isa<isl::ast_expr_op_min>()) return fold(e, "min");
    if (e.isa<isl::ast_expr_op_minus>()) return unary("-", a(0));
    if (e.isa<isl::ast_expr_op_cond>() || e.isa<isl::ast_expr_op_select>()) return if_then_else(a(0), a(1), a(2));
    internal_assert(false, "unexpected operation in isl AST expression");
    return nullptr;
}

}  // namespace

ExprPtr ast_expr_to_expr(const isl::ast_expr& e) {
    if (e.isa<isl::ast_expr_int>()) {
        const std::optional<long> v = isl_util::long_value(e.as<isl::ast_expr_int>().val());
        internal_assert(v.has_value(), "non-integer value in isl AST");
        return int_lit(*v);
    }
    if (e.isa<isl::ast_expr_id>()) return var(e.as<isl::ast_expr_id>().id().name());
    internal_assert(e.isa<isl::ast_expr_op>(), "invalid isl AST expression");
    return op_to_expr(e.as<isl::ast_expr_op>());
}

}  // namespace loom::affine
