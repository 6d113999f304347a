// loopy's pre_codegen_checks: what code generation requires of a preprocessed kernel, checked before anything is
// printed, so that emission (lower.cpp) only prints. One check needs the loops isl builds, and stays there: that
// a loop's literal bounds fit the index type (check_index_range).
#pragma once

#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

/// Every argument typed, every private or local temporary defined where it is read (check_definitions),
/// private values on their axes, every affine access inside its array (check_bounds, at code generation as in
/// loopy: a kernel may still be linearized and inspected with one outside), every name a valid identifier of
/// `target`, local memory initialized only where `target` can, the kernel's name usable for its device kernels,
/// and every array's largest flat index within the index type. Each raises the error of its own kind.
void check_before_code_generation(const KernelData& k, const Target& target);

}  // namespace loom
