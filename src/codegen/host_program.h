// The host program of a split kernel: what runs on the host to launch its device kernels. Each device kernel
// is launched once, in order, except those inside host loops (sequential loops around global barriers, see
// schedule/kernel_split.h): the host runs such a loop one iteration after the other and launches the device
// kernels of its body in each, passing them the loop's iname as a value argument.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "expr/expr.h"
#include "ir/kernel.h"

namespace loom {

struct HostStep {
    enum class Kind { Loop, Launch } kind = Kind::Launch;
    std::size_t kernel = 0;       // Launch: the device kernel, in the order of device_segments
    std::string iname;            // Loop: its iname, from `lower` to `upper` (inclusive)
    ExprPtr lower, upper;         // Loop: in the kernel's parameters and the inames of the host loops around it
    std::vector<HostStep> body;   // Loop
};
using HostProgram = std::vector<HostStep>;

/// The host program of a kernel whose linearization is split into device kernels.
HostProgram host_program(const KernelData& k);

/// The values of the inames of the host loops with their values in the iteration at hand.
using HostValues = std::map<std::string, std::int64_t>;

/// Runs `program`: calls `launch(kernel, values)` for each launch, `values` holding the kernel's integer
/// arguments (`values` given) and the inames of the host loops around the launch. ArgumentError when a loop
/// bound cannot be evaluated.
void run_host_program(const HostProgram& program, HostValues values,
                      const std::function<void(std::size_t, const HostValues&)>& launch);

}  // namespace loom
