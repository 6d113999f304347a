// Every kernel transformation, as a pure function: the input kernel is never changed, the result is a new
// Kernel. Names match loopy's (and the Lua API's). User mistakes raise typed errors naming the transform.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/kernel.h"

namespace loom {

// --- options and data (transform/data.cpp)
/// Options given by name; values are already converted by the caller.
struct OptionUpdate {
    std::optional<bool> write_code, return_dict, allow_terminal_colors, check_dep_resolution;
    std::optional<std::vector<std::string>> build_options;
    std::optional<std::string> target;
};
Kernel set_options(const Kernel& k, const OptionUpdate& update);
/// Sets the dtypes of the named variables; an unknown name, or a different dtype already set, is an error.
Kernel add_dtypes(const Kernel& k, const std::map<std::string, DType>& dtypes);

/// Places temporary `name` in `space` (private, local or global).
Kernel set_temporary_address_space(const Kernel& k, const std::string& name, AddressSpace space);

// --- array layouts (transform/array_axes.cpp)
/// Gives the arrays `names` the dim tags `dim_tags` (one comma-separated string or one tag per entry, as
/// lp.GlobalArg's dim_tags) and recomputes their layouts; LoopyError when one is not an array or the tags
/// do not fit its axes.
Kernel tag_array_axes(const Kernel& k, const std::vector<std::string>& names, const std::vector<std::string>& dim_tags);

// --- privatization (transform/privatize.cpp)
/// loopy's privatize_temporaries_with_inames: each private temporary written inside `inames` (that its
/// assignment does not already index by) gets one more axis per such iname, indexed by it in every access,
/// so that the iterations of those inames have their own copies. Axes for `vec` inames are `vec` axes.
/// `only_var_names`: privatize only those. LoopyError when writers need different axes, or an access lies
/// outside an iname it needs.
Kernel privatize_temporaries_with_inames(const Kernel& k, const std::set<std::string>& inames,
                                         const std::optional<std::set<std::string>>& only_var_names = std::nullopt);

// --- inames (transform/iname.cpp)
/// Declares that the inames of `order` nest in that order where the dependencies leave a choice.
Kernel prioritize_loops(const Kernel& k, const std::vector<std::string>& order);
/// Adds parameter constraints (isl syntax) to the assumptions.
Kernel assume(const Kernel& k, const std::string& constraints);

/// Options of split_iname and chunk_iname. Empty strings mean "not given".
struct SplitOptions {
    std::string outer_iname, inner_iname;  // default OLD_outer, OLD_inner
    std::string outer_tag, inner_tag;
    std::pair<int, int> slabs{0, 0};       // leading/trailing iterations of the outer iname coded apart
    std::string within;                    // match expression selecting the instructions (parse/match.h)
};
/// Replaces `iname` (OLD) by OLD_outer and OLD_inner with OLD = OLD_inner + factor*OLD_outer and
/// 0 <= OLD_inner < factor, in the domains and in the instructions `within` selects. OLD stays for the
/// instructions not selected. An unknown or tagged iname, or a new name already in use, is a LoopyError.
Kernel split_iname(const Kernel& k, const std::string& iname, std::int64_t factor, const SplitOptions& options = {});
/// Splits `iname` into `num_chunks` consecutive chunks: OLD_outer (0 <= OLD_outer < num_chunks) numbers the
/// chunk, OLD_inner the position in it; the first `extent mod num_chunks` chunks are one longer. The
/// domain must be a box in `iname`.
Kernel chunk_iname(const Kernel& k, const std::string& iname, std::int64_t num_chunks, const SplitOptions& options = {});
/// Joins `inames` (outermost, i.e. slowest varying, first) into one iname `new_iname` (default: the names
/// fastest first, joined by "_and_") that counts through them: i, j become (i - lo_i)*len_j + (j - lo_j).
/// All but the first need a constant length; all must belong to one domain.
Kernel join_inames(const Kernel& k, const std::vector<std::string>& inames, const std::string& new_iname = "",
                   const std::string& tag = "", const std::string& within = "");
/// Sets implementation tags: pairs (iname or glob pattern, tag). Tags: "for"/"None"/"" (no tag), "ord",
/// "l.N", "g.N", "l.auto", "unr", "unr_hint", "unr_hint.N", "ilp", "ilp.unr", "ilp.seq", "vec",
/// "like.INAME" (that iname's tag), "unused.g"/"unused.l" (the lowest axis no iname uses). A different tag
/// on an iname that already has one is a LoopyError, as in loopy.
Kernel tag_inames(const Kernel& k, const std::vector<std::pair<std::string, std::string>>& tags);
/// Parses loopy's string form "i:l.0, j:unr" into pairs for tag_inames.
std::vector<std::pair<std::string, std::string>> parse_iname_tags(const std::string& text);

struct DuplicateOptions {
    std::string within;                      // match expression; empty: every instruction
    std::vector<std::string> new_inames;     // one per iname; default: unique names from iname + suffix
    std::string suffix;
    std::map<std::string, std::string> tags;  // old iname -> tag of its duplicate
};
/// Gives the instructions `within` selects their own copy of each of `inames`, with the same bounds.
Kernel duplicate_inames(const Kernel& k, const std::vector<std::string>& inames, const DuplicateOptions& options = {});
/// Renames `old_iname` to `new_iname` (in the instructions `within` selects). With `existing_ok`, a
/// `new_iname` that exists already must have the same bounds; the two are merged.
Kernel rename_iname(const Kernel& k, const std::string& old_iname, const std::string& new_iname,
                    bool existing_ok = false, const std::string& within = "");
/// Projects out of the domains those of `inames` (all inames when empty) that no instruction uses.
Kernel remove_unused_inames(const Kernel& k, const std::vector<std::string>& inames = {});
/// Substitutes fixed values for parameters everywhere (domains, assumptions, instructions, shapes,
/// strides) and drops them from the arguments. Values are IntLit (any parameter) or FloatLit (only
/// parameters the domains do not use) expressions.
Kernel fix_parameters(const Kernel& k, const std::map<std::string, ExprPtr>& values);

// --- reductions (transform/reduction.cpp)
/// Realizes every reduction sequentially, as loopy does: a private accumulator `acc_<inames>`, an
/// instruction `<id>_<inames>_init` setting it to the neutral element in the instruction's loops, an
/// instruction `<id>_<inames>_update` folding the body in inside the reduction loops too, and the
/// instruction rewritten to read the accumulator. argmax/argmin also keep an index accumulator (-1 while
/// empty; the first extreme element wins). Accumulators are typed from their bodies where the types are
/// known. Reductions over parallel (`l.N`, `g.N`) inames are an error. Without reductions, returns `k`.
Kernel realize_reduction(const Kernel& k);

// --- substitution rules (transform/subst.cpp)
/// Expands the substitution rules used by the instructions `within` selects (a match expression; empty:
/// all), then drops the rules nothing uses any more. Returns `k` when nothing was expanded.
Kernel expand_subst(const Kernel& k, const std::string& within = "");
/// Adds the rule `subst_name(parameters) := template` and replaces every subexpression of the selected
/// instructions (and of other rules) that matches `template` structurally, the parameters matching any
/// subexpression, by a call of the rule.
Kernel extract_subst(const Kernel& k, const std::string& subst_name, const std::string& templ,
                     const std::vector<std::string>& parameters = {}, const std::string& within = "");
/// Turns the single assignment `lhs_name[i, j] = expr` into the rule `lhs_name(i, j, extra...) := expr`
/// and the reads `lhs_name[a, b]` of the selected instructions into calls `lhs_name(a, b, extra...)`. Once
/// nothing reads the variable, the assignment goes, and so does the variable unless it is an argument and
/// `force_retain_argument` is set. Returns `k` when no read was replaced.
Kernel assignment_to_subst(const Kernel& k, const std::string& lhs_name,
                           const std::vector<std::string>& extra_arguments = {}, const std::string& within = "",
                           bool force_retain_argument = false);

}  // namespace loom
