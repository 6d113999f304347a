#include "ir/access.h"

namespace loom {

namespace {

void collect_reads(const ExprPtr& e, std::vector<Access>& out) {
    visit(e, [&](const ExprPtr& n) {
        if (n->kind == ExprKind::Var) out.push_back({n->name, {}, false, false});
        if (n->kind == ExprKind::Subscript) out.push_back({n->name, n->args, true, false});
    });
}

}  // namespace

std::vector<Access> accesses_of(const Instruction& insn) {
    std::vector<Access> out;
    for (const ExprPtr& a : insn.assignees) {
        const bool sub = a->kind == ExprKind::Subscript;
        out.push_back({a->name, sub ? a->args : std::vector<ExprPtr>{}, sub, true});
        for (const ExprPtr& idx : a->args) collect_reads(idx, out);
    }
    if (insn.expression) collect_reads(insn.expression, out);
    for (const ExprPtr& p : insn.predicates) collect_reads(p, out);
    return out;
}

std::set<std::string> written_names(const Instruction& insn) {
    std::set<std::string> out;
    for (const ExprPtr& a : insn.assignees) out.insert(a->name);
    return out;
}

std::set<std::string> read_names(const Instruction& insn) {
    std::set<std::string> out;
    for (const Access& a : accesses_of(insn))
        if (!a.is_write) out.insert(a.name);
    return out;
}

std::set<std::string> reduction_inames(const ExprPtr& e) {
    std::set<std::string> out;
    if (!e) return out;
    visit(e, [&](const ExprPtr& n) {
        if (n->kind == ExprKind::Reduction) out.insert(n->inames.begin(), n->inames.end());
    });
    return out;
}

}  // namespace loom
