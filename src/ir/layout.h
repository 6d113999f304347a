// Array memory layouts, after loopy's kernel/array.py: from an array's shape and declared dim tags to the
// stride of each axis, and the measures of a layout that code generation and the call-time checks need.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// Fills `v.strides` and `v.stride_levels` from its shape and dim tags (its order when it declares none), as
/// loopy's parse_array_dim_tags and convert_computed_to_fixed_dim_tags do: axes with computed strides are
/// stacked from nesting level 0 (stride 1) outwards, each stride the previous one times the previous axis's
/// extent; fixed strides are kept. LoopyError when the tags do not fit: more or fewer tags than axes (after
/// dropping `?` tags), c/f mixed with explicit levels, levels repeated or not contiguous, and `sep`/`vec`,
/// which this code generator does not implement.
void compute_layout(Variable& v);

/// The resolved dim tags as loopy's listing prints them: `(N1:stride:n, N0:stride:1)`, `(stride:4)`.
std::string dim_tags_text(const Variable& v);

/// Elements a layout spans from its first one: 1 + the largest flat index, 0 for an empty array. Strides are
/// non-negative.
std::int64_t storage_span(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides);

/// Whether `strides` reach each element of `shape` exactly once and leave no gap (an axis permutation of a
/// contiguous layout). Axes of extent 1 may have any stride.
bool is_compact(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides);

/// The strides of a contiguous array of `shape` in C (last axis fastest) or Fortran ('F') order.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, char order);

/// Whether two stride lists address an array of `shape` the same way (axes of extent 1 are not compared).
bool same_strides(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& a,
                  const std::vector<std::int64_t>& b);

}  // namespace loom
