#include "parse/okl_lower.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"
#include "parse/okl_parser.h"
#include "parse/okl_validate.h"

namespace loom {

namespace {

InameTag axis_tag(bool outer, int axis) { return outer ? InameTag::group(axis) : InameTag::local(axis); }

// Bounds that keep hostile input an error rather than an endless build.
// Each instruction depends on every earlier one it conflicts with: the dependencies grow as the square.
constexpr std::size_t kMaxInstructions = 600;
constexpr std::int64_t kMaxArrayElements = 1 << 24;
constexpr std::size_t kMaxInitializedElements = 4096;
constexpr std::size_t kMaxTableLoop = 4096;
constexpr int kMaxInlineDepth = 16;
// The text of one expression, and of its isl form (a hundredth of it).
constexpr std::size_t kMaxExpressionText = 1000000;
// Statements of all the device functions a kernel keeps as functions.
constexpr std::size_t kMaxFunctionStatements = 10000;

template <class... Parts>
[[noreturn]] void fail(const OklPos& at, const Parts&... parts) {
    okl_error(at.file_name(), at.line, parts...);
}

// --- C types (numpy names)

bool is_float_type(const std::string& t) { return t.rfind("float", 0) == 0; }
bool is_unsigned_type(const std::string& t) { return t.rfind("uint", 0) == 0; }
int type_bits(const std::string& t) {
    if (t == "bool") return 1;
    const std::size_t d = t.find_first_of("0123456789");
    return d == std::string::npos ? 32 : std::stoi(t.substr(d));
}

// C's integer promotion and usual arithmetic conversions.
std::string promoted(const std::string& t) { return !is_float_type(t) && type_bits(t) < 32 ? "int32" : t; }
std::string common_type(const std::string& a0, const std::string& b0) {
    const std::string a = promoted(a0), b = promoted(b0);
    if (a == "float64" || b == "float64") return "float64";
    if (is_float_type(a) || is_float_type(b)) return "float32";
    if (a == b) return a;
    const int bits = std::max(type_bits(a), type_bits(b));
    const bool uns = (type_bits(a) == bits && is_unsigned_type(a)) || (type_bits(b) == bits && is_unsigned_type(b));
    return std::string(uns ? "uint" : "int") + std::to_string(bits);
}

// A value: Loom expression text, its C type, and what is known of it.
struct Val {
    std::string text;
    std::string dtype = "int32";
    bool nonneg = false;                   // a non-negative integer
    std::optional<std::int64_t> constant;  // a compile-time integer constant
    std::optional<double> fconstant;       // a compile-time floating-point constant
    std::string isl;                       // the value as an isl quasi-affine expression; empty if not affine
    std::vector<Val> lanes;                // a vector (OpenCL's float3, ...): its lanes; `text` is empty
};

Val constant_val(std::int64_t v) {
    Val out;
    out.text = v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
    out.dtype = v >= INT32_MIN && v <= INT32_MAX ? "int32" : "int64";
    out.nonneg = v >= 0;
    out.constant = v;
    out.isl = out.text;
    return out;
}

// What a C name stands for.
struct Binding {
    enum class Kind { Pure, Scalar, Array, Pointer, Value, Struct, Vector } kind = Kind::Pure;
    std::string name;   // Loom variable (Scalar, Array, Value) or the array a Pointer points into
    std::string dtype;  // element type
    Val value;          // Pure: the value (loop indices, constants, never-assigned locals); Pointer: offset
    std::vector<std::int64_t> dims;  // Array
    std::vector<Val> dim_sizes;      // Pointer with @dim
    std::vector<int> dim_order;      // Pointer with @dimOrder
    std::string struct_name;         // Pointer to structs
    std::map<std::string, Val> fields;  // Struct (a value parameter): each field's argument
    std::vector<Binding> lanes;         // Vector: one scalar binding per lane
    bool is_loop_index = false;
};

// A struct whose fields all have one scalar type, laid out without padding: a pointer to such structs is a
// pointer to that type, struct k's field f (index j of an array field) at k*size + offset(f) + j.
struct StructLayout {
    std::string dtype;
    std::int64_t size = 0;
    std::map<std::string, std::pair<std::int64_t, std::vector<std::int64_t>>> fields;  // offset, array dims
};

struct PointerRef {
    std::string base;
    std::string dtype;
    Val offset;
    std::string struct_name;  // points to structs (offset still counts scalars)
};

// A place an assignment stores to: its text, the variable it is in, its type.
struct Target {
    std::string text;
    std::string var;
    std::string dtype;
};

struct Insn {
    std::string id;
    std::string body;  // "lhs = rhs" or "... lbarrier"
    std::vector<std::string> inames;
    std::vector<std::string> predicates;
    std::set<std::string> reads, writes;
    bool barrier = false;
    bool atomic = false;
    bool replay = false;  // a copy of top-level setup code, run again in a later device kernel
    std::vector<std::string> nosync;
};

const std::set<std::string>& reserved_names() {
    // Words of isl's set syntax and of Loom's instruction syntax, which cannot name inames or variables.
    static const std::set<std::string> words{"and",  "or",   "not",  "mod",   "floor", "ceil", "min",  "max",
                                             "exists", "infty", "NaN", "true", "false", "if",  "for",  "end",
                                             "else", "elif", "with", "nop",  "lbarrier", "gbarrier"};
    return words;
}

// Loom's form of C's `/` on integers: floor division equals truncation when both operands are non-negative.
std::string trunc_div_text(const Val& a, const Val& b) {
    if (a.nonneg && b.nonneg) return "(" + a.text + " // " + b.text + ")";
    if (b.constant && *b.constant > 0)
        return "if(" + a.text + " >= 0, " + a.text + " // " + b.text + ", -((-" + a.text + ") // " + b.text + "))";
    return "if((" + a.text + " >= 0) == (" + b.text + " > 0), abs(" + a.text + ") // abs(" + b.text + "), -(abs(" +
           a.text + ") // abs(" + b.text + ")))";
}

// isl's form of C's truncating division by the constant c != 0.
std::string trunc_div_isl(const Val& a, std::int64_t c) {
    if (c < 0) return "(-" + trunc_div_isl(a, -c) + ")";
    const std::string cs = std::to_string(c);
    if (a.nonneg) return "floor((" + a.isl + ")/" + cs + ")";
    return "(floor(max(" + a.isl + ", 0)/" + cs + ") - floor(max(-(" + a.isl + "), 0)/" + cs + "))";
}

// The math builtins OKL code may call on floating-point values (and, lane by lane, on vectors).
const std::set<std::string>& math_functions() {
    static const std::set<std::string> names{
        "sin",  "cos",   "tan",   "sinh",  "cosh",  "tanh",  "exp",   "log",    "sqrt",  "asin", "acos",
        "atan", "asinh", "acosh", "atanh", "exp2",  "expm1", "log2",  "log10",  "log1p", "cbrt", "rsqrt",
        "erf",  "erfc",  "tgamma", "lgamma", "floor", "ceil", "round", "trunc", "fabs",  "pow",  "atan2",
        "hypot", "fmod", "copysign", "fmin", "fmax", "fma"};
    return names;
}

// Names a generated function or its variables must not take: the builtins the printed code may call.
bool is_builtin_name(const std::string& name) {
    static const std::set<std::string> others{"min", "max", "abs", "clamp", "dot", "length", "normalize", "distance", "cross"};
    return math_functions().count(name) || others.count(name);
}

class Lowerer {
public:
    Lowerer(const OklProgram& program, const OklFunction& kernel, OklAxes axes, const OklOptions& options)
        : program_(program), kernel_(kernel), axes_(std::move(axes)), auto_shapes_(options.auto_shapes),
          parameters_(options.parameters) {}

    Kernel run() {
        scopes_.emplace_back();
        declare_globals();
        in_.name = kernel_.name;
        collect_assigned(*kernel_.body, assigned_);
        for (const OklDecl& p : kernel_.params) parameter(p);
        // @dim sizes may name parameters declared after the pointer.
        for (const OklDecl& p : kernel_.params)
            if (p.type.pointers == 1) dim_attributes(p, scopes_.back()[p.name]);
        const auto& stmts = kernel_.body->body;
        const bool trailing_return = !stmts.empty() && stmts.back()->kind == OklStmtKind::Return && !stmts.back()->expr;
        statements(stmts, trailing_return ? stmts.size() - 1 : stmts.size());
        return build();
    }

private:
    // --- names and scopes

    std::string unique(std::string base) {
        if (reserved_names().count(base)) base += "_";
        std::string name = base;
        for (int k = 1; used_.count(name); ++k) name = base + "_" + std::to_string(k);
        used_.insert(name);
        return name;
    }

    const Binding* lookup(const std::string& name) const {
        for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
            auto it = s->find(name);
            if (it != s->end()) return &it->second;
        }
        return nullptr;
    }

    const Binding& bound(const OklExpr& e) const {
        const Binding* b = lookup(e.name);
        if (!b) fail(e.pos, "unknown name '", e.name, "'");
        return *b;
    }

    void bind(const std::string& c_name, Binding b) { scopes_.back()[c_name] = std::move(b); }

    struct Scope {
        explicit Scope(Lowerer& l) : l_(l) { l_.scopes_.emplace_back(); }
        ~Scope() { l_.scopes_.pop_back(); }
        Lowerer& l_;
    };

    std::optional<std::int64_t> constant_of(const OklExprPtr& e) const {
        return okl_try_constant(e, [this](const std::string& n) -> std::optional<std::int64_t> {
            const Binding* b = lookup(n);
            return b && b->kind == Binding::Kind::Pure ? b->value.constant : std::nullopt;
        });
    }

    std::int64_t required_constant(const OklExprPtr& e, const char* what) const {
        auto v = constant_of(e);
        if (!v) fail(e->pos, what, " must be an integer constant known at compile time");
        return *v;
    }

    // Calls f on each expression of `s` and of the statements inside it (not on their subexpressions).
    template <class F>
    static void for_each_expr(const OklStmt& s, F&& f) {
        if (s.expr) f(s.expr);
        if (s.step) f(s.step);
        if (s.init) for_each_expr(*s.init, f);
        for (const OklDecl& d : s.decls) {
            if (d.init) f(d.init);
            for (const OklExprPtr& x : d.dims)
                if (x) f(x);  // `T a[] = {...}` has no first extent
        }
        for (const OklStmtPtr& b : s.body) for_each_expr(*b, f);
    }

    // Names assigned (or whose address is taken) in `s`, into `out`, and the caller's variables that the
    // reference parameters of the functions it calls assign: C gives a callee no other way to a caller's
    // variables. Over a whole function (assigned_, assigned_in), the others are values fixed at their
    // declaration.
    void collect_assigned(const OklStmt& s, std::set<std::string>& out) const {
        for_each_expr(s, [&](const OklExprPtr& e) { collect_assigned(e, out); });
    }
    void collect_assigned(const OklExprPtr& e, std::set<std::string>& out) const {
        const bool writes = e->kind == OklExprKind::Assign || e->kind == OklExprKind::Postfix ||
                            (e->kind == OklExprKind::Unary && (e->op == "++" || e->op == "--" || e->op == "&"));
        if (writes && e->args[0]->kind == OklExprKind::Name) out.insert(e->args[0]->name);
        if (e->kind == OklExprKind::Call && e->args[0]->kind == OklExprKind::Name) {
            for (const OklFunction& f : program_.functions) {
                if (f.name != e->args[0]->name || !f.body) continue;
                const std::set<std::string>& inner = assigned_in(f);
                for (std::size_t k = 0; k < f.params.size() && k + 1 < e->args.size(); ++k)
                    if (f.params[k].type.is_reference && inner.count(f.params[k].name) && e->args[k + 1]->kind == OklExprKind::Name)
                        out.insert(e->args[k + 1]->name);
            }
        }
        for (const OklExprPtr& a : e->args) collect_assigned(a, out);
    }

    // The names device function `f` assigns (a recursive call finds the set still empty; recursion is an
    // error when the call is lowered).
    const std::set<std::string>& assigned_in(const OklFunction& f) const {
        const auto [it, fresh] = assigned_in_.try_emplace(f.name);
        if (fresh) {
            std::set<std::string> names;
            collect_assigned(*f.body, names);
            it->second = std::move(names);
        }
        return it->second;
    }

    // While a device function is lowered, assigned_ holds its names.
    struct AssignedIn {
        AssignedIn(Lowerer& l, const OklFunction& f) : l_(l), caller_(std::exchange(l.assigned_, l.assigned_in(f))) {}
        ~AssignedIn() { l_.assigned_ = std::move(caller_); }
        Lowerer& l_;
        std::set<std::string> caller_;
    };

    // --- declarations

    // File-scope constants: scalars are their values, arrays read-only tables.
    void declare_globals() {
        for (const OklDecl& d : program_.globals) {
            if (!d.init || !d.type.is_const || d.type.pointers)
                fail(d.pos, "file-scope variable '", d.name, "' must be a const scalar or array with an initializer");
            if (!d.dims.empty()) {
                array_declaration(d);
                continue;
            }
            Binding b;
            if (auto v = constant_of(d.init)) {
                b.value = constant_val(*v);
            } else if (auto f = number_of(d.init)) {
                b.value = float_constant_val(*f, d.type.base);
            } else {
                fail(d.pos, "file-scope constant '", d.name, "' must be initialized with a constant expression");
            }
            bind(d.name, b);
        }
    }

    // A floating-point constant expression evaluated as C does (float32 operations rounded to float), with its
    // type; integer constants included.
    std::optional<std::pair<double, bool>> number_typed(const OklExprPtr& e) const {
        if (auto c = constant_of(e)) return std::make_pair(static_cast<double>(*c), false);
        switch (e->kind) {
            case OklExprKind::Float: return std::make_pair(e->float32 ? double(float(e->fval)) : e->fval, e->float32);
            case OklExprKind::Name: {
                const Binding* b = lookup(e->name);
                if (!b || b->kind != Binding::Kind::Pure || !b->value.fconstant) return std::nullopt;
                return std::make_pair(*b->value.fconstant, b->value.dtype == "float32");
            }
            case OklExprKind::Unary: {
                auto a = number_typed(e->args[0]);
                if (!a || (e->op != "-" && e->op != "+")) return std::nullopt;
                return std::make_pair(e->op == "-" ? -a->first : a->first, a->second);
            }
            case OklExprKind::Cast: {
                auto a = number_typed(e->args[0]);
                if (!a || e->type->pointers || !is_float_type(e->type->base)) return std::nullopt;
                const bool single = e->type->base == "float32";
                return std::make_pair(single ? double(float(a->first)) : a->first, single);
            }
            case OklExprKind::Binary: {
                auto a = number_typed(e->args[0]), b = number_typed(e->args[1]);
                if (!a || !b) return std::nullopt;
                const double x = a->first, y = b->first;
                double r = 0;
                if (e->op == "+") r = x + y;
                else if (e->op == "-") r = x - y;
                else if (e->op == "*") r = x * y;
                else if (e->op == "/") r = x / y;
                else return std::nullopt;
                // Integer operands were folded by constant_of; here one side is floating-point.
                const bool single = (a->second || !is_float_operand(e->args[0])) && (b->second || !is_float_operand(e->args[1]));
                if (!std::isfinite(r)) fail(e->pos, "floating-point constant expression is not finite");
                return std::make_pair(single ? double(float(r)) : r, single);
            }
            default: return std::nullopt;
        }
    }

    bool is_float_operand(const OklExprPtr& e) const { return !constant_of(e).has_value(); }

    std::optional<double> number_of(const OklExprPtr& e) const {
        auto v = number_typed(e);
        return v ? std::optional<double>(v->first) : std::nullopt;
    }

    static Val float_constant_val(double v, const std::string& dtype) {
        const bool single = dtype == "float32";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", single ? double(float(v)) : v);
        std::string t = buf;
        if (t.find_first_of(".en") == std::string::npos) t += ".0";
        Val out;
        out.text = single ? "(" + t + "f)" : "cast(float64, " + t + ")";
        out.dtype = is_float_type(dtype) ? dtype : "float64";
        out.fconstant = single ? double(float(v)) : v;
        return out;
    }

