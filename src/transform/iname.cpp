#include "isl/isl.h"
#include "support/error.h"
#include "transform/transforms.h"

namespace loom {

namespace {

void check_inames_exist(const KernelData& k, const std::vector<std::string>& inames, const char* transform) {
    for (const std::string& i : inames)
        user_assert(is_iname(k, i), "LoopyError", transform, ": unknown iname '", i, "'");
}

}  // namespace

Kernel prioritize_loops(const Kernel& kernel, const std::vector<std::string>& order) {
    KernelData k = kernel.copy();
    check_inames_exist(k, order, "prioritize_loops");
    k.loop_priority.push_back(order);
    k.linearized = false;
    k.linearization.clear();
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

Kernel assume(const Kernel& kernel, const std::string& constraints) {
    KernelData k = kernel.copy();
    isl::set extra = isl_util::parse_assumptions(constraints);
    isl::set current = isl_util::align_params(k.assumptions, extra.space());
    extra = isl_util::align_params(extra, current.space());
    k.assumptions = current.intersect(extra);
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
