#include "codegen/pre_codegen_checks.h"

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/bounds.h"
#include "analysis/kernel_checks.h"
#include "analysis/types.h"
#include "ir/names.h"
#include "schedule/kernel_split.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// Variables and inames become identifiers of the code: whatever entry point named them, the one name check
// applies (a transformation's edit cannot carry code into the source), and the target's own (OpenCL C's
// reserved names).
void check_identifiers(const KernelData& k, const Target& target) {
    std::vector<std::string> names = all_inames(k);
    for (const auto* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) names.push_back(v.name);
    for (const std::string& n : names) {
        check_name(n, "variable or iname", "code generation");
        target.check_identifier(n);
    }
}

// Device targets (OpenCL, CUDA) cannot initialize local memory (Target::initializes_local_memory).
void check_local_initializers(const KernelData& k, const Target& target) {
    if (target.initializes_local_memory()) return;
    for (const Variable& t : k.temporaries)
        user_assert(t.address_space != AddressSpace::Local || t.initializer.empty(), error_kind::LoopyError, "temporary '", t.name,
                    "' has an initializer: local memory cannot be initialized on ", target.name(),
                    " (only on the C target)");
}

// Flat indices have the index type too: the largest one of an array of constant layout must fit it.
void check_flat_indices(const KernelData& k) {
    for (const auto* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) {
            bool constant = v.is_array && v.strides.size() == v.shape.size(), overflow = false;
            std::int64_t last = 0, term = 0;
            for (std::size_t j = 0; constant && j < v.shape.size(); ++j) {
                const ExprPtr &n = v.shape[j], &s = v.strides[j];
                constant = n && s && n->kind == ExprKind::IntLit && s->kind == ExprKind::IntLit && n->ival > 0;
                if (constant)
                    overflow = overflow || __builtin_mul_overflow(n->ival - 1, s->ival < 0 ? -s->ival : s->ival, &term) ||
                               __builtin_add_overflow(last, term, &last);
            }
            if (constant)
                check_index_value(k, overflow ? INT64_MAX : last, "generate_code",
                                  cat("the largest flat index of array '", v.name, "',"));
        }
}

}  // namespace

void check_before_code_generation(const KernelData& k, const Target& target) {
    require_argument_types(k);
    check_definitions(k);
    check_private_values_stay_on_their_axes(k);
    check_bounds(k);
    check_identifiers(k, target);
    check_local_initializers(k, target);
    // The device kernels are named after the kernel, the later ones with a suffix "_N" no built-in has.
    target.check_kernel_name(k.name);
    check_flat_indices(k);
}

}  // namespace loom
