// Fixed-size boxes around sets: how big a buffer must be to hold a footprint (prefetch and precompute).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <vector>

#include "expr/expr.h"

namespace loom::isl_util {

/// One axis of a box: the elements offset <= x < offset + size.
struct BoxAxis {
    ExprPtr offset;  // affine in the parameters of the boxed set
    long size = 0;
};

/// isl's simple fixed box hull of `s`: per set dimension an offset depending only on the parameters and a
/// constant size such that every point of `s` lies in the box. nullopt when isl finds no box of constant size.
std::optional<std::vector<BoxAxis>> fixed_box_hull(const isl::set& s);

}  // namespace loom::isl_util