    void parameter(const OklDecl& p) {
        if (p.name.empty()) fail(p.pos, "kernel parameters need names");
        if (reserved_names().count(p.name) || used_.count(p.name))
            fail(p.pos, "kernel parameter name '", p.name, "' is reserved in Loom or repeated");
        if (p.type.base == "void" || !p.dims.empty()) fail(p.pos, "parameter '", p.name, "' has an unsupported type");
        used_.insert(p.name);
        if (is_struct(p.type.base) && !p.type.pointers) return struct_parameter(p);
        if (p.type.lanes > 1) return vector_parameter(p);
        Variable v;
        v.name = p.name;
        Binding b;
        b.name = p.name;
        b.dtype = is_struct(p.type.base) ? layout(p.type.base, p.pos).dtype : p.type.base;
        b.struct_name = is_struct(p.type.base) ? p.type.base : "";
        v.dtype = *dtype_from_name(b.dtype);
        if (p.type.pointers > 1) fail(p.pos, "pointer-to-pointer parameter '", p.name, "' is not supported");
        if (p.type.pointers == 1) {
            v.kind = VarKind::GlobalArg;
            (auto_shapes_ ? v.shape_auto : v.no_shape) = true;
            b.kind = Binding::Kind::Pointer;
            b.value = constant_val(0);
        } else {
            if (okl_find_attr(p.type.attrs, "dim")) fail(p.pos, "[@dim] applies to pointers");
            v.kind = VarKind::ValueArg;
            v.is_array = false;
            b.kind = Binding::Kind::Value;
            if (auto fixed = parameters_.find(p.name); fixed != parameters_.end() && !is_float_type(p.type.base)) {
                b.kind = Binding::Kind::Pure;
                b.value = constant_val(fixed->second);
            } else if (!assigned_.count(p.name) && !is_float_type(p.type.base)) {
                b.value.text = b.value.isl = p.name;
                b.value.dtype = p.type.base;
                b.value.nonneg = is_unsigned_type(p.type.base);
            }
        }
        in_.args.push_back(std::move(v));
        bind(p.name, b);
    }

    static bool is_struct(const std::string& base) { return base.rfind("struct ", 0) == 0; }

    StructLayout layout(const std::string& name, const OklPos& pos) const {
        StructLayout l;
        for (const OklDecl& f : program_.structs.at(name)) {
            if (is_struct(f.type.base) || f.type.pointers || f.type.base == "void" || f.type.lanes > 1)
                fail(pos, name, ": field '", f.name, "' is not a number or an array of numbers");
            if (!l.dtype.empty() && f.type.base != l.dtype)
                fail(pos, name, " mixes field types (", l.dtype, ", ", f.type.base, "): only structs of one scalar type are supported");
            l.dtype = f.type.base;
            std::vector<std::int64_t> dims;
            std::int64_t n = 1;
            for (const OklExprPtr& d : f.dims) {
                auto v = d ? constant_of(d) : std::nullopt;
                if (!v || *v <= 0 || *v > kMaxArrayElements) fail(pos, name, ": field '", f.name, "' needs a constant size");
                dims.push_back(*v);
                n *= *v;
            }
            l.fields[f.name] = {l.size, dims};
            if ((l.size += n) > kMaxArrayElements) fail(pos, name, " is too large");
        }
        if (l.dtype.empty()) fail(pos, name, " has no fields");
        return l;
    }

    // The value argument PARAM_PART of kernel parameter `p`, a struct's field or a vector's lane.
    std::string part_argument(const OklDecl& p, const char* kind, const std::string& part, const std::string& dtype) {
        const std::string arg = p.name + "_" + part;
        if (used_.count(arg)) fail(p.pos, kind, " parameter '", p.name, "': argument name '", arg, "' is taken");
        used_.insert(arg);
        Variable v;
        v.name = arg;
        v.kind = VarKind::ValueArg;
        v.is_array = false;
        v.dtype = *dtype_from_name(dtype);
        in_.args.push_back(v);
        return arg;
    }

    // A struct passed by value: one value argument per field, named PARAM_FIELD.
    void struct_parameter(const OklDecl& p) {
        Binding b;
        b.kind = Binding::Kind::Struct;
        b.struct_name = p.type.base;
        for (const OklDecl& f : program_.structs.at(p.type.base)) {
            if (is_struct(f.type.base) || f.type.pointers || !f.dims.empty() || f.type.base == "void" || f.type.lanes > 1)
                fail(p.pos, "struct parameter '", p.name, "': field '", f.name, "' is not a number");
            const std::string arg = part_argument(p, "struct", f.name, f.type.base);
            Val field;
            field.text = arg;
            field.dtype = f.type.base;
            b.fields[f.name] = field;
        }
        bind(p.name, b);
    }

    // `p[k].f[j]` and `p->f`: the element of a pointer to structs.
    Val struct_member(const OklExpr& m, const std::vector<OklExprPtr>& trailing, bool is_read, PointerRef& where) {
        const OklExprPtr& object = m.args[0];
        Val index = constant_val(0);
        if (m.op == "->") {
            where = pointer(object);
        } else if (object->kind == OklExprKind::Index) {
            where = pointer(object->args[0]);
            index = rvalue(object->args[1]);
        } else {
            fail(m.pos, "'.", m.name, "' needs an element of a pointer to structs (p[i].", m.name, ")");
        }
        if (where.struct_name.empty()) fail(m.pos, "'", m.op, m.name, "' on something that is not a struct");
        const StructLayout l = layout(where.struct_name, m.pos);
        auto f = l.fields.find(m.name);
        if (f == l.fields.end()) fail(m.pos, where.struct_name, " has no field '", m.name, "'");
        const auto& [offset, dims] = f->second;
        if (trailing.size() != dims.size()) fail(m.pos, "field '", m.name, "' has ", dims.size(), " dimensions, indexed with ", trailing.size());
        Val at = binary_val("+", binary_val("*", index, constant_val(l.size), m.pos), constant_val(offset), m.pos);
        for (std::size_t k = 0; k < dims.size(); ++k) {
            std::int64_t stride = 1;
            for (std::size_t q = k + 1; q < dims.size(); ++q) stride *= dims[q];
            at = binary_val("+", at, binary_val("*", rvalue(trailing[k]), constant_val(stride), m.pos), m.pos);
        }
        return element_at(where, at, m.pos, is_read);
    }

    // @dim(sizes) and @dimOrder(permutation): `a(i, j)` indexes the pointer as OCCA does.
    void dim_attributes(const OklDecl& p, Binding& b) {
        const OklAttr* dim = okl_find_attr(p.type.attrs, "dim");
        const OklAttr* order = okl_find_attr(p.type.attrs, "dimOrder");
        if (order && !dim) fail(order->pos, "[@dimOrder] needs [@dim] on the same variable");
        if (!dim) return;
        if (dim->args.empty()) fail(dim->pos, "[@dim] needs at least one size");
        for (const OklAttrArg& a : dim->args) {
            if (!a.expr) fail(dim->pos, "[@dim] arguments are expressions");
            b.dim_sizes.push_back(rvalue(a.expr));
        }
        for (std::size_t k = 0; k < dim->args.size(); ++k) b.dim_order.push_back(static_cast<int>(k));
        if (!order) return;
        if (order->args.size() != dim->args.size())
            fail(order->pos, order->args.size() < dim->args.size() ? "Missing dimensions" : "Too many dimensions",
                 ", expected ", dim->args.size(), " argument(s)");
        std::set<std::int64_t> seen;
        for (std::size_t k = 0; k < order->args.size(); ++k) {
            auto v = order->args[k].expr ? constant_of(order->args[k].expr) : std::nullopt;
            if (!v || *v < 0 || *v >= static_cast<std::int64_t>(dim->args.size()))
                fail(order->pos, "[@dimOrder] arguments must be known at compile-time and an ordering of [0..", dim->args.size() - 1, "]");
            if (!seen.insert(*v).second) fail(order->pos, "[@dimOrder] Duplicate index");
            b.dim_order[k] = static_cast<int>(*v);
        }
    }

    void declaration(const OklStmt& s) {
        for (const OklDecl& d : s.decls) {
            if (d.type.base == "void" && !d.type.pointers) fail(d.pos, "variable '", d.name, "' cannot be void");
            if (d.type.lanes > 1)
                vector_declaration(d);
            else if (d.type.pointers)
                pointer_declaration(d);
            else if (!d.dims.empty())
                array_declaration(d);
            else
                scalar_declaration(d);
        }
    }

    void pointer_declaration(const OklDecl& d) {
        if (!d.init) fail(d.pos, "local pointer '", d.name, "' must be initialized");
        if (assigned_.count(d.name)) fail(d.pos, "local pointer '", d.name, "' is reassigned; only fixed aliases are supported");
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        PointerRef p = pointer(d.init);
        reads_ = saved;
        if (!reads.empty())
            fail(d.pos, "local pointer '", d.name, "' is offset by a value read from memory; only offsets fixed by loop indices and arguments are supported");
        Binding b;
        b.kind = Binding::Kind::Pointer;
        b.name = p.base;
        b.dtype = p.dtype;
        b.value = p.offset;
        bind(d.name, b);
    }

    void array_declaration(const OklDecl& d) {
        const bool shared = okl_find_attr(d.type.attrs, "shared") != nullptr;
        Variable v;
        v.name = unique(d.name);
        v.kind = VarKind::Temporary;
        v.dtype = *dtype_from_name(d.type.base);
        v.address_space = shared ? AddressSpace::Local : AddressSpace::Private;
        Binding b;
        b.kind = Binding::Kind::Array;
        b.name = v.name;
        b.dtype = d.type.base;
        std::int64_t total = 1;
        for (const OklExprPtr& e : d.dims) {
            // `T a[] = {...}`: the first extent is the initializer's length.
            const bool from_init = !e && &e == &d.dims.front() && d.init && d.init->kind == OklExprKind::InitList;
            auto n = from_init ? std::optional<std::int64_t>(static_cast<std::int64_t>(d.init->args.size())) : e ? constant_of(e) : std::nullopt;
            if (!n) fail(d.pos, shared ? "[@shared] variables must have sizes known at compile-time" : "array sizes must be known at compile-time");
            if (*n <= 0 || *n > kMaxArrayElements || (total *= *n) > kMaxArrayElements)
                fail(d.pos, "array '", d.name, "' has an invalid size");
            b.dims.push_back(*n);
            v.shape.push_back(parse_expression(std::to_string(*n)));
        }
        set_default_strides(v);
        if (!shared) private_.insert(v.name);
        if (d.init) initialize_array(d, b, v);
        temporaries_.push_back(std::move(v));
        bind(d.name, b);
    }

    // `T a[n] = {...}`: a constant table when const, otherwise one assignment per element (C zero-fills the
    // elements not listed).
    void initialize_array(const OklDecl& d, const Binding& b, Variable& v) {
        if (d.init->kind != OklExprKind::InitList) fail(d.pos, "array '", d.name, "' needs a {...} initializer");
        std::vector<OklExprPtr> flat;
        flatten(d.init, flat);
        std::size_t total = 1;
        for (std::int64_t n : b.dims) total *= static_cast<std::size_t>(n);
        if (flat.size() > total) fail(d.pos, "too many initializers for array '", d.name, "'");
        if (total > kMaxInitializedElements) fail(d.pos, "initialized array '", d.name, "' has more than ", kMaxInitializedElements, " elements");
        if (d.type.is_const && constant_table(flat, total, v)) return;
        for (std::size_t k = 0; k < total; ++k) {
            std::set<std::string> reads;
            std::set<std::string>* saved = reads_;
            reads_ = &reads;
            Val value = k < flat.size() ? rvalue(flat[k]) : constant_val(0);
            reads_ = saved;
            std::string index;
            std::size_t rest = k;
            for (std::size_t a = b.dims.size(); a-- > 0;) {
                index = std::to_string(rest % static_cast<std::size_t>(b.dims[a])) + (index.empty() ? "" : ", " + index);
                rest /= static_cast<std::size_t>(b.dims[a]);
            }
            emit(b.name + "[" + index + "] = " + value.text, reads, {b.name}, d.pos, false);
        }
    }

    static void flatten(const OklExprPtr& e, std::vector<OklExprPtr>& out) {
        if (e->kind != OklExprKind::InitList) return out.push_back(e);
        for (const OklExprPtr& a : e->args) flatten(a, out);
    }

    bool constant_table(const std::vector<OklExprPtr>& flat, std::size_t total, Variable& v) {
        std::vector<double> values;
        for (const OklExprPtr& e : flat) {
            auto x = number_of(e);
            if (!x) return false;
            values.push_back(*x);
        }
        values.resize(total, 0.0);
        v.initializer = std::move(values);
        v.read_only = true;
        return true;
    }

    void scalar_declaration(const OklDecl& d) {
        if (okl_find_attr(d.type.attrs, "dim")) fail(d.pos, "[@dim] applies to pointers");
        std::set<std::string> reads;
        std::optional<Val> init;
        if (d.init) {
            if (d.init->kind == OklExprKind::InitList) fail(d.pos, "scalar '", d.name, "' cannot have a {...} initializer");
            std::set<std::string>* saved = reads_;
            reads_ = &reads;
            init = rvalue(d.init);
            reads_ = saved;
        }
        // A local never assigned after its declaration, computed from loop indices and arguments only, is that
        // value wherever it is used (which keeps loop bounds and indices built from it affine).
        const bool exclusive = okl_find_attr(d.type.attrs, "exclusive") != nullptr;
        if (init && reads.empty() && !assigned_.count(d.name) && !exclusive && !is_float_type(d.type.base) &&
            !is_float_type(init->dtype)) {
            Binding b;
            b.value = *init;
            if (init->dtype != d.type.base) b.value = converted(*init, d.type.base);
            bind(d.name, b);
            return;
        }
        Binding b;
        b.kind = Binding::Kind::Scalar;
        b.name = private_temporary(d.name, d.type.base);
        b.dtype = d.type.base;
        bind(d.name, b);
        if (init) emit(b.name + " = " + init->text, reads, {b.name}, d.pos, false);
    }

    // An integer value converted to `dtype` (C's conversion on initialization).
    static Val converted(const Val& v, const std::string& dtype) {
        Val out = v;
        out.dtype = dtype;
        if (type_bits(dtype) < type_bits(v.dtype) || (is_unsigned_type(dtype) != is_unsigned_type(v.dtype) && !v.nonneg)) {
            out.text = "cast(" + dtype + ", " + v.text + ")";
            out.isl.clear();
            out.constant.reset();
        }
        return out;
    }

    // --- expressions

    // A scalar value. Vectors are values only where an operation takes them (lanewise arithmetic, their
    // builtins, assignments, arguments): everywhere else one is an error, never a scalar's text.
    Val rvalue(const OklExprPtr& e) {
        Val v = value(e);
        if (!v.lanes.empty()) fail(e->pos, "a vector (", v.dtype, " x ", v.lanes.size(), ") where a scalar is needed");
        return v;
    }

    // A scalar or vector value.
    Val value(const OklExprPtr& e) {
        if (auto c = constant_of(e)) {
            Val v = constant_val(*c);
            if (e->kind == OklExprKind::Int) v.dtype = e->int_type;
            return v;
        }
        const OklExpr& x = *e;
        switch (x.kind) {
            case OklExprKind::Float: return float_val(x);
            case OklExprKind::Name: return name_val(x);
            case OklExprKind::Unary: return unary_val(x);
            case OklExprKind::Binary: return binary_val(x.op, value(x.args[0]), conditional_value(x, 1), x.pos);
            case OklExprKind::Ternary: return ternary_val(x);
            case OklExprKind::Call: return call_val(x);
            case OklExprKind::Index: return element(e).first;
            case OklExprKind::Cast: return cast_val(x);
            case OklExprKind::Sizeof: return constant_val(static_cast<std::int64_t>(sizeof_type(x)));
            case OklExprKind::Member: return member_val(e);
            case OklExprKind::Assign:
            case OklExprKind::Postfix: fail(x.pos, "assignment inside an expression is not supported; write it as its own statement");
            case OklExprKind::Comma: fail(x.pos, "the comma operator is only supported as a statement");
            case OklExprKind::InitList: fail(x.pos, "a {...} initializer is only allowed in an array declaration");
            default: fail(x.pos, "unsupported expression");
        }
    }

