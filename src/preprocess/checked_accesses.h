// Checked kernels (a sandbox's always, or lp.set_options{checked = true}): an access whose index isl cannot
// prove inside its array (through data, `a[idx[i]]`; not affine, `b[i*i]`; in an instruction whose instances
// depend on data) is guarded where it runs. A read out of bounds gives 0 and a write is skipped, so that no
// kernel reads or writes memory outside its arrays, and the first violation of each access is recorded in the
// kernel's violation record: an output the call allocates, reads back and turns into an IndexError naming the
// instruction, the array, the axis and the index (backends/invoker.h). Accesses isl proves cost nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// The name of a checked kernel's violation record: int64, two slots per guarded access (1 + the axis whose
/// index was outside, then that index), zero while none was.
inline constexpr char kViolationRecord[] = "_loom_violations";

/// The value argument a checked kernel gets for each array without a shape (lp.none: an OKL pointer): the
/// elements of the buffer the call passes for it, which its accesses are checked against (the call sets it).
inline constexpr char kBufferSizePrefix[] = "_loom_size_";
std::string buffer_size_name(const std::string& array);

/// `k` with its unproven accesses guarded, when `checked` (else `k`). LoopyError for an array without a shape
/// but with strides, which no check can bound.
Kernel guard_unproven_accesses(const Kernel& k, bool checked);

/// The IndexError the violation record `record` (of `n` entries) of kernel `kernel` reports, if a slot is set;
/// `sites` are its checked_accesses.
void raise_violations(const std::string& kernel, const std::vector<std::string>& sites, const std::int64_t* record,
                      std::size_t n);

}  // namespace loom
