#include "parse/okl_lower.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>

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
    enum class Kind { Pure, Scalar, Array, Pointer, Value, Struct } kind = Kind::Pure;
    std::string name;   // Loom variable (Scalar, Array, Value) or the array a Pointer points into
    std::string dtype;  // element type
    Val value;          // Pure: the value (loop indices, constants, never-assigned locals); Pointer: offset
    std::vector<std::int64_t> dims;  // Array
    std::vector<Val> dim_sizes;      // Pointer with @dim
    std::vector<int> dim_order;      // Pointer with @dimOrder
    std::string struct_name;         // Pointer to structs
    std::map<std::string, Val> fields;  // Struct (a value parameter): each field's argument
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

class Lowerer {
public:
    Lowerer(const OklProgram& program, const OklFunction& kernel, OklAxes axes, const OklOptions& options)
        : program_(program), kernel_(kernel), axes_(std::move(axes)), auto_shapes_(options.auto_shapes),
          parameters_(options.parameters) {}

    Kernel run() {
        scopes_.emplace_back();
        declare_globals();
        in_.name = kernel_.name;
        std::set<std::string> visited;
        collect_assigned(*kernel_.body, assigned_, visited);
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
            for (const OklExprPtr& x : d.dims) f(x);
        }
        for (const OklStmtPtr& b : s.body) for_each_expr(*b, f);
    }

    // Names assigned (or whose address is taken) in `s`, into `out`: also in the functions it calls (each
    // visited once), and the caller's variables that their reference parameters assign. Over a whole function
    // (assigned_), the others are values fixed at their declaration.
    void collect_assigned(const OklStmt& s, std::set<std::string>& out, std::set<std::string>& visited) const {
        for_each_expr(s, [&](const OklExprPtr& e) { collect_assigned(e, out, visited); });
    }
    void collect_assigned(const OklExprPtr& e, std::set<std::string>& out, std::set<std::string>& visited) const {
        const bool writes = e->kind == OklExprKind::Assign || e->kind == OklExprKind::Postfix ||
                            (e->kind == OklExprKind::Unary && (e->op == "++" || e->op == "--" || e->op == "&"));
        if (writes && e->args[0]->kind == OklExprKind::Name) out.insert(e->args[0]->name);
        if (e->kind == OklExprKind::Call && e->args[0]->kind == OklExprKind::Name) {
            for (const OklFunction& f : program_.functions) {
                if (f.name != e->args[0]->name || !f.body) continue;
                if (visited.insert(f.name).second) collect_assigned(*f.body, out, visited);
                // A reference parameter the function assigns assigns the caller's variable.
                for (std::size_t k = 0; k < f.params.size() && k + 1 < e->args.size(); ++k)
                    if (f.params[k].type.is_reference && out.count(f.params[k].name) && e->args[k + 1]->kind == OklExprKind::Name)
                        out.insert(e->args[k + 1]->name);
            }
        }
        for (const OklExprPtr& a : e->args) collect_assigned(a, out, visited);
    }

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
            if (is_struct(f.type.base) || f.type.pointers || f.type.base == "void")
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

    // A struct passed by value: one value argument per field, named PARAM_FIELD.
    void struct_parameter(const OklDecl& p) {
        Binding b;
        b.kind = Binding::Kind::Struct;
        b.struct_name = p.type.base;
        for (const OklDecl& f : program_.structs.at(p.type.base)) {
            if (is_struct(f.type.base) || f.type.pointers || !f.dims.empty() || f.type.base == "void")
                fail(p.pos, "struct parameter '", p.name, "': field '", f.name, "' is not a number");
            const std::string arg = p.name + "_" + f.name;
            if (used_.count(arg)) fail(p.pos, "struct parameter '", p.name, "': argument name '", arg, "' is taken");
            used_.insert(arg);
            Variable v;
            v.name = arg;
            v.kind = VarKind::ValueArg;
            v.is_array = false;
            v.dtype = *dtype_from_name(f.type.base);
            in_.args.push_back(v);
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
            if (d.type.pointers)
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

    Val rvalue(const OklExprPtr& e) {
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
            case OklExprKind::Binary: return binary_val(x.op, rvalue(x.args[0]), conditional_rvalue(x, 1), x.pos);
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
        if (e->op == "." && object->kind == OklExprKind::Name && bound(*object).kind == Binding::Kind::Struct) {
            const Binding& b = bound(*object);
            auto f = b.fields.find(e->name);
            if (f == b.fields.end()) fail(e->pos, b.struct_name, " has no field '", e->name, "'");
            return f->second;
        }
        return element(e).first;
    }

    // The right operand of && and || is evaluated only when needed: calls with statements may not appear there.
    Val conditional_rvalue(const OklExpr& x, std::size_t k) {
        const bool lazy = x.op == "&&" || x.op == "||";
        conditional_ += lazy;
        Val v = rvalue(x.args[k]);
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

    Val name_val(const OklExpr& x) {
        const Binding& b = bound(x);
        switch (b.kind) {
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
        Val a = rvalue(x.args[0]);
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
        if (op == "/" && ints)
            v.text = trunc_div_text(a, b);
        else if (op == "%")
            v.text = a.nonneg && b.nonneg ? "(" + a.text + " % " + b.text + ")"
                                          : "(" + a.text + " - " + b.text + "*" + trunc_div_text(a, b) + ")";
        else
            v.text = "(" + a.text + " " + op + " " + b.text + ")";
        v.nonneg = ints && a.nonneg && b.nonneg && op != "-" && op != "^" && op != "<<";
        if (ints) v.isl = affine(op, a, b);
        return v;
    }

    // The isl form of an integer operation, when it is quasi-affine.
    static std::string affine(const std::string& op, const Val& a, const Val& b) {
        if (a.isl.empty() || b.isl.empty()) return "";
        if (op == "+" || op == "-") return "(" + a.isl + " " + op + " " + b.isl + ")";
        if (op == "*" && (a.constant || b.constant)) return "(" + a.isl + "*" + b.isl + ")";
        if ((op == "/" || op == "%") && b.constant && *b.constant != 0) {
            const std::string q = trunc_div_isl(a, *b.constant);
            return op == "/" ? q : "(" + a.isl + " - " + std::to_string(*b.constant) + "*" + q + ")";
        }
        return "";
    }

    Val ternary_val(const OklExpr& x) {
        Val c = rvalue(x.args[0]);
        ++conditional_;
        Val a = rvalue(x.args[1]);
        Val b = rvalue(x.args[2]);
        --conditional_;
        Val v;
        v.dtype = a.dtype == b.dtype ? a.dtype : common_type(a.dtype == "bool" ? "int32" : a.dtype, b.dtype == "bool" ? "int32" : b.dtype);
        v.text = "if(" + condition_text(c) + ", " + a.text + ", " + b.text + ")";
        v.nonneg = a.nonneg && b.nonneg;
        return v;
    }

    Val cast_val(const OklExpr& x) {
        if (x.type->pointers) fail(x.pos, "pointer casts are only supported where a pointer is expected");
        if (x.type->base == "void") fail(x.pos, "a (void) cast is only allowed as a statement");
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
            return dtype_size(*t);
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
        Val v = rvalue(a);
        reads_ = saved;
        return v.dtype == "bool" ? 4 : dtype_size(*dtype_from_name(v.dtype));
    }

    // --- calls: math builtins, @dim indexing, device functions

    Val call_val(const OklExpr& x) {
        if (x.args[0]->kind != OklExprKind::Name) fail(x.pos, "only named functions can be called");
        const std::string& fn = x.args[0]->name;
        if (const Binding* b = lookup(fn); b && b->kind == Binding::Kind::Pointer) return element(std::make_shared<OklExpr>(x)).first;
        if (const OklFunction* f = device_function(fn)) return inline_call(*f, x, true);
        return builtin(x, fn);
    }

    Val builtin(const OklExpr& x, const std::string& fn) {
        static const std::set<std::string> float_fns{
            "sin",  "cos",   "tan",   "sinh",  "cosh",  "tanh",  "exp",   "log",    "sqrt",  "asin", "acos",
            "atan", "asinh", "acosh", "atanh", "exp2",  "expm1", "log2",  "log10",  "log1p", "cbrt", "rsqrt",
            "erf",  "erfc",  "tgamma", "lgamma", "floor", "ceil", "round", "trunc", "fabs",  "pow",  "atan2",
            "hypot", "fmod", "copysign", "fmin", "fmax", "fma"};
        std::string name = fn;
        bool single = false;
        // C's float variants (sqrtf) are the same functions on float32.
        if (!float_fns.count(name) && name.size() > 1 && name.back() == 'f' && float_fns.count(name.substr(0, name.size() - 1))) {
            name.pop_back();
            single = true;
        }
        const bool minmax = name == "min" || name == "max" || name == "abs";
        if (!float_fns.count(name) && !minmax) fail(x.pos, "unknown function '", fn, "'");
        if (name == "fmin" || name == "fmax") name = name.substr(1);
        std::vector<Val> args;
        std::string t;
        for (std::size_t k = 1; k < x.args.size(); ++k) {
            args.push_back(rvalue(x.args[k]));
            if (single && args.back().dtype != "float32") args.back().text = "cast(float32, " + args.back().text + ")", args.back().dtype = "float32";
            t = t.empty() ? args.back().dtype : common_type(t, args.back().dtype);
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
        if (returns && stmts.back()->expr) result = converted_return(f, rvalue(stmts.back()->expr));
        --inline_depth_;
        jumps_.pop_back();
        if (want_value && !result) fail(call.pos, "device function '", f.name, "' returns no value");
        return result ? *result : constant_val(0);
    }

    Val converted_return(const OklFunction& f, Val v) {
        if (f.return_type.pointers) fail(f.pos, "device functions returning pointers are not supported");
        if (v.dtype != f.return_type.base) {
            v.text = "cast(" + f.return_type.base + ", " + v.text + ")";
            v.dtype = f.return_type.base;
            v.isl.clear();
        }
        return v;
    }

    Binding argument(const OklDecl& param, const OklExprPtr& arg, bool snapshot) {
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
        std::set<std::string> updated, written, visited;
        collect_assigned(update, updated, visited);
        for (const OklStmtPtr& b : body) {
            if (jumps(*b, OklStmtKind::Continue)) return nullptr;
            collect_assigned(*b, written, visited);
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
            Val rhs = rvalue(e.args[1]);
            Target t = target(e.args[0]);
            reads_ = saved;
            return store(t, rhs, reads, e.pos, atomic);
        }
        std::set<std::string> reads;
        std::set<std::string>* saved = reads_;
        reads_ = &reads;
        Val rhs = rvalue(e.args[1]);
        reads_ = saved;
        update_with(*e.args[0], e.op.substr(0, e.op.size() - 1), rhs, reads, e.pos, atomic);
    }

    void update(const OklExpr& lhs, const std::string& op, const Val& rhs, const OklPos& pos, bool atomic) {
        update_with(lhs, op, rhs, {}, pos, atomic);
    }

    // `x op= rhs`: x = x op rhs, with x's place evaluated once (its index expressions are pure).
    void update_with(const OklExpr& lhs, const std::string& op, const Val& rhs, std::set<std::string> reads,
                     const OklPos& pos, bool atomic) {
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

    struct Target {
        std::string text;
        std::string var;
        std::string dtype;
    };

    Target target(const OklExprPtr& e) {
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
    // a case ends with `break` or is the last (fallthrough into statements is not supported).
    void switch_statement(const OklStmt& s) {
        const auto [sel, reads] = evaluated_once(s.expr, s.pos);
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
            const bool ends_in_break = !c.body.empty() && c.body.back()->kind == OklStmtKind::Break;
            if (!ends_in_break && k + 1 < s.body.size()) fail(c.pos, "a switch case must end with 'break' (fallthrough is not supported)");
            std::string predicate = labels.empty() ? "" : "(" + join(labels, " or ") + ")";
            if (has_default)
                predicate = all_labels.empty() ? "(0 == 0)" : "(not (" + join(all_labels, " or ") + ")" + (labels.empty() ? "" : " or " + predicate) + ")";
            auto body = std::make_shared<OklStmt>(c);
            body->kind = OklStmtKind::Block;
            if (ends_in_break) body->body.pop_back();
            branch(*body, predicate, reads);
            labels.clear();
            has_default = false;
        }
    }

    void branch(const OklStmt& body, const std::string& predicate, const std::set<std::string>& reads) {
        predicates_.push_back(predicate);
        predicate_reads_.push_back(reads);
        Scope scope(*this);
        statement(body);
        predicates_.pop_back();
        predicate_reads_.pop_back();
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

    void for_statement(const OklStmt& s) {
        const OklAttr* tile = okl_find_attr(s.attrs, "tile");
        auto axis0 = axes_.find({&s, 0});
        const bool okl = tile || axis0 != axes_.end();
        // An if around @inner loops guards each of their statements (its condition is the same for the whole
        // work-group, and the barriers between the loops stay unconditional); one around @outer loops guards
        // each statement of theirs in every work-item, as OCCA's host code guards their launch.
        Scope scope(*this);
        LoopShape l = loop_shape(s, okl);
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
        loop_body(s, inames, parallel && !axis0->second.outer);
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
    struct JumpFlags {
        std::string broken, continued;
    };

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

    void loop_body(const OklStmt& s, const std::vector<std::string>& inames, bool inner) {
        JumpFlags flags;
        if (jumps(*s.body[0], OklStmtKind::Break)) flags.broken = jump_flag("broken", s.pos);
        loops_.push_back(inames);
        context_.push_back(next_context_);
        if (jumps(*s.body[0], OklStmtKind::Continue)) flags.continued = jump_flag("continued", s.pos);
        const std::size_t pushed = predicates_.size();
        for (const std::string& f : {flags.broken, flags.continued})
            if (!f.empty()) push_predicate(f);
        jumps_.push_back(flags);
        const bool sequential = !axes_.count({&s, 0}) || (okl_find_attr(s.attrs, "tile") && !axes_.count({&s, 1}));
        sequential_depth_ += sequential;
        const std::size_t first = insns_.size();
        const bool waived = inner && !nobarrier_sources_.empty();
        std::vector<std::string> waive;
        if (waived) waive.swap(nobarrier_sources_);
        statement(*s.body[0]);
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
        return Kernel(std::move(k));
    }

    const OklProgram& program_;
    const OklFunction& kernel_;
    OklAxes axes_;
    bool auto_shapes_;
    std::map<std::string, long> parameters_;
    std::vector<std::map<std::string, Binding>> scopes_;
    std::set<std::string> used_, ids_, assigned_;
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
