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

#include "ir/instruction.h"

namespace loom {

/// A parsed match expression; cheap to copy and to apply to many instructions.
class Match {
public:
    /// Parses `expr`; a malformed expression is a LoopyError naming it.
    static Match parse(const std::string& expr);

    /// Whether `insn` of the kernel named `kernel_name` is selected.
    bool operator()(const Instruction& insn, const std::string& kernel_name = "") const;

    struct Node;

private:
    explicit Match(std::shared_ptr<const Node> root) : root_(std::move(root)) {}
    std::shared_ptr<const Node> root_;  // null: matches everything
};

/// Whether `insn` matches the match expression `expr` (parsed on every call: use Match for many).
bool matches(const std::string& expr, const Instruction& insn);

}  // namespace loom
