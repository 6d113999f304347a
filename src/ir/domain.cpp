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

namespace {

// The product of the domains `use` selects, with the assumptions applied.
template <class Pred>
isl::set combine(const KernelData& k, Pred use) {
    isl::set out(isl_util::ctx(), "{ [] }");
    for (isl::set d : k.domains) {
        if (!use(d)) continue;
        unify_params(out, d);
        out = isl::manage(isl_set_flat_product(out.copy(), d.copy()));
    }
    isl::set ctx = k.assumptions;
    unify_params(out, ctx);
    return out.intersect_params(ctx);
}

}  // namespace

isl::set combined_domain(const KernelData& k) {
    return combine(k, [](const isl::set&) { return true; });
}

isl::set domain_of(const KernelData& k, const std::vector<std::string>& inames) {
    // Only domains declaring one of `inames` constrain them: an instruction outside the loops of another
    // domain runs whether or not that domain is empty.
    const isl::set relevant = combine(k, [&](const isl::set& d) {
        for (const std::string& i : inames)
            if (isl_set_find_dim_by_name(d.get(), isl_dim_set, i.c_str()) >= 0) return true;
        return false;
    });
    return isl_util::project_onto(relevant, inames);
}

isl::set assumption_context(const KernelData& k) {
    isl::set ctx = k.assumptions;
    for (const isl::set& d : k.domains) ctx = isl_util::align_params(ctx, d.space());
    return ctx;
}

}  // namespace loom
