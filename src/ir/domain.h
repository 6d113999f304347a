// The iteration space of a kernel as one isl set, and its restriction to the loops of an instruction.
#pragma once

#include <isl/cpp.h>

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// All domains of the kernel combined into one set over every iname, with the assumptions applied.
isl::set combined_domain(const KernelData& k);

/// The combined domain projected onto `inames` (in that order); other inames are quantified existentially.
isl::set domain_of(const KernelData& k, const std::vector<std::string>& inames);

/// The assumptions as a parameter set aligned with the kernel's parameters.
isl::set assumption_context(const KernelData& k);

}  // namespace loom
