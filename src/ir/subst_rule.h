// Substitution rules `f(x, y) := expression` applied to expressions: the macro expansion that loopy
// performs before type inference (and that make_kernel's analyses look through).
#pragma once

#include <vector>

#include "ir/instruction.h"

namespace loom {

struct KernelData;

/// The rule named `name`, or null.
const SubstitutionRule* find_rule(const std::vector<SubstitutionRule>& rules, const std::string& name);

/// `e` with every use of a rule replaced by the rule's expression, its arguments substituted, until no use
/// is left. A use is a call `f(a, b)` or, for a rule without arguments, the name `f`. LoopyError when a rule
/// is used with the wrong number of arguments, uses itself, or an argument would be captured by a reduction
/// of the rule's expression.
ExprPtr expand_rules(const ExprPtr& e, const std::vector<SubstitutionRule>& rules);

/// The instruction with its expression, assignee indices and predicates expanded.
Instruction expand_rules(Instruction insn, const std::vector<SubstitutionRule>& rules);

/// Names of the rules `e` uses directly.
std::vector<std::string> rules_used(const ExprPtr& e, const std::vector<SubstitutionRule>& rules);

/// Drops the rules that no instruction uses any more, directly or through other rules (as loopy does once a
/// transformation leaves a rule unused).
void drop_unused_rules(KernelData& k);

}  // namespace loom
