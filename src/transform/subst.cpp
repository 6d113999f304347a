// Substitution rules: expanding them into the instructions, extracting them from repeated expressions,
// and turning an assignment to a temporary into one (loopy's transform/subst.py).
#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/names.h"
#include "ir/subst_rule.h"
#include "parse/instructions.h"
#include "parse/match.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

// Structural equality of `e` with `pattern`, where the names in `params` match any subexpression (the same
// one at every occurrence; `bound` records what each matched).
bool unify(const ExprPtr& pattern, const ExprPtr& e, const std::vector<std::string>& params,
           std::map<std::string, ExprPtr>& bound) {
    if (pattern->kind == ExprKind::Var && std::count(params.begin(), params.end(), pattern->name)) {
        const auto [it, fresh] = bound.try_emplace(pattern->name, e);
        return fresh || to_string(it->second) == to_string(e);
    }
    if (pattern->kind != e->kind || pattern->name != e->name || pattern->op != e->op || pattern->unop != e->unop ||
        pattern->ival != e->ival || pattern->fval != e->fval || pattern->dtype != e->dtype ||
        pattern->inames != e->inames || pattern->args.size() != e->args.size())
        return false;
    for (std::size_t j = 0; j < e->args.size(); ++j)
        if (!unify(pattern->args[j], e->args[j], params, bound)) return false;
    return true;
}

// Replaces the subexpressions of `e` that match `rule`'s expression by calls of the rule.
ExprPtr extract(const ExprPtr& e, const SubstitutionRule& rule) {
    if (!e) return e;
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        std::map<std::string, ExprPtr> bound;
        if (!unify(rule.expression, n, rule.arguments, bound)) return n;
        std::vector<ExprPtr> args;
        for (const std::string& p : rule.arguments) args.push_back(bound.at(p));
        return call(rule.name, std::move(args));
    });
}

// Replaces reads of `name` (subscripted or not) in `e` by calls of the rule of that name, with the
// subscripts followed by `extra` as arguments.
ExprPtr reads_to_calls(const ExprPtr& e, const std::string& name, const std::string& rule,
                       const std::vector<ExprPtr>& extra) {
    if (!e) return e;
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if ((n->kind != ExprKind::Var && n->kind != ExprKind::Subscript) || n->name != name) return n;
        std::vector<ExprPtr> args = n->args;
        args.insert(args.end(), extra.begin(), extra.end());
        return call(rule, std::move(args));
    });
}

// Assignee `a` with `rule` extracted from its subscripts (as loopy's rule-aware mappers visit them); the
// written variable itself stays a variable.
ExprPtr with_indices_extracted(const ExprPtr& a, const SubstitutionRule& rule) {
    if (a->kind != ExprKind::Subscript) return a;
    std::vector<ExprPtr> idx;
    for (const ExprPtr& i : a->args) idx.push_back(extract(i, rule));
    if (idx == a->args) return a;
    return a->linear ? linear_subscript(a->name, idx[0]) : subscript(a->name, std::move(idx));
}

// The single instruction writing `name`, checked to be a plain assignment `name[i, j] = ...` with distinct
// inames as subscripts.
const Instruction& defining_assignment(const KernelData& k, const std::string& name) {
    const Instruction* def = nullptr;
    for (const Instruction& insn : k.instructions) {
        if (!written_names(insn).count(name)) continue;
        user_assert(def == nullptr, error_kind::LoopyError, "assignment_to_subst: '", name,
                    "' is written by more than one instruction ('", def ? def->id : "", "' and '", insn.id, "')");
        def = &insn;
    }
    user_assert(def != nullptr, error_kind::LoopyError, "assignment_to_subst: no instruction writes '", name, "'");
    user_assert(def->kind == InsnKind::Assignment && def->assignees.size() == 1 && def->predicates.empty() &&
                    !def->atomic,
                error_kind::LoopyError, "assignment_to_subst: instruction '", def->id,
                "' is not a plain unconditional assignment to '", name, "'");
    std::set<std::string> seen;
    for (const ExprPtr& idx : def->assignees[0]->args)
        user_assert(idx->kind == ExprKind::Var && is_iname(k, idx->name) && seen.insert(idx->name).second,
                    error_kind::LoopyError, "assignment_to_subst: the subscripts of '", to_string(def->assignees[0]),
                    "' in instruction '", def->id, "' must be distinct inames");
    return *def;
}

