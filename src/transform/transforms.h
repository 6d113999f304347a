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
    std::optional<bool> write_code, write_wrapper, return_dict, allow_terminal_colors, check_dep_resolution, insert_gbarriers,
        checked;
    std::optional<std::vector<std::string>> build_options;
    std::optional<std::string> target;
    std::optional<AccessOrdering> access_ordering;
};
Kernel set_options(const Kernel& k, const OptionUpdate& update);
/// Sets the dtypes of the named variables; an unknown name, or a different dtype already set, is an error.
Kernel add_dtypes(const Kernel& k, const std::map<std::string, DType>& dtypes);

/// loopy's add_and_infer_dtypes: add_dtypes, then every type that follows from them (others stay unknown).
Kernel add_and_infer_dtypes(const Kernel& k, const std::map<std::string, DType>& dtypes);

/// Renames argument `old_name` everywhere: instructions, substitution rules, shapes and strides, and (for a
/// value argument) the domains' and assumptions' parameters. LoopyError when `new_name` is taken.
Kernel rename_argument(const Kernel& k, const std::string& old_name, const std::string& new_name);

/// Places temporary `name` in `space` (private, local or global).
Kernel set_temporary_address_space(const Kernel& k, const std::string& name, AddressSpace space);

// --- array layouts (transform/array_axes.cpp)
/// Gives the arrays `names` the dim tags `dim_tags` (one comma-separated string or one tag per entry, as
/// lp.GlobalArg's dim_tags) and recomputes their layouts; LoopyError when one is not an array or the tags
/// do not fit its axes.
Kernel tag_array_axes(const Kernel& k, const std::vector<std::string>& names, const std::vector<std::string>& dim_tags);

// --- privatization (transform/privatize.cpp)
/// loopy's privatize_temporaries_with_inames: gives each iteration of `inames` its own entry of the
/// temporaries written inside them (only those in `only_var_names` when given): a new last axis per iname a
/// writer runs in without indexing by it, indexed by the iname minus its lower bound; axes for `vec` inames
/// are `vec` axes. What ILP and vec loops need. LoopyError when writers need different axes, or an access
/// lies outside an iname it needs.
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

/// Adds `inames` to the loops of the instructions `insn_match` selects (loopy's add_inames_to_insn).
Kernel add_inames_to_insn(const Kernel& k, const std::vector<std::string>& inames, const std::string& insn_match);

// --- instruction ordering and synchronization (transform/instruction.cpp)
/// Sets the priority of the instructions `insn_match` selects; among ready instructions the linearizer runs
/// the highest priority first.
Kernel set_instruction_priority(const Kernel& k, const std::string& insn_match, int priority);
/// Makes the instructions `insn_match` selects depend on `depends_on` (an instruction id, or a match
/// expression). A LoopyError when either selects nothing.
Kernel add_dependency(const Kernel& k, const std::string& insn_match, const std::string& depends_on);

struct NoSyncOptions {
    bool bidirectional = false;  // the source gets a nosync on the sink too
    bool force = false;          // add it even where the sink does not (transitively) depend on the source
    bool empty_ok = false;       // no error when nothing matches or nothing is added
};
/// Adds `nosync` entries of `scope` ("local", "global" or "any") on the sinks for the sources, where a sink
/// depends on a source (or their groups conflict) unless `force`. `source` and `sink` are ids or match
/// expressions. The barrier analysis then adds no barrier of that scope for those dependencies.
Kernel add_nosync(const Kernel& k, const std::string& scope, const std::string& source, const std::string& sink,
                  const NoSyncOptions& options = {});

