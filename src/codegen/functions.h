// Writing a kernel's scalar functions (ir/function.h) as functions of the generated program.
#pragma once

#include <string>

#include "codegen/c_expr.h"
#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

/// The kernel's scalar functions as `target` writes them: every prototype, then every definition (so that
/// any may call any). The helpers their expressions use are added to `helpers`.
std::string scalar_function_definitions(const KernelData& k, const Target& target, CExprPrinter& helpers);

}  // namespace loom
