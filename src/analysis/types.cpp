#include "analysis/types.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string_view>

#include "ir/access.h"
#include "ir/subst_rule.h"
#include "support/error.h"

namespace loom {

DType combine_types(DType a, DType b) {
    // loopy: "numpy makes this a double. I disagree."
    const bool int32_float32 = (a == DType::Int32 && b == DType::Float32) || (a == DType::Float32 && b == DType::Int32);
    return int32_float32 ? DType::Float32 : promote(a, b);
}

DType int_literal_type(std::int64_t v) { return (v >= INT32_MIN && v <= INT32_MAX) ? DType::Int32 : DType::Int64; }

DType float_literal_type(double v) {
    if (std::isnan(v) || std::isinf(v)) return DType::Float32;
    const bool exact = std::fabs(v) <= FLT_MAX && static_cast<double>(static_cast<float>(v)) == v;
    return exact ? DType::Float32 : DType::Float64;
}

DType imag_literal_type(double v) { return float_literal_type(v) == DType::Float32 ? DType::Complex64 : DType::Complex128; }

namespace {

// Buckets of the typer's table that forget() keeps (a few statements' worth).
constexpr std::size_t kKeptBuckets = 1024;

bool is_integral(DType t) { return is_integer(t) || t == DType::Bool; }

[[noreturn]] void operand_error(const ExprPtr& e, const std::string& what, DType t) {
    user_error(error_kind::TypeInferenceError, what, " does not accept ", dtype_name(t), " operands, in '", to_string(e), "'");
}

// Integer literals that loopy leaves out of a sum's or product's type when another operand is not an integer.
bool is_small_int_literal(const ExprPtr& e) {
    if (e->kind == ExprKind::Unary && e->unop == "-") return is_small_int_literal(e->args[0]);
    return e->kind == ExprKind::IntLit && e->ival > -1024 && e->ival < 1024;
}

// --- Built-in functions

enum class Family {
    Float,     // computes in a floating type: integer arguments in float64
    Abs,       // integers stay integers; a complex gives its real part type
    RealPart,  // real, imag
    Conj,
    MinMax,    // integers or floats, as they come
};

struct Builtin {
    std::string_view name;
    std::size_t arity;
    Family family;
    bool complex_ok;
};

constexpr Builtin kBuiltins[] = {
    {"sin", 1, Family::Float, true},      {"cos", 1, Family::Float, true},     {"tan", 1, Family::Float, true},
    {"sinh", 1, Family::Float, true},     {"cosh", 1, Family::Float, true},    {"tanh", 1, Family::Float, true},
    {"exp", 1, Family::Float, true},      {"log", 1, Family::Float, true},     {"sqrt", 1, Family::Float, true},
    {"asin", 1, Family::Float, false},    {"acos", 1, Family::Float, false},   {"atan", 1, Family::Float, false},
    {"asinh", 1, Family::Float, false},   {"acosh", 1, Family::Float, false},  {"atanh", 1, Family::Float, false},
    {"exp2", 1, Family::Float, false},    {"expm1", 1, Family::Float, false},  {"log2", 1, Family::Float, false},
    {"log10", 1, Family::Float, false},   {"log1p", 1, Family::Float, false},  {"cbrt", 1, Family::Float, false},
    {"rsqrt", 1, Family::Float, false},   {"erf", 1, Family::Float, false},    {"erfc", 1, Family::Float, false},
    {"tgamma", 1, Family::Float, false},  {"lgamma", 1, Family::Float, false}, {"floor", 1, Family::Float, false},
    {"ceil", 1, Family::Float, false},    {"round", 1, Family::Float, false},  {"trunc", 1, Family::Float, false},
    {"fabs", 1, Family::Float, false},    {"pow", 2, Family::Float, true},     {"atan2", 2, Family::Float, false},
    {"hypot", 2, Family::Float, false},   {"fmod", 2, Family::Float, false},   {"copysign", 2, Family::Float, false},
    {"fmin", 2, Family::Float, false},    {"fmax", 2, Family::Float, false},   {"fma", 3, Family::Float, false},
    {"abs", 1, Family::Abs, true},
    {"real", 1, Family::RealPart, true},  {"imag", 1, Family::RealPart, true}, {"conj", 1, Family::Conj, true},
    {"min", 2, Family::MinMax, false},    {"max", 2, Family::MinMax, false},   {"clamp", 3, Family::MinMax, false},
};

const Builtin* find_builtin(const std::string& name) {
    for (const Builtin& b : kBuiltins)
        if (b.name == name) return &b;
    return nullptr;
}

// numpy's floor_divide and remainder, where a literal integer operand takes the other operand's type.
DType floor_div_type(const ExprPtr& e, DType a, DType b) {
    const bool lit_a = e->args[0]->kind == ExprKind::IntLit, lit_b = e->args[1]->kind == ExprKind::IntLit;
    if (lit_a && lit_b) return DType::Int32;
    if (lit_b) return a == DType::Bool ? DType::Int32 : a;
    if (lit_a) return b == DType::Bool ? DType::Int32 : b;
    return promote(a, b);
}

void require_integral(const ExprPtr& e, DType a, DType b) {
    for (DType t : {a, b})
        if (!is_integral(t)) operand_error(e, cat("operator '", binop_text(e->op), "'"), t);
}

}  // namespace

ExprType ExprTyper::type(const ExprPtr& e) {
    const auto it = memo_.find(e.get());
    if (it != memo_.end()) return it->second.second;
    const ExprType t = compute(e);
    memo_.emplace(e.get(), std::make_pair(e, t));
    return t;
}

void ExprTyper::forget() {
    // A table grown by one large expression is given back: clear() would keep its buckets, and zero them at
    // every later call.
    if (memo_.bucket_count() > kKeptBuckets)
        memo_ = {};
    else
        memo_.clear();
}

ExprType ExprTyper::expansion_type(const ExprPtr& use) { return type(expand_rules(use, k_.substitutions)); }

ExprType ExprTyper::variable_type(const ExprPtr& e) {
    if (const Variable* v = find_variable(k_, e->name)) return {v->dtype, false};
    if (is_iname(k_, e->name)) return {k_.options.index_dtype, false};
    if (find_rule(k_.substitutions, e->name)) return expansion_type(e);
    return {};
}

ExprType ExprTyper::call_type(const ExprPtr& e) {
    // A substitution rule not expanded yet is typed through its expansion.
    if (find_rule(k_.substitutions, e->name)) return expansion_type(e);
    if (const ScalarFunction* f = find_function(k_.functions, e->name)) {
        user_assert(e->args.size() == f->params.size(), error_kind::LoopyError, "function '", e->name, "' takes ",
                    f->params.size(), " arguments, not ", e->args.size(), ", in '", to_string(e), "'");
        return {f->result, false};
    }
    return {call_types(e).result, false};
}

ExprType ExprTyper::binary_type(const ExprPtr& e) {
    const ExprType a = type(e->args[0]), b = type(e->args[1]);
    const bool weak = a.weak && b.weak;
    switch (e->op) {
        case BinOp::Eq: case BinOp::Ne: case BinOp::Lt: case BinOp::Le: case BinOp::Gt: case BinOp::Ge:
            for (DType t : {a.dtype, b.dtype})
                if (is_complex(t) && e->op != BinOp::Eq && e->op != BinOp::Ne)
                    operand_error(e, cat("comparison '", binop_text(e->op), "'"), t);
            return {DType::Bool, false};
        case BinOp::And: case BinOp::Or: return {DType::Bool, false};
        default: break;
    }
    if (a.dtype == DType::Unknown || b.dtype == DType::Unknown) return {};
    switch (e->op) {
        case BinOp::Add: case BinOp::Sub: case BinOp::Mul: return {operation_type(e->args), weak};
        case BinOp::Div:
            if (is_integral(a.dtype) && is_integral(b.dtype)) return {DType::Float64, false};
            return {combine_types(a.dtype, b.dtype), weak};
        case BinOp::FloorDiv: case BinOp::Mod:
            for (DType t : {a.dtype, b.dtype})
                if (is_complex(t)) operand_error(e, cat("operator '", binop_text(e->op), "'"), t);
            return {floor_div_type(e, a.dtype, b.dtype), weak};
        case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor: case BinOp::Shl: case BinOp::Shr:
            require_integral(e, a.dtype, b.dtype);
            return {combine_types(a.dtype, b.dtype), weak};
        default: return {combine_types(a.dtype, b.dtype), weak};  // **, and isl's CDiv/CMod
    }
}

ExprType ExprTyper::unary_type(const ExprPtr& e) {
    if (e->unop == "not") return {DType::Bool, false};
    const ExprType t = type(e->args[0]);
    if (e->unop == "~" && t.dtype != DType::Unknown && !is_integral(t.dtype)) operand_error(e, "operator '~'", t.dtype);
    return t;
}

ExprType ExprTyper::cast_type(const ExprPtr& e) {
    const DType from = type(e->args[0]).dtype;
    user_assert(!is_complex(from) || is_complex(e->dtype), error_kind::TypeInferenceError, "cannot cast a ", dtype_name(from),
                " value to ", dtype_name(e->dtype), " in '", to_string(e), "' (take real(), imag() or abs() of it)");
    return {e->dtype, false};
}

ExprType ExprTyper::reduction_type(const ExprPtr& e) {
    if (e->args.empty()) return {};
    if (e->name == "any" || e->name == "all") return {DType::Bool, false};
    return {type(e->args[0]).dtype, false};
}

DType ExprTyper::operation_type(const std::vector<ExprPtr>& operands) {
    std::vector<DType> main, small;
    for (const ExprPtr& e : operands) {
        const DType t = type(e).dtype;
        if (t == DType::Unknown) return DType::Unknown;
        (is_small_int_literal(e) ? small : main).push_back(t);
    }
    if (std::all_of(main.begin(), main.end(), is_integral)) main.insert(main.end(), small.begin(), small.end());
    DType t = main.front();
    for (std::size_t i = 1; i < main.size(); ++i) t = combine_types(t, main[i]);
    return t;
}

CallTypes ExprTyper::call_types(const ExprPtr& e) {
    const Builtin* f = find_builtin(e->name);
    user_assert(f != nullptr, error_kind::TypeInferenceError, "unknown function '", e->name, "' in '", to_string(e), "'");
    user_assert(e->args.size() == f->arity, error_kind::LoopyError, "function '", e->name, "' takes ", f->arity,
                f->arity == 1 ? " argument" : " arguments", ", not ", e->args.size(), ", in '", to_string(e), "'");
    const DType t = operation_type(e->args);
    if (t == DType::Unknown) return {};
    if (is_complex(t) && !f->complex_ok) operand_error(e, cat("function '", e->name, "'"), t);
    switch (f->family) {
        case Family::Float: {
            const DType ft = is_integral(t) ? DType::Float64 : t;
            return {ft, ft};
        }
        case Family::Abs:
        case Family::RealPart: return {t, real_part_type(t)};
        case Family::Conj:
        case Family::MinMax: return {t, t};
    }
    return {};
}

ExprType ExprTyper::compute(const ExprPtr& e) {
    switch (e->kind) {
        case ExprKind::IntLit: return {int_literal_type(e->ival), true};
        case ExprKind::FloatLit:
            return e->dtype == DType::Unknown ? ExprType{float_literal_type(e->fval), true} : ExprType{e->dtype, false};
        case ExprKind::ImagLit:
            return e->dtype == DType::Unknown ? ExprType{imag_literal_type(e->fval), true} : ExprType{e->dtype, false};
        case ExprKind::Var:
        case ExprKind::Subscript:
        case ExprKind::SubArrayRef: return variable_type(e);
        case ExprKind::Call: return call_type(e);
        case ExprKind::Binary: return binary_type(e);
        case ExprKind::Unary: return unary_type(e);
        case ExprKind::If: {
            const ExprType a = type(e->args[1]), b = type(e->args[2]);
            if (a.dtype == DType::Unknown || b.dtype == DType::Unknown) return {};
            return {combine_types(a.dtype, b.dtype), a.weak && b.weak};
        }
        case ExprKind::Cast: return cast_type(e);
        case ExprKind::Reduction: return reduction_type(e);
    }
    return {};
}

ExprType expr_type(const KernelData& k, const ExprPtr& e) { return ExprTyper(k).type(e); }

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
        user_assert(target != nullptr, error_kind::LoopyError, "no argument or temporary named '", name, "'");
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

// The type `insn` writes to `name`: argmax/argmin assign their value first and their index second, make_tuple
// each value to the assignee at its position.
ExprType assigned_type(const KernelData& k, const Instruction& insn, const std::string& name) {
    const ExprPtr& e = insn.expression;
    if (is_tuple_assignment(insn))
        for (std::size_t n = 0; n < e->args.size(); ++n)
            if (insn.assignees[n]->name == name) return expr_type(k, e->args[n]);
    const bool two_results = is_two_valued(e) && insn.assignees.size() == 2;
    if (two_results && insn.assignees[1]->name == name) return expr_type(k, pair_operand(e, 1));
    return expr_type(k, e);
}

// The type of what `insn` writes to `t`, with `t` itself taken to be `assumed` (a self-update such as a
// reduction's `acc = acc + a[j]` is typed by the other writes).
DType write_type(KernelData& k, const Instruction& insn, Variable& t, DType assumed) {
    t.dtype = assumed;
    const DType w = assigned_type(k, insn, t.name).dtype;
    t.dtype = DType::Unknown;
    return w;
}

// The type the writes of `t` give it. With `wait_for_all`, Unknown while one of them depends on another
// unknown variable: deciding from the other writes alone would fix `acc = 0` as int32 before
// `acc = acc + a[j]*x[j]` is known. Without, the writes whose type is known decide.
// The instructions that write each variable (typing changes types, never instructions).
using Writers = std::map<std::string, std::vector<const Instruction*>>;

DType type_of_writes(KernelData& k, const Writers& all_writers, Variable& t, bool wait_for_all) {
    static const std::vector<const Instruction*> none;
    const auto found = all_writers.find(t.name);
    const std::vector<const Instruction*>& writers = found == all_writers.end() ? none : found->second;
    DType acc = DType::Unknown;
    for (const Instruction* insn : writers) {
        const DType w = write_type(k, *insn, t, DType::Unknown);
        if (w != DType::Unknown) acc = acc == DType::Unknown ? w : combine_types(acc, w);
    }
    // Every write reads `t` (`result = result + sum(i, i*i)`): as in loopy, the other operands decide; bool
    // is the type that promotes to any other.
    if (acc == DType::Unknown && !wait_for_all)
        for (const Instruction* insn : writers) {
            const DType w = write_type(k, *insn, t, DType::Bool);
            if (w != DType::Unknown) acc = acc == DType::Unknown ? w : combine_types(acc, w);
        }
    if (acc == DType::Unknown) return acc;
    for (const Instruction* insn : writers) {
        const DType w = write_type(k, *insn, t, acc);
        if (w == DType::Unknown && wait_for_all) return DType::Unknown;
        if (w != DType::Unknown) acc = combine_types(acc, w);
    }
    return acc;
}

// Whether a write of `t` reads an untyped variable that nothing writes (an argument typed only by a call): no
// typing here will know it, and the writes known without it (`acc = 0`) must not decide `t` (int32 for a sum
// of float64 values, a silent wrong result).
bool waits_for_input(const KernelData& k, const Writers& writers, const Variable& t) {
    const auto found = writers.find(t.name);
    if (found == writers.end()) return false;
    for (const Instruction* insn : found->second)
        for (const std::string& name : read_names(*insn)) {
            const Variable* v = find_variable(k, name);
            if (v && v != &t && v->kind != VarKind::ValueArg && v->dtype == DType::Unknown && !writers.count(name)) return true;
        }
    return false;
}

// Types one untyped variable from its writes (waiting for all of them to be known if `wait_for_all`, and
// always for an untyped input); the variable it typed, or null when none got a type.
Variable* type_one_from_writes(KernelData& k, const Writers& writers, bool wait_for_all) {
    for (Variable* t : variables(k)) {
        if (t->kind == VarKind::ValueArg || t->dtype != DType::Unknown) continue;
        if (!wait_for_all && waits_for_input(k, writers, *t)) continue;
        const DType acc = type_of_writes(k, writers, *t, wait_for_all);
        if (acc == DType::Unknown) continue;
        t->dtype = acc;
        return t;
    }
    return nullptr;
}

// Whether the writes of inferred variable `t`, typed with every type known now, give it another type. Retyped
// from its writes alone, not widened: a type first computed from another variable's preliminary one follows
// that variable's final type (u = s + 2j is complex64 once s is float32, though s started as int32).
bool retype_from_writes(KernelData& k, const Writers& writers, Variable& t) {
    const DType known = t.dtype;
    DType acc = DType::Unknown;
    if (const auto found = writers.find(t.name); found != writers.end())
        for (const Instruction* insn : found->second)
            if (const DType w = write_type(k, *insn, t, known); w != DType::Unknown)
                acc = acc == DType::Unknown ? w : combine_types(acc, w);
    t.dtype = acc == DType::Unknown ? known : acc;  // write_type leaves it unknown
    return t.dtype != known;
}

// Temporaries and untyped outputs take the type of what is written to them, one at a time since one
// variable's type may depend on another's. Where every remaining one waits for another (two temporaries
// written from each other), the known writes decide one of them. As loopy's, the result is a fixed point:
// a type found early changes while writes typed later need another (`b = 0` and `b = b + c + 1.0` make b a
// float).
void type_from_writes(KernelData& k) {
    const Writers writers = writer_map(k);
    std::vector<Variable*> inferred;
    for (;;) {
        Variable* t = type_one_from_writes(k, writers, true);
        if (!t) t = type_one_from_writes(k, writers, false);
        if (!t) break;
        inferred.push_back(t);
    }
    // Types follow one another along chains of writes; a cycle of writes could keep changing them, so the
    // rounds are bounded (each settled chain needs one round per link).
    for (std::size_t round = 0, changed = 1; changed && round <= inferred.size(); ++round) {
        changed = 0;
        for (Variable* t : inferred) changed += retype_from_writes(k, writers, *t);
    }
}

void require_known_names(const KernelData& k, const std::vector<std::string>& params, const Instruction& insn,
                         const ExprPtr& e) {
    visit(e, [&](const ExprPtr& n) {
        if (n->kind != ExprKind::Var && n->kind != ExprKind::Subscript) return;
        const bool known = find_variable(k, n->name) || is_iname(k, n->name) || find_rule(k.substitutions, n->name) ||
                           std::find(params.begin(), params.end(), n->name) != params.end();
        user_assert(known, error_kind::TypeInferenceError, "name not known in type inference: '", n->name, "' (in instruction '",
                    insn.id, "')");
    });
}

// Complex values do not silently lose their imaginary part (numpy warns, OpenCL cannot convert).
void check_assignment(const KernelData& k, const Instruction& insn) {
    if (insn.assignees.size() != 1) return;
    const DType lhs = expr_type(k, insn.assignees[0]).dtype, rhs = expr_type(k, insn.expression).dtype;
    user_assert(!is_complex(rhs) || is_complex(lhs), error_kind::TypeInferenceError, "instruction '", insn.id, "' assigns a ",
                dtype_name(rhs), " value to '", insn.assignees[0]->name, "' of type ", dtype_name(lhs),
                " (take real(), imag() or abs() of it)");
}

void require_type(const Variable& v) {
    user_assert(v.dtype != DType::Unknown, error_kind::TypeInferenceError, "could not determine the type of '", v.name, "'",
                v.is_arg() ? " (pass it, or use lp.add_dtypes)" : "");
}

void check_instructions(const KernelData& k) {
    const std::vector<std::string> params = all_params(k);
    for (const Instruction& insn : k.instructions) {
        if (insn.kind != InsnKind::Assignment) continue;
        for (const ExprPtr& a : insn.assignees) require_known_names(k, params, insn, a);
        require_known_names(k, params, insn, insn.expression);
        for (const ExprPtr& p : insn.predicates) {
            require_known_names(k, params, insn, p);
            expr_type(k, p);
        }
        check_assignment(k, insn);
    }
}

}  // namespace

Kernel infer_types(const Kernel& kernel, const std::map<std::string, DType>& given, bool require_all) {
    KernelData k = kernel.copy();
    apply_given(k, given);
    type_parameters(k);
    type_from_writes(k);
    if (require_all) {
        // Written variables (outputs, temporaries) are typed from what they are written; an untyped input is
        // named before them, as their types wait for it.
        std::vector<const Variable*> inputs, written;
        for (const Variable& a : k.args) (a.is_output.value_or(false) ? written : inputs).push_back(&a);
        for (const Variable& t : k.temporaries) written.push_back(&t);
        const auto untyped = [](const Variable* v) { return v->dtype == DType::Unknown; };
        if (std::any_of(written.begin(), written.end(), untyped))
            for (const Variable* v : inputs) require_type(*v);
        for (const Variable* v : written) require_type(*v);
        check_instructions(k);
    }
    return Kernel(std::move(k));
}

void require_argument_types(const KernelData& k) {
    for (const Variable& a : k.args) require_type(a);
}

}  // namespace loom
