#include "ir/eval.h"

namespace loom {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

std::optional<std::int64_t> eval_binary(BinOp op, std::int64_t a, std::int64_t b) {
    switch (op) {
        case BinOp::Add: return a + b;
        case BinOp::Sub: return a - b;
        case BinOp::Mul: return a * b;
        case BinOp::FloorDiv: return b == 0 ? std::nullopt : std::optional(floor_div(a, b));
        case BinOp::Mod: return b == 0 ? std::nullopt : std::optional(a - b * floor_div(a, b));
        case BinOp::CDiv: return b == 0 ? std::nullopt : std::optional(a / b);
        case BinOp::CMod: return b == 0 ? std::nullopt : std::optional(a % b);
        case BinOp::Eq: return a == b;
        case BinOp::Ne: return a != b;
        case BinOp::Lt: return a < b;
        case BinOp::Le: return a <= b;
        case BinOp::Gt: return a > b;
        case BinOp::Ge: return a >= b;
        case BinOp::And: return a && b;
        case BinOp::Or: return a || b;
        default: return std::nullopt;
    }
}

}  // namespace

std::optional<std::int64_t> eval_int(const ExprPtr& e, const std::map<std::string, std::int64_t>& values) {
    switch (e->kind) {
        case ExprKind::IntLit: return e->ival;
        case ExprKind::Var: {
            const auto it = values.find(e->name);
            if (it == values.end()) return std::nullopt;
            return it->second;
        }
        case ExprKind::Unary: {
            const auto a = eval_int(e->args[0], values);
            if (!a) return std::nullopt;
            if (e->unop == "-") return -*a;
            if (e->unop == "not") return !*a;
            return std::nullopt;
        }
        case ExprKind::Binary: {
            const auto a = eval_int(e->args[0], values), b = eval_int(e->args[1], values);
            if (!a || !b) return std::nullopt;
            return eval_binary(e->op, *a, *b);
        }
        case ExprKind::Call: {
            if ((e->name != "min" && e->name != "max") || e->args.size() != 2) return std::nullopt;
            const auto a = eval_int(e->args[0], values), b = eval_int(e->args[1], values);
            if (!a || !b) return std::nullopt;
            return e->name == "min" ? std::min(*a, *b) : std::max(*a, *b);
        }
        case ExprKind::If: {
            const auto c = eval_int(e->args[0], values);
            if (!c) return std::nullopt;
            return eval_int(e->args[*c ? 1 : 2], values);
        }
        default: return std::nullopt;
    }
}

}  // namespace loom
