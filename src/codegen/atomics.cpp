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

// An atomic assignment as one operation on its left-hand side with `operand`.
struct NativeForm {
    AtomicOp op;
    ExprPtr operand;
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

struct Native {
    NativeForm form;
    NativeAtomic call;
};

std::optional<Native> native(const KernelData& k, const Target& target, const Instruction& insn, const ExprPtr& lhs,
                             const ExprPtr& rhs) {
    const DType t = assigned_type(k, insn);
    const std::optional<NativeForm> f = native_form(k, insn, lhs, rhs, t);
    if (!f) return std::nullopt;
    const std::optional<NativeAtomic> c = target.native_atomic(f->op, t);
    if (!c) return std::nullopt;
    return Native{*f, *c};
}

// The target's increment or decrement function (OpenCL's atomic_inc) for adding or subtracting the literal 1;
// "" for another operation or where there is none.
std::string increment(const Native& n, const Target& target, DType t) {
    const ExprPtr& e = n.form.operand;
    const bool unit = e->kind == ExprKind::IntLit && (e->ival == 1 || e->ival == -1);
    if (!unit || (n.form.op != AtomicOp::Add && n.form.op != AtomicOp::Sub)) return "";
    return target.atomic_increment((n.form.op == AtomicOp::Add) == (e->ival == 1), t);
}

std::string native_statement(const Native& n, CExprPrinter& printer, const Target& target, const ExprPtr& lhs, DType t) {
    std::string pointer = "&(" + printer.print(lhs) + ")";
    if (const std::string inc = increment(n, target, t); !inc.empty()) return inc + "(" + pointer + ");";
    std::string value = printer.print(n.form.operand, t);
    if (!n.call.as.empty()) {
        pointer = "(" + n.call.as + " *) " + pointer;
        value = "(" + n.call.as + ") (" + value + ")";
    }
    return n.call.function + "(" + pointer + ", " + value + n.call.trailing + ");";
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

bool in_local_memory(const KernelData& k, const std::string& name) {
    const Variable* v = find_variable(k, name);
    return v->kind == VarKind::Temporary && v->address_space == AddressSpace::Local;
}

std::vector<std::string> cas_loop(const KernelData& k, CExprPrinter& printer, const Target& target,
                                  const Instruction& insn, const ExprPtr& lhs, const ExprPtr& rhs, DType t) {
    const std::string old_v = scratch_name(k, "old", t), new_v = scratch_name(k, "new", t), place = printer.print(lhs);
    const std::optional<std::string> failed =
        target.compare_and_swap_failed(t, in_local_memory(k, lhs->name), place, old_v, new_v);
    user_assert(failed.has_value(), error_kind::LoopyError, "atomic assignment '", insn.id, "': the ", target.name(),
                " target has no atomic operations on ", dtype_name(t));
    const ExprPtr new_value = rewrite(rhs, [&](const ExprPtr& x) { return same_expr(x, lhs) ? var(old_v) : x; });
    const std::string ct = target.scalar_type(t);
    const std::string atomic_load = target.atomic_load(place, old_v);
    const std::string load = atomic_load.empty() ? printer.assignment(var(old_v), lhs) : atomic_load;
    return {"{",
            "  " + ct + " " + old_v + ";",
            "  " + ct + " " + new_v + ";",
            "  do",
            "  {",
            "    " + load,
            "    " + printer.assignment(var(new_v), new_value),
            "  }",
            "  while (" + *failed + ");",
            "}"};
}

void check_memory(const KernelData& k, const Target& target, const Instruction& insn) {
    const std::string& name = insn.assignees[0]->name;
    const Variable* v = find_variable(k, name);
    user_assert(v != nullptr && (v->is_arg() || v->address_space != AddressSpace::Private), error_kind::LoopyError,
                "atomic assignment '", insn.id, "' writes private variable '", name,
                "': atomics need local or global memory");
    // Vector types (OpenCL C's) give their components no address, and the atomic functions take one.
    const std::optional<std::size_t> vec = vec_axis(*v);
    user_assert(!target.has_vector_types() || !vec, error_kind::LoopyError, "atomic assignment '", insn.id, "' writes '",
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

bool atomic_needs_block(const KernelData& k, const Target& target, const Instruction& insn) {
    return !native(k, target, insn, insn.assignees[0], insn.expression);
}

std::vector<std::string> atomic_assignment(const KernelData& k, CExprPrinter& printer, const Target& target,
                                           const Instruction& insn, const ExprPtr& lhs, const ExprPtr& rhs) {
    check_memory(k, target, insn);
    const DType t = assigned_type(k, insn);
    if (const std::optional<Native> n = native(k, target, insn, lhs, rhs))
        return {native_statement(*n, printer, target, lhs, t)};
    return cas_loop(k, printer, target, insn, lhs, rhs, t);
}

Int64Atomics int64_atomics(const KernelData& k, const Target& target) {
    Int64Atomics out;
    for (const Instruction& insn : k.instructions) {
        if (!insn.atomic || dtype_size(assigned_type(k, insn)) != 8) continue;
        out.base = true;
        const std::optional<Native> n = native(k, target, insn, insn.assignees[0], insn.expression);
        const AtomicOp op = n ? n->form.op : AtomicOp::Add;
        out.extended = out.extended || op == AtomicOp::Min || op == AtomicOp::Max || op == AtomicOp::And ||
                       op == AtomicOp::Or || op == AtomicOp::Xor;
    }
    return out;
}

}  // namespace loom
