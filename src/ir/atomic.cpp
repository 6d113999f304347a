#include "ir/atomic.h"

#include <cstring>

namespace loom {

bool same_expr(const ExprPtr& a, const ExprPtr& b) {
    if (a == b) return true;
    if (a->kind != b->kind || a->name != b->name || a->ival != b->ival || a->dtype != b->dtype || a->op != b->op ||
        a->unop != b->unop || a->linear != b->linear || a->inames != b->inames || a->args.size() != b->args.size())
        return false;
    // Bit patterns, so that NaN literals compare equal to themselves.
    if (a->kind == ExprKind::FloatLit || a->kind == ExprKind::ImagLit) {
        if (std::memcmp(&a->fval, &b->fval, sizeof a->fval) != 0) return false;
    }
    for (std::size_t i = 0; i < a->args.size(); ++i)
        if (!same_expr(a->args[i], b->args[i])) return false;
    return true;
}

bool is_atomic_update_access(const Instruction& insn, const Access& a) {
    if (!insn.atomic || insn.atomic_init || insn.assignees.size() != 1) return false;
    const ExprPtr& lhs = insn.assignees[0];
    if (a.name != lhs->name || a.subscripted != (lhs->kind == ExprKind::Subscript)) return false;
    if (a.is_write) return true;
    if (a.indices.size() != lhs->args.size()) return false;
    for (std::size_t i = 0; i < a.indices.size(); ++i)
        if (!same_expr(a.indices[i], lhs->args[i])) return false;
    return true;
}

void mark_atomic_variables(KernelData& k) {
    for (const Instruction& insn : k.instructions)
        if (insn.atomic)
            if (Variable* v = find_variable(k, insn.assignees[0]->name)) v->for_atomic = true;
}

}  // namespace loom
