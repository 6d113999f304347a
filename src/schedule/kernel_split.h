// Splitting at global barriers: a `... gbarrier` ends one device kernel and starts the next (CALL KERNEL /
// RETURN FROM KERNEL items, loopy's names: NAME, NAME_0, ...). A sequential loop around a global barrier
// runs on the host: the host program (codegen/host_program.h) runs its iterations one after the other and
// launches the device kernels of its body in each, the loop's iname passed to them as a value.
// Private and local temporaries do not survive between device kernels (see save_reload.h).
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

Kernel split_device_kernels(const Kernel& k);

/// The device kernels of a split linearization: their names, the items of each (without the CALL/RETURN
/// markers) and the host loops around it, outermost first.
struct DeviceSegment {
    std::string name;
    std::vector<LinearItem> items;
    std::vector<std::string> host_loops;
};
std::vector<DeviceSegment> device_segments(const KernelData& k);

/// A private or local temporary read in a device kernel that does not write it is a
/// MissingDefinitionError pointing to save_and_reload_temporaries. Checked when code is generated, so
/// that the split kernel can still be linearized and inspected, as in loopy.
void check_definitions(const KernelData& k);

/// Whether `insn` is a `... gbarrier`.
bool is_global_barrier(const Instruction& insn);

}  // namespace loom
