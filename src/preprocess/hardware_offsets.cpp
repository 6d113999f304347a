#include "preprocess/hardware_offsets.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"

namespace loom {

namespace {

// The smallest value of `iname` when it is a nonzero expression of the parameters alone. An iname without a
// lower bound (one no instruction runs in may have none) has no start to shift.
std::optional<ExprPtr> nonzero_start(const KernelData& k, const std::string& iname) {
    for (const isl::set& d : k.domains)
        if (isl_util::is_param(d, iname)) return std::nullopt;
    if (!isl_util::has_lower_bound(domain_of(k, {iname}), 0)) return std::nullopt;
    const std::optional<ExprPtr> lo = hardware_start(k, iname);
    if (!lo || ((*lo)->kind == ExprKind::IntLit && (*lo)->ival == 0)) return std::nullopt;
    return lo;
}

// `d` with its dimension `iname` replaced by `iname + lo` (so that the new `iname` starts at zero), in its place:
// the kernel's iname order (the nesting the kernel means where nothing else decides) stays.
isl::set shifted(const isl::set& d, const std::string& iname, const ExprPtr& lo) {
    const std::string fresh = iname + "__loom_shifted";
    isl::set s = isl_util::insert_named_dim(d, isl_util::set_dim_position(d, iname) + 1, fresh);
    s = affine::add_constraint(s, var(iname), BinOp::Eq, binary(BinOp::Add, var(fresh), lo));
    return isl_util::rename_dim(isl_util::project_out(s, {iname}), fresh, iname);
}

}  // namespace

Kernel shift_hardware_inames_to_zero(const Kernel& kernel) {
    std::map<std::string, ExprPtr> starts;
    for (const auto& [iname, tag] : kernel->iname_tags)
        if (tag.is_hardware())
            if (const std::optional<ExprPtr> lo = nonzero_start(*kernel, iname)) starts[iname] = *lo;
    if (starts.empty()) return kernel;
    KernelData k = kernel.copy();
    std::map<std::string, ExprPtr> values;
    for (const auto& [iname, lo] : starts) {
        values[iname] = binary(BinOp::Add, var(iname), lo);
        for (isl::set& d : k.domains)
            if (isl_util::has_dim(d, iname)) d = shifted(d, iname, lo);
    }
    for (Instruction& insn : k.instructions) {
        for (ExprPtr& a : insn.assignees) a = substitute(a, values);
        insn.expression = substitute(insn.expression, values);
        for (ExprPtr& p : insn.predicates) p = substitute(p, values);
    }
    return unlinearized_kernel(std::move(k));
}

}  // namespace loom
