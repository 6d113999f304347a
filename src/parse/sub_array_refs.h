// loopy's sub-array arguments of kernel calls: `[i, j]: a[i, j]` as written, and the numpy-style slices
// (`a[i, :]`, `x[5:40:3]`) and whole arrays (`f(a)`) that stand for one.
#pragma once

#include "ir/kernel.h"

namespace loom {

/// Turns every slice in a call's arguments or left-hand sides into a sub-array reference over a new iname
/// (`a[i, 2:n]` becomes `[i_0]: a[i, 2 + i_0]` with the domain `{ [i_0] : 0 <= i_0 and 2 + i_0 < n }`), and an
/// array passed whole into one over all its axes (loopy's SliceToInameReplacer). Arrays sliced need a declared
/// shape. LoopyError for a slice or sub-array reference anywhere else: only calls take sub-arrays.
void expand_slices(KernelData& k);

}  // namespace loom