    Val member_val(const OklExprPtr& e) {
        const OklExprPtr& object = e->args[0];
        if (e->op == "." && is_vector_expr(object)) {
            const Val v = value(object);
            return selected(v, swizzle(e->name, v.lanes.size(), e->pos));
        }
        if (e->op == "." && object->kind == OklExprKind::Name && bound(*object).kind == Binding::Kind::Struct) {
            const Binding& b = bound(*object);
            auto f = b.fields.find(e->name);
            if (f == b.fields.end()) fail(e->pos, b.struct_name, " has no field '", e->name, "'");
            return f->second;
        }
        return element(e).first;
    }

    // The right operand of && and || is evaluated only when needed: calls with statements may not appear there.
    Val conditional_value(const OklExpr& x, std::size_t k) {
        const bool lazy = x.op == "&&" || x.op == "||";
        conditional_ += lazy;
        Val v = value(x.args[k]);
        conditional_ -= lazy;
        return v;
    }

    static Val float_val(const OklExpr& x) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", x.fval);
        std::string t = buf;
        if (t.find_first_of(".en") == std::string::npos) t += ".0";
        Val v;
        // Loom types an unsuffixed literal like the other operand (numpy's weak scalars); C computes in double.
        v.text = x.float32 ? t + "f" : "cast(float64, " + t + ")";
        v.dtype = x.float32 ? "float32" : "float64";
        v.fconstant = x.float32 ? double(float(x.fval)) : x.fval;
        return v;
    }

    Val name_val(const OklExpr& x) { return binding_val(bound(x), x); }

    Val binding_val(const Binding& b, const OklExpr& x) {
        switch (b.kind) {
            case Binding::Kind::Vector: {
                Val v;
                v.dtype = b.dtype;
                for (const Binding& l : b.lanes) v.lanes.push_back(binding_val(l, x));
                return v;
            }
            case Binding::Kind::Pure: return b.value;
            case Binding::Kind::Scalar: {
                if (reads_) reads_->insert(b.name);
                Val v;
                v.text = b.name;
                v.dtype = b.dtype;
                v.nonneg = is_unsigned_type(b.dtype);
                return v;
            }
            case Binding::Kind::Value: {
                if (!b.value.text.empty()) return b.value;
                Val v;
                v.text = b.name;
                v.dtype = b.dtype;
                return v;
            }
            default: fail(x.pos, "array '", x.name, "' used as a value (index it)");
        }
    }

    Val unary_val(const OklExpr& x) {
        if (x.op == "*") return element_at(pointer(x.args[0]), constant_val(0), x.pos);
        if (x.op == "++" || x.op == "--") fail(x.pos, "'", x.op, "' inside an expression is not supported; write it as its own statement");
        if (x.op == "&") fail(x.pos, "addresses ('&') are only supported where a pointer is expected");
        const Val a = value(x.args[0]);
        if (a.lanes.empty()) return unary_scalar(x, a);
        if (x.op != "-" && x.op != "+") fail(x.pos, "'", x.op, "' on a vector is not supported");
        return lanewise(a, [&](const Val& lane) { return unary_scalar(x, lane); });
    }

    Val unary_scalar(const OklExpr& x, const Val& a) {
        Val v;
        if (x.op == "!") {
            v.text = "(not " + condition_text(a) + ")";
            v.dtype = "bool";
            return v;
        }
        v.dtype = promoted(a.dtype == "bool" ? "int32" : a.dtype);
        if (x.op == "+") {
            v = a;
            v.dtype = promoted(a.dtype);
            return v;
        }
        if (x.op == "~") {
            if (is_float_type(a.dtype)) fail(x.pos, "'~' needs an integer operand");
            v.text = "(~" + a.text + ")";
            return v;
        }
        v.text = "(-" + a.text + ")";
        if (!a.isl.empty()) v.isl = "(-" + a.isl + ")";
        return v;
    }

    static std::string condition_text(const Val& v) { return v.dtype == "bool" ? v.text : "(" + v.text + " != 0)"; }

    Val binary_val(const std::string& op, const Val& a, const Val& b, const OklPos& pos) {
        if (!a.lanes.empty() || !b.lanes.empty()) {
            if (op != "+" && op != "-" && op != "*" && op != "/")
                fail(pos, "'", op, "' on vectors is not supported (only + - * / lane by lane)");
            return lanewise(a, b, pos, [&](const Val& x, const Val& y) { return binary_val(op, x, y, pos); });
        }
        Val v;
        static const std::map<std::string, std::string> compare{{"<", "<"}, {"<=", "<="}, {">", ">"}, {">=", ">="}, {"==", "=="}, {"!=", "!="}};
        if (compare.count(op)) {
            v.text = "(" + a.text + " " + op + " " + b.text + ")";
            v.dtype = "bool";
            return v;
        }
        if (op == "&&" || op == "||") {
            v.text = "(" + condition_text(a) + (op == "&&" ? " and " : " or ") + condition_text(b) + ")";
            v.dtype = "bool";
            return v;
        }
        const std::string t = common_type(a.dtype == "bool" ? "int32" : a.dtype, b.dtype == "bool" ? "int32" : b.dtype);
        v.dtype = t;
        const bool ints = !is_float_type(t);
        if (ints && (op == "/" || op == "%") && !(a.nonneg && b.nonneg) && b.constant && *b.constant > 0 && known_nonneg(a)) {
            Val known = a;
            known.nonneg = true;
            return binary_val(op, known, b, pos);
        }
        if ((op == "%" || op == "<<" || op == ">>" || op == "&" || op == "|" || op == "^") && !ints)
            fail(pos, "'", op, "' needs integer operands");
        if (op == "<<" || op == ">>") v.dtype = promoted(a.dtype == "bool" ? "int32" : a.dtype);
        if ((op == "/" && ints) || op == "%") {
            // C's truncation from floor division names its operands several times: each is computed once into
            // a temporary, else nested divisions would multiply the text (not where the operand may not be
            // evaluated, right of && or || or in ?:; there the text's size is bounded below).
            const bool twice = !(a.nonneg && b.nonneg) && !conditional_;
            const Val x = twice ? kept_scalar(a, pos) : a, y = twice ? kept_scalar(b, pos) : b;
            if (op == "/")
                v.text = trunc_div_text(x, y);
            else
                v.text = x.nonneg && y.nonneg ? "(" + x.text + " % " + y.text + ")"
                                              : "(" + x.text + " - " + y.text + "*" + trunc_div_text(x, y) + ")";
        } else {
            v.text = "(" + a.text + " " + op + " " + b.text + ")";
        }
        if (v.text.size() > kMaxExpressionText) fail(pos, "this expression's Loom form passes ", kMaxExpressionText, " characters");
        v.nonneg = ints && a.nonneg && b.nonneg && op != "-" && op != "^" && op != "<<";
        if (ints) v.isl = affine(op, a, b);
        return v;
    }

    // The isl form of an integer operation, when it is quasi-affine.
    static std::string affine(const std::string& op, const Val& a, const Val& b) {
        if (a.isl.empty() || b.isl.empty()) return "";
        if (op == "+" || op == "-") return "(" + a.isl + " " + op + " " + b.isl + ")";
        if (op == "*" && (a.constant || b.constant)) return "(" + a.isl + "*" + b.isl + ")";
        // Truncation names the dividend twice in isl's form too: past a size, the value is not used as affine.
        if ((op == "/" || op == "%") && b.constant && *b.constant != 0 && a.isl.size() < kMaxExpressionText / 100) {
            const std::string q = trunc_div_isl(a, *b.constant);
            return op == "/" ? q : "(" + a.isl + " - " + std::to_string(*b.constant) + "*" + q + ")";
        }
        return "";
    }

    Val ternary_val(const OklExpr& x) {
        const Val c = rvalue(x.args[0]);
        ++conditional_;
        const Val a = value(x.args[1]);
        const Val b = value(x.args[2]);
        --conditional_;
        return lanewise(a, b, x.pos, [&](const Val& y, const Val& z) { return choice(c, y, z); });
    }

    static Val choice(const Val& c, const Val& a, const Val& b) {
        Val v;
        v.dtype = a.dtype == b.dtype ? a.dtype : common_type(a.dtype == "bool" ? "int32" : a.dtype, b.dtype == "bool" ? "int32" : b.dtype);
        v.text = "if(" + condition_text(c) + ", " + a.text + ", " + b.text + ")";
        v.nonneg = a.nonneg && b.nonneg;
        return v;
    }

    Val cast_val(const OklExpr& x) {
        if (x.type->pointers) fail(x.pos, "pointer casts are only supported where a pointer is expected");
        if (x.type->base == "void") fail(x.pos, "a (void) cast is only allowed as a statement");
        if (x.type->lanes > 1) return vector_literal(x);
        Val a = rvalue(x.args[0]);
        Val v;
        v.dtype = x.type->base;
        v.text = "cast(" + x.type->base + ", " + a.text + ")";
        if (!is_float_type(a.dtype) && !is_float_type(x.type->base) && type_bits(x.type->base) >= type_bits(a.dtype) &&
            (a.nonneg || !is_unsigned_type(x.type->base))) {
            v.isl = a.isl;
            v.nonneg = a.nonneg;
        }
        return v;
    }

    std::size_t sizeof_type(const OklExpr& x) {
        if (x.type) {
            if (x.type->pointers) return 8;
            auto t = dtype_from_name(x.type->base);
            if (!t) fail(x.pos, "sizeof of an unknown type");
            // OpenCL's 3-lane vectors take the room of 4.
            return dtype_size(*t) * static_cast<std::size_t>(x.type->lanes == 3 ? 4 : x.type->lanes);
        }
        const OklExprPtr& a = x.args[0];
        if (a->kind == OklExprKind::Name) {
            const Binding& b = bound(*a);
            if (b.kind == Binding::Kind::Array) {
                std::size_t n = dtype_size(*dtype_from_name(b.dtype));
                for (std::int64_t d : b.dims) n *= static_cast<std::size_t>(d);
                return n;
            }
            if (b.kind == Binding::Kind::Pointer) return 8;
        }
        std::set<std::string> ignored;
        std::set<std::string>* saved = reads_;
        reads_ = &ignored;
        Val v = value(a);
        reads_ = saved;
        const std::size_t lanes = v.lanes.size() == 3 ? 4 : std::max<std::size_t>(v.lanes.size(), 1);
        return lanes * (v.dtype == "bool" ? 4 : dtype_size(*dtype_from_name(v.dtype)));
    }

    // --- vector types (OpenCL's float3, int4, ...): each lane is a scalar of its own, named NAME_x, NAME_y, ...

    static std::string lane_name(std::size_t k) {
        static const char* xyzw[] = {"x", "y", "z", "w"};
        return k < 4 ? xyzw[k] : "s" + std::string(1, "0123456789abcdef"[k]);
    }

