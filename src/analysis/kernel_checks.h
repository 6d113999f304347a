// loopy's pre-linearization checks of a kernel (loopy/check.py) that Loom would otherwise turn into wrong or
// uncompilable code: each raises a LoopyError naming the instruction or domain and the inames at fault.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Every parameter is an argument; every instruction uses each hardware axis through at most one iname; every iname an instruction's
/// expressions reference is one of its inames; no domain with a hardware-parallel iname has a bound read from a
/// temporary (its size would not be known at launch).
void check_kernel_structure(const KernelData& k);

/// No instruction reads a private temporary that another writes on a hardware axis the reader does not run on:
/// each work-group or work-item would read only its own part of the value (a realized reduction whose iname
/// was tagged parallel afterwards). Checked when code is generated, after save_and_reload_temporaries' own
/// check of the same kind.
void check_private_values_stay_on_their_axes(const KernelData& k);

/// Private and local temporaries of a device without variable-length arrays (OpenCL, CUDA) have constant sizes:
/// one sized by the parameters (a prefetch of `a[:,:]` over `n`, as loopy allows on the C target) is a LoopyError
/// naming it, raised before the device compiler would refuse the code.
void check_constant_temporary_sizes(const KernelData& k);

/// The bytes of private temporaries one work-item of `k` holds, their extents evaluated at `values` (the call's
/// parameters); nullopt where an extent cannot be evaluated.
std::optional<std::int64_t> private_bytes(const KernelData& k, const std::map<std::string, std::int64_t>& values);

/// loopy's check_for_unused_inames: an iname of the domains that no instruction runs in or reduces over is an
/// UnusedInameWarning naming it (silenced by "unused_inames"), since its loop never runs (a time loop that a
/// port forgot to put around its instructions computes one step, without a word otherwise).
void check_for_unused_inames(const KernelData& k);

}  // namespace loom
