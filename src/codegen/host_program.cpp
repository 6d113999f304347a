#include "codegen/host_program.h"

#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/eval.h"
#include "isl/isl.h"
#include "schedule/linear_tree.h"
#include "support/error.h"

namespace loom {

namespace {

class Builder {
public:
    explicit Builder(const KernelData& k) : k_(k), context_(assumption_context(k)) {}

    HostProgram build(const std::vector<LinearNode>& nodes, std::vector<std::string>& outer) {
        HostProgram out;
        bool in_kernel = false;  // the loops of a device kernel are its own
        for (const LinearNode& n : nodes) {
            if (n.item.kind == LinearItem::Kind::CallKernel) out.push_back({HostStep::Kind::Launch, kernels_++, "", nullptr, nullptr, {}});
            if (n.item.kind == LinearItem::Kind::CallKernel || n.item.kind == LinearItem::Kind::ReturnFromKernel)
                in_kernel = n.item.kind == LinearItem::Kind::CallKernel;
            if (in_kernel || n.item.kind != LinearItem::Kind::EnterLoop) continue;
            out.push_back(loop(n.item.name, outer));
            outer.push_back(n.item.name);
            out.back().body = build(n.body, outer);
            outer.pop_back();
        }
        return out;
    }

private:
    // The bounds of a host loop: those of its iname for the values of the host loops around it, whatever
    // the values of the device kernels' inames (each device kernel restricts its own).
    HostStep loop(const std::string& iname, const std::vector<std::string>& outer) const {
        std::vector<std::string> inames = outer;
        inames.push_back(iname);
        const isl::set d = isl_util::dims_to_params(domain_of(k_, inames), outer);
        // An empty domain has no bounds to print: the loop runs no iteration.
        if (d.is_empty()) return {HostStep::Kind::Loop, 0, iname, int_lit(0), int_lit(-1), {}};
        return {HostStep::Kind::Loop, 0, iname, affine::pw_aff_to_expr(isl_util::dim_min(d, 0), context_),
                affine::pw_aff_to_expr(isl_util::dim_max(d, 0), context_), {}};
    }

    const KernelData& k_;
    isl::set context_;
    std::size_t kernels_ = 0;
};

std::int64_t bound(const ExprPtr& e, const HostValues& values, const std::string& iname) {
    const std::optional<std::int64_t> v = eval_int(e, values);
    user_assert(v.has_value(), error_kind::ArgumentError, "cannot evaluate the bounds of the host loop over '", iname, "'");
    return *v;
}

}  // namespace

HostProgram host_program(const KernelData& k) {
    std::vector<std::string> outer;
    return Builder(k).build(to_tree(k.linearization), outer);
}

void run_host_program(const HostProgram& program, HostValues values,
                      const std::function<void(std::size_t, const HostValues&)>& launch) {
    for (const HostStep& step : program) {
        if (step.kind == HostStep::Kind::Launch) {
            launch(step.kernel, values);
            continue;
        }
        const std::int64_t hi = bound(step.upper, values, step.iname);
        for (std::int64_t i = bound(step.lower, values, step.iname); i <= hi; ++i) {
            values[step.iname] = i;
            run_host_program(step.body, values, launch);
        }
        values.erase(step.iname);
    }
}

}  // namespace loom
