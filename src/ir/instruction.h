// Instructions of a kernel: assignments, barriers and no-ops, with loopy's attributes.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "expr/expr.h"

namespace loom {

enum class InsnKind { Assignment, Barrier, Nop };

/// Scope of a nosync entry ("@local", "@global", "@any").
enum class SyncScope { Local, Global, Any };

struct NoSync {
    std::string id_pattern;  // fnmatch pattern or match expression text
    SyncScope scope = SyncScope::Any;
};

struct Instruction {
    InsnKind kind = InsnKind::Assignment;
    std::string id;         // unique in the kernel once the kernel is made
    std::string id_prefix;  // from `id_prefix=`; used only while the kernel is made
    /// Left-hand sides: Var or Subscript nodes (two for argmax/argmin-style multi-assignments).
    std::vector<ExprPtr> assignees;
    ExprPtr expression;  // right-hand side (Assignment)

    /// Temporaries declared by this instruction (`<>`: Unknown dtype, `<float32>`: that dtype).
    bool declares_temporary = false;
    DType temp_var_type = DType::Unknown;

    std::set<std::string> depends_on;     // ids or fnmatch patterns until resolved
    bool depends_on_is_final = false;     // `dep=*...`: no single-writer heuristic
    std::string dep_query;                // match expression, resolved when the kernel is made
    std::vector<NoSync> no_sync_with;
    std::string nosync_query;
    std::set<std::string> within_inames;  // after make_kernel: the loops this instruction runs in
    bool within_inames_is_final = false;  // `inames=` given without '+'
    std::vector<std::string> dup;         // `dup=` entries ("i" or "j->j_new")
    std::vector<ExprPtr> predicates;      // `if=` and enclosing `if` blocks
    std::set<std::string> tags;
    std::set<std::string> groups;
    std::set<std::string> conflicts_with_groups;
    int priority = 0;
    /// `{atomic}`: the assignment is one atomic read-modify-write of its left-hand side (loopy's AtomicUpdate:
    /// reads of exactly the left-hand side expression belong to it). With `atomic_init` (`{atomic=init}`) it is
    /// an atomic store instead (loopy's AtomicInit).
    bool atomic = false;
    bool atomic_init = false;

    std::string barrier_kind;  // Barrier: "local" or "global"
    std::string mem_kind;      // Barrier: "local" or "global" (from `{mem_kind=...}`)

    int line = 0;  // 1-based line of the instruction in the source text
};

/// A substitution rule `name(args) := expression`.
struct SubstitutionRule {
    std::string name;
    std::vector<std::string> arguments;
    ExprPtr expression;
};

}  // namespace loom
