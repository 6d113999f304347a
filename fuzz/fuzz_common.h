// What the fuzz targets share: splitting an input into its parts, and the verdict on what a call raised.
// A typed user error (ParseError, LoopyError, ...) is a correct answer to hostile input; an InternalError or
// any other exception is a bug, reported by aborting so that libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <isl/val.h>

#include "ir/domain.h"
#include "isl/isl.h"
#include "support/error.h"

namespace loom::fuzz {

/// The input as text, cut at the first `max_parts - 1` `sep` bytes (every one by default).
inline std::vector<std::string> split(std::string_view text, char sep, std::size_t max_parts = SIZE_MAX) {
    std::vector<std::string> parts(1);
    for (const char c : text) {
        if (c == sep && parts.size() < max_parts)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

[[noreturn]] inline void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz: not a typed user error: %s\n", what.c_str());
    std::abort();
}

// Every isl object (space, set, value, id, ...) holds a reference to its context, counted in the first member
// of isl's struct isl_ctx (isl_ctx_private.h, isl 0.25). With the domain products that kernels share dropped
// (the one cache of isl objects beyond a kernel's life), an input that leaves the count higher than it found it
// leaked isl objects. This finds them without LeakSanitizer's scan of the heap, which fork mode runs only when
// a job exits (after thousands of inputs: the leaking input was lost, docs/reliability.md 25), which costs 20
// times the executions when run after each input, and which misses an object still reachable from isl's
// context (an isl_id, kept in the context's table of ids, whose references were not all given back).
inline int isl_references() { return *reinterpret_cast<const int*>(isl_util::ctx().get()); }

// Whether that member counts as isl 0.25 does (a value made and freed moves it by one): another isl may keep
// it elsewhere, and then there is no check.
inline bool isl_references_counted() {
    static const bool counted = [] {
        const int before = isl_references();
        isl_val* v = isl_val_zero(isl_util::ctx().get());
        const bool up = isl_references() == before + 1;
        isl_val_free(v);
        const bool ok = up && isl_references() == before;
        if (!ok) std::fprintf(stderr, "fuzz: isl's context does not count its references as isl 0.25 does: no isl leak check\n");
        return ok;
    }();
    return counted;
}

/// Runs `input` (all of one input's work) and aborts where it leaked isl objects. A first use may make isl
/// objects kept for later (a function's static): an input that leaves more references runs again, and it is a
/// leak where the second run also leaves more.
template <class F>
void check_isl_leaks(F&& input) {
    if (!isl_references_counted()) return input();
    drop_shared_domain_products();
    const int before = isl_references();
    input();
    drop_shared_domain_products();
    const int after = isl_references();
    if (after <= before) return;
    input();
    drop_shared_domain_products();
    const int again = isl_references();
    if (again <= after) return;
    std::fprintf(stderr, "fuzz: isl objects leaked: the input, run twice, left %d, then %d more references to isl's context\n",
                 after - before, again - after);
    std::abort();
}

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`; a Loom user error (or running out of memory) ends the input, anything else aborts.
template <class F>
void run_guarded(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        if (e.kind() == "InternalError") bug(e.what());
    } catch (const std::bad_alloc&) {
    } catch (const std::exception& e) {
        bug(e.what());
    } catch (...) {
        bug("an exception that is not a std::exception");
    }
}

}  // namespace loom::fuzz
