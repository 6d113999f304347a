#include "analysis/kernel_checks.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/access.h"
#include "ir/eval.h"
#include "analysis/write_races.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// Two inames of one instruction on one axis would both read the same work-item index.
void check_hardware_axes_used_once(const KernelData& k) {
    for (const Instruction& insn : k.instructions) {
        std::map<InameTag, std::string> owner;  // axis tag -> iname
        for (const std::string& i : insn.within_inames) {
            const InameTag tag = iname_tag(k, i);
            if (!tag.is_hardware()) continue;
            const auto [it, fresh] = owner.emplace(tag, i);
            user_assert(fresh, error_kind::LoopyError, "instruction '", insn.id, "' has multiple inames tagged '", tag, "' ('",
                        it->second, "' and '", i, "'): give each a different axis");
        }
    }
}

// An iname outside the instruction's loops has no value where the instruction runs.
void check_inames_in_scope(const KernelData& k) {
    const std::vector<std::string> inames = all_inames(k);
    const std::set<std::string> all(inames.begin(), inames.end());
    for (const Instruction& insn : k.instructions) {
        std::vector<std::string> outside;
        for (const std::string& n : read_names(insn))
            if (all.count(n) && !insn.within_inames.count(n)) outside.push_back(n);
        user_assert(outside.empty(), error_kind::LoopyError, "instruction '", insn.id, "' references inames '", join(outside, ", "),
                    "' that the instruction does not depend on in the kernel '", k.name, "'");
    }
}

// The grid is sized before the kernel runs, so hardware axes cannot be bounded by values it computes.
void check_parallel_bounds_known_at_launch(const KernelData& k) {
    for (std::size_t d = 0; d < k.domains.size(); ++d) {
        std::vector<std::string> parallel;
        for (const std::string& i : isl_util::set_dim_names(k.domains[d]))
            if (iname_tag(k, i).is_concurrent()) parallel.push_back(i);
        if (parallel.empty()) continue;
        for (const std::string& p : isl_util::param_names(k.domains[d].space())) {
            const Variable* v = find_variable(k, p);
            user_assert(!v || v->is_arg(), error_kind::LoopyError, "Domain number ", d, " has a data-dependent parameter '", p,
                        "' and contains parallel inames '", join(parallel, ", "), "'. This is not allowed (for now).");
        }
    }
}

// A parameter of the domains, the assumptions or a shape has a value at a call only as an argument.
void check_parameters_declared(const KernelData& k) {
    for (const std::string& p : all_params(k))
        user_assert(find_variable(k, p) != nullptr, error_kind::LoopyError, "parameter '", p, "' of kernel '", k.name,
                    "' is not an argument: declare it (lp.ValueArg) or fix its value with lp.fix_parameters");
}

// The hardware axes ("g.0", "l.1", ...) an instruction runs on.
std::map<InameTag, std::string> hardware_axes(const KernelData& k, const Instruction& insn) {
    std::map<InameTag, std::string> axes;  // axis tag -> iname
    for (const std::string& i : insn.within_inames)
        if (iname_tag(k, i).is_hardware()) axes.emplace(iname_tag(k, i), i);
    return axes;
}

// Each use of an array has one index per axis (or one into its storage: a[[e]], or an array without a shape).
// A bare name of an array with axes would print its address where a value belongs.
void check_indices_match_axes(const KernelData& k) {
    // An array without a shape is indexed into its storage, and its bare name reads its first element as a
    // 0-d array's would: used both ways, its accesses disagree on its axes (and the barrier and race checks
    // compare accesses of different dimensions).
    std::map<std::string, std::string> bare_use, indexed_use;  // array -> the first instruction using it that way
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            const Variable* v = find_variable(k, a.name);
            if (!v) continue;
            user_assert(v->is_array || a.indices.empty(), error_kind::LoopyError, "'", a.name,
                        "' is a scalar but is indexed with ", a.indices.size(), " indices in instruction '", insn.id, "'");
            if (!v->is_array) continue;
            if (v->storage_indexed()) {
                (a.subscripted ? indexed_use : bare_use).emplace(a.name, insn.id);
                continue;
            }
            if (a.linear) continue;
            // Without a shape, strides give the axes (loopy's shape=None with strides).
            const std::size_t axes = v->no_shape ? v->strides.size() : v->shape.size();
            user_assert(a.indices.size() == axes, error_kind::LoopyError, "'", a.name, "' has ", axes,
                        " axes but is indexed with ", a.indices.size(), " indices in instruction '", insn.id, "'");
        }
    for (const auto& [name, insn] : bare_use)
        if (const auto indexed = indexed_use.find(name); indexed != indexed_use.end())
            user_error(error_kind::LoopyError, "array '", name, "' has no shape and is used both with indices (instruction '",
                       indexed->second, "') and without (instruction '", insn, "'): declare its shape, or index every use");
}

}  // namespace

