#include "ir/eval.h"

#include <limits>

namespace loom {

namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    std::int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

// The remainder of floor_div, computed without its product (which can pass 64 bits).
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
    const std::int64_t r = a % b;
    return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

// A value that does not fit in 64 bits is no value (nullopt), as a division by zero is not.
std::optional<std::int64_t> eval_binary(BinOp op, std::int64_t a, std::int64_t b) {
    std::int64_t out = 0;
    const bool divides = b != 0 && !(b == -1 && a == std::numeric_limits<std::int64_t>::min());
    switch (op) {
        case BinOp::Add: return __builtin_add_overflow(a, b, &out) ? std::nullopt : std::optional(out);
        case BinOp::Sub: return __builtin_sub_overflow(a, b, &out) ? std::nullopt : std::optional(out);
        case BinOp::Mul: return __builtin_mul_overflow(a, b, &out) ? std::nullopt : std::optional(out);
        case BinOp::FloorDiv: return divides ? std::optional(floor_div(a, b)) : std::nullopt;
        case BinOp::Mod: return divides ? std::optional(floor_mod(a, b)) : std::nullopt;
        case BinOp::CDiv: return divides ? std::optional(a / b) : std::nullopt;
        case BinOp::CMod: return divides ? std::optional(a % b) : std::nullopt;
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
            if (e->unop == "-") return *a == std::numeric_limits<std::int64_t>::min() ? std::nullopt : std::optional(-*a);
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
