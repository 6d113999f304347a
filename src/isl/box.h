// Fixed-size boxes around sets: how big a buffer must be to hold a footprint (prefetch and precompute).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <vector>

namespace loom::isl_util {

/// A box: per axis, the elements offset <= x < offset + size.
struct FixedBox {
    isl::multi_aff offset;  // affine in the parameters of the boxed set
    std::vector<long> size;
};

/// isl's simple fixed box hull of `s`: per set dimension an offset depending only on the parameters and a
/// constant size such that every point of `s` lies in the box. nullopt when isl finds no box of constant size.
std::optional<FixedBox> fixed_box_hull(const isl::set& s);

}  // namespace loom::isl_util
