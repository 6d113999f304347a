#include "preprocess/preprocess.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "analysis/access_order.h"
#include "analysis/address_space.h"
#include "analysis/kernel_checks.h"
#include "analysis/types.h"
#include "analysis/write_races.h"
#include "ir/derived.h"
#include "ir/listing.h"
#include "isl/isl.h"
#include "preprocess/checked_accesses.h"
#include "preprocess/hardware_offsets.h"
#include "schedule/barriers.h"
#include "schedule/dependence_legality.h"
#include "schedule/global_barriers.h"
#include "schedule/kernel_split.h"
#include "schedule/linearize.h"
#include "schedule/verify_linearization.h"
#include "support/big_stack.h"
#include "support/limits.h"
#include "support/strings.h"
#include "transform/auto_axes.h"
#include "transform/privatize.h"
#include "transform/transforms.h"

namespace loom {

namespace {

// Between stages: the kernel dumped when LOOM_DEBUG=2, and the deadline of a sandboxed script's run checked (a
// stage is the unit of work a deadline cannot interrupt).
void after_stage(const char* stage, const Kernel& k) {
    static const bool enabled = [] {
        const char* v = std::getenv("LOOM_DEBUG");
        return v && std::atoi(v) >= 2;
    }();
    if (enabled) std::cerr << "=== after " << stage << " ===\n" << to_listing(k) << "\n";
    check_deadline(stage);
}

}  // namespace

namespace {

// The engine's walks recurse once per level of an expression: a stock lua5.4 (8 MiB of stack) segfaulted in
// generate_code on a sum of 10,000 operands that make_kernel had accepted. What the stack left cannot hold is a
// LimitError before any walk.
void check_stack_for_depth(const KernelData& k) {
    int deepest = 0;
    for (const Instruction& insn : k.instructions) {
        if (insn.expression) deepest = std::max(deepest, insn.expression->depth);
        for (const ExprPtr& a : insn.assignees) deepest = std::max(deepest, a->depth);
    }
    for (const SubstitutionRule& r : k.substitutions) deepest = std::max(deepest, r.expression->depth);
    if (deepest < 128) return;  // within any thread's stack; asking for the stack's size can read /proc
    // About 5.5 KiB a level (64 MiB holds kMaxExprDepth levels), and 1 MiB for the rest of the engine.
    constexpr std::size_t kBytesPerLevel = 6 * 1024, kBase = std::size_t{1} << 20;
    const std::size_t needed = kBase + kBytesPerLevel * static_cast<std::size_t>(deepest);
    const std::size_t left = stack_left();
    user_assert(left >= needed, error_kind::LimitError, "kernel '", k.name, "' has an expression ", deepest,
                " levels deep, which needs about ", (needed >> 20) + 1, " MiB of stack, and this thread has ", left >> 20,
                " MiB left: run Lua on a thread with a larger stack (the loom executable has 512 MiB), or split the ",
                "expression with temporaries");
}

}  // namespace

Kernel preprocess_unlinearized(const Kernel& k, const std::map<std::string, DType>& dtypes) {
    check_stack_for_depth(*k);
    // Substitution rules are macros: expanded first, so that everything after sees plain expressions.
    // Reductions are realized once the argument types are known (max/min's neutral element and the
    // accumulators' types depend on them); the accumulators are typed by the second inference.
    // Automatic local axes are assigned first: everything after sees concrete hardware axes.
    // Hardware axes count from zero: inames on them are shifted once their axes are known.
    // Calls of callable kernels are inlined before anything else: the rest sees one kernel.
    for (const isl::set& d : k->domains) {
        std::string inames;
        for (const std::string& n : isl_util::set_dim_names(d)) inames += (inames.empty() ? "" : ", ") + n;
        check_index_coefficients(*k, d, "the domain of " + inames);
    }
    Kernel axes = assign_automatic_axes(expand_subst(inline_callables(k)));
    if (!k->linearized) axes = shift_hardware_inames_to_zero(axes);
    Kernel typed = infer_types(axes, dtypes, false);
    after_stage("type inference", typed);
    typed = infer_types(realize_reduction(typed), {}, true);
    after_stage("reduction realization", typed);
    // ILP and vec privatization follows reduction realization so that accumulators get their axes too; write
    // races are judged on the result, with every address space known.
    typed = realize_ilp(resolve_address_spaces(typed));
    // Inserted global barriers are instructions, so that the split they make survives relinearization.
    if (typed->options.insert_gbarriers && !k->linearized) typed = insert_global_barriers(typed);
    check_kernel_structure(*typed);
    check_for_write_races(*typed);
    check_for_unused_inames(*typed);
    return typed;
}

namespace {

Kernel preprocess_now(const Kernel& k, const std::map<std::string, DType>& dtypes, bool checked, double* legality_seconds) {
    const Kernel typed = preprocess_unlinearized(k, dtypes);
    if (!k->linearized) check_variable_access_ordered(*typed);  // before linearization, as loopy
    // What isl cannot prove in bounds is guarded where it runs in a checked kernel, before the guards' records
    // are linearized with the rest.
    const Kernel guarded = guard_unproven_accesses(typed, checked);
    // Barriers are placed on the work-item view of the kernel; targets without work-items then run the
    // grid as loops, cut into phases at those barriers. What the tags ask is checked against the kernel's
    // dependences once the split has made the temporaries that live across device kernels global.
    Kernel linear = k->linearized ? guarded : split_device_kernels(insert_barriers(linearize(guarded)));
    const double start = thread_cpu_seconds();
    check_dependence_legality(*linear);
    if (legality_seconds) *legality_seconds += thread_cpu_seconds() - start;
    after_stage("linearization", linear);
    // The linearizer is heuristic; its result is checked exactly before any code is printed (a given
    // linearization too).
    verify_linearization(*linear);
    return linear;
}

}  // namespace

Kernel preprocess_kernel(const Kernel& k, const std::map<std::string, DType>& dtypes, double* legality_seconds) {
    // Kept with the kernel per argument types and checking (a sandbox checks every kernel): generate_code, the
    // statistics and a call of one kernel preprocess it once.
    const bool checked = k->options.checked || current_limits() != nullptr;
    std::string key = checked ? "preprocessed, checked" : "preprocessed";
    for (const auto& [name, t] : dtypes) key += cat(", ", name, ": ", dtype_name(t));
    return *stage_result<Kernel>(*k, key, [&] { return preprocess_now(k, dtypes, checked, legality_seconds); });
}

}  // namespace loom
