#include "expr/expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// Binding strength, loosest first; Python's order. `not` sits between `and` and the comparisons.
enum Prec : int {
    kNone,
    kOr,
    kAnd,
    kNot,
    kComparison,
    kBitOr,
    kBitXor,
    kBitAnd,
    kShift,
    kSum,
    kProduct,
    kUnary,
    kPower,
    kAtom,
};

ExprPtr make(Expr e) {
    e.depth = depth_over(e.args);
    user_assert(e.depth <= kMaxExprDepth, error_kind::LoopyError, "expression nested deeper than ", kMaxExprDepth, " levels");
    return std::make_shared<const Expr>(std::move(e));
}

Expr node(ExprKind kind, std::vector<ExprPtr> args = {}) {
    for (const ExprPtr& a : args) internal_assert(a != nullptr, "null operand in expression");
    Expr e{};
    e.kind = kind;
    e.args = std::move(args);
    return e;
}

}  // namespace

int depth_over(const std::vector<ExprPtr>& args) {
    int deepest = 0;
    for (const ExprPtr& a : args) deepest = std::max(deepest, a->depth);
    return deepest + 1;
}

const char* binop_text(BinOp op) {
    switch (op) {
        case BinOp::Add: return "+";
        case BinOp::Sub: return "-";
        case BinOp::Mul: return "*";
        case BinOp::Div: return "/";
        case BinOp::FloorDiv: return "//";
        case BinOp::Mod: return "%";
        case BinOp::Pow: return "**";
        case BinOp::Eq: return "==";
        case BinOp::Ne: return "!=";
        case BinOp::Lt: return "<";
        case BinOp::Le: return "<=";
        case BinOp::Gt: return ">";
        case BinOp::Ge: return ">=";
        case BinOp::And: return "and";
        case BinOp::Or: return "or";
        case BinOp::BitAnd: return "&";
        case BinOp::BitOr: return "|";
        case BinOp::BitXor: return "^";
        case BinOp::Shl: return "<<";
        case BinOp::Shr: return ">>";
        // Only produced where the operands make C's truncation agree with Python's floor.
        case BinOp::CDiv: return "//";
        case BinOp::CMod: return "%";
    }
    internal_assert(false, "unknown binary operator");
    return "";
}

int binop_precedence(BinOp op) {
    switch (op) {
        case BinOp::Or: return kOr;
        case BinOp::And: return kAnd;
        case BinOp::Eq:
        case BinOp::Ne:
        case BinOp::Lt:
        case BinOp::Le:
        case BinOp::Gt:
        case BinOp::Ge: return kComparison;
        case BinOp::BitOr: return kBitOr;
        case BinOp::BitXor: return kBitXor;
        case BinOp::BitAnd: return kBitAnd;
        case BinOp::Shl:
        case BinOp::Shr: return kShift;
        case BinOp::Add:
        case BinOp::Sub: return kSum;
        case BinOp::Mul:
        case BinOp::Div:
        case BinOp::FloorDiv:
        case BinOp::Mod:
        case BinOp::CDiv:
        case BinOp::CMod: return kProduct;
        case BinOp::Pow: return kPower;
    }
    internal_assert(false, "unknown binary operator");
    return kNone;
}

ExprPtr int_lit(std::int64_t v) {
    Expr e = node(ExprKind::IntLit);
    e.ival = v;
    return make(std::move(e));
}

namespace {

// A real or imaginary literal: `suffix_type` (Unknown when the literal has no suffix) must be of its family.
ExprPtr real_valued_lit(ExprKind kind, double v, DType suffix_type) {
    const bool fits = kind == ExprKind::FloatLit ? is_float(suffix_type) : is_complex(suffix_type);
    internal_assert(suffix_type == DType::Unknown || fits, kind == ExprKind::FloatLit ? "float" : "imaginary",
                    " literal of type ", dtype_name(suffix_type));
    Expr e = node(kind);
    e.fval = v;
    e.dtype = suffix_type;
    return make(std::move(e));
}

}  // namespace

