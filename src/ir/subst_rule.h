// Substitution rules `f(x, y) := expression` applied to expressions: the macro expansion that loopy
// performs before type inference (and that make_kernel's analyses look through).
#pragma once

#include <functional>
#include <string>
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

/// One use of a substitution rule on an expansion stack: the rule and the use's tag (`g$two`; "" if none).
struct RuleUse {
    std::string name, tag;
};

/// Whether the rule use that ends `stack` (the uses it is nested in, outermost first) in instruction `insn` is
/// expanded.
using RuleUseFilter = std::function<bool(const Instruction& insn, const std::vector<RuleUse>& stack)>;

/// loopy's expand_subst with a stack match: every rule use of the instructions that `expand` accepts is replaced
/// by the rule's expression. A rule whose expression changes under a use that stays (a use nested in it was
/// expanded there) becomes a new rule for that use, named after it as loopy names it (`h_0`), or keeps the
/// name where no use of the unchanged rule is left; rules no longer used are dropped. Returns whether any use
/// was expanded (otherwise `k` is unchanged). LoopyError as expand_rules.
bool expand_rule_uses(KernelData& k, const RuleUseFilter& expand);

/// Names of the rules `e` uses directly.
std::vector<std::string> rules_used(const ExprPtr& e, const std::vector<SubstitutionRule>& rules);

/// Drops the rules that no instruction uses any more, directly or through other rules (as loopy does once a
/// transformation leaves a rule unused).
void drop_unused_rules(KernelData& k);

}  // namespace loom
