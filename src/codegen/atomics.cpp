#include "codegen/atomics.h"

#include <optional>
#include <set>

#include "analysis/types.h"
#include "ir/atomic.h"
#include "ir/layout.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

enum class AtomicOp { Add, Sub, Min, Max, And, Or, Xor, Store };

// An atomic assignment as one operation on its left-hand side with `operand`.
struct NativeForm {
    AtomicOp op;
    ExprPtr operand;
};

// A target's function for a native operation; `as` names the type that pointer and operand are
// reinterpreted as when the function has no overload for the element type ("" when it has).
struct NativeCall {
    std::string function;
    std::string as;
};

bool contains(const ExprPtr& e, const ExprPtr& x) {
    bool found = false;
    visit(e, [&](const ExprPtr& n) { found = found || same_expr(n, x); });
    return found;
}

DType assigned_type(const KernelData& k, const Instruction& insn) {
    const Variable* v = find_variable(k, insn.assignees[0]->name);
    internal_assert(v != nullptr, "atomic assignment '", insn.id, "' to an undeclared variable");
    return v->dtype;
}

// The operation `rhs` applies to `lhs` and one other operand (`lhs + e`, `e + lhs`, `lhs - e`, `max(lhs, e)`,
// bit operations), if it is one that atomics have.
std::optional<NativeForm> operation_form(const ExprPtr& lhs, const ExprPtr& rhs) {
    const auto other = [&](bool commutative) -> ExprPtr {
        if (same_expr(rhs->args[0], lhs)) return rhs->args[1];
        if (commutative && same_expr(rhs->args[1], lhs)) return rhs->args[0];
        return nullptr;
    };
    std::optional<NativeForm> f;
    if (rhs->kind == ExprKind::Binary) {
        switch (rhs->op) {
            case BinOp::Add: f = NativeForm{AtomicOp::Add, other(true)}; break;
            case BinOp::Sub: f = NativeForm{AtomicOp::Sub, other(false)}; break;
            case BinOp::BitAnd: f = NativeForm{AtomicOp::And, other(true)}; break;
            case BinOp::BitOr: f = NativeForm{AtomicOp::Or, other(true)}; break;
            case BinOp::BitXor: f = NativeForm{AtomicOp::Xor, other(true)}; break;
            default: break;
        }
    } else if (rhs->kind == ExprKind::Call && (rhs->name == "min" || rhs->name == "max") && rhs->args.size() == 2) {
        f = NativeForm{rhs->name == "min" ? AtomicOp::Min : AtomicOp::Max, other(true)};
    }
    // The operand must not read the element itself: that read would not be part of the atomic operation.
    if (!f || !f->operand || contains(f->operand, lhs)) return std::nullopt;
    return f;
}

// The assignment as a native operation, when it computes in the left-hand side's type `t` (a wider
// computation, as numpy's promotion may ask for, is a compare-and-swap loop).
std::optional<NativeForm> native_form(const KernelData& k, const Instruction& insn, const ExprPtr& lhs,
                                      const ExprPtr& rhs, DType t) {
    const auto in_type = [&](const ExprPtr& e) {
        const ExprType et = expr_type(k, e);
        // An untyped literal is printed in `t`, except a float one in an integer type (numpy would truncate
        // the result, not the operand).
        return et.dtype == t || (et.weak && (is_float(t) || !is_float(et.dtype)));
    };
    if (insn.atomic_init) {
        if (!in_type(rhs)) return std::nullopt;
        return NativeForm{AtomicOp::Store, rhs};
    }
    const std::optional<NativeForm> f = operation_form(lhs, rhs);
    if (!f || !in_type(rhs) || !in_type(f->operand)) return std::nullopt;
    return f;
}

const char* op_suffix(AtomicOp op) {
    switch (op) {
        case AtomicOp::Add: return "add";
        case AtomicOp::Sub: return "sub";
        case AtomicOp::Min: return "min";
        case AtomicOp::Max: return "max";
        case AtomicOp::And: return "and";
        case AtomicOp::Or: return "or";
        case AtomicOp::Xor: return "xor";
        case AtomicOp::Store: break;
    }
    return "xchg";
}