ExprPtr float_lit(double v, DType suffix_type) { return real_valued_lit(ExprKind::FloatLit, v, suffix_type); }

ExprPtr imag_lit(double v, DType suffix_type) { return real_valued_lit(ExprKind::ImagLit, v, suffix_type); }

ExprPtr var(std::string name) {
    internal_assert(!name.empty(), "variable without a name");
    Expr e = node(ExprKind::Var);
    e.name = std::move(name);
    return make(std::move(e));
}

ExprPtr subscript(std::string name, std::vector<ExprPtr> indices) {
    internal_assert(!name.empty() && !indices.empty(), "subscript needs a name and indices");
    Expr e = node(ExprKind::Subscript, std::move(indices));
    e.name = std::move(name);
    return make(std::move(e));
}

ExprPtr linear_subscript(std::string name, ExprPtr index) {
    internal_assert(!name.empty(), "linear subscript needs a name");
    Expr e = node(ExprKind::Subscript, {std::move(index)});
    e.name = std::move(name);
    e.linear = true;
    return make(std::move(e));
}

ExprPtr call(std::string fn, std::vector<ExprPtr> args) {
    internal_assert(!fn.empty(), "call without a function name");
    Expr e = node(ExprKind::Call, std::move(args));
    e.name = std::move(fn);
    return make(std::move(e));
}

ExprPtr binary(BinOp op, ExprPtr a, ExprPtr b) {
    Expr e = node(ExprKind::Binary, {std::move(a), std::move(b)});
    e.op = op;
    return make(std::move(e));
}

ExprPtr unary(std::string op, ExprPtr a) {
    internal_assert(op == "-" || op == "not" || op == "~", "unknown unary operator '", op, "'");
    Expr e = node(ExprKind::Unary, {std::move(a)});
    e.unop = std::move(op);
    return make(std::move(e));
}

ExprPtr with_args(const ExprPtr& e, std::vector<ExprPtr> args) {
    Expr copy = *e;
    copy.args = std::move(args);
    return make(std::move(copy));
}

ExprPtr with_name(const ExprPtr& e, std::string name) {
    Expr copy = *e;
    copy.name = std::move(name);
    return make(std::move(copy));
}

ExprPtr tagged(const ExprPtr& e, std::string tag) {
    internal_assert(e->kind == ExprKind::Var || e->kind == ExprKind::Subscript || e->kind == ExprKind::Call,
                    "only names are tagged");
    Expr copy = *e;
    copy.tag = std::move(tag);
    return make(std::move(copy));
}

ExprPtr if_then_else(ExprPtr c, ExprPtr a, ExprPtr b) {
    return make(node(ExprKind::If, {std::move(c), std::move(a), std::move(b)}));
}

ExprPtr cast(DType t, ExprPtr a) {
    internal_assert(t != DType::Unknown, "cast to an unknown type");
    Expr e = node(ExprKind::Cast, {std::move(a)});
    e.dtype = t;
    return make(std::move(e));
}

ExprPtr reduction(std::string op, std::vector<std::string> inames, std::vector<ExprPtr> body,
                  bool allow_simultaneous) {
    internal_assert(!op.empty() && !body.empty(), "reduction needs an operation and a body");
    Expr e = node(ExprKind::Reduction, std::move(body));
    e.name = std::move(op);
    e.inames = std::move(inames);
    e.allow_simultaneous = allow_simultaneous;
    return make(std::move(e));
}

ExprPtr sub_array_ref(std::string name, std::vector<ExprPtr> indices, std::vector<std::string> swept) {
    internal_assert(!name.empty(), "sub-array reference needs a name");
    Expr e = node(ExprKind::SubArrayRef, std::move(indices));
    e.name = std::move(name);
    e.inames = std::move(swept);
    return make(std::move(e));
}

// {{{ printing