struct BarrierOptions {
    std::string id_based_on;                // default "g_barrier" / "l_barrier"
    std::set<std::string> within_inames;    // the loops the barrier runs in; default none
    std::string synchronization_kind = "global";
    std::string mem_kind;                   // default: the synchronization kind
    std::set<std::string> tags;
};
/// Adds a barrier instruction that depends on the instructions `insn_before` selects and on which those
/// `insn_after` selects depend (either may be nullopt: no dependencies that way). A global barrier splits
/// the device kernel there.
Kernel add_barrier(const Kernel& k, const std::optional<std::string>& insn_before,
                   const std::optional<std::string>& insn_after, const BarrierOptions& options = {});

// --- reductions (transform/reduction.cpp)
/// Realizes every reduction sequentially, as loopy does: a private accumulator `acc_<inames>`, an
/// instruction `<id>_<inames>_init` setting it to the neutral element in the instruction's loops, an
/// instruction `<id>_<inames>_update` folding the body in inside the reduction loops too, and the
/// instruction rewritten to read the accumulator. argmax/argmin also keep an index accumulator (-1 while
/// empty; the first extreme element wins). Accumulators are typed from their bodies where the types are
/// known. A reduction over one `l.N` iname becomes loopy's tree reduction in a local array `acc_<iname>`
/// (inames `red_<iname>`, `red_<iname>_s<k>`, instructions `..._init`, `..._transfer`, `red_<iname>_stage_<k>`;
/// barriers come from barrier insertion); over `g.N` inames it is a LoopyError. Without reductions, returns `k`.
/// With `insn_id_filter`, only the reductions of those instructions are realized (loopy's option).
Kernel realize_reduction(const Kernel& k, const std::optional<std::set<std::string>>& insn_id_filter = std::nullopt);

// --- callable kernels (transform/callable.cpp)
/// loopy's merge: the one entrypoint among `kernels` (made by make_kernel; the others by make_function) with
/// every other kernel, and the callables each one holds, registered under its name. LoopyError for no or several
/// entrypoints, two different kernels of one name, or different targets.
Kernel merge(const std::vector<Kernel>& kernels);
/// loopy's register_callable with a kernel: `callee` becomes what calls of `name` in `caller` run. Registering
/// another kernel under a name already taken is a LoopyError.
Kernel register_callable(const Kernel& caller, const std::string& name, const Kernel& callee);
/// loopy's inline_callable_kernel: every call of callable `name` (in the kernel and in its other callables)
/// replaced by the callee's instructions, its inames and temporaries renamed (`name[:4]_` prefix), its
/// arguments replaced by what the call passes: a sub-array's subscript with each swept iname at its lower bound
/// plus the callee's index on that axis, a value argument's expression in the callee's domains and
/// instructions. Noops stand for the call's start and (with the call's id) its end, so dependencies on the call
/// hold. LoopyError for a wrong number of arguments or results, an axis count or constant extent that does
/// not match, or different index types.
Kernel inline_callable_kernel(const Kernel& k, const std::string& name);
/// Every call of a callable inlined, nested calls too (what preprocessing does first). LoopyError for a call
/// that passes or returns sub-arrays of a function that is no callable kernel.
Kernel inline_callables(const Kernel& k);

// --- substitution rules (transform/subst.cpp)
/// Expands the substitution rule uses that `within` selects (a stack match, parse/match.h: a plain match
/// expression selects every use in the instructions it matches; empty: all), as loopy: a rule whose
/// expression changes where a use of it stays becomes a new rule for that use (`h_0`). Drops the rules nothing
/// uses any more. Returns `k` when nothing was expanded.
Kernel expand_subst(const Kernel& k, const std::string& within = "");
/// Adds the rule `subst_name(parameters) := template` and replaces every subexpression of the selected
/// instructions (assignee subscripts included) and of other rules that matches `template` structurally, the
/// parameters matching any subexpression, by a call of the rule.
Kernel extract_subst(const Kernel& k, const std::string& subst_name, const std::string& templ,
                     const std::vector<std::string>& parameters = {}, const std::string& within = "");
