#include "analysis/types.h"

#include <algorithm>

#include "ir/access.h"
#include "support/error.h"

namespace loom {

namespace {

// A weak operand adapts to a strong one of the same or a wider kind (an integer literal with float32 stays
// float32); a weak float with a strong integer gives float64, as numpy's value-based casting.
ExprType combine(ExprType a, ExprType b) {
    if (a.dtype == DType::Unknown || b.dtype == DType::Unknown) return {};
    if (a.weak && b.weak) return {promote(a.dtype, b.dtype), true};
    if (a.weak) std::swap(a, b);
    if (!b.weak) return {promote(a.dtype, b.dtype), false};
    // a strong, b weak.
    if (is_complex(a.dtype)) return a;
    if (is_float(a.dtype)) return is_complex(b.dtype) ? ExprType{promote(a.dtype, b.dtype), false} : a;
    if (is_integer(a.dtype) || a.dtype == DType::Bool) {
        if (is_integer(b.dtype)) return a.dtype == DType::Bool ? b : a;
        return {promote(DType::Float64, b.dtype), false};
    }
    return a;
}

bool is_math_function(const std::string& f) {
    static const char* const names[] = {"sin",  "cos",  "tan",   "asin", "acos", "atan", "atan2", "sinh", "cosh",
                                        "tanh", "exp",  "log",   "log10", "sqrt", "pow",  "floor", "ceil", "fabs",
                                        "erf",  "erfc", "fmod",  "exp2", "log2", "cbrt", "round", "trunc", "expm1",
                                        "log1p", "tgamma", "lgamma", "rsqrt", "asinh", "acosh", "atanh", "hypot"};
    return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return f == n; });
}

ExprType call_type(const KernelData& k, const ExprPtr& e) {
    std::vector<ExprType> args;
    for (const ExprPtr& a : e->args) args.push_back(expr_type(k, a));
    for (const ExprType& a : args)
        if (a.dtype == DType::Unknown) return {};
    const std::string& f = e->name;
    if (f == "abs" && !args.empty()) return is_complex(args[0].dtype) ? ExprType{real_part_type(args[0].dtype), false} : args[0];
    if ((f == "real" || f == "imag") && !args.empty()) return {real_part_type(args[0].dtype), false};
    if (f == "conj" && !args.empty()) return args[0];
    if (f == "min" || f == "max" || f == "fmin" || f == "fmax") {
        ExprType t = args.empty() ? ExprType{} : args[0];
        for (std::size_t i = 1; i < args.size(); ++i) t = combine(t, args[i]);
        return t;
    }
    if (is_math_function(f)) {
        ExprType t = args.empty() ? ExprType{} : args[0];
        for (std::size_t i = 1; i < args.size(); ++i) t = combine(t, args[i]);
        if (is_integer(t.dtype) || t.dtype == DType::Bool) return {DType::Float64, false};
        if (t.weak) return {t.dtype, false};
        return t;
    }
    user_error("TypeInferenceError", "unknown function '", f, "'");
}

ExprType binary_type(const KernelData& k, const ExprPtr& e) {
    const ExprType a = expr_type(k, e->args[0]), b = expr_type(k, e->args[1]);
    switch (e->op) {
        case BinOp::Eq: case BinOp::Ne: case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge:
        case BinOp::And: case BinOp::Or:
            return {DType::Bool, false};
        case BinOp::Div: {
            ExprType t = combine(a, b);
            if (is_integer(t.dtype) || t.dtype == DType::Bool) return {DType::Float64, t.weak};
            return t;
        }
        default: return combine(a, b);
    }
}

DType literal_int_type(std::int64_t v) {
    return (v >= INT32_MIN && v <= INT32_MAX) ? DType::Int32 : DType::Int64;
}

}  // namespace

