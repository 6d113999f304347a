#include "codegen/c_expr.h"

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include "analysis/types.h"
#include "support/error.h"

namespace loom {

namespace {

// C operator precedences (higher binds tighter).
constexpr int kPrimary = 100, kUnary = 90, kMul = 80, kAdd = 70, kShift = 65, kRel = 60, kEq = 55, kBitAnd = 50,
              kBitXor = 45, kBitOr = 40, kAnd = 35, kOr = 30, kCond = 20;

struct CBinOp {
    const char* text;
    int prec;
};

CBinOp c_binop(BinOp op) {
    switch (op) {
        case BinOp::Add: return {"+", kAdd};
        case BinOp::Sub: return {"-", kAdd};
        case BinOp::Mul: return {"*", kMul};
        case BinOp::Div: case BinOp::CDiv: return {"/", kMul};
        case BinOp::CMod: return {"%", kMul};
        case BinOp::Eq: return {"==", kEq};
        case BinOp::Ne: return {"!=", kEq};
        case BinOp::Lt: return {"<", kRel};
        case BinOp::Le: return {"<=", kRel};
        case BinOp::Gt: return {">", kRel};
        case BinOp::Ge: return {">=", kRel};
        case BinOp::And: return {"&&", kAnd};
        case BinOp::Or: return {"||", kOr};
        case BinOp::BitAnd: return {"&", kBitAnd};
        case BinOp::BitOr: return {"|", kBitOr};
        case BinOp::BitXor: return {"^", kBitXor};
        case BinOp::Shl: return {"<<", kShift};
        case BinOp::Shr: return {">>", kShift};
        default: return {"", 0};  // printed through helpers
    }
}

bool is_floating(DType t) { return is_float(t) || is_complex(t); }

struct Term {
    std::int64_t coef;
    ExprPtr e;  // null: a constant
};

// Flattens integer sums (and products by constants) into terms, so that `n - 1` prints as `-1 + n`.
void flatten_sum(const ExprPtr& e, std::int64_t scale, std::vector<Term>& out) {
    if (e->kind == ExprKind::IntLit) {
        out.push_back({scale * e->ival, nullptr});
        return;
    }
    if (e->kind == ExprKind::Unary && e->unop == "-") return flatten_sum(e->args[0], -scale, out);
    if (e->kind == ExprKind::Binary) {
        if (e->op == BinOp::Add || e->op == BinOp::Sub) {
            flatten_sum(e->args[0], scale, out);
            flatten_sum(e->args[1], e->op == BinOp::Add ? scale : -scale, out);
            return;
        }
        if (e->op == BinOp::Mul) {
            if (e->args[0]->kind == ExprKind::IntLit) return flatten_sum(e->args[1], scale * e->args[0]->ival, out);
            if (e->args[1]->kind == ExprKind::IntLit) return flatten_sum(e->args[0], scale * e->args[1]->ival, out);
        }
    }
    out.push_back({scale, e});
}

}  // namespace

std::string float_literal(double v, DType t) {
    const bool single = t == DType::Float32 || t == DType::Complex64;
    if (std::isinf(v)) return v > 0 ? "INFINITY" : "-INFINITY";
    if (std::isnan(v)) return "NAN";
    char buf[64];
    const auto res = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v))
                            : std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, res.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return single ? s + "f" : s;
}

bool CExprPrinter::is_integer_expr(const ExprPtr& e) const {
    const DType t = expr_type(k_, e).dtype;
    return is_integer(t);
}

std::string CExprPrinter::print(const ExprPtr& e, DType want) { return print_prec(e, want, 0); }

std::string CExprPrinter::print_prec(const ExprPtr& e, DType want, int parent_prec, bool right_operand) {
    int prec = kPrimary;
    std::string s = print_node(e, want, prec);
    if (prec < parent_prec || (right_operand && prec == parent_prec)) return "(" + s + ")";
    return s;
}

std::string CExprPrinter::literal(const ExprPtr& e, DType want) const {
    if (e->kind == ExprKind::IntLit) {
        if (is_floating(want)) return float_literal(static_cast<double>(e->ival), want);
        return std::to_string(e->ival);
    }
    const DType t = e->dtype != DType::Unknown ? e->dtype : is_floating(want) ? want : DType::Float64;
    return float_literal(e->fval, t);
}

