// Array memory layouts, after loopy's kernel/array.py: from an array's shape and declared dim tags to the
// stride of each axis, and the measures of a layout that code generation and the call-time checks need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// Fills `v.strides` and `v.stride_levels` from its shape and dim tags (its order when it declares none), as
/// loopy's parse_array_dim_tags and convert_computed_to_fixed_dim_tags do: axes with computed strides are
/// stacked from nesting level 0 (stride 1) outwards, each stride the previous one times the previous axis's
/// extent; fixed strides are kept. LoopyError when the tags do not fit: more or fewer tags than axes (after
/// dropping `?` tags), c/f mixed with explicit levels, levels repeated or not contiguous.
///
/// `sep` and `vec` axes need a constant extent. A `sep` axis gets stride 0: its index picks one of the
/// separate arrays (sep_pieces), whose layout the other axes' strides describe. A `vec` axis (one at most,
/// of 2, 3, 4, 8 or 16 entries, not complex) gets stride 1 and the computed strides of the other axes start
/// at vector_size: the layout in scalars of an array of OpenCL vectors, where a 3-vector fills 4 scalars.
void compute_layout(Variable& v);

/// The resolved dim tags as loopy's listing prints them: `(N1:stride:n, N0:stride:1)`, `(stride:4)`.
std::string dim_tags_text(const Variable& v);

/// A shape as loopy prints it, "(n, 4)"; an axis of no known extent is "?".
std::string shape_text(const std::vector<ExprPtr>& shape);

/// The axis tagged `vec`, if any.
std::optional<std::size_t> vec_axis(const Variable& v);
/// The entries of one vector (the extent of the vec axis); 1 without one.
std::int64_t vector_length(const Variable& v);
/// The scalars one vector occupies: its length, 4 for a 3-vector (OpenCL's float3 is as large as a float4).
std::int64_t vector_size(const Variable& v);

/// Stride `s` (of an axis of `v`) counted in vectors, as indexing an array of vector type needs it.
/// LoopyError when it is not a multiple of vector_size.
ExprPtr stride_in_vectors(const Variable& v, const ExprPtr& s);

/// The axes tagged `sep`, in order.
std::vector<std::size_t> sep_axes(const Variable& v);

/// One of the separate arrays an argument with `sep` axes is made of: the indices along those axes and its
/// name, loopy's `a_s0`, `a_s1` (`a_s1_0` with two sep axes).
struct SepPiece {
    std::string name;
    std::vector<std::int64_t> index;
};
/// The separate arrays of `v`, in row-major order of their indices; empty without sep axes.
std::vector<SepPiece> sep_pieces(const Variable& v);
std::string sep_piece_name(const Variable& v, const std::vector<std::int64_t>& index);
/// One separate array of `v` as a variable of its own: named as the piece, without the sep axes.
Variable sep_piece_variable(const Variable& v, const SepPiece& piece);

/// Elements a layout spans from its first one: 1 + the largest flat index, 0 for an empty array. Strides are
/// non-negative.
std::int64_t storage_span(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides);

/// Whether `strides` reach each element of `shape` exactly once and leave no gap (an axis permutation of a
/// contiguous layout). Axes of extent 1 may have any stride.
bool is_compact(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides);

/// The strides of a contiguous array of `shape` in C (last axis fastest) or Fortran ('F') order.
std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, char order);

/// Whether two stride lists address an array of `shape` the same way (axes of extent 1 are not compared, and
/// any strides address an empty array the same way).
bool same_strides(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& a,
                  const std::vector<std::int64_t>& b);

}  // namespace loom
