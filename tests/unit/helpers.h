// What the unit tests share: a kernel made from loopy's domain and instruction syntax.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parse/make_kernel.h"
#include "support/error.h"

namespace loom::test {

/// make_kernel of `domains` and `instructions` (untyped arguments, as loopy's "..."), under `assumptions`,
/// named `name` (make_kernel's default where empty).
inline Kernel kernel(std::vector<std::string> domains, std::vector<std::string> instructions,
                     std::string assumptions = "", std::string name = "") {
    MakeKernelInput in;
    in.domains = std::move(domains);
    in.instructions = std::move(instructions);
    in.assumptions = std::move(assumptions);
    if (!name.empty()) in.name = std::move(name);
    return make_kernel(in);
}

/// The error `f` raises; nullopt when it raises none.
template <class F>
std::optional<Error> error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    return std::nullopt;
}

}  // namespace loom::test
