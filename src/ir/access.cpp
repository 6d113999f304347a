#include "ir/access.h"

#include "ir/derived.h"

namespace loom {

namespace {

// Whether `e` binds inames over its operands: a reduction's, or a sub-array reference's swept inames.
bool binds_inames(const ExprPtr& e) { return e->kind == ExprKind::Reduction || e->kind == ExprKind::SubArrayRef; }

// The access of a subscript, variable or sub-array reference `e` (its swept inames added to `scope`).
Access access_of(const ExprPtr& e, std::vector<std::string> scope, bool is_write) {
    if (e->kind == ExprKind::SubArrayRef) scope.insert(scope.end(), e->inames.begin(), e->inames.end());
    const bool sub = !e->args.empty() && e->kind != ExprKind::Var;
    return {e->name, e->args, sub, is_write, e->linear, std::move(scope)};
}

// The reads of `e` (parents first), each with the bound inames in `scope` and those around it in `e`.
void collect_reads(const ExprPtr& e, std::vector<std::string>& scope, std::vector<Access>& out) {
    if (e->kind == ExprKind::Var || e->kind == ExprKind::Subscript || e->kind == ExprKind::SubArrayRef)
        out.push_back(access_of(e, scope, false));
    const std::size_t outer = scope.size();
    if (binds_inames(e)) scope.insert(scope.end(), e->inames.begin(), e->inames.end());
    for (const ExprPtr& a : e->args) collect_reads(a, scope, out);
    scope.resize(outer);
}

void collect_reads(const ExprPtr& e, std::vector<Access>& out) {
    std::vector<std::string> scope;
    collect_reads(e, scope, out);
}

}  // namespace

bool indexed_linearly(const KernelData& k, const std::string& name) {
    return derived(k, &DerivedFacts::linearly_indexed, [&] {
               std::set<std::string> out;
               for (const Instruction& insn : k.instructions)
                   for (const Access& a : accesses_of(insn))
                       if (a.linear) out.insert(a.name);
               return out;
           }).count(name) != 0;
}

bool data_dependent(const KernelData& k, const Access& a) {
    for (const ExprPtr& idx : a.indices)
        for (const std::string& n : referenced_names(idx)) {
            const Variable* v = find_variable(k, n);
            if (v && v->kind != VarKind::ValueArg) return true;
        }
    return false;
}

std::vector<ExprPtr> storage_indices(const KernelData& k, const Access& a) {
    if (a.linear || !a.subscripted || !indexed_linearly(k, a.name)) return a.indices;
    const Variable* v = find_variable(k, a.name);
    if (!v || v->strides.size() != a.indices.size()) return a.indices;
    ExprPtr flat;
    for (std::size_t j = 0; j < a.indices.size(); ++j) {
        const ExprPtr term = binary(BinOp::Mul, v->strides[j], a.indices[j]);
        flat = flat ? binary(BinOp::Add, flat, term) : term;
    }
    return {flat};
}

std::vector<Access> accesses_of(const Instruction& insn) {
    std::vector<Access> out;
    for (const ExprPtr& a : insn.assignees) {
        out.push_back(access_of(a, {}, true));
        std::vector<std::string> scope = out.back().reduction_scope;
        for (const ExprPtr& idx : a->args) collect_reads(idx, scope, out);
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

std::set<std::string> fixed_values(const KernelData& k) {
    std::set<std::string> written;
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn)) written.insert(w);
    std::set<std::string> out;
    for (const Variable& v : k.args)
        if (v.kind == VarKind::ValueArg && !written.count(v.name)) out.insert(v.name);
    return out;
}

std::map<std::string, std::vector<const Instruction*>> writer_map(const KernelData& k) {
    std::map<std::string, std::vector<const Instruction*>> out;
    for (const Instruction& insn : k.instructions)
        for (const std::string& w : written_names(insn)) out[w].push_back(&insn);
    return out;
}

std::vector<std::string> access_loops(const Instruction& insn, const Access& a) {
    std::vector<std::string> loops(insn.within_inames.begin(), insn.within_inames.end());
    loops.insert(loops.end(), a.reduction_scope.begin(), a.reduction_scope.end());
    return loops;
}

bool is_tuple_assignment(const Instruction& insn) {
    const ExprPtr& e = insn.expression;
    return insn.kind == InsnKind::Assignment && e && e->kind == ExprKind::Call && e->name == "make_tuple" &&
           e->args.size() == insn.assignees.size();
}

std::set<std::string> reduction_inames(const ExprPtr& e) {
    std::set<std::string> out;
    if (!e) return out;
    visit(e, [&](const ExprPtr& n) {
        if (binds_inames(n)) out.insert(n->inames.begin(), n->inames.end());
    });
    return out;
}

std::set<std::string> bound_inames(const Instruction& insn) {
    std::set<std::string> out = reduction_inames(insn.expression);
    for (const ExprPtr& a : insn.assignees) out.merge(reduction_inames(a));
    return out;
}

}  // namespace loom
