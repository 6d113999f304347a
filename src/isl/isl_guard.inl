// Template body of isl_util::guard (kept out of isl.h to keep the declarations readable).
#pragma once

#include "support/error.h"

namespace loom::isl_util {

template <class F>
auto guard(const std::string& kind, const std::string& what, F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const isl::exception& e) {
        throw Error(kind, what + ": " + (e.what() ? e.what() : "isl error"));
    }
}

}  // namespace loom::isl_util
