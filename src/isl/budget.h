// A bound on the work of one isl computation. isl counts its elementary steps in the context, and once a
// maximum is set, every call past it fails with isl_error_quota: the work stops at the same point on every
// machine, whatever its speed or load, so that what Loom derives from it is the same everywhere.
#pragma once

#include <isl/ctx.h>

#include <optional>

#include "isl/isl.h"

namespace loom::isl_util {

/// Runs f with isl allowed at most `operations` elementary steps; nullopt when f ran out of them (any
/// result computed after isl's quota tripped is discarded). Other failures and exceptions propagate. Inside
/// another budget (isl counts against one quota at a time) the outer one stays in force and bounds f instead.
template <class F>
auto within_operations(unsigned long operations, F&& f) -> std::optional<decltype(f())> {
    isl_ctx* const c = ctx().get();
    const bool nested = isl_ctx_get_max_operations(c) != 0;
    struct Restore {
        isl_ctx* c;
        bool nested;
        ~Restore() {
            if (nested) return;
            isl_ctx_set_max_operations(c, 0);
            isl_ctx_reset_error(c);
        }
    } restore{c, nested};
    if (!nested) {
        isl_ctx_reset_error(c);
        isl_ctx_reset_operations(c);
        isl_ctx_set_max_operations(c, operations);
    }
    const auto out_of_budget = [&] { return isl_ctx_last_error(c) == isl_error_quota; };
    try {
        auto result = f();
        if (out_of_budget()) return std::nullopt;
        return result;
    } catch (const isl::exception_quota&) {
        return std::nullopt;
    } catch (...) {
        if (out_of_budget()) return std::nullopt;
        throw;
    }
}

}  // namespace loom::isl_util