namespace {

/// Python's repr of a float: shortest round-trip digits, positional for exponents in [-4, 16).
/// `point` adds ".0" to integral values in positional form (repr(2.0) is "2.0", repr(2j) is "2j").
std::string python_repr(double v, bool point) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
    std::string sci(buf, res.ptr);
    std::size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
    int exponent = std::stoi(sci.substr(e + 1));
    int decpt = exponent + 1;  // value = 0.DIGITS * 10^decpt
    int n = static_cast<int>(digits.size());
    std::string out = std::signbit(v) ? "-" : "";
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) return out + "0." + std::string(-decpt, '0') + digits;
        if (decpt >= n) return out + digits + std::string(decpt - n, '0') + (point ? ".0" : "");
        return out + digits.substr(0, decpt) + "." + digits.substr(decpt);
    }
    out += digits.substr(0, 1);
    if (n > 1) out += "." + digits.substr(1);
    std::string exp_digits = std::to_string(std::abs(exponent));
    if (exp_digits.size() < 2) exp_digits.insert(0, "0");
    return out + "e" + (exponent < 0 ? "-" : "+") + exp_digits;
}

std::string literal_text(const Expr& e) {
    switch (e.kind) {
        case ExprKind::IntLit: return std::to_string(e.ival);
        case ExprKind::FloatLit:
            return python_repr(e.fval, true) +
                   (e.dtype == DType::Float32 ? "f" : e.dtype == DType::Float64 ? "d" : "");
        default: return python_repr(e.fval, false) + (e.dtype == DType::Complex64 ? "jf" : "j");
    }
}

bool is_literal(const Expr& e) {
    return e.kind == ExprKind::IntLit || e.kind == ExprKind::FloatLit || e.kind == ExprKind::ImagLit;
}

bool is_binary(const ExprPtr& e, std::initializer_list<BinOp> ops) {
    if (e->kind != ExprKind::Binary) return false;
    for (BinOp op : ops)
        if (e->op == op) return true;
    return false;
}

bool is_quotient(const ExprPtr& e) {
    return is_binary(e, {BinOp::Div, BinOp::FloorDiv, BinOp::Mod, BinOp::CDiv, BinOp::CMod});
}

int precedence(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Binary: return binop_precedence(e.op);
        case ExprKind::Unary: return e.unop == "not" ? kNot : kUnary;
        default:
            // A negative literal reads like a negation: `(-2)**2` needs its parentheses.
            if (is_literal(e) && (e.ival < 0 || std::signbit(e.fval))) return kUnary;
            return kAtom;
    }
}

class Printer {
public:
    std::string print(const ExprPtr& e, int enclosing) {
        std::string s = body(*e);
        return precedence(*e) < enclosing ? "(" + s + ")" : s;
    }

private:
    std::string list(const std::vector<ExprPtr>& args, std::size_t from = 0) {
        std::vector<std::string> parts;
        for (std::size_t i = from; i < args.size(); ++i) parts.push_back(print(args[i], kNone));
        return join(parts, ", ");
    }

    static std::string tagged_name(const Expr& e) { return e.tag.empty() ? e.name : e.name + "$" + e.tag; }

    std::string body(const Expr& e) {
        switch (e.kind) {
            case ExprKind::IntLit:
            case ExprKind::FloatLit:
            case ExprKind::ImagLit: return literal_text(e);
            case ExprKind::Var: return tagged_name(e);
            case ExprKind::Subscript:
                return e.linear ? tagged_name(e) + "[[" + list(e.args) + "]]" : tagged_name(e) + "[" + list(e.args) + "]";
            case ExprKind::Call: return e.name == kSliceCall ? slice_body(e) : tagged_name(e) + "(" + list(e.args) + ")";
            case ExprKind::Binary: return binary_body(e);
            case ExprKind::Unary:
                // `not` prints its operand like pymbolic, `not (a < b)`: readable either way round.
                return (e.unop == "not" ? "not " : e.unop) + print(e.args[0], kUnary);
            case ExprKind::If: return "if(" + list(e.args) + ")";
            case ExprKind::Cast: return "cast(" + dtype_name(e.dtype) + ", " + list(e.args) + ")";
            case ExprKind::Reduction: return reduction_body(e);
            case ExprKind::SubArrayRef:
                return "[" + join(e.inames, ", ") + "]: " + e.name + (e.args.empty() ? "" : "[" + list(e.args) + "]");
        }
        internal_assert(false, "unknown expression kind");
        return "";
    }

