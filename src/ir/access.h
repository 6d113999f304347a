// The variable accesses of an instruction: what it reads and writes, with which subscripts.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/instruction.h"

namespace loom {

struct Access {
    std::string name;
    std::vector<ExprPtr> indices;  // empty for an unsubscripted use
    bool subscripted = false;
    bool is_write = false;
};

/// Every access of `insn`: its assignees (writes; their subscripts are reads of index variables) and every
/// variable of its right-hand side and predicates (reads). Function names are not accesses.
std::vector<Access> accesses_of(const Instruction& insn);

/// Names of variables written by `insn`.
std::set<std::string> written_names(const Instruction& insn);
/// Names of variables read by `insn` (including index variables).
std::set<std::string> read_names(const Instruction& insn);

/// Inames bound by reductions anywhere in `e`.
std::set<std::string> reduction_inames(const ExprPtr& e);

}  // namespace loom
