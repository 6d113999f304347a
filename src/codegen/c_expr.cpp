#include "codegen/c_expr.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <string_view>
#include <vector>

#include "analysis/types.h"
#include "codegen/declarations.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/eval.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

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
        case BinOp::Div: case BinOp::CDiv: case BinOp::FloorDiv: return {"/", kMul};
        case BinOp::CMod: case BinOp::Mod: return {"%", kMul};
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
        case BinOp::Pow: break;
    }
    return {"", 0};
}

bool is_floating(DType t) { return is_float(t) || is_complex(t); }

std::string parenthesized_if(const std::string& s, int prec, int parent_prec, bool right_operand) {
    return (prec < parent_prec || (right_operand && prec == parent_prec)) ? "(" + s + ")" : s;
}

// The type C's usual arithmetic conversions give a binary operation on `a` and `b` (OpenCL C's are the same).
DType c_arithmetic_type(DType a, DType b) {
    if (is_float(a) || is_float(b)) return (a == DType::Float64 || b == DType::Float64) ? DType::Float64 : DType::Float32;
    const auto promoted = [](DType t) { return dtype_size(t) < 4 ? DType::Int32 : t; };
    a = promoted(a);
    b = promoted(b);
    if (a == b) return a;
    if (is_signed(a) == is_signed(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
    const DType s = is_signed(a) ? a : b, u = is_signed(a) ? b : a;
    return dtype_size(u) >= dtype_size(s) ? u : s;
}

// Whether computing in C's type `c` gives the values of numpy's type `t`: the same type, or C's int for a
// narrower integer (the store wraps the result the same way).
bool computes_as(DType c, DType t) {
    return c == t || (c == DType::Int32 && (t == DType::Bool || (is_integer(t) && dtype_size(t) < 4)));
}

std::string complex_prefix(DType t) { return t == DType::Complex64 ? "cfloat" : "cdouble"; }

struct Term {
    std::int64_t coef;
    ExprPtr e;  // null: a constant
};

// Flattens integer sums (and products by constants) into terms, so that `n - 1` prints as `-1 + n`. A
// coefficient that would not fit in 64 bits leaves its term as written.
void flatten_sum(const ExprPtr& e, std::int64_t scale, std::vector<Term>& out) {
    std::int64_t scaled = 0;
    if (e->kind == ExprKind::IntLit) {
        if (__builtin_mul_overflow(scale, e->ival, &scaled)) return out.push_back({scale, e});
        return out.push_back({scaled, nullptr});
    }
    const bool negatable = scale != std::numeric_limits<std::int64_t>::min();
    if (e->kind == ExprKind::Unary && e->unop == "-" && negatable) return flatten_sum(e->args[0], -scale, out);
    if (e->kind == ExprKind::Binary) {
        if ((e->op == BinOp::Add || e->op == BinOp::Sub) && negatable) {
            flatten_sum(e->args[0], scale, out);
            flatten_sum(e->args[1], e->op == BinOp::Add ? scale : -scale, out);
            return;
        }
        if (e->op == BinOp::Mul) {
            for (int side = 0; side < 2; ++side) {
                const ExprPtr& factor = e->args[static_cast<std::size_t>(side)];
                if (factor->kind == ExprKind::IntLit && !__builtin_mul_overflow(scale, factor->ival, &scaled))
                    return flatten_sum(e->args[static_cast<std::size_t>(1 - side)], scaled, out);
            }
        }
    }
    out.push_back({scale, e});
}

std::string join_args(const std::vector<std::string>& args) {
    std::string out;
    for (std::size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + args[i];
    return out;
}

// pyopencl-complex's functions, emitted on demand. In the templates @T is the complex type, @R its real
// type, @U the other complex type (for casts) and @P_ the prefix of its helpers ("cfloat_"); a helper a
// template names is defined before it.
struct ComplexFn {
    std::string_view op, ret, params, body;
};

constexpr ComplexFn kComplexFns[] = {
    {"new", "@T", "@R re, @R im", "return (@R2) (re, im);"},
    {"fromreal", "@T", "@R a", "return @P_new(a, 0);"},
    {"cast", "@T", "@U a", "return @P_new(a.x, a.y);"},
    {"real", "@R", "@T a", "return a.x;"},
    {"imag", "@R", "@T a", "return a.y;"},
    {"abs", "@R", "@T a", "return hypot(a.x, a.y);"},
    {"conj", "@T", "@T a", "return @P_new(a.x, -a.y);"},
    {"neg", "@T", "@T a", "return @P_new(-a.x, -a.y);"},
    {"eq", "int", "@T a, @T b", "return a.x == b.x && a.y == b.y;"},
    {"add", "@T", "@T a, @T b", "return @P_new(a.x + b.x, a.y + b.y);"},
    {"addr", "@T", "@T a, @R b", "return @P_new(a.x + b, a.y);"},
    {"radd", "@T", "@R a, @T b", "return @P_new(a + b.x, b.y);"},
    {"sub", "@T", "@T a, @T b", "return @P_new(a.x - b.x, a.y - b.y);"},
    {"subr", "@T", "@T a, @R b", "return @P_new(a.x - b, a.y);"},
    {"rsub", "@T", "@R a, @T b", "return @P_new(a - b.x, -b.y);"},
    {"mul", "@T", "@T a, @T b", "return @P_new(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);"},
    {"mulr", "@T", "@T a, @R b", "return @P_new(a.x * b, a.y * b);"},
    {"rmul", "@T", "@R a, @T b", "return @P_new(a * b.x, a * b.y);"},
    // Smith's algorithm: no overflow in |b|^2.
    {"divide", "@T", "@T a, @T b",
     "if (fabs(b.x) >= fabs(b.y))\n{\n  @R r = b.y / b.x;\n  @R d = b.x + b.y * r;\n"
     "  return @P_new((a.x + a.y * r) / d, (a.y - a.x * r) / d);\n}\n"
     "@R r = b.x / b.y;\n@R d = b.x * r + b.y;\nreturn @P_new((a.x * r + a.y) / d, (a.y * r - a.x) / d);"},
    {"divider", "@T", "@T a, @R b", "return @P_new(a.x / b, a.y / b);"},
    {"rdivide", "@T", "@R a, @T b", "return @P_divide(@P_fromreal(a), b);"},
    {"exp", "@T", "@T a", "@R e = exp(a.x);\nreturn @P_new(e * cos(a.y), e * sin(a.y));"},
    {"log", "@T", "@T a", "return @P_new(log(hypot(a.x, a.y)), atan2(a.y, a.x));"},
    {"sqrt", "@T", "@T a",
     "@R m = hypot(a.x, a.y);\nif (m == 0)\n  return @P_new(0, 0);\nif (a.x > 0)\n{\n"
     "  @R t = sqrt((@R) 0.5 * (m + a.x));\n  return @P_new(t, (@R) 0.5 * a.y / t);\n}\n"
     "@R t = sqrt((@R) 0.5 * (m - a.x));\nif (a.y < 0)\n  t = -t;\nreturn @P_new((@R) 0.5 * a.y / t, t);"},
    {"sin", "@T", "@T a", "return @P_new(sin(a.x) * cosh(a.y), cos(a.x) * sinh(a.y));"},
    {"cos", "@T", "@T a", "return @P_new(cos(a.x) * cosh(a.y), -sin(a.x) * sinh(a.y));"},
    {"sinh", "@T", "@T a", "return @P_new(sinh(a.x) * cos(a.y), cosh(a.x) * sin(a.y));"},
    {"cosh", "@T", "@T a", "return @P_new(cosh(a.x) * cos(a.y), sinh(a.x) * sin(a.y));"},
    {"tan", "@T", "@T a", "return @P_divide(@P_sin(a), @P_cos(a));"},
    {"tanh", "@T", "@T a", "return @P_divide(@P_sinh(a), @P_cosh(a));"},
    {"pow", "@T", "@T a, @T b",
     "if (a.x == 0 && a.y == 0)\n  return @P_new(b.x == 0 && b.y == 0 ? 1 : 0, 0);\n"
     "return @P_exp(@P_mul(b, @P_log(a)));"},
};

const ComplexFn& complex_template(const std::string& op) {
    for (const ComplexFn& f : kComplexFns)
        if (f.op == op) return f;
    internal_assert(false, "no complex helper '", op, "'");
    return kComplexFns[0];
}

// The helpers a complex template uses (`@P_name(`).
std::vector<std::string> complex_dependencies(std::string_view text) {
    std::vector<std::string> out;
    for (std::size_t at = text.find("@P_"); at != std::string_view::npos; at = text.find("@P_", at + 3)) {
        const std::size_t end = text.find('(', at);
        out.emplace_back(text.substr(at + 3, end - at - 3));
    }
    return out;
}

std::string indented(const std::string& body) {
    std::string out;
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
    return out;
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

void CExprPrinter::set_statement_inames(std::vector<std::string> inames) {
    std::erase_if(inames, [&](const std::string& i) { return !is_iname(k_, i); });
    facts_ = &domain_facts_[inames];
    statement_inames_ = std::move(inames);
}

const isl::set& CExprPrinter::statement_domain() {
    if (!facts_->domain) facts_->domain = domain_of(k_, statement_inames_);
    return *facts_->domain;
}

// A lower bound of `e` on the statement's domain from the smallest value of each of its inames, where `e` is a
// sum of numbers and of inames times non-negative numbers (the subscripts of unrolled copies); nullopt
// otherwise. It spares isl a question per copy: the minimum of each iname is asked once per domain.
std::optional<long> CExprPrinter::lower_bound(const ExprPtr& e) {
    if (e->kind == ExprKind::IntLit) return e->ival;
    if (e->kind == ExprKind::Var) {
        if (std::find(statement_inames_.begin(), statement_inames_.end(), e->name) == statement_inames_.end())
            return std::nullopt;
        const auto known = facts_->iname_minimum.find(e->name);
        if (known != facts_->iname_minimum.end()) return known->second;
        const isl::set values = isl_util::project_onto(statement_domain(), {e->name});
        std::optional<long> least;
        if (isl_util::has_lower_bound(values, 0))
            if (const std::optional<long> most = isl_util::static_max(isl_util::scale(isl_util::dim_min(values, 0), -1),
                                                                        assumption_context(k_)))
                least = -*most;
        return facts_->iname_minimum[e->name] = least;
    }
    if (e->kind != ExprKind::Binary) return std::nullopt;
    if (e->op == BinOp::Add) {
        const std::optional<long> a = lower_bound(e->args[0]), b = lower_bound(e->args[1]);
        long sum = 0;
        if (!a || !b || __builtin_add_overflow(*a, *b, &sum)) return std::nullopt;
        return sum;
    }
    if (e->op != BinOp::Mul) return std::nullopt;
    for (std::size_t c = 0; c < 2; ++c) {
        const ExprPtr& factor = e->args[c];
        if (factor->kind != ExprKind::IntLit || factor->ival < 0) continue;
        const std::optional<long> other = lower_bound(e->args[1 - c]);
        long product = 0;
        if (!other || __builtin_mul_overflow(factor->ival, *other, &product)) return std::nullopt;
        return product;
    }
    return std::nullopt;
}

// Whether isl proves `e` >= 0 on the statement's domain (under the assumptions); false where `e` is not affine
// in inames and parameters. Unrolled copies of a statement ask again about the same operands (a bound in the
// parameters): each is answered once.
bool CExprPrinter::nonnegative(const ExprPtr& e) {
    try {
        if (const std::optional<long> least = lower_bound(e); least && *least >= 0) return true;
        const std::string text = to_string(e);
        if (const auto known = facts_->nonnegative.find(text); known != facts_->nonnegative.end()) return known->second;
        const std::optional<isl::pw_aff> value = affine::to_pw_aff(e, statement_domain());
        return facts_->nonnegative[text] = value && value->domain().is_subset(value->ge_set(value->scale(0)));
    } catch (const isl::exception&) {
        return false;
    }
}

std::string CExprPrinter::print(const ExprPtr& e, DType want) {
    const Printing scope(*this);
    return print_prec(e, want, 0);
}

std::string CExprPrinter::print_prec(const ExprPtr& e, DType want, int parent_prec, bool right_operand) {
    int prec = kPrimary;
    const std::string s = print_node(e, want, prec);
    return parenthesized_if(s, prec, parent_prec, right_operand);
}

std::string CExprPrinter::literal(const ExprPtr& e, DType want) const {
    const DType w = real_part_type(want);
    if (e->kind == ExprKind::IntLit) {
        if (is_float(w)) return float_literal(static_cast<double>(e->ival), w);
        // The most negative int64 has no literal of its own in C.
        if (e->ival == INT64_MIN) return "(-9223372036854775807 - 1)";
        return std::to_string(e->ival);
    }
    const DType t = e->dtype != DType::Unknown ? e->dtype : is_float(w) ? w : float_literal_type(e->fval);
    return float_literal(e->fval, t);
}

std::string CExprPrinter::imaginary_unit() const {
    return (find_variable(k_, "I") || is_iname(k_, "I")) ? "_Complex_I" : "I";
}

std::string CExprPrinter::imag_literal(const ExprPtr& e, DType want, int& prec) {
    const DType t = e->dtype != DType::Unknown ? e->dtype : is_complex(want) ? want : imag_literal_type(e->fval);
    const DType r = real_part_type(t);
    complex_types_.insert(t);
    if (complex_helpers())
        return complex_fn("new", t) + "(" + float_literal(0, r) + ", " + float_literal(e->fval, r) + ")";
    target_.require_complex_support();
    prec = kMul;
    return float_literal(e->fval, r) + " * " + imaginary_unit();
}

std::string CExprPrinter::converted(const ExprPtr& e, DType to, int parent_prec, bool right_operand) {
    const ExprType from = typer_.type(e);
    // Untyped literals are printed in the wanted type directly; OpenCL's complex types are vectors, which a
    // real would fill in both components.
    const bool real_to_vector = complex_helpers() && is_complex(to) && !is_complex(from.dtype);
    if (from.dtype == to || to == DType::Unknown || (from.weak && !real_to_vector))
        return print_prec(e, to, parent_prec, right_operand);
    if (is_complex(to)) complex_types_.insert(to);
    if (is_complex(to) && complex_helpers())
        return complex_fn(is_complex(from.dtype) ? "cast" : "fromreal", to) + "(" + print(e, to) + ")";
    const std::string s = "(" + target_.scalar_type(to) + ") " + through_int(from.dtype, to) + print_prec(e, DType::Unknown, kUnary);
    return parenthesized_if(s, kUnary, parent_prec, right_operand);
}

// C leaves a floating-point value outside a small integer type's range undefined when converted to it (OpenCL
// too, unless saturated): converted to int first, it wraps as numpy's astype does.
std::string CExprPrinter::through_int(DType from, DType to) const {
    return is_floating(from) && is_integer(to) && dtype_size(to) < 4 ? "(int) " : "";
}

bool CExprPrinter::needs_casts(const ExprPtr& a, const ExprPtr& b, DType t) {
    const DType c = c_arithmetic_type(typer_.type(a).dtype, typer_.type(b).dtype);
    return t != DType::Bool && !computes_as(c, t);
}

std::string CExprPrinter::operand(const ExprPtr& x, DType t, int parent_prec, bool right_operand, bool cast) {
    return cast ? converted(x, t, parent_prec, right_operand) : print_prec(x, t, parent_prec, right_operand);
}

std::string CExprPrinter::print_node(const ExprPtr& e, DType want, int& prec) {
    switch (e->kind) {
        case ExprKind::IntLit:
        case ExprKind::FloatLit: {
            std::string s = literal(e, want);
            if (s[0] == '-') prec = kUnary;
            return s;
        }
        case ExprKind::ImagLit: return imag_literal(e, want, prec);
        case ExprKind::Var: {
            if (const auto hw = hardware_text_.find(e->name); hw != hardware_text_.end()) return hw->second;
            const Variable* v = find_variable(k_, e->name);
            // 0-d arrays and scalar global temporaries are passed by pointer.
            const bool by_pointer = v && v->shape.empty() &&
                                    (v->kind == VarKind::Temporary ? v->address_space == AddressSpace::Global : v->is_array);
            if (by_pointer) return e->name + "[" + (v->offset ? print(v->offset) : "0") + "]";
            return e->name;
        }
        case ExprKind::Subscript: return print_subscript(e);
        case ExprKind::Call: return print_call(e, prec);
        case ExprKind::Binary: return print_binary(e, want, prec);
        case ExprKind::Unary: return print_unary(e, want, prec);
        case ExprKind::If: return print_if(e, want, prec);
        case ExprKind::Cast: return print_cast(e, prec);
        case ExprKind::Reduction:
            user_error(error_kind::LoopyError, "reduction '", to_string(e), "' must be realized before code generation");
        case ExprKind::SubArrayRef:
            internal_assert(false, "sub-array reference '", to_string(e), "' outside an inlined call");
    }
    return "";
}

std::string CExprPrinter::print_unary(const ExprPtr& e, DType want, int& prec) {
    const DType t = typer_.type(e).dtype;
    const ExprPtr& x = e->args[0];
    prec = kUnary;
    if (e->unop == "not") return "!" + print_prec(x, DType::Unknown, kUnary);
    // numpy's ~ on a bool is logical negation; C's would turn true into -2.
    if (e->unop == "~") return (t == DType::Bool ? "!" : "~") + print_prec(x, DType::Unknown, kUnary);
    if (is_integer(t)) return print_integer_sum(e, t, prec);
    if (is_floating(t)) return print_negation(x, t, prec, false);
    return "-" + print_prec(x, want, kUnary);
}

// `-x` in type `t` as loopy prints it, a product by -1 (`-1.0f * x`); a complex on OpenCL through `cfloat_neg`.
std::string CExprPrinter::print_negation(const ExprPtr& x, DType t, int& prec, bool cast) {
    if (is_complex(t) && complex_helpers()) {
        prec = kPrimary;
        return complex_fn("neg", t) + "(" + converted(x, t, 0) + ")";
    }
    if (x->kind == ExprKind::IntLit) return print_node(int_lit(-x->ival), t, prec);
    if (x->kind == ExprKind::FloatLit) return print_node(float_lit(-x->fval, x->dtype), t, prec);
    prec = kMul;
    // `x` is the right operand of that `*`: `-1.0 * (i % 3)` keeps its parentheses. A negation needs none
    // (`-1.0 * -1.0 * x` is exact either way), and a long chain of them would pass the compilers' nesting limit.
    const bool negation = x->kind == ExprKind::Unary && x->unop == "-";
    return float_literal(-1, real_part_type(t)) + " * " + operand(x, t, kMul, !negation, cast);
}

std::string CExprPrinter::print_term(const ExprPtr& term, DType sum_type, int parent_prec, bool right_operand) {
    // A term of the other signedness is cast, so that C computes in the sum's (numpy's) type.
    const DType tt = sum_type == DType::Unknown ? DType::Unknown : typer_.type(term).dtype;
    if (is_integer(tt) && tt != sum_type && is_signed(tt) != is_signed(sum_type))
        return parenthesized_if("(" + target_.scalar_type(sum_type) + ") " + print_prec(term, DType::Unknown, kUnary), kUnary,
                                parent_prec, right_operand);
    // A product of non-constants is where flattening stops: print it as it stands.
    if (term->kind == ExprKind::Binary && term->op == BinOp::Mul) {
        const std::string s = print_prec(term->args[0], DType::Unknown, kMul) + " * " +
                              print_prec(term->args[1], DType::Unknown, kMul, true);
        return parenthesized_if(s, kMul, parent_prec, right_operand);
    }
    return print_prec(term, DType::Unknown, parent_prec, right_operand);
}

std::string CExprPrinter::print_integer_sum(const ExprPtr& e, DType t, int& prec, bool constant_last) {
    std::vector<Term> terms;
    flatten_sum(e, 1, terms);
    std::int64_t constant = 0;
    std::vector<std::string> parts;
    for (const Term& term : terms) {
        if (term.e) continue;
        std::int64_t sum = 0;
        if (__builtin_add_overflow(constant, term.coef, &sum))
            parts.push_back(std::to_string(term.coef));  // past 64 bits the constants stay apart
        else
            constant = sum;
    }
    for (const Term& term : terms) {
        if (!term.e || term.coef == 0) continue;
        if (term.coef == 1)
            parts.push_back(print_term(term.e, t, kAdd + 1, false));
        else
            parts.push_back(std::to_string(term.coef) + " * " + print_term(term.e, t, kMul, true));
    }
    const bool subtracted = constant_last && constant < 0 && constant != std::numeric_limits<std::int64_t>::min() &&
                            !parts.empty();  // `i - 1`, not `i + -1`
    if (constant != 0) parts.insert(constant_last ? parts.end() : parts.begin(), std::to_string(subtracted ? -constant : constant));
    if (parts.empty()) return "0";
    if (parts.size() > 1) {
        prec = kAdd;
    } else {
        const bool single_term = constant == 0 && parts[0].find(' ') != std::string::npos;
        prec = parts[0][0] == '-' ? kUnary : single_term ? kMul : kPrimary;
    }
    std::string out = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) out += (subtracted && i + 1 == parts.size() ? " - " : " + ") + parts[i];
    return out;
}

std::string CExprPrinter::guard(const ExprPtr& cond) {
    const Printing scope(*this);
    if (cond->kind == ExprKind::Binary && cond->op == BinOp::And) return guard(cond->args[0]) + " && " + guard(cond->args[1]);
    const bool comparison = cond->kind == ExprKind::Binary && cond->op >= BinOp::Eq && cond->op <= BinOp::Ge &&
                            cond->op != BinOp::Ne;
    if (!comparison || !is_integer(typer_.type(cond->args[0]).dtype) || !is_integer(typer_.type(cond->args[1]).dtype))
        return print(cond);
    const ExprPtr& a = cond->args[0];
    const ExprPtr& b = cond->args[1];
    ExprPtr diff;
    switch (cond->op) {
        case BinOp::Ge: case BinOp::Eq: diff = binary(BinOp::Sub, a, b); break;
        case BinOp::Le: diff = binary(BinOp::Sub, b, a); break;
        case BinOp::Gt: diff = binary(BinOp::Sub, binary(BinOp::Sub, a, b), int_lit(1)); break;
        default: diff = binary(BinOp::Sub, binary(BinOp::Sub, b, a), int_lit(1)); break;
    }
    return print(canonical_sum(diff)) + (cond->op == BinOp::Eq ? " == 0" : " >= 0");
}

ExprPtr CExprPrinter::canonical_sum(const ExprPtr& e) const {
    std::vector<Term> terms;
    flatten_sum(e, 1, terms);
    const std::vector<std::string> inames = all_inames(k_);
    auto rank = [&](const Term& t) -> std::size_t {
        if (!t.e) return 0;
        std::size_t best = inames.size() + 1;
        for (const std::string& n : referenced_names(t.e)) {
            const auto it = std::find(inames.begin(), inames.end(), n);
            if (it != inames.end()) best = std::min(best, 1 + static_cast<std::size_t>(it - inames.begin()));
        }
        return best;
    };
    std::stable_sort(terms.begin(), terms.end(), [&](const Term& x, const Term& y) { return rank(x) < rank(y); });
    ExprPtr sum;
    for (const Term& t : terms) {
        const ExprPtr term = !t.e ? int_lit(t.coef) : t.coef == 1 ? t.e : binary(BinOp::Mul, int_lit(t.coef), t.e);
        sum = sum ? binary(BinOp::Add, sum, term) : term;
    }
    return sum ? sum : int_lit(0);
}

std::string CExprPrinter::print_binary(const ExprPtr& e, DType want, int& prec) {
    const DType t = typer_.type(e).dtype;
    switch (e->op) {
        case BinOp::And:
        case BinOp::Or: {
            const CBinOp c = c_binop(e->op);
            prec = c.prec;
            return print_prec(e->args[0], DType::Unknown, c.prec) + " " + c.text + " " +
                   print_prec(e->args[1], DType::Unknown, c.prec, true);
        }
        case BinOp::Eq: case BinOp::Ne: case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge:
            return print_comparison(e, prec);
        case BinOp::FloorDiv:
        case BinOp::Mod: return print_floor_div(e, prec);
        case BinOp::Pow: return print_pow(e, prec);
        case BinOp::Div: {
            const DType ta = typer_.type(e->args[0]).dtype, tb = typer_.type(e->args[1]).dtype;
            if (!is_floating(ta) && !is_floating(tb)) return print_true_division(e, want, prec);
            break;
        }
        case BinOp::Add: case BinOp::Sub: case BinOp::Mul:
            if (is_integer(t)) return print_integer_sum(e, t, prec);
            break;
        default: break;
    }
    if (is_complex(t)) return print_complex_arithmetic(e, t, prec);
    return print_arithmetic(e, t, prec);
}

// A real operation printed with C's operator; a floating subtraction as loopy prints it (`a + -1.0f * b`).
std::string CExprPrinter::print_arithmetic(const ExprPtr& e, DType t, int& prec) {
    const CBinOp c = c_binop(e->op);
    const bool cast = needs_casts(e->args[0], e->args[1], t);
    if (e->op == BinOp::Sub && is_float(t)) {
        int neg_prec = kPrimary;
        const std::string neg = print_negation(e->args[1], t, neg_prec, cast);
        prec = kAdd;
        return operand(e->args[0], t, kAdd, false, cast) + " + " + parenthesized_if(neg, neg_prec, kAdd, true);
    }
    prec = c.prec;
    return operand(e->args[0], t, c.prec, false, cast) + " " + c.text + " " + operand(e->args[1], t, c.prec, true, cast);
}

std::string CExprPrinter::print_comparison(const ExprPtr& e, int& prec) {
    const DType t = typer_.operation_type(e->args);
    if (is_complex(t) && complex_helpers()) {
        const std::string eq =
            complex_fn("eq", t) + "(" + converted(e->args[0], t, 0) + ", " + converted(e->args[1], t, 0) + ")";
        if (e->op == BinOp::Eq) return eq;
        prec = kUnary;
        return "!" + eq;
    }
    const CBinOp c = c_binop(e->op);
    prec = c.prec;
    const bool cast = is_complex(t) || needs_casts(e->args[0], e->args[1], t);
    return operand(e->args[0], t, c.prec, false, cast) + " " + c.text + " " + operand(e->args[1], t, c.prec, true, cast);
}

// True division of integers (numpy semantics): both sides converted to the floating type wanted (loopy's
// type context), float64 by default.
std::string CExprPrinter::print_true_division(const ExprPtr& e, DType want, int& prec) {
    const DType ft = is_float(want) ? want : DType::Float64;
    const std::string ct = "(" + target_.scalar_type(ft) + ") ";
    prec = kMul;
    return ct + print_prec(e->args[0], DType::Unknown, kUnary) + " / " + ct + print_prec(e->args[1], DType::Unknown, kUnary);
}

std::string CExprPrinter::print_floor_div(const ExprPtr& e, int& prec) {
    // Untyped only in isl's loop bounds, on indices.
    const DType et = typer_.type(e).dtype, t = et == DType::Unknown ? k_.options.index_dtype : et;
    const ExprPtr &a = e->args[0], &b = e->args[1];
    const bool floor_div = e->op == BinOp::FloorDiv;
    if (is_float(t)) {
        if (floor_div) return target_.math_function("floor", t) + "(" + converted(a, t, kMul) + " / " + converted(b, t, kMul, true) + ")";
        return integer_helper("mod", t) + "(" + converted(a, t, 0) + ", " + converted(b, t, 0) + ")";
    }
    const auto known_nonnegative = [&](const ExprPtr& x) {
        const DType tx = typer_.type(x).dtype;
        return (is_integer(tx) && !is_signed(tx)) || tx == DType::Bool || nonnegative(x);
    };
    const std::string base = floor_div ? "floor_div" : "mod";
    const bool nonzero_literal = b->kind == ExprKind::IntLit && b->ival != 0;
    if (known_nonnegative(b)) {
        // On C a division by zero kills the process: unless the divisor is a literal, the helper guards it.
        if (known_nonnegative(a) && (nonzero_literal || !target_.integer_division_traps())) {
            prec = kMul;
            return print_prec(a, t, kMul) + (floor_div ? " / " : " % ") + print_prec(b, t, kMul, true);
        }
        return integer_helper(base + "_pos_b", t) + "(" + print(a, t) + ", " + print(b, t) + ")";
    }
    return integer_helper(base, t) + "(" + print(a, t) + ", " + print(b, t) + ")";
}

std::string CExprPrinter::print_pow(const ExprPtr& e, int& prec) {
    const DType t = typer_.type(e).dtype;
    const ExprPtr &base = e->args[0], &exponent = e->args[1];
    const DType te = typer_.type(exponent).dtype;
    // Small constant exponents need no call, as loopy prints them (a complex power is converted to its
    // type, which may be wider than the base's).
    const bool small = exponent->kind == ExprKind::IntLit && exponent->ival >= 0 && exponent->ival <= 2;
    if (small && exponent->ival > 0) {
        const ExprPtr value = exponent->ival == 1 ? base : binary(BinOp::Mul, base, base);
        return is_complex(t) ? converted(value, t, kPrimary) : print_node(value, t, prec);
    }
    if (small && !is_complex(t)) return literal(int_lit(1), t);
    if (is_complex(t)) return print_complex_call(call("pow", {base, exponent}), t);
    if (is_integer(te) || te == DType::Bool)
        return pow_helper(t, te) + "(" + converted(base, t, 0) + ", " + print(exponent) + ")";
    return target_.math_function("pow", t) + "(" + converted(base, t, 0) + ", " + converted(exponent, t, 0) + ")";
}

// Complex + - * /: C99's operators on the C target (after bringing complex operands to the result's
// precision), pyopencl-complex's functions on OpenCL, chosen by which operands are complex (`cfloat_mulr`).
std::string CExprPrinter::print_complex_arithmetic(const ExprPtr& e, DType t, int& prec) {
    const ExprPtr &a = e->args[0], &b = e->args[1];
    const bool ca = is_complex(typer_.type(a).dtype), cb = is_complex(typer_.type(b).dtype);
    const DType r = real_part_type(t);
    // Type inference lets only these operators reach complex operands.
    internal_assert(e->op == BinOp::Add || e->op == BinOp::Sub || e->op == BinOp::Mul || e->op == BinOp::Div,
                    "complex operands of '", binop_text(e->op), "'");
    complex_types_.insert(t);
    if (!complex_helpers()) {
        const CBinOp c = c_binop(e->op);
        prec = c.prec;
        return (ca ? converted(a, t, c.prec) : print_prec(a, r, c.prec)) + " " + c.text + " " +
               (cb ? converted(b, t, c.prec, true) : print_prec(b, r, c.prec, true));
    }
    const std::string op = e->op == BinOp::Add ? "add" : e->op == BinOp::Sub ? "sub" : e->op == BinOp::Mul ? "mul" : "divide";
    const std::string name = !ca ? "r" + op : !cb ? (op == "divide" ? "divider" : op + "r") : op;
    return complex_fn(name, t) + "(" + (ca ? converted(a, t, 0) : print(a, r)) + ", " + (cb ? converted(b, t, 0) : print(b, r)) + ")";
}

std::string CExprPrinter::print_if(const ExprPtr& e, DType want, int& prec) {
    prec = kCond;
    const ExprType t = typer_.type(e);
    // Literal branches are printed in the type the enclosing operation wants, as loopy passes it down.
    const DType w = t.weak && is_float(want) ? want : t.dtype;
    // OpenCL's ?: takes no floating-point condition: it is compared with zero, C's truth test.
    const bool float_cond = is_float(typer_.type(e->args[0]).dtype);
    const std::string cond = (float_cond ? print_prec(e->args[0], DType::Unknown, kEq) + " != 0"
                                         : print_prec(e->args[0], DType::Unknown, kOr)) + " ? ";
    const bool cast = is_complex(w) || needs_casts(e->args[1], e->args[2], w);
    return cond + operand(e->args[1], w, kOr, false, cast) + " : " + operand(e->args[2], w, kCond, false, cast);
}

std::string CExprPrinter::print_cast(const ExprPtr& e, int& prec) {
    const DType from = typer_.type(e->args[0]).dtype;
    if (is_complex(e->dtype) && complex_helpers()) {
        if (from == e->dtype) return print_node(e->args[0], e->dtype, prec);
        return converted(e->args[0], e->dtype, 0);
    }
    prec = kUnary;
    const std::string value = print(e->args[0], e->dtype), via = through_int(from, e->dtype);
    return "(" + target_.scalar_type(e->dtype) + ") (" + (via.empty() ? value : via + "(" + value + ")") + ")";
}

std::string CExprPrinter::print_call(const ExprPtr& e, int& prec) {
    if (const ScalarFunction* f = find_function(k_.functions, e->name)) {
        typer_.type(e);  // checks the argument count
        std::vector<std::string> args;
        for (std::size_t i = 0; i < e->args.size(); ++i) args.push_back(converted(e->args[i], f->params[i].dtype, 0));
        return f->name + "(" + join_args(args) + ")";
    }
    CallTypes ct = typer_.call_types(e);
    // Instructions are fully typed by now: what is not are isl's min/max of loop bounds, on indices.
    if (ct.args == DType::Unknown) ct = {k_.options.index_dtype, k_.options.index_dtype};
    if (is_complex(ct.args)) return print_complex_call(e, ct.args);
    return print_real_call(e, ct.args, prec);
}

std::string CExprPrinter::print_real_call(const ExprPtr& e, DType t, int& prec) {
    const std::string& f = e->name;
    const bool c_like = !target_.overloaded_integer_builtins();
    if (f == "real" || f == "conj") return print_node(e->args[0], t, prec);
    if (f == "imag") return literal(int_lit(0), t);
    std::vector<std::string> args;
    for (const ExprPtr& a : e->args) {
        // OpenCL's integer builtins are overloaded: a literal needs the argument type spelled out.
        const bool typed_literal = !c_like && is_integer(t) && t != DType::Int32 && typer_.type(a).weak;
        args.push_back(typed_literal ? "(" + target_.scalar_type(t) + ") " + print_prec(a, t, kUnary) : converted(a, t, 0));
    }
    const std::string list = "(" + join_args(args) + ")";
    if (f == "abs" && is_integer(t) && is_signed(t)) {
        if (c_like) return (t == DType::Int64 ? "llabs" : "abs") + list;
        // OpenCL's abs returns the unsigned type; numpy keeps the signed one.
        prec = kUnary;
        return "(" + target_.scalar_type(t) + ") abs" + list;
    }
    if (f == "abs" && !is_float(t)) return print_node(e->args[0], t, prec);  // unsigned or bool
    if (f == "abs") return target_.math_function("fabs", t) + list;
    if ((f == "min" || f == "max") && !is_float(t)) return (c_like ? min_max_helper(f, t) : f) + list;
    if (f == "min" || f == "max") return target_.math_function("f" + f, t) + list;
    if (f == "clamp" && c_like) {  // OpenCL's builtin, for integers and floats
        const std::string ct = target_.scalar_type(t);
        return define("lpy_clamp_" + dtype_name(t), ct, ct + " x, " + ct + " lo, " + ct + " hi",
                      "return x < lo ? lo : (x > hi ? hi : x);") + list;
    }
    if (f == "rsqrt" && !target_.has_rsqrt()) {
        prec = kMul;
        return float_literal(1, t) + " / " + target_.math_function("sqrt", t) + list;
    }
    return target_.math_function(f, t) + list;
}

std::string CExprPrinter::print_complex_call(const ExprPtr& e, DType t) {
    complex_types_.insert(t);
    std::vector<std::string> args;
    for (const ExprPtr& a : e->args) args.push_back(converted(a, t, 0));
    const std::string list = "(" + join_args(args) + ")";
    if (complex_helpers()) return complex_fn(e->name, t) + list;
    target_.require_complex_support();
    const std::string suffix = t == DType::Complex64 ? "f" : "";
    if (e->name == "conj") return "conj" + suffix + list;
    return "c" + e->name + suffix + list;
}

namespace {

// The index of subscript `e` along axis `j` of `v`, which its tag needs to be a constant once unrolled loops
// have their values (loopy's message).
std::int64_t constant_index(const Variable& v, const ExprPtr& e, std::size_t j, const char* tag) {
    const std::optional<std::int64_t> n = eval_int(e->args[j], {});
    if (!n) {
        user_error(error_kind::LoopyError, "When trying to index the array '", v.name, "' along axis ", j, " (tagged '", tag,
                   "'), the index was not a compile-time constant (but it has to be in order for code to be ",
                   "generated). You likely want to unroll the iname(s) '", join(referenced_names(e->args[j]), ", "), "'.");
    }
    const std::optional<std::int64_t> extent = eval_int(v.shape[j], {});
    user_assert(*n >= 0 && extent && *n < *extent, error_kind::LoopyError, "subscript '", to_string(e), "' is out of bounds along ",
                "axis ", j, " (tagged '", tag, "') of '", v.name, "'");
    return *n;
}

}  // namespace

std::string CExprPrinter::print_subscript(const ExprPtr& e) {
    const Variable* v = find_variable(k_, e->name);
    user_assert(v != nullptr && v->is_array, error_kind::LoopyError, "'", e->name, "' is subscripted but is not an array");
    for (const ExprPtr& index : e->args) {
        const DType t = typer_.type(index).dtype;
        user_assert(!is_float(t) && !is_complex(t), error_kind::LoopyError, "index '", to_string(index), "' of '", to_string(e),
                    "' is a ", dtype_name(t), ": array indices must be integers");
    }
    if (e->linear || v->storage_indexed()) return print_storage_subscript(*v, e);
    internal_assert(v->strides.size() == e->args.size(), "'", e->name, "' has ", v->strides.size(),
                    " axes but is indexed with ", e->args.size(), " indices (check_indices_match_axes)");
    const std::vector<std::size_t> seps = sep_axes(*v);
    // A target with vector types indexes an array of vectors in whole vectors and picks an entry with `.sN`;
    // the other targets index its scalars.
    const std::optional<std::size_t> vec = target_.has_vector_types() ? vec_axis(*v) : std::nullopt;
    const auto scaled = [&](const ExprPtr& x) { return vec ? stride_in_vectors(*v, x) : x; };
    std::vector<std::int64_t> piece;
    std::string entry;
    ExprPtr flat = v->offset ? scaled(v->offset) : nullptr;
    for (std::size_t j = 0; j < e->args.size(); ++j) {
        if (std::find(seps.begin(), seps.end(), j) != seps.end()) {
            piece.push_back(constant_index(*v, e, j, "sep"));
            continue;
        }
        if (vec && j == *vec) {
            const bool whole = e->args[j]->kind == ExprKind::Var && e->args[j]->name == vector_iname_;
            if (!whole) entry = cat(".s", "0123456789abcdef"[constant_index(*v, e, j, "vec")]);
            continue;
        }
        const ExprPtr s = scaled(v->strides[j]);
        // Each index prints as loopy prints affine expressions: constant first, then inames in domain order.
        const ExprPtr idx = is_integer(typer_.type(e->args[j]).dtype) ? canonical_sum(e->args[j]) : e->args[j];
        const ExprPtr term = (s->kind == ExprKind::IntLit && s->ival == 1) ? idx : binary(BinOp::Mul, s, idx);
        flat = flat ? binary(BinOp::Add, flat, term) : term;
    }
    int prec = kPrimary;
    const std::string name = piece.empty() ? e->name : sep_piece_name(*v, piece);
    if (vec && is_single_vector(*v)) return name + entry;
    return name + "[" + (flat ? print_integer_sum(flat, DType::Unknown, prec, target_.constant_offset_last()) : "0") +
           "]" + entry;
}

// A subscript that indexes the storage of `v` itself: a linear subscript a[[e]], or any index of an array
// without a shape (loopy's shape=None), which has no axes to implement.
std::string CExprPrinter::print_storage_subscript(const Variable& v, const ExprPtr& e) {
    user_assert(e->args.size() == 1, error_kind::LoopyError, "array '", v.name, "' has no shape, so only one index (into its ",
                "storage) is allowed: '", to_string(e), "' has ", e->args.size(), " (declare a shape, or lp.auto)");
    user_assert(sep_axes(v).empty() && !vec_axis(v), error_kind::LoopyError, "the linear subscript '", to_string(e),
                "' cannot index '", v.name, "', which has sep or vec axes");
    const ExprPtr idx = is_integer(typer_.type(e->args[0]).dtype) ? canonical_sum(e->args[0]) : e->args[0];
    const ExprPtr flat = v.offset ? binary(BinOp::Add, v.offset, idx) : idx;
    int prec = kPrimary;
    return e->name + "[" + print_integer_sum(flat, DType::Unknown, prec) + "]";
}

std::string CExprPrinter::assignment(const ExprPtr& lhs, const ExprPtr& rhs) {
    const Printing scope(*this);
    const DType lt = typer_.type(lhs).dtype;
    const ExprType rt = typer_.type(rhs);
    std::string value;
    if (is_complex(lt) && complex_helpers()) {
        value = converted(rhs, lt, 0);
    } else {
        value = print(rhs, lt);
        // An untyped literal is printed in the left-hand side's type: no cast, except for an integer one
        // becoming floating (loopy's `(float) (0.0f)`).
        const bool printed_as_lhs = rt.weak && is_floating(rt.dtype) == is_floating(lt);
        const std::string via = through_int(rt.dtype, lt);
        if (!via.empty()) value = via + "(" + value + ")";
        if (rt.dtype != lt && !printed_as_lhs) value = "(" + target_.scalar_type(lt) + ") (" + value + ")";
    }
    return print(lhs) + " = " + value + ";";
}

// --- Helper functions

std::string CExprPrinter::define(const std::string& name, const std::string& ret, const std::string& params,
                                 const std::string& body) {
    const bool known = std::any_of(helpers_.begin(), helpers_.end(), [&](const auto& h) { return h.first == name; });
    if (known) return name;
    helpers_.emplace_back(name, target_.helper_qualifier() + " " + ret + " " + name + "(" + params + ")\n{\n" + indented(body) + "}\n");
    return name;
}

// What an integer division by `b` that traps (on the C target) gives instead: by zero 0, and the most negative
// int or long by -1 its wrapped negation (modulo 0), as numpy's. OpenCL C leaves both unspecified.
std::string CExprPrinter::division_guards(const std::string& op, DType t) const {
    if (!target_.integer_division_traps() || is_float(t)) return "";
    std::string out = "if (b == 0)\n  return 0;\n";
    if (op.find("_pos_b") != std::string::npos || (t != DType::Int32 && t != DType::Int64)) return out;
    const std::string unsigned_type = target_.scalar_type(t == DType::Int32 ? DType::UInt32 : DType::UInt64);
    const std::string negated = "(" + target_.scalar_type(t) + ") (0u - (" + unsigned_type + ") a)";
    return out + "if (b == -1)\n  return " + (op == "floor_div" ? negated : "0") + ";\n";
}

// Python's floor division and modulo (loopy's loopy_floor_div_int32, ...); `_pos_b` variants for a divisor
// known to be non-negative. The float modulo takes fmod's remainder to the divisor's sign.
std::string CExprPrinter::integer_helper(const std::string& op, DType t) {
    const std::string ct = target_.scalar_type(t);
    std::string body = division_guards(op, t);
    if (op == "floor_div")
        body += "if ((a < 0) != (b < 0))\n  a = a - (b + (b < 0) - (b >= 0));\nreturn a / b;";
    else if (op == "floor_div_pos_b")
        body += "if (a < 0)\n  a = a - (b - 1);\nreturn a / b;";
    else if (op == "mod" && is_float(t))
        body = ct + " r = " + target_.math_function("fmod", t) + "(a, b);\nif (r != 0 && ((r < 0) != (b < 0)))\n  r = r + b;\nreturn r;";
    else if (op == "mod")
        body += ct + " r = a % b;\nif (r < 0 && b > 0)\n  r = r + b;\nif (r > 0 && b < 0)\n  r = r + b;\nreturn r;";
    else
        body += ct + " r = a % b;\nif (r < 0)\n  r = r + b;\nreturn r;";
    return define("loopy_" + op + "_" + dtype_name(t), ct, ct + " a, " + ct + " b", body);
}

// x**n by squaring (loopy's loopy_pow_<base>_<exponent>); a negative n inverts x first.
std::string CExprPrinter::pow_helper(DType base, DType exponent) {
    const std::string bt = target_.scalar_type(base), et = target_.scalar_type(exponent);
    const std::string invert = is_signed(exponent) ? "if (n < 0)\n{\n  x = 1.0 / x;\n  n = -n;\n}\n" : "";
    return define("loopy_pow_" + dtype_name(base) + "_" + dtype_name(exponent), bt, bt + " x, " + et + " n",
                  "if (n == 0)\n  return 1;\n" + invert + bt +
                      " y = 1;\nwhile (n > 1)\n{\n  if (n % 2)\n    y = x * y;\n  x = x * x;\n  n = n / 2;\n}\nreturn x * y;");
}

// Integer min/max on targets whose library has only floating fmin/fmax.
std::string CExprPrinter::min_max_helper(const std::string& f, DType t) {
    const std::string ct = target_.scalar_type(t);
    return define("lpy_" + f + "_" + dtype_name(t), ct, ct + " a, " + ct + " b",
                  std::string("return a ") + (f == "min" ? "<" : ">") + " b ? a : b;");
}

std::string CExprPrinter::complex_fn(const std::string& op, DType t) {
    const ComplexFn& f = complex_template(op);
    const std::string prefix = complex_prefix(t);
    const std::string name = prefix + "_" + op;
    complex_types_.insert(t);
    const DType other = t == DType::Complex64 ? DType::Complex128 : DType::Complex64;
    if (op == "cast") complex_types_.insert(other);
    for (const std::string& dep : complex_dependencies(std::string(f.params) + std::string(f.body)))
        complex_fn(dep, t);
    const auto fill = [&](std::string_view text) {
        std::string s = replace_all(std::string(text), "@P_", prefix + "_");
        s = replace_all(s, "@T", prefix + "_t");
        s = replace_all(s, "@U", complex_prefix(other) + "_t");
        return replace_all(s, "@R", target_.scalar_type(real_part_type(t)));
    };
    return define(name, fill(f.ret), fill(f.params), fill(f.body));
}

void CExprPrinter::adopt_helpers(const CExprPrinter& other) {
    for (const auto& h : other.helpers_)
        if (std::none_of(helpers_.begin(), helpers_.end(), [&](const auto& mine) { return mine.first == h.first; }))
            helpers_.push_back(h);
    complex_types_.insert(other.complex_types_.begin(), other.complex_types_.end());
}

std::string CExprPrinter::helper_definitions() const {
    std::set<DType> complex = complex_types_;
    for (const std::vector<Variable>* vars : {&k_.args, &k_.temporaries})
        for (const Variable& v : *vars)
            if (is_complex(v.dtype)) complex.insert(v.dtype);
    std::ostringstream os;
    if (!complex.empty()) os << target_.complex_declarations(complex);
    for (const auto& [name, text] : helpers_) os << text << "\n";
    return os.str();
}

}  // namespace loom