ExprType expr_type(const KernelData& k, const ExprPtr& e) {
    switch (e->kind) {
        case ExprKind::IntLit: return {literal_int_type(e->ival), true};
        case ExprKind::FloatLit:
            return e->dtype == DType::Unknown ? ExprType{DType::Float64, true} : ExprType{e->dtype, false};
        case ExprKind::ImagLit:
            return e->dtype == DType::Unknown ? ExprType{DType::Complex128, true} : ExprType{e->dtype, false};
        case ExprKind::Var:
        case ExprKind::Subscript: {
            if (const Variable* v = find_variable(k, e->name)) return {v->dtype, false};
            if (is_iname(k, e->name)) return {k.options.index_dtype, false};
            return {};
        }
        case ExprKind::Call: return call_type(k, e);
        case ExprKind::Binary: return binary_type(k, e);
        case ExprKind::Unary:
            if (e->unop == "not") return {DType::Bool, false};
            return expr_type(k, e->args[0]);
        case ExprKind::If: return combine(expr_type(k, e->args[1]), expr_type(k, e->args[2]));
        case ExprKind::Cast: return {e->dtype, false};
        case ExprKind::Reduction: {
            if (e->args.empty()) return {};
            if (e->name == "any" || e->name == "all") return {DType::Bool, false};
            ExprType t = expr_type(k, e->args[0]);
            return {t.dtype, false};
        }
    }
    return {};
}

namespace {

std::vector<Variable*> variables(KernelData& k) {
    std::vector<Variable*> out;
    for (std::vector<Variable>* vars : {&k.temporaries, &k.args})
        for (Variable& v : *vars) out.push_back(&v);
    return out;
}

void apply_given(KernelData& k, const std::map<std::string, DType>& given) {
    for (const auto& [name, t] : given) {
        Variable* target = find_variable(k, name);
        user_assert(target != nullptr, "LoopyError", "no argument or temporary named '", name, "'");
        if (target->dtype == DType::Unknown) target->dtype = t;
    }
}

void type_parameters(KernelData& k) {
    const std::vector<std::string> params = all_params(k);
    for (Variable& v : k.args)
        if (v.kind == VarKind::ValueArg && v.dtype == DType::Unknown &&
            std::find(params.begin(), params.end(), v.name) != params.end())
            v.dtype = k.options.index_dtype;
}

// The type `insn` writes to `name`: argmax/argmin assign their value first and their index second.
ExprType assigned_type(const KernelData& k, const Instruction& insn, const std::string& name) {
    const ExprPtr& e = insn.expression;
    const bool two_results = e->kind == ExprKind::Reduction && e->args.size() == 2 && insn.assignees.size() == 2;
    if (two_results && insn.assignees[1]->name == name) return expr_type(k, e->args[1]);
    return expr_type(k, e);
}

// Temporaries and untyped outputs take the type of what is written to them; repeated until nothing
// changes, since one variable's type may depend on another's.
void type_from_writes(KernelData& k) {
    for (bool changed = true; changed;) {
        changed = false;
        for (Variable* tp : variables(k)) {
            Variable& t = *tp;
            if (t.kind == VarKind::ValueArg) continue;
            if (t.dtype != DType::Unknown) continue;
            ExprType acc;
            bool first = true;
            for (const Instruction& insn : k.instructions) {
                if (insn.kind != InsnKind::Assignment || !written_names(insn).count(t.name)) continue;
                // A write whose type depends on a still-unknown variable (often this one) adds nothing yet.
                const ExprType w = assigned_type(k, insn, t.name);
                if (w.dtype == DType::Unknown) continue;
                acc = first ? w : combine(acc, w);
                first = false;
            }
            if (acc.dtype != DType::Unknown) {
                t.dtype = acc.dtype;
                changed = true;
            }
        }
    }
}

}  // namespace

Kernel infer_types(const Kernel& kernel, const std::map<std::string, DType>& given, bool require_all) {
    KernelData k = kernel.copy();
    apply_given(k, given);
    type_parameters(k);
    type_from_writes(k);
    if (require_all) {
        for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
            for (const Variable& v : *vars)
                user_assert(v.dtype != DType::Unknown, "TypeInferenceError", "could not determine the type of '",
                            v.name, "'", v.is_arg() ? " (pass it, or use lp.add_dtypes)" : "");
    }
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
