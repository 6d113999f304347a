// Loopy's match expressions, which pick the instructions a transformation applies to (its `within`):
//
//   id:PATTERN      the instruction id            tag:PATTERN      one of the instruction's tags
//   writes:PATTERN  a variable it writes          reads:PATTERN    a variable it reads (index variables too)
//   iname:PATTERN   one of the loops it runs in   in_kernel:PATTERN the kernel's name
//
// combined with `not`, `and`, `or` (binding in that order) and parentheses. Patterns are shell globs (`*`,
// `?`, `[...]`). As a convenience a bare PATTERN means `id:PATTERN`, and an empty expression matches every
// instruction (loopy's `within=None`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "ir/subst_rule.h"

namespace loom {

/// A parsed match expression; cheap to copy and to apply to many instructions.
class Match {
public:
    /// Parses `expr`; a malformed expression is a LoopyError naming it.
    static Match parse(const std::string& expr);

    /// Whether `insn` of the kernel named `kernel_name` is selected.
    bool operator()(const Instruction& insn, const std::string& kernel_name = "") const;

    /// Whether a use of a substitution rule is selected (StackMatch). `stack_match` names the whole match in
    /// the LoopyError for a selector that applies only to instructions.
    bool operator()(const RuleUse& use, const std::string& stack_match) const;

    struct Node;

private:
    explicit Match(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
    std::shared_ptr<const Node> root_;  // null: matches everything
};

/// Whether `insn` matches the match expression `expr` (parsed on every call: use Match for many).
bool matches(const std::string& expr, const Instruction& insn);

/// Loopy's stack match, which picks substitution rule uses by the uses they are nested in:
/// `insn > outer > ... > inner $` holds for a use whose stack (the instruction, then the rule uses around it and
/// the use itself, outermost first) matches the match expressions from its start: `...` stands for any number
/// of levels, and the stack may go on past the last one unless a `$` ends the match. A rule use matches
/// `id:PATTERN` by its rule's name and `tag:PATTERN` by its tag (`g$two`); the other selectors apply only to
/// instructions (LoopyError for a rule use). One match expression alone selects every use in the instructions
/// it matches.
class StackMatch {
public:
    static StackMatch parse(const std::string& expr);

    bool operator()(const Instruction& insn, const std::vector<RuleUse>& uses, const std::string& kernel_name = "") const;

private:
    struct Level {
        bool any_levels = false;  // `...`
        Match match = Match::parse("");
    };

    bool matches_from(std::size_t level, std::size_t item, const Instruction& insn, const std::vector<RuleUse>& uses,
                      const std::string& kernel_name) const;

    std::string text_;
    std::vector<Level> levels_;
    bool ends_ = false;  // `$`: no level past the last one
};

}  // namespace loom