std::string CExprPrinter::print_node(const ExprPtr& e, DType want, int& prec) {
    switch (e->kind) {
        case ExprKind::IntLit:
        case ExprKind::FloatLit: {
            std::string s = literal(e, want);
            if (s[0] == '-') prec = kUnary;
            return s;
        }
        case ExprKind::ImagLit: user_error("LoopyError", "complex literals are not supported by this code generator yet");
        case ExprKind::Var: {
            if (const auto hw = hardware_text_.find(e->name); hw != hardware_text_.end()) return hw->second;
            const Variable* v = find_variable(k_, e->name);
            if (v && v->is_array && v->shape.empty() && v->kind != VarKind::Temporary) return e->name + "[0]";
            return e->name;
        }
        case ExprKind::Subscript: return print_subscript(e);
        case ExprKind::Call: return print_call(e, want);
        case ExprKind::Binary: return print_binary(e, want, prec);
        case ExprKind::Unary: {
            prec = kUnary;
            const std::string op = e->unop == "not" ? "!" : e->unop;
            if (op == "-" && is_integer_expr(e)) return print_integer_sum(e, prec);
            return op + print_prec(e->args[0], want, kUnary);
        }
        case ExprKind::If: {
            prec = kCond;
            const DType t = expr_type(k_, e).dtype;
            const DType w = is_floating(t) ? t : want;
            return print_prec(e->args[0], DType::Unknown, kOr) + " ? " + print_prec(e->args[1], w, kOr) + " : " +
                   print_prec(e->args[2], w, kCond);
        }
        case ExprKind::Cast:
            prec = kUnary;
            return "(" + c_type(e->dtype, target_) + ") (" + print(e->args[0], e->dtype) + ")";
        case ExprKind::Reduction:
            user_error("LoopyError", "reduction '", to_string(e), "' must be realized before code generation");
    }
    return "";
}

std::string CExprPrinter::print_term(const ExprPtr& t, int parent_prec, bool right_operand) {
    // A product of non-constants is where flattening stops: print it as it stands.
    if (t->kind == ExprKind::Binary && t->op == BinOp::Mul) {
        const std::string s = print_prec(t->args[0], DType::Unknown, kMul) + " * " +
                              print_prec(t->args[1], DType::Unknown, kMul, true);
        return (kMul < parent_prec || (right_operand && kMul == parent_prec)) ? "(" + s + ")" : s;
    }
    return print_prec(t, DType::Unknown, parent_prec, right_operand);
}

std::string CExprPrinter::print_integer_sum(const ExprPtr& e, int& prec) {
    std::vector<Term> terms;
    flatten_sum(e, 1, terms);
    std::int64_t constant = 0;
    for (const Term& t : terms)
        if (!t.e) constant += t.coef;
    std::vector<std::string> parts;
    if (constant != 0) parts.push_back(std::to_string(constant));
    for (const Term& t : terms) {
        if (!t.e || t.coef == 0) continue;
        if (t.coef == 1)
            parts.push_back(print_term(t.e, kAdd + 1, false));
        else
            parts.push_back(std::to_string(t.coef) + " * " + print_term(t.e, kMul, true));
    }
    if (parts.empty()) return "0";
    if (parts.size() > 1) {
        prec = kAdd;
    } else {
        const bool single_term = constant == 0 && parts[0].find(' ') != std::string::npos;
        prec = parts[0][0] == '-' ? kUnary : single_term ? kMul : kPrimary;
    }
    std::string out = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) out += " + " + parts[i];
    return out;
}

std::string CExprPrinter::use_helper(const std::string& op, DType t) {
    const std::string name = "loopy_" + op + "_" + dtype_name(t);
    helpers_.emplace(name, std::make_pair(op, t));
    return name;
}

std::string CExprPrinter::print_binary(const ExprPtr& e, DType want, int& prec) {
    const ExprType t = expr_type(k_, e);
    const bool arithmetic = e->op == BinOp::Add || e->op == BinOp::Sub || e->op == BinOp::Mul;
    if (arithmetic && is_integer(t.dtype)) return print_integer_sum(e, prec);

    // Operands take the operation's floating type (comparisons: the common type of both sides).
    DType operand_want = DType::Unknown;
    const bool comparison = e->op >= BinOp::Eq && e->op <= BinOp::Ge;
    if (comparison) {
        const ExprType a = expr_type(k_, e->args[0]), b = expr_type(k_, e->args[1]);
        const DType common = promote(a.dtype, b.dtype);
        if (is_floating(common)) operand_want = a.weak && !b.weak ? b.dtype : !a.weak && b.weak ? a.dtype : common;
    } else if (is_floating(t.dtype)) {
        operand_want = t.dtype;
    }

    const DType lhs_type = expr_type(k_, e->args[0]).dtype;
    const DType rhs_type = expr_type(k_, e->args[1]).dtype;
    const bool int_operands = is_integer(lhs_type) && is_integer(rhs_type);
    switch (e->op) {
        case BinOp::FloorDiv:
        case BinOp::Mod: {
            const bool pos_b = e->args[1]->kind == ExprKind::IntLit && e->args[1]->ival > 0;
            if (!int_operands && e->op == BinOp::FloorDiv) {
                return "floor(" + print_prec(e->args[0], operand_want, kMul) + " / " +
                       print_prec(e->args[1], operand_want, kMul, true) + ")";
            }
            const std::string op = std::string(e->op == BinOp::FloorDiv ? "floor_div" : "mod") + (pos_b && int_operands ? "_pos_b" : "");
            const DType ht = int_operands ? t.dtype : operand_want;
            return use_helper(op, ht) + "(" + print(e->args[0], operand_want) + ", " + print(e->args[1], operand_want) + ")";
        }
        case BinOp::Pow:
            if (int_operands) return use_helper("pow", t.dtype) + "(" + print(e->args[0]) + ", " + print(e->args[1]) + ")";
            return "pow(" + print(e->args[0], operand_want) + ", " + print(e->args[1], operand_want) + ")";
        case BinOp::Div:
            if (int_operands) {
                // True division of integers (numpy semantics): the quotient is floating.
                prec = kMul;
                const std::string ct = c_type(t.dtype, target_);
                return "(" + ct + ") " + print_prec(e->args[0], DType::Unknown, kUnary) + " / (" + ct + ") " +
                       print_prec(e->args[1], DType::Unknown, kUnary);
            }
            break;
        default: break;
    }
    const CBinOp c = c_binop(e->op);
    prec = c.prec;
    return print_prec(e->args[0], operand_want, c.prec) + " " + c.text + " " +
           print_prec(e->args[1], operand_want, c.prec, true);
}

