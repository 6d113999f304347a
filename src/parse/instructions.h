// Parsing loopy's textual instruction syntax into Instructions and substitution rules.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "ir/instruction.h"

namespace loom {

struct ParsedInstructions {
    std::vector<Instruction> instructions;     // in source order, attributes as written (ids may be empty)
    std::vector<SubstitutionRule> substitutions;
};

/// Parses the instruction text: one string holding several lines (each element of a Lua list is passed as
/// its own string). Handles `#` comments, `for i, j ... end` blocks (adding to within_inames),
/// `if cond ... elif ... else ... end` (adding predicates), `... gbarrier`, `... lbarrier`, `... nop`,
/// `<>`/`<dtype>` temporaries and `{...}` attribute lists. Errors are ParseError with line and column.
ParsedInstructions parse_instructions(const std::vector<std::string>& sources);

/// Parses one expression (the right-hand-side syntax). Errors are ParseError with line/column relative to
/// `text`.
ExprPtr parse_expression(std::string_view text);

}  // namespace loom
