#include "ir/domain.h"

#include <isl/set.h>

#include "isl/isl.h"

namespace loom {

namespace {

// Makes the parameter lists of a and b identical so that they can be combined.
void unify_params(isl::set& a, isl::set& b) {
    a = isl_util::align_params(a, b.space());
    b = isl_util::align_params(b, a.space());
}

}  // namespace

isl::set combined_domain(const KernelData& k) {
    isl::set out(isl_util::ctx(), "{ [] }");
    for (isl::set d : k.domains) {
        unify_params(out, d);
        out = isl::manage(isl_set_flat_product(out.copy(), d.copy()));
    }
    isl::set ctx = k.assumptions;
    unify_params(out, ctx);
    return out.intersect_params(ctx);
}

isl::set domain_of(const KernelData& k, const std::vector<std::string>& inames) {
    return isl_util::project_onto(combined_domain(k), inames);
}

isl::set assumption_context(const KernelData& k) {
    isl::set ctx = k.assumptions;
    for (const isl::set& d : k.domains) ctx = isl_util::align_params(ctx, d.space());
    return ctx;
}

}  // namespace loom
