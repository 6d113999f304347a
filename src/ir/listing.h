// The textual listing of a kernel (loopy's str(kernel)): arguments, domains, iname tags, temporaries,
// substitution rules, instructions in their loops and, once linearized, the linearization.
#pragma once

#include <string>

#include "ir/kernel.h"

namespace loom {

/// `tostring(knl)`: the listing of the loopy tutorial; with `with_dependencies`, the dependency section too.
std::string to_listing(const Kernel& k, bool with_dependencies = false);

}  // namespace loom