    // The lanes `.field` selects of a vector of `count` lanes: `.x`, `.zyx`, `.s3`, `.s01`.
    static std::vector<std::size_t> swizzle(const std::string& field, std::size_t count, const OklPos& pos) {
        std::vector<std::size_t> out;
        const bool numbered = field.size() > 1 && (field[0] == 's' || field[0] == 'S');
        for (std::size_t k = numbered ? 1 : 0; k < field.size(); ++k) {
            const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(field[k])));
            const std::string digits = numbered ? "0123456789abcdef" : "xyzw";
            const std::size_t lane = digits.find(c);
            if (lane == std::string::npos || lane >= count)
                fail(pos, "'.", field, "' selects no lane of a vector of ", count);
            out.push_back(lane);
        }
        if (out.empty() || out.size() > 16) fail(pos, "'.", field, "' selects no lane of a vector of ", count);
        return out;
    }

    static Val selected(const Val& v, const std::vector<std::size_t>& lanes) {
        if (lanes.size() == 1) return v.lanes[lanes[0]];
        Val out;
        out.dtype = v.dtype;
        for (std::size_t k : lanes) out.lanes.push_back(v.lanes[k]);
        return out;
    }

    // Lane k of `v`; a scalar stands for every lane.
    static const Val& lane(const Val& v, std::size_t k) { return v.lanes.empty() ? v : v.lanes[k]; }

    static std::size_t lane_count(const std::vector<Val>& vals, const OklPos& pos) {
        std::size_t n = 0;
        for (const Val& v : vals) {
            if (v.lanes.empty()) continue;
            if (n && n != v.lanes.size()) fail(pos, "vectors of ", n, " and ", v.lanes.size(), " lanes in one operation");
            n = v.lanes.size();
        }
        return n;
    }

    template <class F>
    static Val lanewise(const Val& a, F&& f) {
        Val out;
        for (const Val& l : a.lanes) out.lanes.push_back(f(l));
        out.dtype = out.lanes.front().dtype;
        return out;
    }

    // f applied lane by lane; a scalar operand is converted to the vector's element type first, as OpenCL's
    // usual arithmetic conversions do (`0.5 * v` is a float multiplication for a float3 v).
    template <class F>
    static Val lanewise(const Val& a, const Val& b, const OklPos& pos, F&& f) {
        const std::size_t n = lane_count({a, b}, pos);
        if (!n) return f(a, b);
        const Val x = a.lanes.empty() ? as_type(a, b.dtype) : a, y = b.lanes.empty() ? as_type(b, a.dtype) : b;
        Val out;
        for (std::size_t k = 0; k < n; ++k) out.lanes.push_back(f(lane(x, k), lane(y, k)));
        out.dtype = out.lanes.front().dtype;
        return out;
    }

    // Whether `.field` of `object` selects lanes rather than a struct field.
    bool is_vector_expr(const OklExprPtr& object) const {
        if (object->kind == OklExprKind::Name) {
            const Binding* b = lookup(object->name);
            return b && b->kind == Binding::Kind::Vector;
        }
        return object->kind == OklExprKind::Call || object->kind == OklExprKind::Member ||
               object->kind == OklExprKind::Binary || object->kind == OklExprKind::Cast ||
               object->kind == OklExprKind::Ternary || object->kind == OklExprKind::Unary;
    }

    static Val as_type(Val v, const std::string& dtype) {
        if (!v.lanes.empty()) return lanewise(v, [&](const Val& l) { return as_type(l, dtype); });
        return v.dtype == dtype ? v : converted_arg(v, dtype);
    }

    // `v` as a value of `type` (a vector of its lanes, or a scalar), converted as C converts on assignment.
    static Val typed(const Val& v, const OklType& type, const OklPos& pos, const std::string& what) {
        const std::size_t lanes = static_cast<std::size_t>(type.lanes);
        if (lanes == 1) {
            if (!v.lanes.empty()) fail(pos, what, ": a vector where a scalar ", type.base, " is needed");
            return as_type(v, type.base);
        }
        if (!v.lanes.empty() && v.lanes.size() != lanes)
            fail(pos, what, ": a vector of ", v.lanes.size(), " lanes where ", lanes, " are needed");
        Val out;
        out.dtype = type.base;
        for (std::size_t k = 0; k < lanes; ++k) out.lanes.push_back(as_type(lane(v, k), type.base));
        return out;
    }

    // `(float3)(a, b, c)` and `(float3)(s)`, OpenCL's vector literals.
    Val vector_literal(const OklExpr& x) {
        std::vector<OklExprPtr> parts;  // the comma expression's operands, last first
        OklExprPtr e = x.args[0];
        for (; e->kind == OklExprKind::Comma; e = e->args[0]) parts.push_back(e->args[1]);
        parts.push_back(e);
        Val v;
        v.dtype = x.type->base;
        for (auto p = parts.rbegin(); p != parts.rend(); ++p) {
            const Val part = value(*p);
            if (part.lanes.empty()) v.lanes.push_back(part);
            else v.lanes.insert(v.lanes.end(), part.lanes.begin(), part.lanes.end());
        }
        return typed(v.lanes.size() == 1 ? v.lanes[0] : v, *x.type, x.pos, "vector literal");
    }

    // The geometric functions of OpenCL on vectors of floating-point lanes, written out lane by lane.
    std::optional<Val> geometric(const std::string& fn, const std::vector<Val>& args, const OklPos& pos) {
        static const std::map<std::string, std::size_t> arity{{"dot", 2}, {"length", 1}, {"normalize", 1}, {"distance", 2}, {"cross", 2}};
        const auto count = arity.find(fn);
        if (count == arity.end()) return std::nullopt;
        if (args.size() != count->second) fail(pos, "'", fn, "' takes ", count->second, " arguments, given ", args.size());
        const std::size_t n = lane_count(args, pos);
        if (!n) return std::nullopt;  // on scalars: as the math builtin of that name, if any
        for (const Val& v : args)
            if (v.lanes.size() != n || !is_float_type(v.dtype)) fail(pos, "'", fn, "' takes vectors of floating-point lanes");
        if (fn == "dot") return dot(args[0], args[1], pos);
        if (fn == "length") return length(args[0], pos);
        if (fn == "distance") return length(binary_val("-", args[0], args[1], pos), pos);
        if (fn == "normalize") {
            const Val v = kept(args[0], pos);
            const Val l = length(v, pos);
            return lanewise(v, [&](const Val& x) { return binary_val("/", x, l, pos); });
        }
        if (n != 3 && n != 4) fail(pos, "'cross' takes vectors of 3 or 4 lanes");
        const Val a = kept(args[0], pos), b = kept(args[1], pos);
        Val out;
        out.dtype = a.dtype;
        for (std::size_t k = 0; k < 3; ++k) {
            const std::size_t i = (k + 1) % 3, j = (k + 2) % 3;
            out.lanes.push_back(binary_val("-", binary_val("*", a.lanes[i], b.lanes[j], pos),
                                           binary_val("*", a.lanes[j], b.lanes[i], pos), pos));
        }
        if (n == 4) out.lanes.push_back(as_type(constant_val(0), out.dtype));
        return out;
    }

    Val dot(const Val& a, const Val& b, const OklPos& pos) {
        Val sum = binary_val("*", a.lanes[0], b.lanes[0], pos);
        for (std::size_t k = 1; k < a.lanes.size(); ++k) sum = binary_val("+", sum, binary_val("*", a.lanes[k], b.lanes[k], pos), pos);
        return sum;
    }

    Val length(const Val& v, const OklPos& pos) {
        const Val k = kept(v, pos);
        const Val d = dot(k, k, pos);
        Val out;
        out.dtype = d.dtype;
        out.text = "sqrt(" + d.text + ")";
        return out;
    }

    // `v` with each lane that is more than a name or a number computed once into a temporary: normalize, length
    // and cross read their argument's lanes several times, and nested calls would otherwise multiply the
    // expression's size.
    Val kept(const Val& v, const OklPos& pos) {
        return lanewise(v, [&](const Val& l) { return kept_scalar(l, pos); });
    }

    Val kept_scalar(const Val& v, const OklPos& pos) {
        const bool simple = v.text.find_first_of("()+-*/ ") == std::string::npos;
        if (simple) return v;
        Val t = v;
        t.text = private_temporary("v", v.dtype);
        t.isl.clear();
        emit(t.text + " = " + v.text, reads_ ? *reads_ : std::set<std::string>{}, {t.text}, pos, false);
        if (reads_) reads_->insert(t.text);
        return t;
    }

    // A vector variable: a private scalar per lane.
    Binding vector_variable(const std::string& name, const OklType& type) {
        Binding b;
        b.kind = Binding::Kind::Vector;
        b.dtype = type.base;
        for (int k = 0; k < type.lanes; ++k) {
            Binding l;
            l.kind = Binding::Kind::Scalar;
            l.dtype = type.base;
            l.name = private_temporary(name + "_" + lane_name(static_cast<std::size_t>(k)), type.base);
            b.lanes.push_back(l);
        }
        return b;
    }

    void vector_declaration(const OklDecl& d) {
        if (d.type.pointers || !d.dims.empty()) fail(d.pos, "arrays of and pointers to vector types are not supported ('", d.name, "')");
        std::set<std::string> reads;
        std::optional<Val> init;
        if (d.init) {
            if (d.init->kind == OklExprKind::InitList) fail(d.pos, "vector '", d.name, "' cannot have a {...} initializer; write (", d.type.base, d.type.lanes, ")(...)");
            std::set<std::string>* saved = reads_;
            reads_ = &reads;
            init = typed(value(d.init), d.type, d.pos, "initializer of '" + d.name + "'");
            reads_ = saved;
        }
        Binding b = vector_variable(d.name, d.type);
        bind(d.name, b);
        if (init)
            for (std::size_t k = 0; k < b.lanes.size(); ++k)
                emit(b.lanes[k].name + " = " + init->lanes[k].text, reads, {b.lanes[k].name}, d.pos, false);
    }

    // A vector passed by value: one value argument per lane, named PARAM_x, PARAM_y, ...
    void vector_parameter(const OklDecl& p) {
        if (p.type.pointers) fail(p.pos, "pointers to vector types are not supported (parameter '", p.name, "')");
        Binding b;
        b.kind = Binding::Kind::Vector;
        b.dtype = p.type.base;
        for (int k = 0; k < p.type.lanes; ++k) {
            const std::string arg = part_argument(p, "vector", lane_name(static_cast<std::size_t>(k)), p.type.base);
            Binding l;
            l.kind = Binding::Kind::Value;
            l.name = arg;
            l.dtype = p.type.base;
            b.lanes.push_back(l);
        }
        bind(p.name, b);
    }

    // The lanes `lhs` names when it is a vector variable or a selection of its lanes (`v`, `v.x`, `v.zy`).
    std::optional<std::vector<Target>> vector_places(const OklExprPtr& lhs) {
        std::vector<Target> places;
        if (lhs->kind == OklExprKind::Name) {
            const Binding* b = lookup(lhs->name);
            if (!b || b->kind != Binding::Kind::Vector) return std::nullopt;
            for (const Binding& l : b->lanes) {
                if (l.kind != Binding::Kind::Scalar) fail(lhs->pos, "vector argument '", lhs->name, "' cannot be assigned");
                places.push_back(Target{l.name, l.name, l.dtype});
            }
            return places;
        }
        if (lhs->kind != OklExprKind::Member || lhs->op != "." || !is_vector_expr(lhs->args[0])) return std::nullopt;
        const auto all = vector_places(lhs->args[0]);
        if (!all) fail(lhs->pos, "only lanes of a vector variable can be assigned");
        for (std::size_t k : swizzle(lhs->name, all->size(), lhs->pos)) places.push_back((*all)[k]);
        return places;
    }

    // `places op= rhs` lane by lane (op empty for `=`; a scalar rhs goes to every lane). When the rhs reads
    // lanes it writes (`v = v.zyx`), every lane is computed before any is stored.
    void vector_store(const std::vector<Target>& places, const std::string& op, const Val& rhs,
                      std::set<std::string> reads, const OklPos& pos) {
        if (!rhs.lanes.empty() && rhs.lanes.size() != places.size())
            fail(pos, "a vector of ", rhs.lanes.size(), " lanes assigned to ", places.size(), " lanes");
        std::vector<Val> values;
        bool overlaps = false;
        for (const Target& t : places) overlaps |= places.size() > 1 && reads.count(t.var) > 0;
        for (std::size_t k = 0; k < places.size(); ++k) {
            Val v = lane(rhs, k);
            if (!op.empty()) {
                Val current;
                current.text = places[k].text;
                current.dtype = places[k].dtype;
                v = binary_val(op, current, v, pos);
                reads.insert(places[k].var);
            }
            values.push_back(as_type(v, places[k].dtype));
        }
        if (overlaps) {
            for (std::size_t k = 0; k < places.size(); ++k) {
                const std::string tmp = private_temporary(places[k].var + "_new", places[k].dtype);
                emit(tmp + " = " + values[k].text, reads, {tmp}, pos, false);
                values[k].text = tmp;
            }
            reads.clear();
            for (std::size_t k = 0; k < places.size(); ++k) reads.insert(values[k].text);
        }
        for (std::size_t k = 0; k < places.size(); ++k) emit(places[k].text + " = " + values[k].text, reads, {places[k].var}, pos, false);
    }

    // --- calls: math builtins, @dim indexing, device functions

    Val call_val(const OklExpr& x) {
        if (x.args[0]->kind != OklExprKind::Name) fail(x.pos, "only named functions can be called");
        const std::string& fn = x.args[0]->name;
        if (const Binding* b = lookup(fn); b && b->kind == Binding::Kind::Pointer) return element(std::make_shared<OklExpr>(x)).first;
        if (const OklFunction* f = device_function(fn))
            return fn_ || needs_function(*f) ? function_call(*f, x) : inline_call(*f, x, true);
        return builtin(x, fn);
    }

    Val builtin(const OklExpr& x, const std::string& fn) {
        std::vector<Val> args;
        for (std::size_t k = 1; k < x.args.size(); ++k) args.push_back(value(x.args[k]));
        if (const std::optional<Val> g = geometric(fn, args, x.pos)) return *g;
        const std::size_t lanes = lane_count(args, x.pos);
        if (!lanes) return scalar_builtin(x, fn, std::move(args));
        std::string element;
        for (const Val& a : args)
            if (!a.lanes.empty()) element = a.dtype;
        Val out;
        for (std::size_t k = 0; k < lanes; ++k) {
            std::vector<Val> at;
            for (const Val& a : args) at.push_back(a.lanes.empty() ? as_type(a, element) : a.lanes[k]);
            out.lanes.push_back(scalar_builtin(x, fn, std::move(at)));
        }
        out.dtype = out.lanes.front().dtype;
        return out;
    }

    Val scalar_builtin(const OklExpr& x, const std::string& fn, std::vector<Val> args) {
        const std::set<std::string>& float_fns = math_functions();
        std::string name = fn;
        bool single = false;
        // C's float variants (sqrtf) are the same functions on float32.
        if (!float_fns.count(name) && name.size() > 1 && name.back() == 'f' && float_fns.count(name.substr(0, name.size() - 1))) {
            name.pop_back();
            single = true;
        }
        const bool minmax = name == "min" || name == "max" || name == "abs" || name == "clamp";
        if (!float_fns.count(name) && !minmax) fail(x.pos, "unknown function '", fn, "'");
        if (name == "fmin" || name == "fmax") name = name.substr(1);
        std::string t;
        for (Val& a : args) {
            if (single && a.dtype != "float32") a = as_type(a, "float32");
            t = t.empty() ? a.dtype : common_type(t, a.dtype);
        }
        Val v;
        v.dtype = minmax ? t : is_float_type(t) ? t : "float64";
        if ((name == "min" || name == "max") && args.size() == 2) return min_max(name, args[0], args[1], t);
        v.text = name + "(";
        for (std::size_t k = 0; k < args.size(); ++k) v.text += (k ? ", " : "") + args[k].text;
        v.text += ")";
        return v;
    }

    // Loom reads `min(x, e)` with a bare name x as a reduction over iname x, so a bare name never comes first.
    static Val min_max(const std::string& name, Val a, Val b, const std::string& dtype) {
        auto bare = [](const Val& v) { return !v.text.empty() && (std::isalpha(static_cast<unsigned char>(v.text[0])) || v.text[0] == '_') && v.text.find_first_of("([ ") == std::string::npos; };
        Val v;
        v.dtype = dtype;
        if (is_float_type(dtype)) {
            v.text = "f" + name + "(" + a.text + ", " + b.text + ")";
        } else if (bare(a) && bare(b)) {
            v.text = "if(" + a.text + (name == "min" ? " < " : " > ") + b.text + ", " + a.text + ", " + b.text + ")";
        } else {
            if (bare(a)) std::swap(a, b);
            v.text = name + "(" + a.text + ", " + b.text + ")";
        }
        v.nonneg = name == "max" ? a.nonneg || b.nonneg : a.nonneg && b.nonneg;
        return v;
    }

    const OklFunction* device_function(const std::string& name) const {
        const OklFunction* found = nullptr;
        for (const OklFunction& f : program_.functions)
            if (f.name == name && f.body) found = &f;
        if (found && okl_find_attr(found->attrs, "kernel")) return nullptr;
        return found;
    }

    // Inlines a device function: its parameters bound to the arguments (snapshotted into temporaries when the
    // body has statements that could change what they read), its statements lowered in place, and the value of
    // its final `return`.
    Val inline_call(const OklFunction& f, const OklExpr& call, bool want_value) {
        const auto& stmts = f.body->body;
        const bool single_return = stmts.size() == 1 && stmts[0]->kind == OklStmtKind::Return;
        if (!single_return && conditional_ > 0)
            fail(call.pos, "device function '", f.name, "' has statements and is called where it may not be evaluated (in ?:, && or ||)");
        if (inline_depth_ >= kMaxInlineDepth) fail(call.pos, "device functions nested (or recursive) deeper than ", kMaxInlineDepth);
        if (call.args.size() - 1 != f.params.size())
            fail(call.pos, "device function '", f.name, "' takes ", f.params.size(), " arguments, given ", call.args.size() - 1);
        std::vector<Binding> params;
        AssignedIn names(*this, f);
        for (std::size_t k = 0; k < f.params.size(); ++k) params.push_back(argument(f.params[k], call.args[k + 1], !single_return));
        ++inline_depth_;
        jumps_.push_back({});  // a jump in a function cannot leave the caller's loop
        Scope scope(*this);
        for (std::size_t k = 0; k < f.params.size(); ++k) bind(f.params[k].name, params[k]);
        const bool returns = !stmts.empty() && stmts.back()->kind == OklStmtKind::Return;
        const std::size_t body_end = returns ? stmts.size() - 1 : stmts.size();
        for (std::size_t k = 0; k < body_end; ++k)
            if (stmts[k]->kind == OklStmtKind::Return)
                fail(stmts[k]->pos, "'return' before the end of device function '", f.name, "' is not supported");
        statements(stmts, body_end);
        std::optional<Val> result;
        if (returns && stmts.back()->expr) result = converted_return(f, value(stmts.back()->expr));
        --inline_depth_;
        jumps_.pop_back();
        if (want_value && !result) fail(call.pos, "device function '", f.name, "' returns no value");
        return result ? *result : constant_val(0);
    }

    Val converted_return(const OklFunction& f, const Val& v) {
        if (f.return_type.pointers) fail(f.pos, "device functions returning pointers are not supported");
        return typed(v, f.return_type, f.pos, "value of '" + f.name + "'");
    }

    Binding argument(const OklDecl& param, const OklExprPtr& arg, bool snapshot) {
        if (param.type.lanes > 1) return vector_argument(param, arg, snapshot);
        Binding b;
        if (param.type.is_reference && !param.type.pointers && assigned_.count(param.name)) return referenced(param, arg);
        if (param.type.pointers) {
            PointerRef p = pointer(arg);
            b.kind = Binding::Kind::Pointer;
            b.name = p.base;
            b.dtype = p.dtype;
            b.value = p.offset;
            return b;
        }
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        Val v = rvalue(arg);
        reads_ = saved;
        if (reads_) reads_->insert(reads.begin(), reads.end());
        if (v.dtype != param.type.base) v = converted_arg(v, param.type.base);
        if (!snapshot || (reads.empty() && !assigned_.count(param.name))) {
            b.value = v;
            return b;
        }
        b.kind = Binding::Kind::Scalar;
        b.name = private_temporary(param.name, param.type.base);
        emit(b.name + " = " + v.text, reads, {b.name}, param.pos, false);
        b.dtype = param.type.base;
        return b;
    }

    // A vector argument: each lane bound as a value parameter is (snapshotted the same way).
    Binding vector_argument(const OklDecl& param, const OklExprPtr& arg, bool snapshot) {
        if (param.type.pointers || param.type.is_reference)
            fail(param.pos, "vector parameter '", param.name, "' must be passed by value");
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        const Val v = typed(value(arg), param.type, arg->pos, "argument '" + param.name + "'");
        reads_ = saved;
        if (reads_) reads_->insert(reads.begin(), reads.end());
        if (!snapshot || (reads.empty() && !assigned_.count(param.name))) {
            Binding b;
            b.kind = Binding::Kind::Vector;
            b.dtype = param.type.base;
            for (const Val& l : v.lanes) {
                Binding lb;
                lb.value = l;
                b.lanes.push_back(lb);
            }
            return b;
        }
        Binding b = vector_variable(param.name, param.type);
        for (std::size_t k = 0; k < b.lanes.size(); ++k)
            emit(b.lanes[k].name + " = " + v.lanes[k].text, reads, {b.lanes[k].name}, param.pos, false);
        return b;
    }

    // The caller's variable that reference parameter `param`, which the function assigns, stands for. One it
    // only reads is bound as a value parameter is.
    Binding referenced(const OklDecl& param, const OklExprPtr& arg) {
        if (arg->kind == OklExprKind::Name) {
            const Binding& b = bound(*arg);
            if (b.kind == Binding::Kind::Scalar && b.dtype == param.type.base) return b;
        }
        fail(arg->pos, "reference parameter '", param.name, "' (", param.type.base,
             "&) is assigned: its argument must be a local ", param.type.base, " variable");
    }

    static Val converted_arg(Val v, const std::string& dtype) {
        v.text = "cast(" + dtype + ", " + v.text + ")";
        v.dtype = dtype;
        v.isl.clear();
        v.constant.reset();
        return v;
    }

    // --- pointers and elements

    PointerRef pointer(const OklExprPtr& e) {
        const OklExpr& x = *e;
        if (x.kind == OklExprKind::Name) {
            const Binding& b = bound(x);
            // A one-dimensional array is a pointer to its first element, as in C.
            if (b.kind == Binding::Kind::Array && b.dims.size() == 1) return PointerRef{b.name, b.dtype, constant_val(0), ""};
            if (b.kind != Binding::Kind::Pointer) fail(x.pos, "'", x.name, "' is not a pointer");
            return PointerRef{b.name, b.dtype, b.value, b.struct_name};
        }
        if (x.kind == OklExprKind::Binary && (x.op == "+" || x.op == "-")) {
            const bool left = is_pointer_expr(x.args[0]);
            if (!left && x.op == "-") fail(x.pos, "pointer arithmetic must add an integer to a pointer");
            return moved(pointer(x.args[left ? 0 : 1]), x.op, rvalue(x.args[left ? 1 : 0]), x.pos);
        }
        if (x.kind == OklExprKind::Unary && x.op == "&") return address_of(*x.args[0], x.pos);
        if (x.kind == OklExprKind::Cast && x.type->pointers == 1) {
            PointerRef p = pointer(x.args[0]);
            if (x.type->base != p.dtype) fail(x.pos, "casting a ", p.dtype, " pointer to ", x.type->base, "* is not supported");
            return p;
        }
        fail(x.pos, "unsupported pointer expression");
    }

    // `p + n` or `p - n`: n elements (structs for a pointer to structs) on from where p points.
    PointerRef moved(PointerRef p, const std::string& op, Val n, const OklPos& pos) {
        if (is_float_type(n.dtype)) fail(pos, "pointer arithmetic needs an integer");
        if (!p.struct_name.empty()) n = binary_val("*", n, constant_val(layout(p.struct_name, pos).size), pos);
        p.offset = binary_val(op, p.offset, n, pos);
        return p;
    }

    // `&x`: a pointer to the element x (`&a[i]`, `&m(i, j)` with @dim, `&*p`), which only its indices read.
    PointerRef address_of(const OklExpr& x, const OklPos& pos) {
        if (x.kind == OklExprKind::Unary && x.op == "*") return pointer(x.args[0]);
        if (x.kind == OklExprKind::Call) return moved(pointer(x.args[0]), "+", dim_element_index(x), pos);
        if (x.kind == OklExprKind::Index && x.args[0]->kind != OklExprKind::Index)
            return moved(pointer(x.args[0]), "+", rvalue(x.args[1]), pos);
        fail(pos, "the address of this expression is not supported (only of an element of a pointer or of a one-dimensional array)");
    }

    bool is_pointer_expr(const OklExprPtr& e) const {
        if (e->kind == OklExprKind::Name) {
            const Binding* b = lookup(e->name);
            return b && b->kind == Binding::Kind::Pointer;
        }
        if (e->kind == OklExprKind::Binary) return is_pointer_expr(e->args[0]) || is_pointer_expr(e->args[1]);
        return (e->kind == OklExprKind::Unary && e->op == "&") || (e->kind == OklExprKind::Cast && e->type->pointers);
    }

    // One element of an array or pointer (`a[i]`, `m[i][j]`, `a(i, j)` with @dim, `*p`): its value and where
    // it lives. Index expressions are read; the element itself only when `is_read` (not for a store).
    std::pair<Val, PointerRef> element(const OklExprPtr& e, bool is_read = true) {
        std::vector<OklExprPtr> indices;
        OklExprPtr base = e;
        if (e->kind == OklExprKind::Call) {
            const PointerRef p = pointer(e->args[0]);
            return {element_at(p, dim_element_index(*e), e->pos, is_read), p};
        }
        if (e->kind == OklExprKind::Unary && e->op == "*") {
            PointerRef p = pointer(e->args[0]);
            return {element_at(p, constant_val(0), e->pos, is_read), p};
        }
        while (base->kind == OklExprKind::Index) {
            indices.insert(indices.begin(), base->args[1]);
            base = base->args[0];
        }
        if (base->kind == OklExprKind::Member) {
            PointerRef where;
            Val v = struct_member(*base, indices, is_read, where);
            return {v, where};
        }
        if (base->kind == OklExprKind::Name) {
            const Binding& b = bound(*base);
            if (b.kind == Binding::Kind::Array)
                return {array_element(b, indices, e->pos, is_read), PointerRef{b.name, b.dtype, constant_val(0), ""}};
        }
        if (indices.size() != 1) fail(e->pos, "pointers are indexed with one [index]");
        PointerRef p = pointer(base);
        return {element_at(p, rvalue(indices[0]), e->pos, is_read), p};
    }

    Val array_element(const Binding& b, const std::vector<OklExprPtr>& indices, const OklPos& pos, bool is_read) {
        if (fn_) fail(pos, in_function(), " reads or writes array '", b.name, "': only its parameters and locals are supported");
        if (indices.size() != b.dims.size())
            fail(pos, "array '", b.name, "' has ", b.dims.size(), " dimensions, indexed with ", indices.size());
        Val v;
        v.text = b.name + "[";
        for (std::size_t k = 0; k < indices.size(); ++k) {
            Val i = rvalue(indices[k]);
            if (is_float_type(i.dtype)) fail(pos, "array index is not an integer");
            v.text += (k ? ", " : "") + i.text;
        }
        v.text += "]";
        v.dtype = b.dtype;
        if (reads_ && is_read) reads_->insert(b.name);
        return v;
    }

    // The index of `m(i, j, ...)` into the pointer m with @dim.
    Val dim_element_index(const OklExpr& call) {
        const OklExprPtr& base = call.args[0];
        const std::vector<OklExprPtr> indices(call.args.begin() + 1, call.args.end());
        const Binding& b = bound(*base);
        if (b.dim_sizes.empty()) fail(call.pos, "'", base->name, "' is indexed with (...) but has no [@dim]");
        if (indices.size() != b.dim_sizes.size())
            fail(call.pos, "[@dim] of '", base->name, "' has ", b.dim_sizes.size(), " dimensions, indexed with ", indices.size());
        return dim_index(b, indices, call.pos);
    }

    // OCCA's @dim layout: the first index moves fastest unless @dimOrder permutes them.
    Val dim_index(const Binding& b, const std::vector<OklExprPtr>& indices, const OklPos& pos) {
        const std::size_t n = indices.size();
        Val index = rvalue(indices[static_cast<std::size_t>(b.dim_order[n - 1])]);
        for (std::size_t k = n - 1; k-- > 0;) {
            const std::size_t o = static_cast<std::size_t>(b.dim_order[k]);
            index = binary_val("+", rvalue(indices[o]), binary_val("*", b.dim_sizes[o], index, pos), pos);
        }
        return index;
    }

    Val element_at(const PointerRef& p, const Val& index, const OklPos& pos, bool is_read = true) {
        if (fn_) fail(pos, in_function(), " reads or writes memory ('", p.base, "'): only its parameters and locals are supported");
        if (is_float_type(index.dtype)) fail(pos, "pointer index is not an integer");
        Val at = p.offset.constant && *p.offset.constant == 0 ? index : binary_val("+", p.offset, index, pos);
        Val v;
        v.text = p.base + "[" + at.text + "]";
        v.dtype = p.dtype;
        if (reads_ && is_read) reads_->insert(p.base);
        return v;
    }

    // --- statements

    void statement(const OklStmt& s) {
        if (fn_) return function_statement(s);
        switch (s.kind) {
            case OklStmtKind::Expr: return expression_statement(*s.expr, okl_find_attr(s.attrs, "atomic") != nullptr);
            case OklStmtKind::Decl: return declaration(s);
            case OklStmtKind::Block: return block(s);
            case OklStmtKind::If: return if_statement(s);
            case OklStmtKind::Switch: return switch_statement(s);
            case OklStmtKind::For: return for_statement(s);
            case OklStmtKind::Empty:
                if (okl_find_attr(s.attrs, "barrier")) barrier(s.pos);
                return;
            case OklStmtKind::While:
                fail(s.pos, "while loops are not representable in Loom's loop model, but for one that is a for loop: ",
                     "`T v = init; while (v < bound) { ...; v++; }`, with nothing else writing v and nothing after it reading v");
            case OklStmtKind::Do:
                fail(s.pos, "do-while loops are not representable in Loom's loop model, but for one that is a for loop: ",
                     "`int v = 0; do { ...; v++; } while (v < 8);`, its condition true at the start, with nothing else ",
                     "writing v and nothing after it reading v");
            case OklStmtKind::Return: fail(s.pos, "'return' inside a kernel is not supported (only as its last statement)");
            case OklStmtKind::Break:
            case OklStmtKind::Continue: return jump(s);
            default: fail(s.pos, "unsupported statement");
        }
    }

    void block(const OklStmt& s) {
        const OklAttr* atomic = okl_find_attr(s.attrs, "atomic");
        if (atomic) {
            // An @atomic block is atomic as a whole only when it is one update: Loom's atomics are single
            // read-modify-writes, not critical sections.
            if (s.body.size() != 1 || s.body[0]->kind != OklStmtKind::Expr)
                fail(atomic->pos, "an [@atomic] block must hold exactly one update (Loom has no atomic critical sections)");
            return expression_statement(*s.body[0]->expr, true);
        }
        Scope scope(*this);
        statements(s.body, s.body.size());
    }

    // stmts[0..end) in order, a declaration and the while loop after it as one for loop where they are one.
    void statements(const std::vector<OklStmtPtr>& stmts, std::size_t end) {
        for (std::size_t k = 0; k < end; ++k) {
            if (k + 1 < end)
                if (const OklStmtPtr loop = while_as_for(stmts, k)) {
                    statement(*loop);
                    ++k;
                    continue;
                }
            statement(*stmts[k]);
        }
    }

    // --- while loops that are for loops: `T v = init; while (v < bound) { ...; v++; }`, where nothing else in
    // the body writes v, no `continue` skips its update and nothing after the loop reads v, is the loop
    // `for (T v = init; v < bound; v++) { ... }`, and is lowered as one (with its rules: affine bounds, or
    // constant ones for other updates). So is `do { ...; v++; } while (v < bound);` where the numbers `init` and
    // `bound` let it start.

    // Whether `v` appears in `s`.
    static bool mentions(const OklStmt& s, const std::string& v) {
        bool found = false;
        for_each_expr(s, [&](const OklExprPtr& e) { found = found || mentions(e, v); });
        return found;
    }

    // Whether `cond`, a comparison of `v` with a constant, holds where v is the constant `init`: a do-while
    // loop whose condition allows its first iteration is its for loop too.
    bool holds_at_start(const OklExpr& cond, const std::string& v, const OklExprPtr& init) const {
        static const std::set<std::string> comparisons{"<", "<=", ">", ">="};
        if (cond.kind != OklExprKind::Binary || !comparisons.count(cond.op)) return false;
        const bool left = names(cond.args[0], v);
        if (!left && !names(cond.args[1], v)) return false;
        const std::optional<std::int64_t> start = constant_of(init), other = constant_of(cond.args[left ? 1 : 0]);
        if (!start || !other) return false;
        return left ? compare(*start, cond.op, *other) : compare(*other, cond.op, *start);
    }

    // stmts[k] and stmts[k + 1] as one for loop, where they are a declaration and a while loop of that form (or
    // a do-while loop whose first iteration its condition allows).
    OklStmtPtr while_as_for(const std::vector<OklStmtPtr>& stmts, std::size_t k) const {
        const OklStmt& decl = *stmts[k];
        const OklStmt& loop = *stmts[k + 1];
        if (decl.kind != OklStmtKind::Decl || decl.decls.size() != 1 || !decl.decls[0].init || !loop.expr ||
            loop.body.size() != 1)
            return nullptr;
        const std::string& v = decl.decls[0].name;
        const bool entered = loop.kind == OklStmtKind::While ||
                             (loop.kind == OklStmtKind::Do && holds_at_start(*loop.expr, v, decl.decls[0].init));
        if (!entered) return nullptr;
        const OklStmtPtr& inner = loop.body[0];
        std::vector<OklStmtPtr> body = inner->kind == OklStmtKind::Block ? inner->body : std::vector<OklStmtPtr>{inner};
        if (body.empty() || body.back()->kind != OklStmtKind::Expr) return nullptr;
        const OklExprPtr update = body.back()->expr;
        body.pop_back();
        std::set<std::string> updated, written;
        collect_assigned(update, updated);
        for (const OklStmtPtr& b : body) {
            if (jumps(*b, OklStmtKind::Continue)) return nullptr;
            collect_assigned(*b, written);
        }
        if (!updated.count(v) || written.count(v)) return nullptr;
        for (std::size_t j = k + 2; j < stmts.size(); ++j)
            if (mentions(*stmts[j], v)) return nullptr;
        auto block = std::make_shared<OklStmt>(*inner);
        block->kind = OklStmtKind::Block;
        block->body = std::move(body);
        auto out = std::make_shared<OklStmt>(loop);
        out->kind = OklStmtKind::For;
        out->init = stmts[k];
        out->step = update;
        out->body = {block};
        return out;
    }

    void expression_statement(const OklExpr& e, bool atomic) {
        if (e.kind == OklExprKind::Comma && !atomic) {
            expression_statement(*e.args[0], false);
            return expression_statement(*e.args[1], false);
        }
        if (e.kind == OklExprKind::Assign) return assignment(e, atomic);
        if (e.kind == OklExprKind::Postfix || (e.kind == OklExprKind::Unary && (e.op == "++" || e.op == "--"))) {
            return update(*e.args[0], e.op == "++" ? "+" : "-", constant_val(1), e.pos, atomic);
        }
        if (atomic) fail(e.pos, "[@atomic] applies to an assignment or update");
        if (e.kind == OklExprKind::Call && e.args[0]->kind == OklExprKind::Name) {
            if (const OklFunction* f = device_function(e.args[0]->name)) {
                std::set<std::string> reads;
                std::set<std::string>* saved = reads_;
                reads_ = &reads;
                inline_call(*f, e, false);
                reads_ = saved;
                return;
            }
        }
        // Anything else computes a value nobody uses; it is still checked.
        if (e.kind == OklExprKind::Cast && e.type->base == "void" && !e.type->pointers) return;
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        rvalue(std::make_shared<OklExpr>(e));
        reads_ = saved;
    }

    void assignment(const OklExpr& e, bool atomic) {
        if (e.args[1]->kind == OklExprKind::Assign) {
            if (atomic) fail(e.pos, "[@atomic] applies to one assignment");
            assignment(*e.args[1], false);
            auto plain = std::make_shared<OklExpr>(e);
            plain->args = {e.args[0], e.args[1]->args[0]};
            return assignment(*plain, false);
        }
        if (e.op == "=") {
            std::set<std::string> reads;
            std::set<std::string>* saved = reads_;
            reads_ = &reads;
            Val rhs = value(e.args[1]);
            const auto places = vector_places(e.args[0]);
            if (places && !atomic) {
                reads_ = saved;
                return vector_store(*places, "", rhs, reads, e.pos);
            }
            if (!rhs.lanes.empty()) fail(e.pos, "a vector assigned to a scalar place");
            Target t = target(e.args[0]);
            reads_ = saved;
            return store(t, rhs, reads, e.pos, atomic);
        }
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        Val rhs = value(e.args[1]);
        reads_ = saved;
        update_with(*e.args[0], e.op.substr(0, e.op.size() - 1), rhs, reads, e.pos, atomic);
    }

    void update(const OklExpr& lhs, const std::string& op, const Val& rhs, const OklPos& pos, bool atomic) {
        update_with(lhs, op, rhs, {}, pos, atomic);
    }

    // `x op= rhs`: x = x op rhs, with x's place evaluated once (its index expressions are pure).
    void update_with(const OklExpr& lhs, const std::string& op, const Val& rhs, std::set<std::string> reads,
                     const OklPos& pos, bool atomic) {
        if (const auto places = vector_places(std::make_shared<OklExpr>(lhs)); places && !atomic)
            return vector_store(*places, op, rhs, reads, pos);
        if (!rhs.lanes.empty()) fail(pos, "a vector assigned to a scalar place");
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        Target t = target(std::make_shared<OklExpr>(lhs));
        reads_ = saved;
        reads.insert(t.var);
        Val current;
        current.text = t.text;
        current.dtype = t.dtype;
        current.nonneg = is_unsigned_type(t.dtype);
        store(t, binary_val(op, current, rhs, pos), reads, pos, atomic);
    }

    Target target(const OklExprPtr& e) {
        if (const auto places = vector_places(e)) {
            if (places->size() != 1) fail(e->pos, "a vector where a scalar place is needed");
            return places->front();
        }
        if (e->kind == OklExprKind::Name) {
            const Binding& b = bound(*e);
            if (b.kind == Binding::Kind::Scalar) return Target{b.name, b.name, b.dtype};
            if (b.kind == Binding::Kind::Value) fail(e->pos, "assigning to kernel argument '", e->name, "' is not supported");
            if (b.kind == Binding::Kind::Pure && b.is_loop_index) fail(e->pos, "loop index '", e->name, "' is modified in the loop body");
            fail(e->pos, "'", e->name, "' cannot be assigned");
        }
        if (e->kind == OklExprKind::Index || e->kind == OklExprKind::Call || e->kind == OklExprKind::Member ||
            (e->kind == OklExprKind::Unary && e->op == "*")) {
            auto [val, ref] = element(e, false);
            return Target{val.text, ref.base, val.dtype};
        }
        fail(e->pos, "expression cannot be assigned");
    }

    // Loom (as loopy) never orders an instruction after its own earlier iterations, so an update of shared
    // memory that reads what other work-items wrote in an earlier iteration of a sequential loop
    // (`s[i] += s[i + d]`) is split in two: the value into a private temporary, then the store, which depends
    // on the read and so gets the barriers the exact analysis finds needed.
    void store(const Target& t, const Val& rhs, const std::set<std::string>& reads, const OklPos& pos, bool atomic) {
        if (atomic || sequential_depth_ == 0 || !reads.count(t.var) || private_.count(t.var))
            return emit(t.text + " = " + rhs.text, reads, {t.var}, pos, atomic);
        const std::string tmp = private_temporary(t.var + "_new", t.dtype);
        emit(tmp + " = " + rhs.text, reads, {tmp}, pos, false);
        std::set<std::string> index_reads = reads;
        index_reads.erase(t.var);
        index_reads.insert(tmp);
        emit(t.text + " = " + tmp, index_reads, {t.var}, pos, false);
    }

    std::string private_temporary(const std::string& base, const std::string& dtype) {
        if (fn_) return function_local(base, dtype);
        Variable v;
        v.name = unique(base);
        v.kind = VarKind::Temporary;
        v.is_array = false;
        v.dtype = *dtype_from_name(dtype);
        v.address_space = AddressSpace::Private;
        temporaries_.push_back(v);
        private_.insert(v.name);
        return v.name;
    }

    // `if (c) A else B`: c is evaluated once, before A, as C does; when it reads memory it is kept in a
    // temporary so that A cannot change the outcome for B or for its own later statements.
    void if_statement(const OklStmt& s) {
        const auto [cond, reads] = evaluated_once(s.expr, s.pos, true);
        branch(*s.body[0], cond, reads);
        if (s.body.size() > 1) branch(*s.body[1], "(not " + cond + ")", reads);
    }

    // The text of `e` (as a condition when `as_condition`) for predicates, and what it reads: when it reads
    // memory it is stored in a private temporary first, so that it is evaluated once, before the statements
    // it guards.
    std::pair<std::string, std::set<std::string>> evaluated_once(const OklExprPtr& e, const OklPos& pos, bool as_condition = false) {
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        Val v = rvalue(e);
        reads_ = saved;
        if (!as_condition && (is_float_type(v.dtype) || v.dtype == "bool")) fail(pos, "a switch selector must be an integer");
        const std::string text = as_condition ? condition_text(v) : v.text;
        if (reads.empty()) return {text, {}};
        const std::string t = private_temporary(as_condition ? "cond" : "selector", as_condition ? "bool" : v.dtype);
        emit(t + " = " + text, reads, {t}, pos, false);
        return {t, {t}};
    }

    // `switch`: each case's statements run under "the selector equals one of the labels reaching them";
    // a case ends with `break` or is the last (fallthrough into statements is not supported). A `break` before
    // the end of a case leaves the switch, not a loop around it: a private flag it sets predicates the rest of
    // the switch (a `continue` there is still the loop's).
    void switch_statement(const OklStmt& s) {
        const auto [sel, reads] = evaluated_once(s.expr, s.pos);
        const bool breaks_early = std::any_of(s.body.begin(), s.body.end(), [](const OklStmtPtr& c) {
            const auto end = c->body.end() - (ends_in_break(*c) ? 1 : 0);
            return std::any_of(c->body.begin(), end, [](const OklStmtPtr& b) { return jumps(*b, OklStmtKind::Break); });
        });
        const std::size_t pushed = predicates_.size();
        if (breaks_early) {
            const std::string left = jump_flag("left_switch", s.pos);
            push_predicate(left);
            jumps_.push_back({left, jumps_.empty() ? "" : jumps_.back().continued});
        }
        cases(s, sel, reads);
        if (breaks_early) jumps_.pop_back();
        predicates_.resize(pushed);
        predicate_reads_.resize(pushed);
    }

    void cases(const OklStmt& s, const std::string& sel, const std::set<std::string>& reads) {
        std::vector<std::string> all_labels, labels;
        bool has_default = false;
        for (const OklStmtPtr& c : s.body)
            if (c->expr) all_labels.push_back("(" + sel + " == " + std::to_string(required_constant(c->expr, "a case label")) + ")");
        std::size_t label = 0;
        for (std::size_t k = 0; k < s.body.size(); ++k) {
            const OklStmt& c = *s.body[k];
            if (c.expr) labels.push_back(all_labels[label++]);
            has_default |= !c.expr;
            if (c.body.empty() && k + 1 < s.body.size()) continue;  // `case 1: case 2:` share the statements
            if (k + 1 < s.body.size() && !leaves_case(*c.body.back()))
                fail(c.pos, "a switch case must end with 'break' (fallthrough is not supported)");
            std::string predicate = labels.empty() ? "" : "(" + join(labels, " or ") + ")";
            if (has_default)
                predicate = all_labels.empty() ? "(0 == 0)" : "(not (" + join(all_labels, " or ") + ")" + (labels.empty() ? "" : " or " + predicate) + ")";
            auto body = std::make_shared<OklStmt>(c);
            body->kind = OklStmtKind::Block;
            if (ends_in_break(c)) body->body.pop_back();
            branch(*body, predicate, reads);
            labels.clear();
            has_default = false;
        }
    }

    // Whether case `c` ends with a plain `break`, which leaves nothing to do (it is dropped).
    static bool ends_in_break(const OklStmt& c) { return !c.body.empty() && c.body.back()->kind == OklStmtKind::Break; }

    // Whether control never runs past `s` into the next case: a `break` or `continue`, a block that ends in one,
    // or an `if` whose branches both do (the jumps inside take the switch's or the loop's flag).
    static bool leaves_case(const OklStmt& s) {
        if (s.kind == OklStmtKind::Break || s.kind == OklStmtKind::Continue) return true;
        if (s.kind == OklStmtKind::Block) return !s.body.empty() && leaves_case(*s.body.back());
        if (s.kind == OklStmtKind::If) return s.body.size() == 2 && leaves_case(*s.body[0]) && leaves_case(*s.body[1]);
        return false;
    }

    void branch(const OklStmt& body, const std::string& predicate, const std::set<std::string>& reads) {
        predicates_.push_back(predicate);
        predicate_reads_.push_back(reads);
        Scope scope(*this);
        statement(body);
        predicates_.pop_back();
        predicate_reads_.pop_back();
    }

    // The private flags a `break` and a `continue` of a sequential loop set (empty: the loop has none).
    struct JumpFlags {
        std::string broken, continued;
    };

    // --- device functions kept as functions (ir/function.h): a function whose control flow has no loop-nest
    // form (a while loop that is not a for loop, a return before its end) is written out as a function of the
    // program, and so is every function it calls. Such a function takes its arguments by value and touches no
    // memory: its statements are C's, translated one by one.

    struct FunctionContext {
        const OklFunction* source;
        ScalarFunction* function;
        std::vector<FunctionStatement>* block;  // where statements go
    };

    std::string in_function() const { return "device function '" + fn_->source->name + "' (kept as a function: " + why_function(*fn_->source) + ")"; }

    std::string why_function(const OklFunction& f) const {
        return needs_function(f) ? "its control flow has no loop-nest form" : "a function kept as a function calls it";
    }

    // Whether `f` returns before its end or has a while or do loop that is not a for loop in disguise.
    bool needs_function(const OklFunction& f) const { return unstructured(f.body->body, true); }

    bool unstructured(const std::vector<OklStmtPtr>& stmts, bool function_body) const {
        for (std::size_t k = 0; k < stmts.size(); ++k) {
            const OklStmt& s = *stmts[k];
            if (s.kind == OklStmtKind::Return && !(function_body && k + 1 == stmts.size())) return true;
            if ((s.kind == OklStmtKind::While || s.kind == OklStmtKind::Do) && !(k > 0 && while_as_for(stmts, k - 1))) return true;
            if (s.init && unstructured({s.init}, false)) return true;
            if (unstructured(s.body, false)) return true;
        }
        return false;
    }

    // A call of a function kept as a function: its arguments by value, a vector's lanes one by one.
    Val function_call(const OklFunction& f, const OklExpr& call) {
        if (call.args.size() - 1 != f.params.size())
            fail(call.pos, "device function '", f.name, "' takes ", f.params.size(), " arguments, given ", call.args.size() - 1);
        const ScalarFunction& fn = kept_function(f, call.pos);
        std::string args;
        for (std::size_t k = 0; k < f.params.size(); ++k) {
            const Val v = typed(value(call.args[k + 1]), f.params[k].type, call.args[k + 1]->pos, "argument '" + f.params[k].name + "'");
            for (const Val& l : v.lanes.empty() ? std::vector<Val>{v} : v.lanes) args += (args.empty() ? "" : ", ") + l.text;
        }
        Val out;
        out.text = fn.name + "(" + args + ")";
        out.dtype = f.return_type.base;
        return out;
    }

    const ScalarFunction& kept_function(const OklFunction& f, const OklPos& pos) {
        if (const auto done = kept_.find(f.name); done != kept_.end()) return *done->second;
        if (!translating_.insert(f.name).second) fail(pos, "device function '", f.name, "' calls itself: recursion is not supported");
        auto fn = std::make_shared<ScalarFunction>();
        fn->name = unique(is_builtin_name(f.name) ? f.name + "_fn" : f.name);
        if (f.return_type.base == "void" || f.return_type.pointers || f.return_type.lanes > 1 || is_struct(f.return_type.base))
            fail(f.pos, "device function '", f.name, "' is kept as a function (", why_function(f), ") and so must return a number");
        fn->result = *dtype_from_name(f.return_type.base);
        {
            // The function sees the file's constants and its parameters; nothing of the caller's state.
            const CallerState caller(*this, FunctionContext{&f, fn.get(), &fn->body.body});
            AssignedIn names(*this, f);
            for (const OklDecl& p : f.params) bind(p.name, function_parameter(p, *fn));
            for (const OklStmtPtr& s : f.body->body) function_statement(*s);
        }
        translating_.erase(f.name);
        functions_.push_back(fn);
        return *(kept_[f.name] = fn);
    }

    // The lowering state of the code that calls a function being translated, set aside until the function is done
    // (also when its translation fails, so that the caller's scopes unwind as they were).
    struct CallerState {
        CallerState(Lowerer& l, FunctionContext fn)
            : l_(l), scopes_(std::exchange(l.scopes_, {l.scopes_.front(), {}})), predicates_(std::exchange(l.predicates_, {})),
              predicate_reads_(std::exchange(l.predicate_reads_, {})), jumps_(std::exchange(l.jumps_, {})),
              fn_(std::exchange(l.fn_, fn)), sequential_(std::exchange(l.sequential_depth_, 0)),
              conditional_(std::exchange(l.conditional_, 0)) {}
        ~CallerState() {
            l_.scopes_ = std::move(scopes_);
            l_.predicates_ = std::move(predicates_);
            l_.predicate_reads_ = std::move(predicate_reads_);
            l_.jumps_ = std::move(jumps_);
            l_.fn_ = fn_;
            l_.sequential_depth_ = sequential_;
            l_.conditional_ = conditional_;
        }
        Lowerer& l_;
        std::vector<std::map<std::string, Binding>> scopes_;
        std::vector<std::string> predicates_;
        std::vector<std::set<std::string>> predicate_reads_;
        std::vector<JumpFlags> jumps_;
        std::optional<FunctionContext> fn_;
        int sequential_, conditional_;
    };

    Binding function_parameter(const OklDecl& p, ScalarFunction& fn) {
        if (p.type.pointers || p.type.is_reference || is_struct(p.type.base) || !p.dims.empty() || p.type.base == "void")
            fail(p.pos, "device function '", fn_->source->name, "' is kept as a function (", why_function(*fn_->source),
                 "), so parameter '", p.name, "' must be a number or a vector passed by value");
        auto scalar = [&](const std::string& name) {
            Binding b;
            b.kind = Binding::Kind::Scalar;
            b.dtype = p.type.base;
            b.name = function_name(name);
            fn.params.push_back({b.name, *dtype_from_name(p.type.base)});
            return b;
        };
        if (p.type.lanes == 1) return scalar(p.name);
        Binding b;
        b.kind = Binding::Kind::Vector;
        b.dtype = p.type.base;
        for (int k = 0; k < p.type.lanes; ++k) b.lanes.push_back(scalar(p.name + "_" + lane_name(static_cast<std::size_t>(k))));
        return b;
    }

    std::string function_name(const std::string& base) { return unique(is_builtin_name(base) ? base + "_" : base); }

    std::string function_local(const std::string& base, const std::string& dtype) {
        const std::string name = function_name(base);
        fn_->function->locals.push_back({name, *dtype_from_name(dtype)});
        return name;
    }

    void append(FunctionStatement s, const OklPos& pos) {
        if (++function_statements_ > kMaxFunctionStatements) fail(pos, "device functions with more than ", kMaxFunctionStatements, " statements");
        fn_->block->push_back(std::move(s));
    }

    // What emit() makes of `local = value` in a function; anything else (a store to memory, a barrier) has no
    // place there.
    void function_assignment(const std::string& body, const OklPos& pos, bool atomic) {
        const std::size_t eq = body.find(" = ");
        const std::string target = eq == std::string::npos ? "" : body.substr(0, eq);
        const bool local = !target.empty() && target.find_first_of("[( ") == std::string::npos;
        if (atomic || !local) fail(pos, in_function(), " has a statement that is not an assignment of a local (", body, ")");
        FunctionStatement s;
        s.kind = FunctionStatement::Kind::Assign;
        s.target = target;
        s.expr = parse_expression(body.substr(eq + 3));
        append(std::move(s), pos);
    }

    // The statements `s` lowers to, in `block`.
    void nested(FunctionStatement& block, const OklStmt& s) {
        std::vector<FunctionStatement>* outer = std::exchange(fn_->block, &block.body);
        Scope scope(*this);
        function_statement(s);
        fn_->block = outer;
    }

    // A loop's condition: one that needs statements of its own (a temporary) cannot be tested where C tests it.
    ExprPtr loop_condition(const OklExprPtr& e, const OklPos& pos) {
        const std::size_t before = fn_->block->size();
        const std::string text = condition_text(rvalue(e));
        if (fn_->block->size() != before) fail(pos, in_function(), ": this loop condition needs temporaries (move its computation into the loop)");
        return parse_expression(text);
    }

    static FunctionStatement block_statement() { return FunctionStatement{FunctionStatement::Kind::Block, "", nullptr, {}}; }

    void function_statement(const OklStmt& s) {
        for (const char* a : {"atomic", "barrier", "nobarrier"})
            if (okl_find_attr(s.attrs, a)) fail(s.pos, "[@", a, "] in ", in_function());
        using K = FunctionStatement::Kind;
        FunctionStatement st;
        switch (s.kind) {
            case OklStmtKind::Empty: return;
            case OklStmtKind::Expr: return expression_statement(*s.expr, false);
            case OklStmtKind::Decl:
                for (const OklDecl& d : s.decls)
                    if (d.type.pointers || !d.dims.empty() || okl_find_attr(d.type.attrs, "shared") || okl_find_attr(d.type.attrs, "exclusive"))
                        fail(d.pos, in_function(), " declares '", d.name, "', which is not a number or a vector");
                return declaration(s);
            case OklStmtKind::Block: {
                Scope scope(*this);
                for (const OklStmtPtr& c : s.body) function_statement(*c);
                return;
            }
            case OklStmtKind::If:
                st.kind = K::If;
                st.expr = parse_expression(condition_text(rvalue(s.expr)));
                st.body = {block_statement(), block_statement()};
                nested(st.body[0], *s.body[0]);
                if (s.body.size() > 1) nested(st.body[1], *s.body[1]);
                break;
            case OklStmtKind::While:
            case OklStmtKind::Do:
                st.kind = s.kind == OklStmtKind::While ? K::While : K::DoWhile;
                st.expr = loop_condition(s.expr, s.pos);
                st.body = {block_statement()};
                nested(st.body[0], *s.body[0]);
                break;
            case OklStmtKind::For: {
                Scope scope(*this);
                if (s.init) function_statement(*s.init);
                st.kind = K::For;
                st.expr = s.expr ? loop_condition(s.expr, s.pos) : nullptr;
                st.body = {block_statement(), block_statement()};
                if (s.step) {
                    std::vector<FunctionStatement>* outer = std::exchange(fn_->block, &st.body[1].body);
                    expression_statement(*s.step, false);
                    fn_->block = outer;
                }
                nested(st.body[0], *s.body[0]);
                break;
            }
            case OklStmtKind::Break: st.kind = K::Break; break;
            case OklStmtKind::Continue: st.kind = K::Continue; break;
            case OklStmtKind::Return: {
                if (!s.expr) fail(s.pos, in_function(), " returns no value");
                OklType result = fn_->source->return_type;
                st.kind = K::Return;
                st.expr = parse_expression(typed(value(s.expr), result, s.pos, "value of '" + fn_->source->name + "'").text);
                break;
            }
            default: fail(s.pos, "this statement (a switch) in ", in_function(), " is not supported");
        }
        append(std::move(st), s.pos);
    }

    // --- loops

    struct LoopShape {
        std::string var;
        Val start;
        std::int64_t step = 1;
        std::string cmp;  // <, <=, >, >=: `var cmp bound`
        Val bound;
        std::string update;  // "*=", "<<=", "/=", ">>=": a loop run over a table of its values
        std::int64_t factor = 0;
    };

    template <class... Parts>
    [[noreturn]] void loop_error(const OklStmt& s, bool okl, const Parts&... parts) {
        if (okl) fail(s.pos, parts...);
        fail(s.pos, "for loop not representable in Loom's loop model: ", parts...);
    }

    LoopShape loop_shape(const OklStmt& s, bool okl) {
        LoopShape l;
        const OklStmt& init = *s.init;
        if (init.kind == OklStmtKind::Empty) loop_error(s, okl, "OKL for loop init-statement cannot be be a null statement");
        if (init.kind != OklStmtKind::Decl) loop_error(s, okl, "OKL for loop init-statement must be a simple declaration with initializer");
        if (init.decls.size() != 1) loop_error(s, okl, "OKL for loops can only have 1 iterator variable");
        const OklDecl& d = init.decls[0];
        if (!d.init) loop_error(s, okl, "OKL for loop variable is not initialized.");
        if (d.type.pointers || is_float_type(d.type.base) || d.type.base == "bool" || !d.dims.empty())
            loop_error(s, okl, "Iterator variable needs to be of type [char, short, int, long, ptrdiff_t, size_t]");
        l.var = d.name;
        l.start = rvalue(d.init);
        if (!s.expr) loop_error(s, okl, "Expected comparing [", l.var, "] with some bound");
        comparison(s, okl, l);
        step(s, okl, l);
        return l;
    }

    static bool names(const OklExprPtr& e, const std::string& var) { return e->kind == OklExprKind::Name && e->name == var; }

    // a CMP b for a loop's comparison ("<", "<=", ">", ">=").
    static bool compare(std::int64_t a, const std::string& cmp, std::int64_t b) {
        return cmp == "<" ? a < b : cmp == "<=" ? a <= b : cmp == ">" ? a > b : a >= b;
    }
    static bool mentions(const OklExprPtr& e, const std::string& var) {
        if (names(e, var)) return true;
        for (const OklExprPtr& a : e->args)
            if (mentions(a, var)) return true;
        return false;
    }

    void comparison(const OklStmt& s, bool okl, LoopShape& l) {
        const OklExpr& c = *s.expr;
        static const std::map<std::string, std::string> flipped{{"<", ">"}, {"<=", ">="}, {">", "<"}, {">=", "<="}};
        if (c.kind != OklExprKind::Binary || !(names(c.args[0], l.var) || names(c.args[1], l.var)))
            loop_error(s, okl, "Expected comparing [", l.var, "] with some bound");
        if (!flipped.count(c.op)) loop_error(s, okl, "Expected to compare [", l.var, "] with one of these operators [<, <=, >=, >]");
        const bool left = names(c.args[0], l.var);
        if (mentions(c.args[left ? 1 : 0], l.var)) loop_error(s, okl, "Expected comparing [", l.var, "] with some bound");
        l.cmp = left ? c.op : flipped.at(c.op);
        l.bound = rvalue(c.args[left ? 1 : 0]);
        // C compares the index converted to a floating-point bound's type, exactly while both stay below
        // 2^24: the same loop as the integer bound on the right side of it.
        const double exact = 16777216;
        if (!okl && l.bound.fconstant && !l.bound.constant && std::abs(*l.bound.fconstant) < exact && l.start.constant &&
            std::llabs(*l.start.constant) < static_cast<long long>(exact)) {
            const double b = *l.bound.fconstant;
            l.bound = constant_val(static_cast<std::int64_t>(l.cmp == "<" || l.cmp == ">=" ? std::ceil(b) : std::floor(b)));
        }
    }

    void step(const OklStmt& s, bool okl, LoopShape& l) {
        if (!s.step) loop_error(s, okl, "Expected to update [", l.var, "]");
        const OklExpr& u = *s.step;
        if ((u.kind == OklExprKind::Postfix || u.kind == OklExprKind::Unary) && (u.op == "++" || u.op == "--") && names(u.args[0], l.var)) {
            l.step = u.op == "++" ? 1 : -1;
            return;
        }
        if (u.kind != OklExprKind::Assign || !names(u.args[0], l.var)) loop_error(s, okl, "Expected to update [", l.var, "]");
        auto by = [&](const OklExprPtr& e) {
            auto v = constant_of(e);
            if (!v || *v == 0) loop_error(s, okl, "the update of [", l.var, "] must be by a non-zero integer constant");
            return *v;
        };
        if (u.op == "+=" || u.op == "-=") {
            l.step = u.op == "+=" ? by(u.args[1]) : -by(u.args[1]);
            return;
        }
        const OklExprPtr& r = u.args[1];
        if (u.op == "=" && r->kind == OklExprKind::Binary && (r->op == "+" || r->op == "-") && names(r->args[0], l.var)) {
            l.step = r->op == "+" ? by(r->args[1]) : -by(r->args[1]);
            return;
        }
        if (u.op == "=" && r->kind == OklExprKind::Binary && r->op == "+" && names(r->args[1], l.var)) {
            l.step = by(r->args[0]);
            return;
        }
        if (!okl && (u.op == "*=" || u.op == "<<=" || u.op == "/=" || u.op == ">>=")) {
            l.update = u.op;
            l.factor = by(u.args[1]);
            return;
        }
        loop_error(s, okl, "Expected update [", l.var, "] with one of these operators [++, --, +=, -=]");
    }

    // The loop's constraint on `value` (an iteration's index, as isl text).
    static std::string constraint(const LoopShape& l, const std::string& value) { return value + " " + l.cmp + " " + l.bound.isl; }

    // The index of iteration `k` (isl or Loom text): start + step*k.
    static std::string index_text(const std::string& start, std::int64_t step, const std::string& k, bool start_zero) {
        std::string term = step == 1 ? k : std::to_string(step) + "*" + k;
        return start_zero ? term : "(" + start + " + " + term + ")";
    }

    void check_affine(const OklStmt& s, const LoopShape& l, bool okl) {
        const bool up = l.cmp[0] == '<';
        if ((l.step > 0) != up)
            loop_error(s, okl, "OKL for loop range is empty or infinite!");
        if (l.start.isl.empty() || l.bound.isl.empty())
            loop_error(s, okl, "the bounds of the loop over '", l.var,
                       "' must be affine in the enclosing loop indices and the kernel's integer arguments");
        if (okl && l.start.constant && l.bound.constant) {
            if (!compare(*l.start.constant, l.cmp, *l.bound.constant)) fail(s.pos, "OKL for loop range is empty or infinite!");
        }
    }

    // `for (v = a; ...)` over an integer variable declared before the loop, which code after it may read: the
    // loop is `for (T v = a; ...)`, and the variable is set to a before it and to the next index at the end of
    // every iteration no `break` left, which is C's value of v after the loop.
    void outer_index_loop(const OklStmt& s) {
        const OklExpr& a = *s.init->expr;
        if (a.kind != OklExprKind::Assign || a.op != "=" || a.args[0]->kind != OklExprKind::Name)
            loop_error(s, false, "its init-statement must declare or assign the loop variable");
        const Binding& b = bound(*a.args[0]);
        if (b.kind != Binding::Kind::Scalar || is_float_type(b.dtype) || b.dtype == "bool")
            loop_error(s, false, "loop variable '", a.args[0]->name, "' must be a local integer variable");
        const std::string var = b.name;
        auto decl = std::make_shared<OklStmt>(*s.init);
        decl->kind = OklStmtKind::Decl;
        decl->expr = nullptr;
        OklDecl d;
        d.type.base = b.dtype;
        d.name = a.args[0]->name;
        d.init = a.args[1];
        d.pos = a.pos;
        decl->decls = {d};
        auto loop = std::make_shared<OklStmt>(s);
        loop->init = decl;
        expression_statement(a, false);
        for_statement(*loop, var);
    }

    void for_statement(const OklStmt& s, const std::string& outer_index = "") {
        const OklAttr* tile = okl_find_attr(s.attrs, "tile");
        auto axis0 = axes_.find({&s, 0});
        const bool okl = tile || axis0 != axes_.end();
        if (!okl && s.init && s.init->kind == OklStmtKind::Expr) return outer_index_loop(s);
        // An if around @inner loops guards each of their statements (its condition is the same for the whole
        // work-group, and the barriers between the loops stay unconditional); one around @outer loops guards
        // each statement of theirs in every work-item, as OCCA's host code guards their launch.
        Scope scope(*this);
        LoopShape l = loop_shape(s, okl);
        if (!l.update.empty() && !outer_index.empty()) loop_error(s, false, "a loop over a table of values must declare its variable");
        if (!l.update.empty()) return table_loop(s, l);
        check_affine(s, l, okl);
        // Top-level @outer loops run one after the other, as OCCA launches them: a global barrier between.
        const bool parallel = axis0 != axes_.end();
        if (parallel && axis0->second.outer && loops_.empty() && outer_loops_++ > 0) {
            launch_boundary(s.pos);
            replay_setup();
        }
        std::vector<std::string> inames;
        if (tile)
            inames = tiled_loop(s, l, *tile);
        else
            inames = {plain_loop(l, parallel ? std::optional<OklAxis>(axis0->second) : std::nullopt)};
        std::optional<std::pair<std::string, Val>> tail;
        if (!outer_index.empty()) tail.emplace(outer_index, binary_val("+", lookup(l.var)->value, constant_val(l.step), s.pos));
        loop_body(s, inames, parallel && !axis0->second.outer, tail);
    }

    std::string plain_loop(const LoopShape& l, std::optional<OklAxis> axis) {
        const std::string k = unique(l.var);
        Binding b;
        b.is_loop_index = true;
        b.value.dtype = "int32";
        if (l.step == 1) {
            add_domain({k}, l.start.isl + " <= " + k + " and " + constraint(l, k));
            b.value.text = b.value.isl = k;
            b.value.nonneg = l.start.nonneg;
        } else {
            const std::string at = index_text(l.start.isl, l.step, k, false);
            add_domain({k}, k + " >= 0 and " + constraint(l, at));
            b.value.text = index_text(l.start.text, l.step, k, l.start.constant == 0);
            b.value.isl = at;
            b.value.nonneg = l.step > 0 ? l.start.nonneg : l.bound.nonneg && l.cmp[0] == '>';
        }
        if (axis) tags_[k] = axis_tag(axis->outer, axis->axis);
        bind(l.var, b);
        return k;
    }

    // `@tile(T, kind, kind, check=)`: iterations k = T*tile + element of the loop; with check=false the
    // last tile runs whole, as OCCA's expansion does.
    std::vector<std::string> tiled_loop(const OklStmt& s, const LoopShape& l, const OklAttr& tile) {
        const std::int64_t size = required_constant(tile.args[0].expr, "[@tile] size");
        if (size <= 0 || size > kMaxArrayElements) fail(tile.pos, "[@tile] size must be positive");
        bool check = true;
        for (const OklAttrArg& a : tile.args)
            if (a.key == "check") check = required_constant(a.expr, "[@tile] check") != 0;
        const std::string kt = unique(l.var + "_tile"), ki = unique(l.var);
        const std::string t = std::to_string(size);
        const std::string k_isl = "(" + t + "*" + kt + " + " + ki + ")";
        const std::string first = index_text(l.start.isl, l.step, "(" + t + "*" + kt + ")", false);
        const std::string at = index_text(l.start.isl, l.step, k_isl, false);
        add_domain({kt, ki}, kt + " >= 0 and 0 <= " + ki + " < " + t + " and " + constraint(l, check ? at : first));
        Binding b;
        b.is_loop_index = true;
        b.value.text = index_text(l.start.text, l.step, k_isl, l.start.constant == 0);
        b.value.isl = at;
        b.value.nonneg = l.step > 0 ? l.start.nonneg : false;
        bind(l.var, b);
        for (int part = 0; part < 2; ++part) {
            auto axis = axes_.find({&s, part});
            const OklTileKinds kinds = okl_tile_kinds(tile);
            if (axis != axes_.end() && !kinds.kind[part].empty())
                tags_[part ? ki : kt] = axis_tag(axis->second.outer, axis->second.axis);
        }
        return {kt, ki};
    }

    // A loop whose index is multiplied or divided (`d *= 2`): when its trip is a compile-time constant it runs
    // over an iname indexing a table of the index's values.
    void table_loop(const OklStmt& s, const LoopShape& l) {
        if (!l.start.constant || !l.bound.constant)
            fail(s.pos, "for loop not representable in Loom's loop model: '", l.update, "' updates need constant bounds");
        std::vector<double> values;
        std::int64_t v = *l.start.constant;
        while (compare(v, l.cmp, *l.bound.constant)) {
            if (values.size() >= kMaxTableLoop) fail(s.pos, "for loop runs more than ", kMaxTableLoop, " iterations or never ends");
            values.push_back(static_cast<double>(v));
            const std::int64_t f = l.factor;
            const std::int64_t next = l.update == "*=" ? v * f : l.update == "/=" ? v / f : l.update == "<<=" ? (f >= 0 && f < 32 ? v << f : 0) : (f >= 0 && f < 63 ? v >> f : 0);
            if (next == v || std::llabs(next) > (std::int64_t(1) << 40)) fail(s.pos, "for loop never ends or overflows");
            v = next;
        }
        const std::string k = unique(l.var + "_k");
        Variable table;
        table.name = unique(l.var + "_values");
        table.kind = VarKind::Temporary;
        table.dtype = DType::Int32;
        table.address_space = AddressSpace::Private;
        table.shape = {parse_expression(std::to_string(std::max<std::size_t>(values.size(), 1)))};
        bool nonneg = true;
        for (double x : values) nonneg &= x >= 0;
        table.initializer = values.empty() ? std::vector<double>{0} : values;
        table.read_only = true;
        set_default_strides(table);
        temporaries_.push_back(table);
        add_domain({k}, "0 <= " + k + " < " + std::to_string(values.size()));
        Binding b;
        b.is_loop_index = true;
        b.value.text = table.name + "[" + k + "]";
        b.value.nonneg = nonneg;
        bind(l.var, b);
        loop_body(s, {k}, false);
    }

    // A loop's domain; its constraints hold in the loop body (see `known_nonneg`).
    void add_domain(const std::vector<std::string>& inames, const std::string& constraint) {
        domains_.push_back("{ [" + join(inames, ", ") + "] : " + constraint + " }");
        next_context_ = constraint;
    }

    // Whether the affine value `v` is never negative where it is computed (isl decides over the enclosing
    // loops' domains), so that C's truncating division of it is Loom's floor division.
    bool known_nonneg(const Val& v) const {
        if (v.nonneg) return true;
        if (v.isl.empty()) return false;
        std::string constraints = "(" + v.isl + ") < 0";
        for (const std::string& c : context_) constraints += " and " + c;
        try {
            return parse_domain("{ [" + join(current_inames(), ", ") + "] : " + constraints + " }").is_empty();
        } catch (const Error&) {
            return false;  // isl cannot tell: the division keeps its exact form for any sign
        }
    }

    // `break` and `continue` in a sequential loop: its iterations go on, but a private flag set by the jump
    // predicates the rest of the body (`continue`: of this iteration; `break`: of every later one), which
    // then does exactly what the jump would have left undone.
    static bool jumps(const OklStmt& s, OklStmtKind kind) {
        if (s.kind == kind) return true;
        if (s.kind == OklStmtKind::For || s.kind == OklStmtKind::While || s.kind == OklStmtKind::Do) return false;
        if (s.kind == OklStmtKind::Switch && kind == OklStmtKind::Break) return false;  // a break of the switch
        for (const OklStmtPtr& b : s.body)
            if (jumps(*b, kind)) return true;
        return false;
    }

    std::string jump_flag(const char* name, const OklPos& pos) {
        const std::string flag = private_temporary(name, "int32");
        emit(flag + " = 0", {}, {flag}, pos, false);
        return flag;
    }

    void push_predicate(const std::string& flag) {
        predicates_.push_back("(" + flag + " == 0)");
        predicate_reads_.push_back({flag});
    }

    void jump(const OklStmt& s) {
        const bool is_break = s.kind == OklStmtKind::Break;
        const std::string flag = jumps_.empty() ? "" : is_break ? jumps_.back().broken : jumps_.back().continued;
        if (flag.empty()) fail(s.pos, "'", is_break ? "break" : "continue", "' outside a loop");
        emit(flag + " = 1", {}, {flag}, s.pos, false);
    }

    // `tail`: a variable and its value, set at the end of every iteration no `break` left.
    void loop_body(const OklStmt& s, const std::vector<std::string>& inames, bool inner,
                   const std::optional<std::pair<std::string, Val>>& tail = std::nullopt) {
        JumpFlags flags;
        if (jumps(*s.body[0], OklStmtKind::Break)) flags.broken = jump_flag("broken", s.pos);
        loops_.push_back(inames);
        context_.push_back(next_context_);
        // Every statement of the loop, the reset of `continue`'s flag too, is under `break`'s flag: once it is
        // set, the loop does nothing more, which lets codegen leave it there.
        const std::size_t pushed = predicates_.size();
        if (!flags.broken.empty()) push_predicate(flags.broken);
        if (jumps(*s.body[0], OklStmtKind::Continue)) {
            flags.continued = jump_flag("continued", s.pos);
            push_predicate(flags.continued);
        }
        jumps_.push_back(flags);
        const bool sequential = !axes_.count({&s, 0}) || (okl_find_attr(s.attrs, "tile") && !axes_.count({&s, 1}));
        sequential_depth_ += sequential;
        const std::size_t first = insns_.size();
        const bool waived = inner && !nobarrier_sources_.empty();
        std::vector<std::string> waive;
        if (waived) waive.swap(nobarrier_sources_);
        statement(*s.body[0]);
        if (tail) {
            const std::size_t kept = pushed + (flags.broken.empty() ? 0 : 1);
            predicates_.resize(kept);
            predicate_reads_.resize(kept);
            emit(tail->first + " = " + tail->second.text, {}, {tail->first}, s.pos, false);
        }
        jumps_.pop_back();
        predicates_.resize(pushed);
        predicate_reads_.resize(pushed);
        loops_.pop_back();
        context_.pop_back();
        sequential_depth_ -= sequential;
        if (waived)
            for (std::size_t k = first; k < insns_.size(); ++k) insns_[k].nosync.insert(insns_[k].nosync.end(), waive.begin(), waive.end());
        if (okl_find_attr(s.attrs, "nobarrier"))
            for (std::size_t k = first; k < insns_.size(); ++k) nobarrier_sources_.push_back(insns_[k].id);
    }

    // --- instructions

    std::vector<std::string> current_inames() const {
        std::vector<std::string> out;
        for (const auto& l : loops_) out.insert(out.end(), l.begin(), l.end());
        return out;
    }

    std::string next_id(const OklPos& pos) { return fresh_id("s" + std::to_string(pos.line)); }

    std::string fresh_id(const std::string& base) {
        std::string id = base;
        for (int k = 1; ids_.count(id); ++k) id = base + "_" + std::to_string(k);
        ids_.insert(id);
        return id;
    }

    void emit(std::string body, std::set<std::string> reads, std::set<std::string> writes, const OklPos& pos, bool atomic) {
        if (fn_) return function_assignment(body, pos, atomic);
        if (insns_.size() >= kMaxInstructions) fail(pos, "kernel has more than ", kMaxInstructions, " statements");
        Insn i;
        i.id = next_id(pos);
        i.body = std::move(body);
        i.inames = current_inames();
        i.predicates = predicates_;
        for (const auto& r : predicate_reads_) reads.insert(r.begin(), r.end());
        i.reads = std::move(reads);
        i.writes = std::move(writes);
        i.atomic = atomic;
        insns_.push_back(std::move(i));
    }

    // A @barrier: a local one inside an if would be reached by some work-items of a group only.
    void barrier(const OklPos& pos) {
        if (!predicates_.empty()) fail(pos, "[@barrier] inside an if statement is not supported");
        add_barrier(pos, false);
    }

    // The global barrier between top-level @outer loops, where OCCA launches a new kernel: unconditional also
    // when an if guards the loop after it (every work-item passes it; the loop's statements keep their guard).
    void launch_boundary(const OklPos& pos) { add_barrier(pos, true); }

    void add_barrier(const OklPos& pos, bool global) {
        Insn i;
        i.id = next_id(pos);
        i.body = global ? "... gbarrier" : "... lbarrier";
        i.inames = current_inames();
        i.barrier = true;
        insns_.push_back(std::move(i));
    }

    // The global barrier between @outer loops starts a new device kernel, where private values computed by the
    // setup code outside the loops do not survive: the setup runs again there. That is exact as long as the
    // setup writes only private temporaries and no loop writes what it reads (checked by `check_replays`).
    void replay_setup() {
        const std::size_t n = insns_.size();
        for (std::size_t k = 0; k < n; ++k) {
            if (!insns_[k].inames.empty() || insns_[k].barrier || insns_[k].replay) continue;
            Insn copy = insns_[k];
            copy.id = fresh_id(insns_[k].id + "_again");
            copy.replay = true;
            insns_.push_back(std::move(copy));
        }
    }

    void check_replays() const {
        for (const Insn& r : insns_) {
            if (!r.replay) continue;
            for (const std::string& w : r.writes)
                if (!private_.count(w))
                    fail(kernel_.pos, "code before the @outer loops writes '", w, "', and this kernel's @outer loops run as ",
                         "separate device kernels: only private values can be set up for all of them");
            for (const Insn& i : insns_)
                for (const std::string& v : r.reads)
                    if (!i.inames.empty() && i.writes.count(v) && !private_.count(v))
                        fail(kernel_.pos, "code before the @outer loops reads '", v, "', which an @outer loop writes; the ",
                             "setup runs again before each @outer loop (each is its own device kernel)");
        }
    }

    static bool conflict(const Insn& a, const Insn& b) {
        auto meets = [](const std::set<std::string>& x, const std::set<std::string>& y) {
            for (const std::string& n : x)
                if (y.count(n)) return true;
            return false;
        };
        return meets(a.writes, b.reads) || meets(a.writes, b.writes) || meets(a.reads, b.writes);
    }

    // Program order: each instruction depends on every earlier one it conflicts with; a barrier sits between
    // everything before it and everything after it.
    std::vector<std::string> instruction_text() {
        std::vector<std::string> lines;
        std::optional<std::size_t> last_barrier;
        for (std::size_t j = 0; j < insns_.size(); ++j) {
            const Insn& b = insns_[j];
            std::vector<std::string> deps;
            if (last_barrier) deps.push_back(insns_[*last_barrier].id);
            for (std::size_t i = last_barrier ? *last_barrier + 1 : 0; i < j; ++i)
                if (b.barrier || conflict(insns_[i], b)) deps.push_back(insns_[i].id);
            if (b.barrier) last_barrier = j;
            for (const std::string& p : b.predicates) lines.push_back("if " + p);
            std::string attrs = "id=" + b.id + ", dep=*" + join(deps, ":");
            if (!b.inames.empty()) attrs += ", inames=" + join(b.inames, ":");
            if (b.atomic) attrs += ", atomic";
            if (!b.nosync.empty()) attrs += ", nosync=" + join_scoped(b.nosync);
            lines.push_back(b.body + " {" + attrs + "}");
            for (std::size_t p = 0; p < b.predicates.size(); ++p) lines.push_back("end");
        }
        return lines;
    }

    static std::string join(const std::vector<std::string>& v, const char* sep) {
        std::string out;
        for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
        return out;
    }
    static std::string join_scoped(const std::vector<std::string>& v) {
        std::string out;
        for (const std::string& s : v) out += (out.empty() ? "" : ":") + s + "@local";
        return out;
    }

    Kernel build() {
        check_replays();
        in_.domains = domains_;
        in_.instructions = {join(instruction_text(), "\n")};
        for (Variable& t : temporaries_) in_.args.push_back(t);
        in_.guess_remaining_args = false;
        // OKL code writes from one work-item by guarding on its index (`if (item == 0)`), which Loom's
        // write-race heuristic does not see; races are the kernel author's, as in OCCA.
        in_.silenced_warnings = {"write_race(*)"};
        // The loops' axes are known here, as a tag_inames after make_kernel would set them.
        KernelData k = make_kernel(in_).copy();
        for (const auto& [iname, tag] : tags_) k.iname_tags[iname] = tag;
        k.functions = functions_;
        return Kernel(std::move(k));
    }

    const OklProgram& program_;
    const OklFunction& kernel_;
    OklAxes axes_;
    bool auto_shapes_;
    std::map<std::string, long> parameters_;
    std::vector<std::map<std::string, Binding>> scopes_;
    std::set<std::string> used_, ids_, assigned_;
    mutable std::map<std::string, std::set<std::string>> assigned_in_;  // by device function
    MakeKernelInput in_;
    std::vector<Variable> temporaries_;
    std::vector<std::string> domains_;
    std::map<std::string, InameTag> tags_;
    std::vector<Insn> insns_;
    std::vector<std::vector<std::string>> loops_;
    int sequential_depth_ = 0;
    std::vector<std::string> context_;  // constraints of the enclosing loops
    std::string next_context_;
    std::set<std::string> private_;  // private temporaries
    std::vector<std::string> predicates_;
    std::vector<std::set<std::string>> predicate_reads_;
    std::vector<std::string> nobarrier_sources_;
    std::vector<JumpFlags> jumps_;
    std::set<std::string>* reads_ = nullptr;
    std::optional<FunctionContext> fn_;  // the function being translated, if any
    std::map<std::string, std::shared_ptr<const ScalarFunction>> kept_;  // by OKL name
    std::set<std::string> translating_;
    ScalarFunctions functions_;  // in the order they were finished: callees first
    std::size_t function_statements_ = 0;
    int conditional_ = 0;
    int inline_depth_ = 0;
    int outer_loops_ = 0;
};

}  // namespace

std::vector<Kernel> okl_kernels(const std::string& source, const std::string& file, const OklOptions& options) {
    const OklProgram program = okl_parse(okl_preprocess(source, file, options));
    std::vector<Kernel> out;
    for (const OklFunction& f : program.functions) {
        if (!okl_find_attr(f.attrs, "kernel")) continue;
        if (!f.body) fail(f.pos, "[@kernel] function '", f.name, "' has no body");
        out.push_back(Lowerer(program, f, okl_validate_kernel(f), options).run());
    }
    if (out.empty()) okl_error(file, 1, "No [@kernel] functions found");
    return out;
}

}  // namespace loom