// A private temporary has one copy per work-item: written on a hardware axis, each copy holds only that
// work-group's or work-item's part.
void check_private_values_stay_on_their_axes(const KernelData& k) {
    const auto writers = writer_map(k);
    std::map<const Instruction*, std::map<InameTag, std::string>> axes;
    for (const Instruction& insn : k.instructions) axes[&insn] = hardware_axes(k, insn);
    for (const Instruction& reader : k.instructions) {
        const auto& reader_axes = axes.at(&reader);
        for (const std::string& v : read_names(reader)) {
            const Variable* var = find_variable(k, v);
            const auto written = writers.find(v);
            if (!var || var->is_arg() || var->address_space != AddressSpace::Private || written == writers.end())
                continue;
            for (const Instruction* writer : written->second)
                for (const auto& [tag, i] : axes.at(writer))
                    user_assert(reader_axes.count(tag), error_kind::LoopyError, "instruction '", reader.id,
                                "' reads private variable '", v, "', which instruction '", writer->id,
                                "' writes within iname '", i, "' tagged '", tag, "', but '", reader.id,
                                "' runs on no iname tagged '", tag, "': each ",
                                tag.is_group() ? "work-group" : "work-item", " on ", tag,
                                " holds only its own part of '", v, "'. For a reduction, tag the iname before "
                                "realize_reduction (it reduces over l.N inames in local memory and refuses g.N ones)");
        }
    }
}

void check_kernel_structure(const KernelData& k) {
    check_parameters_declared(k);
    check_hardware_axes_used_once(k);
    check_inames_in_scope(k);
    check_parallel_bounds_known_at_launch(k);
    check_indices_match_axes(k);
}

void check_constant_temporary_sizes(const KernelData& k) {
    for (const Variable& v : k.temporaries) {
        if (v.address_space == AddressSpace::Global) continue;
        for (const ExprPtr& extent : v.shape)
            user_assert(eval_int(extent, {}).has_value(), error_kind::LoopyError, "temporary '", v.name, "' has a size ('",
                        to_string(extent), "') that depends on the kernel's parameters: OpenCL has no variable-length ",
                        "arrays (the C executor runs it; in global memory, or with a constant size, it runs on OpenCL too)");
    }
}

std::optional<std::int64_t> private_bytes(const KernelData& k, const std::map<std::string, std::int64_t>& values) {
    std::int64_t total = 0;
    for (const Variable& v : k.temporaries) {
        if (v.address_space != AddressSpace::Private) continue;
        std::int64_t bytes = static_cast<std::int64_t>(dtype_size(v.dtype));
        for (const ExprPtr& extent : v.shape) {
            const std::optional<std::int64_t> n = eval_int(extent, values);
            if (!n) return std::nullopt;
            // Saturating: an extent near the index type's limit must not wrap to a small size.
            bytes = *n <= 0 ? 0 : (bytes > INT64_MAX / *n ? INT64_MAX : bytes * *n);
        }
        total = total > INT64_MAX - bytes ? INT64_MAX : total + bytes;
    }
    return total;
}

void check_for_unused_inames(const KernelData& k) {
    std::set<std::string> used;
    for (const Instruction& insn : k.instructions) {
        used.insert(insn.within_inames.begin(), insn.within_inames.end());
        for (const std::string& i : bound_inames(insn)) used.insert(i);
    }
    std::vector<std::string> unused;
    for (const std::string& i : all_inames(k))
        if (!used.count(i)) unused.push_back(i);
    if (unused.empty()) return;
    warn_with_kernel(k, "unused_inames", cat("no instruction runs in iname", unused.size() > 1 ? "s " : " ", join(unused, ", "),
                     " of the domains, whose loop", unused.size() > 1 ? "s" : "", " will not run (put the instructions ",
                     "inside it, with a 'for' block or 'inames=')"), error_kind::UnusedInameWarning);
}

}  // namespace loom