bool is_32_bit_int(DType t) { return t == DType::Int32 || t == DType::UInt32; }
bool is_64_bit_int(DType t) { return t == DType::Int64 || t == DType::UInt64; }

// CUDA's atomic functions have overloads for int, unsigned int, unsigned long long (and long long for
// min/max) and, for add and exchange, float (and double for add).
std::optional<NativeCall> cuda_native(AtomicOp op, DType t) {
    const char* ull = "unsigned long long";
    std::string name;
    switch (op) {
        case AtomicOp::Add: name = "atomicAdd"; break;
        case AtomicOp::Sub: name = "atomicSub"; break;
        case AtomicOp::Min: name = "atomicMin"; break;
        case AtomicOp::Max: name = "atomicMax"; break;
        case AtomicOp::And: name = "atomicAnd"; break;
        case AtomicOp::Or: name = "atomicOr"; break;
        case AtomicOp::Xor: name = "atomicXor"; break;
        case AtomicOp::Store: name = "atomicExch"; break;
    }
    const bool float_ok = (op == AtomicOp::Add && is_float(t)) || (op == AtomicOp::Store && t == DType::Float32);
    if (is_32_bit_int(t) || float_ok) return NativeCall{name, ""};
    if (!is_64_bit_int(t) || op == AtomicOp::Sub) return std::nullopt;
    const bool signed_order = t == DType::Int64 && (op == AtomicOp::Min || op == AtomicOp::Max);
    return NativeCall{name, signed_order ? "long long" : ull};
}

std::optional<NativeCall> native_call(TargetKind target, AtomicOp op, DType t) {
    switch (target) {
        case TargetKind::OpenCL:
            // OpenCL 1.1 has integer atomics of 32 bits (atomic_xchg also for float), extensions add 64 bits.
            if (is_32_bit_int(t) || (t == DType::Float32 && op == AtomicOp::Store))
                return NativeCall{std::string("atomic_") + op_suffix(op), ""};
            if (is_64_bit_int(t)) return NativeCall{std::string("atom_") + op_suffix(op), ""};
            return std::nullopt;
        case TargetKind::C:
            // GCC's and Clang's builtins have no min or max.
            if (!is_integer(t) || op == AtomicOp::Min || op == AtomicOp::Max) return std::nullopt;
            if (op == AtomicOp::Store) return NativeCall{"__atomic_store_n", ""};
            return NativeCall{std::string("__atomic_fetch_") + op_suffix(op), ""};
        case TargetKind::CUDA: return cuda_native(op, t);
    }
    return std::nullopt;
}

struct Native {
    NativeForm form;
    NativeCall call;
};

std::optional<Native> native(const KernelData& k, TargetKind target, const Instruction& insn, const ExprPtr& lhs,
                             const ExprPtr& rhs) {
    const DType t = assigned_type(k, insn);
    const std::optional<NativeForm> f = native_form(k, insn, lhs, rhs, t);
    if (!f) return std::nullopt;
    const std::optional<NativeCall> c = native_call(target, f->op, t);
    if (!c) return std::nullopt;
    return Native{*f, *c};
}

// OpenCL's atomic_inc and atomic_dec for adding or subtracting the literal 1.
std::string opencl_increment(const Native& n, DType t) {
    const ExprPtr& e = n.form.operand;
    const bool unit = e->kind == ExprKind::IntLit && (e->ival == 1 || e->ival == -1);
    if (!unit || (n.form.op != AtomicOp::Add && n.form.op != AtomicOp::Sub)) return "";
    const bool up = (n.form.op == AtomicOp::Add) == (e->ival == 1);
    return std::string(dtype_size(t) == 4 ? "atomic_" : "atom_") + (up ? "inc" : "dec");
}