bool reads(const Instruction& insn, const std::string& name) { return read_names(insn).count(name) != 0; }

}  // namespace

Kernel expand_subst(const Kernel& kernel, const std::string& within) {
    const StackMatch match = StackMatch::parse(within);
    KernelData k = kernel.copy();
    const bool expanded = expand_rule_uses(k, [&](const Instruction& insn, const std::vector<RuleUse>& stack) {
        return match(insn, stack, k.name);
    });
    return expanded ? Kernel(std::move(k)) : kernel;
}

Kernel extract_subst(const Kernel& kernel, const std::string& subst_name, const std::string& templ,
                     const std::vector<std::string>& parameters, const std::string& within) {
    user_assert(is_identifier(subst_name), error_kind::LoopyError, "extract_subst: '", subst_name, "' is not a valid rule name");
    user_assert(!find_rule(kernel->substitutions, subst_name) && !kernel.find_variable(subst_name) &&
                    !is_iname(*kernel, subst_name),
                error_kind::LoopyError, "extract_subst: the name '", subst_name, "' is already in use");
    const SubstitutionRule rule{subst_name, parameters, parse_expression(templ)};
    const Match match = Match::parse(within);
    KernelData k = kernel.copy();
    for (Instruction& insn : k.instructions) {
        if (!match(insn, k.name)) continue;
        insn.expression = extract(insn.expression, rule);
        for (ExprPtr& p : insn.predicates) p = extract(p, rule);
        for (ExprPtr& a : insn.assignees) a = with_indices_extracted(a, rule);
    }
    for (SubstitutionRule& r : k.substitutions) r.expression = extract(r.expression, rule);
    k.substitutions.push_back(rule);
    return Kernel(std::move(k));
}

Kernel assignment_to_subst(const Kernel& kernel, const std::string& lhs_name,
                           const std::vector<std::string>& extra_arguments, const std::string& within,
                           bool force_retain_argument) {
    const Variable* v = kernel.find_variable(lhs_name);
    user_assert(v != nullptr, error_kind::LoopyError, "assignment_to_subst: no variable named '", lhs_name, "'");
    const Instruction& def = defining_assignment(*kernel, lhs_name);

    KernelData k = kernel.copy();
    // loopy's name for the rule: the variable's, with "_subst", made unique.
    SubstitutionRule rule{NameGenerator(*kernel)(lhs_name + "_subst"), {}, def.expression};
    for (const ExprPtr& idx : def.assignees[0]->args) rule.arguments.push_back(idx->name);
    std::vector<ExprPtr> extra;
    for (const std::string& a : extra_arguments) {
        rule.arguments.push_back(a);
        extra.push_back(var(a));
    }
    const Match match = Match::parse(within);
    bool replaced = false;
    for (Instruction& insn : k.instructions) {
        if (insn.id == def.id || !match(insn, k.name) || !reads(insn, lhs_name)) continue;
        insn.expression = reads_to_calls(insn.expression, lhs_name, rule.name, extra);
        for (ExprPtr& p : insn.predicates) p = reads_to_calls(p, lhs_name, rule.name, extra);
        for (ExprPtr& a : insn.assignees) a = reads_to_calls(a, lhs_name, rule.name, extra);
        replaced = true;
    }
    if (!replaced) return kernel;
    k.substitutions.push_back(rule);

    // The definition goes once nothing reads the variable any more; so does the variable, unless it is an
    // argument to retain.
    const bool still_read = std::any_of(k.instructions.begin(), k.instructions.end(),
                                        [&](const Instruction& insn) { return reads(insn, lhs_name); });
    if (still_read) return Kernel(std::move(k));
    for (Instruction& insn : k.instructions)
        if (insn.depends_on.erase(def.id)) insn.depends_on.insert(def.depends_on.begin(), def.depends_on.end());
    std::erase_if(k.instructions, [&](const Instruction& insn) { return insn.id == def.id; });
    std::erase_if(k.temporaries, [&](const Variable& t) { return t.name == lhs_name; });
    if (!force_retain_argument) std::erase_if(k.args, [&](const Variable& a) { return a.name == lhs_name; });
    return Kernel(std::move(k));
}

}  // namespace loom