    // `start:stop:step` as written, omitted parts empty.
    std::string slice_body(const Expr& e) {
        std::vector<std::string> parts;
        for (const ExprPtr& a : e.args)
            parts.push_back(a->kind == ExprKind::Var && a->name == kSliceCall ? "" : print(a, kNone));
        if (parts.back().empty()) parts.pop_back();
        return join(parts, ":");
    }

    std::string reduction_body(const Expr& e) {
        std::string inames = e.inames.size() == 1 ? e.inames[0] : "(" + join(e.inames, ", ") + ")";
        std::string tail = inames + ", " + list(e.args) + ")";
        if (e.allow_simultaneous) return "simul_reduce(" + e.name + ", " + tail;
        return e.name + "(" + tail;
    }

    // Operand precedences follow pymbolic's listings: associative chains print flat (`a + b + c`),
    // and quotients, floor divisions and remainders parenthesize multiplicative operands
    // (`(a*b) / c`, `a*(b // c)`) so integer-division semantics never hinge on reading order.
    std::string binary_body(const Expr& e) {
        const int p = binop_precedence(e.op);
        const ExprPtr& lhs = e.args[0];
        const ExprPtr& rhs = e.args[1];
        int left = p, right = p + 1;
        switch (e.op) {
            case BinOp::Add:
            case BinOp::Mul:
            case BinOp::And:
            case BinOp::Or:
            case BinOp::BitAnd:
            case BinOp::BitOr:
            case BinOp::BitXor:
                if (is_binary(rhs, {e.op})) right = p;
                break;
            case BinOp::Pow:
                left = p + 1;
                right = p;
                break;
            case BinOp::Sub: break;
            default: left = p + 1; break;  // comparisons, shifts, quotients: never chained unparenthesized
        }
        if (e.op == BinOp::Mul && is_quotient(lhs)) left = p + 1;
        const char* sep = e.op == BinOp::Mul || e.op == BinOp::Pow ? "" : " ";
        return print(lhs, left) + sep + binop_text(e.op) + sep + print(rhs, right);
    }
};

}  // namespace

std::string to_string(const ExprPtr& e) { return Printer().print(e, kNone); }

// }}}

ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& values) {
    if (!e || values.empty()) return e;
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if (n->kind != ExprKind::Var) return n;
        const auto it = values.find(n->name);
        return it == values.end() ? n : it->second;
    });
}

ExprPtr rewrite(const ExprPtr& e, const std::function<ExprPtr(const ExprPtr&)>& f) {
    std::vector<ExprPtr> args;
    args.reserve(e->args.size());
    bool changed = false;
    for (const ExprPtr& a : e->args) {
        args.push_back(rewrite(a, f));
        changed |= args.back() != a;
    }
    ExprPtr result;
    if (changed) {
        result = f(with_args(e, std::move(args)));
    } else {
        result = f(e);
    }
    internal_assert(result != nullptr, "expression rewrite produced a null node");
    return result;
}

bool is_two_valued(const ExprPtr& e) {
    return e->kind == ExprKind::Reduction && (e->name == "argmax" || e->name == "argmin");
}

const ExprPtr& pair_operand(const ExprPtr& red, std::size_t n) {
    return red->args.size() == 1 ? pair_operand(red->args[0], n) : red->args[n];
}

std::vector<std::string> referenced_names(const ExprPtr& e) {
    std::vector<std::string> names;
    std::set<std::string> seen;
    visit(e, [&](const ExprPtr& n) {
        const bool named = n->kind == ExprKind::Var || n->kind == ExprKind::Subscript || n->kind == ExprKind::SubArrayRef;
        if (named && seen.insert(n->name).second)
            names.push_back(n->name);
    });
    return names;
}

}  // namespace loom
