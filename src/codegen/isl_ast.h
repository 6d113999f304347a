// Loop nests from isl: schedule trees built from the leaves up (DESIGN decision 3), and isl's AST for them
// converted into Loom's own tree, so that the rest of codegen never touches isl's AST.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "expr/expr.h"

namespace loom {

/// Loom's copy of an isl AST node.
struct AstNode {
    enum class Kind { Block, For, If, User } kind = Kind::Block;
    std::vector<AstNode> children;   // Block: statements; For: body (one Block); If: then, [else]
    std::string iterator;            // For
    ExprPtr init, cond, inc;         // For (cond is a comparison on the iterator); If uses cond
    std::string statement;           // User: the statement (instruction) name
    std::vector<ExprPtr> args;       // User: values of the statement's domain dimensions
};

/// A leaf runs the instances of statement `name`, `domain`, in no particular order.
isl::schedule leaf_schedule(const isl::set& domain, const std::string& name);
/// A loop around `body`: a band whose one dimension `times` gives for every statement instance of `body`
/// (a union of single-valued maps, each `S[...] -> [t]`).
isl::schedule loop_schedule(const isl::schedule& body, const isl::union_map& times);
/// `parts` (at least one, with disjoint statements) one after the other.
isl::schedule sequence_schedule(const std::vector<isl::schedule>& parts);
/// `body` under a mark named `name`: a loop that isl does not see (see MarkedLoops). The name is the loop's
/// iterator, or the iterator, '#' and anything that makes each marked loop's name its own.
isl::schedule marked_schedule(const isl::schedule& body, const std::string& name);

/// The range of each loop that the schedule gives isl as a mark (a dimension of no statement domain), by
/// mark name: the loop's iterator, which runs from `first` to `second`.
using MarkedLoops = std::map<std::string, std::pair<long, long>>;

/// Generates loops for `schedule` under the parameter constraints `context`, with isl's default AST build
/// options. Loop iterators are named after their depth (c0 outermost, c1, ...); a mark of `marked` becomes
/// a loop over its iterator. nullopt where isl wrote one mark in several places (then it split the loop's
/// body, which the loop must run in one piece): build that schedule without marks. The thread's CPU time in
/// isl's AST generator is added to `*isl_seconds` where given (the floor under codegen's latency:
/// bench/codegen_latency.lua).
std::optional<AstNode> generate_ast(const isl::schedule& schedule, const isl::set& context, const MarkedLoops& marked = {},
                                    double* isl_seconds = nullptr);

}  // namespace loom