std::string native_statement(const Native& n, CExprPrinter& printer, TargetKind target, const ExprPtr& lhs, DType t) {
    std::string pointer = "&(" + printer.print(lhs) + ")";
    if (target == TargetKind::OpenCL)
        if (const std::string inc = opencl_increment(n, t); !inc.empty()) return inc + "(" + pointer + ");";
    std::string value = printer.print(n.form.operand, t);
    if (!n.call.as.empty()) {
        pointer = "(" + n.call.as + " *) " + pointer;
        value = "(" + n.call.as + ") (" + value + ")";
    }
    const std::string order = target == TargetKind::C ? ", __ATOMIC_SEQ_CST" : "";
    return n.call.function + "(" + pointer + ", " + value + order + ");";
}

std::set<DType> atomic_types(const KernelData& k) {
    std::set<DType> out;
    for (const Instruction& insn : k.instructions)
        if (insn.atomic) out.insert(assigned_type(k, insn));
    return out;
}

// loopy's names for the old and new value; suffixed by the type when the kernel updates several types.
std::string scratch_name(const KernelData& k, const char* role, DType t) {
    const std::string base = cat("loopy_", role, "_val");
    return atomic_types(k).size() == 1 ? base : base + "_" + dtype_name(t);
}

// How a compare-and-swap compares: the element's bits as an integer type the target's function takes.
struct CasSpelling {
    std::string function;
    std::string pointer_cast;  // "" when the element type is that integer type
    std::string bits_open, bits_close;
};

std::string opencl_space(const KernelData& k, const std::string& name) {
    const Variable* v = find_variable(k, name);
    return v->kind == VarKind::Temporary && v->address_space == AddressSpace::Local ? "__local" : "__global";
}

std::optional<CasSpelling> cas_spelling(const KernelData& k, TargetKind target, const std::string& name, DType t) {
    const std::size_t size = dtype_size(t);
    if (is_complex(t) || (target != TargetKind::C && size != 4 && size != 8)) return std::nullopt;
    switch (target) {
        case TargetKind::OpenCL: {
            const std::string fn = size == 4 ? "atomic_cmpxchg" : "atom_cmpxchg";
            if (!is_float(t)) return CasSpelling{fn, "", "", ""};
            const std::string bits = size == 4 ? "int" : "long";
            return CasSpelling{fn, "(volatile " + opencl_space(k, name) + " " + bits + " *) ", "as_" + bits + "(", ")"};
        }
        case TargetKind::CUDA:
            if (is_32_bit_int(t)) return CasSpelling{"atomicCAS", "", "", ""};
            if (t == DType::Float32) return CasSpelling{"atomicCAS", "(int *) ", "__float_as_int(", ")"};
            if (t == DType::Float64)
                return CasSpelling{"atomicCAS", "(unsigned long long *) ", "(unsigned long long) __double_as_longlong(",
                               ")"};
            return CasSpelling{"atomicCAS", "(unsigned long long *) ", "(unsigned long long) (", ")"};
        case TargetKind::C: return CasSpelling{"__atomic_compare_exchange", "", "", ""};
    }
    return std::nullopt;
}

// The loop condition: the swap failed because another work-item changed the element in between.
std::string cas_retry(const CasSpelling& s, TargetKind target, const std::string& place, const std::string& old_v,
                      const std::string& new_v) {
    if (target == TargetKind::C)
        return "!" + s.function + "(&(" + place + "), &" + old_v + ", &" + new_v +
               ", 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)";
    const auto bits = [&](const std::string& v) { return s.bits_open + v + s.bits_close; };
    return s.function + "(" + s.pointer_cast + "&(" + place + "), " + bits(old_v) + ", " + bits(new_v) +
           ") != " + bits(old_v);
}

