// Splitting at global barriers: a `... gbarrier` at the top level of the linearization ends one device
// kernel and starts the next (CALL KERNEL / RETURN FROM KERNEL items, loopy's names: NAME, NAME_0, ...).
// Private and local temporaries do not survive between device kernels (see save_reload.h).
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

Kernel split_device_kernels(const Kernel& k);

/// The device kernels of a split linearization: their names and the items of each (without the
/// CALL/RETURN markers).
struct DeviceSegment {
    std::string name;
    std::vector<LinearItem> items;
};
std::vector<DeviceSegment> device_segments(const KernelData& k);

/// A private or local temporary read in a device kernel that does not write it is a
/// MissingDefinitionError pointing to save_and_reload_temporaries. Checked when code is generated, so
/// that the split kernel can still be linearized and inspected, as in loopy.
void check_definitions(const KernelData& k);

/// Whether `insn` is a `... gbarrier`.
bool is_global_barrier(const Instruction& insn);

}  // namespace loom