/// Turns the single assignment `lhs_name[i, j] = expr` into the rule `lhs_name(i, j, extra...) := expr`
/// and the reads `lhs_name[a, b]` of the selected instructions into calls `lhs_name(a, b, extra...)`. Once
/// nothing reads the variable, the assignment goes, and so does the variable unless it is an argument and
/// `force_retain_argument` is set. Returns `k` when no read was replaced.
Kernel assignment_to_subst(const Kernel& k, const std::string& lhs_name,
                           const std::vector<std::string>& extra_arguments = {}, const std::string& within = "",
                           bool force_retain_argument = false);

// --- precomputation and prefetching (transform/precompute.cpp)
/// Options of precompute; empty strings and lists mean "not given".
struct PrecomputeOptions {
    std::vector<std::string> storage_axes;       // rule argument names or inames; default: see precompute
    std::vector<std::string> precompute_inames;  // names of the new inames, one per storage axis; an existing
                                                 // iname (swept, or e.g. made by an earlier precompute) is
                                                 // reused: its range must be exactly the footprint's
    std::optional<std::vector<std::string>> precompute_outer_inames;  // the compute instruction's other loops
    std::string temporary_name;                  // default: a fresh name based on the rule's; an existing
                                                 // temporary is shared, widened to hold both footprints
    AddressSpace temporary_address_space = AddressSpace::Auto;
    std::string default_tag;                     // tag of the new inames; "l.auto" picks free local axes at
                                                 // once, from the work-group the kernel has (as loopy)
    std::string within;                          // match expression selecting the uses to replace
    bool fetch_bounding_box = false;             // compute the footprint's bounding box, not the footprint
    std::string compute_insn_id;                 // default: a fresh id based on the rule's name
    DType dtype = DType::Unknown;                // of the temporary; Unknown: inferred from the rule
};
/// Stores the values of substitution rule `subst_uses` in a temporary, computed by a new instruction before
/// the uses, as loopy's precompute: for each iteration of the inames not in `sweep_inames`, the footprint of
/// the uses (the argument tuples they need as the sweep inames run) is boxed by isl; each storage axis the
/// box does not reduce to one element becomes an axis of the temporary and a new iname (named after the
/// rule argument, `<rule>_<iname>` for a swept iname the value depends on, or `precompute_inames`), and
/// the uses become reads of the temporary at the right offsets. Storage axes default to the swept inames
/// the arguments do not use, then the arguments. `subst_uses` are the rule's name, or uses such as
/// "f(i, j+1)" whose footprint is taken instead of the kernel's uses (uses outside it are kept).
/// LoopyError for an unknown rule or sweep iname, a sweep iname not used, or (without fetch_bounding_box)
/// a footprint that is not convex; StaticValueFindingError when no constant size is found (isl's fixed box
/// hull, else loopy's rule: the smallest index as one affine piece and the largest extent from it).
Kernel precompute(const Kernel& k, const std::vector<std::string>& subst_uses, const std::vector<std::string>& sweep_inames,
                  const PrecomputeOptions& options = {});

struct PrefetchOptions {
    std::vector<std::string> dim_arg_names;      // names of the fetch inames, one per array axis
    std::string temporary_name;                  // default: <var>_fetch
    std::string default_tag;
    std::optional<std::vector<std::string>> fetch_outer_inames;
    AddressSpace temporary_address_space = AddressSpace::Auto;
    bool fetch_bounding_box = false;
    std::string prefetch_insn_id;                // default: <var>_fetch_rule
    std::string within;
};
/// Prefetches the reads of variable `var` into a temporary, as loopy's add_prefetch: the reads become uses
/// of a rule `<var>_fetch_rule` (extract_subst), which is then precomputed over `sweep_inames`. `var` may
/// be a footprint subscript such as "a[i, :]": its footprint (`:` sweeping the whole axis) is fetched and
/// only the reads inside it are replaced.
Kernel add_prefetch(const Kernel& k, const std::string& var, const std::vector<std::string>& sweep_inames,
                    const PrefetchOptions& options = {});

}  // namespace loom