std::vector<std::string> cas_loop(const KernelData& k, CExprPrinter& printer, TargetKind target,
                                  const Instruction& insn, const ExprPtr& lhs, const ExprPtr& rhs, DType t) {
    const std::optional<CasSpelling> s = cas_spelling(k, target, lhs->name, t);
    user_assert(s.has_value(), error_kind::LoopyError, "atomic assignment '", insn.id, "': the ", target_name(target),
                " target has no atomic operations on ", dtype_name(t));
    const std::string old_v = scratch_name(k, "old", t), new_v = scratch_name(k, "new", t);
    const ExprPtr new_value = rewrite(rhs, [&](const ExprPtr& x) { return same_expr(x, lhs) ? var(old_v) : x; });
    const std::string ct = c_type(t, target), place = printer.print(lhs);
    // On the C target the old value is read atomically too: a plain read racing with the stores is undefined.
    const std::string load = target == TargetKind::C
                                 ? "__atomic_load(&(" + place + "), &" + old_v + ", __ATOMIC_RELAXED);"
                                 : printer.assignment(var(old_v), lhs);
    return {"{",
            "  " + ct + " " + old_v + ";",
            "  " + ct + " " + new_v + ";",
            "  do",
            "  {",
            "    " + load,
            "    " + printer.assignment(var(new_v), new_value),
            "  }",
            "  while (" + cas_retry(*s, target, place, old_v, new_v) + ");",
            "}"};
}

void check_memory(const KernelData& k, TargetKind target, const Instruction& insn) {
    const std::string& name = insn.assignees[0]->name;
    const Variable* v = find_variable(k, name);
    user_assert(v != nullptr && (v->is_arg() || v->address_space != AddressSpace::Private), error_kind::LoopyError,
                "atomic assignment '", insn.id, "' writes private variable '", name,
                "': atomics need local or global memory");
    // OpenCL C gives a vector's components no address, and the atomic functions take one.
    const std::optional<std::size_t> vec = vec_axis(*v);
    user_assert(target != TargetKind::OpenCL || !vec, error_kind::LoopyError, "atomic assignment '", insn.id, "' writes '",
                name, "', whose axis ", vec.value_or(0), " is tagged 'vec': OpenCL has no atomic operations on "
                "vector components (tag that axis differently, e.g. 'c')");
}

}  // namespace

void add_atomic_scratch_variables(KernelData& k) {
    for (const DType t : atomic_types(k))
        for (const char* role : {"old", "new"}) {
            Variable v;
            v.name = scratch_name(k, role, t);
            user_assert(find_variable(k, v.name) == nullptr, error_kind::LoopyError, "the name '", v.name,
                        "' is reserved for the compare-and-swap loops of atomic assignments");
            v.kind = VarKind::Temporary;
            v.dtype = t;
            v.is_array = false;
            v.address_space = AddressSpace::Private;
            k.temporaries.push_back(std::move(v));
        }
}

bool atomic_needs_block(const KernelData& k, TargetKind target, const Instruction& insn) {
    return !native(k, target, insn, insn.assignees[0], insn.expression);
}

std::vector<std::string> atomic_assignment(const KernelData& k, CExprPrinter& printer, TargetKind target,
                                           const Instruction& insn, const ExprPtr& lhs, const ExprPtr& rhs) {
    check_memory(k, target, insn);
    const DType t = assigned_type(k, insn);
    if (const std::optional<Native> n = native(k, target, insn, lhs, rhs))
        return {native_statement(*n, printer, target, lhs, t)};
    return cas_loop(k, printer, target, insn, lhs, rhs, t);
}

std::string atomic_extensions(const KernelData& k, TargetKind target) {
    if (target != TargetKind::OpenCL) return "";
    bool base = false, extended = false;
    for (const Instruction& insn : k.instructions) {
        if (!insn.atomic || dtype_size(assigned_type(k, insn)) != 8) continue;
        base = true;
        const std::optional<Native> n = native(k, target, insn, insn.assignees[0], insn.expression);
        const AtomicOp op = n ? n->form.op : AtomicOp::Add;
        extended = extended || op == AtomicOp::Min || op == AtomicOp::Max || op == AtomicOp::And ||
                   op == AtomicOp::Or || op == AtomicOp::Xor;
    }
    std::string out;
    if (base) out += "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n";
    if (extended) out += "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n";
    return out;
}

}  // namespace loom
