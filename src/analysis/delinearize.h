// Flat indices with strides that are arguments (`a[i + n*j]`: OKL's @dim, pointer arithmetic over arrays whose
// sizes are passed) are not affine, so isl cannot tell which elements two such accesses share. Where every
// access of a variable writes its index in one mixed radix, `g0 + b1*(g1 + b2*(g2 + ...))`, with each digit g
// affine, each base b a value argument that no instruction writes or a sum of such (`n1 + 2*halfpad`), and
// s_k <= g_k < s_k + b_(k+1) on every instance of the access for shifts s_k that every access shares (0, or the
// digit's terms in those arguments alone: a pointer's offset), two accesses touch the same element exactly
// where all their digits agree: the digits are an exact multi-dimensional index.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// The bases [b1, b2, ...] of the radix shared by every access of `variable` in `k`, when its flat indices are
/// not all affine and each is in that radix with its digits within their bases on the instances of its
/// instruction that run (running_instances); nullopt otherwise.
std::optional<std::vector<ExprPtr>> radix_bases(const KernelData& k, const std::string& variable);

/// The digits [g_m, ..., g_1, g_0] of `index` in the radix `bases` (the most significant first), as
/// radix_bases found them for every access of its variable.
std::vector<ExprPtr> radix_digits(const ExprPtr& index, const std::vector<ExprPtr>& bases);

}  // namespace loom
