// The variable accesses of an instruction: what it reads and writes, with which subscripts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/instruction.h"
#include "ir/kernel.h"

namespace loom {

struct Access {
    std::string name;
    std::vector<ExprPtr> indices;  // empty for an unsubscripted use
    bool subscripted = false;
    bool is_write = false;
    bool linear = false;  // a[[e]]: indices is {e}, an index into the flat storage (ExprKind::Subscript's linear)
    /// The inames bound around it: of the reductions (a read in sum(j, ...)) and, for a sub-array reference,
    /// its swept inames.
    std::vector<std::string> reduction_scope;
};

/// Every access of `insn`: its assignees (writes; their subscripts are reads of index variables) and every
/// variable of its right-hand side and predicates (reads). Function names are not accesses.
std::vector<Access> accesses_of(const Instruction& insn);

/// Whether some instruction of `k` indexes `name` with a linear subscript (a[[e]]).
bool indexed_linearly(const KernelData& k, const std::string& name);

/// The indices of `a` that analyses compare with the other accesses to its variable: as written, unless some
/// instruction of `k` indexes that variable with a linear subscript (a[[e]]); then every access is one index
/// into its flat storage, the linear one as written and the others their indices times the strides.
std::vector<ExprPtr> storage_indices(const KernelData& k, const Access& a);

/// Whether an index of `a` reads a variable (other than a value argument): the elements it touches depend on
/// data, not only on the inames and parameters.
bool data_dependent(const KernelData& k, const Access& a);

/// Names of variables written by `insn`.
std::set<std::string> written_names(const Instruction& insn);
/// Names of variables read by `insn` (including index variables).
std::set<std::string> read_names(const Instruction& insn);

/// Value arguments that no instruction writes: each is one number for the whole call.
std::set<std::string> fixed_values(const KernelData& k);

/// The instructions that write each variable, in kernel order (pointers into `k.instructions`).
std::map<std::string, std::vector<const Instruction*>> writer_map(const KernelData& k);

/// The loops access `a` of `insn` runs in: the instruction's inames and, for a read inside reductions, their
/// inames (only those around it: `b[i] + sum(j, ...)` reads b[i] even where the sum is empty).
std::vector<std::string> access_loops(const Instruction& insn, const Access& a);

/// Whether `insn` is `a, b, ... = make_tuple(x, y, ...)`, one value per assignee (loopy's make_tuple): each
/// assignee takes the value at its position.
bool is_tuple_assignment(const Instruction& insn);

/// Inames bound by reductions and sub-array references anywhere in `e`.
std::set<std::string> reduction_inames(const ExprPtr& e);
/// Inames bound anywhere in `insn` (its right-hand side and its sub-array reference left-hand sides): they are
/// not loops it runs in.
std::set<std::string> bound_inames(const Instruction& insn);

}  // namespace loom