std::string CExprPrinter::print_call(const ExprPtr& e, DType want) {
    const DType t = expr_type(k_, e).dtype;
    const DType arg_want = is_floating(t) ? t : DType::Unknown;
    std::vector<std::string> args;
    for (const ExprPtr& a : e->args) args.push_back(print(a, arg_want));
    std::string name = e->name;
    const bool c_like = target_ != TargetKind::OpenCL;
    if ((name == "min" || name == "max") && args.size() == 2) {
        if (is_floating(t))
            name = name == "min" ? "fmin" : "fmax";
        else if (c_like)
            return "(" + args[0] + (name == "min" ? " <= " : " >= ") + args[1] + " ? " + args[0] + " : " + args[1] + ")";
    } else if (name == "abs" && is_floating(t)) {
        name = "fabs";
    } else if (name == "abs" && t == DType::Int64 && c_like) {
        name = "llabs";
    }
    // C's <math.h> has separate float versions; OpenCL and CUDA overload.
    if (target_ == TargetKind::C && t == DType::Float32 && name != "abs") name += "f";
    std::string out = name + "(";
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out + ")";
}

std::string CExprPrinter::print_subscript(const ExprPtr& e) {
    const Variable* v = find_variable(k_, e->name);
    user_assert(v != nullptr && v->is_array, "LoopyError", "'", e->name, "' is subscripted but is not an array");
    user_assert(v->strides.size() == e->args.size(), "LoopyError", "'", e->name, "' has ", v->strides.size(),
                " axes but is indexed with ", e->args.size(), " indices in '", to_string(e), "'");
    ExprPtr flat = v->offset;
    for (std::size_t j = 0; j < e->args.size(); ++j) {
        const ExprPtr& s = v->strides[j];
        const ExprPtr term = (s->kind == ExprKind::IntLit && s->ival == 1) ? e->args[j] : binary(BinOp::Mul, s, e->args[j]);
        flat = flat ? binary(BinOp::Add, flat, term) : term;
    }
    int prec = kPrimary;
    return e->name + "[" + (flat ? print_integer_sum(flat, prec) : "0") + "]";
}

std::string CExprPrinter::assignment(const ExprPtr& lhs, const ExprPtr& rhs) {
    const DType lt = expr_type(k_, lhs).dtype;
    const DType rt = expr_type(k_, rhs).dtype;
    std::string value = print(rhs, lt);
    if (rt != lt) value = "(" + c_type(lt, target_) + ") (" + value + ")";
    return print(lhs) + " = " + value + ";";
}

std::string CExprPrinter::helper_definitions() const {
    std::ostringstream os;
    for (const auto& [name, spec] : helpers_) {
        const auto& [op, t] = spec;
        const std::string ct = c_type(t, target_);
        os << "static inline " << ct << " " << name << "(" << ct << " a, " << ct << " b)\n{\n";
        if (op == "floor_div_pos_b")
            os << "  if (a < 0)\n    a = a + 1 - b;\n  return a / b;\n";
        else if (op == "floor_div")
            os << "  " << ct << " q = a / b;\n  if (a % b != 0 && ((a < 0) != (b < 0)))\n    q = q - 1;\n  return q;\n";
        else if (op == "mod_pos_b")
            os << "  " << ct << " r = a % b;\n  return r < 0 ? r + b : r;\n";
        else if (op == "mod" && is_integer(t))
            os << "  " << ct << " r = a % b;\n  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;\n";
        else if (op == "mod")
            os << "  return a - b * floor(a / b);\n";
        else if (op == "pow")
            os << "  " << ct << " r = 1;\n  for (; b > 0; --b)\n    r = r * a;\n  return r;\n";
        os << "}\n\n";
    }
    return os.str();
}

}  // namespace loom
