// The OpenCL runtime: picks a device, builds OpenCL C once per (source, device, options) with memory and
// on-disk binary caches, and launches the kernels on host buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/runtime.h"

namespace loom::backend {

/// Which device to use: the first platform and device whose names contain these (case-insensitive)
/// substrings (empty matches anything), or the index-th of them (1-based) when index > 0, as several identical
/// GPUs need. The environment variable LOOM_CL_DEVICE ("platform:device" or "device") overrides the patterns.
struct OpenCLOptions {
    std::string platform;
    std::string device;
    int index = 0;
};

/// An executor of target "opencl". Raises RuntimeError, listing the devices there are, when none matches.
std::shared_ptr<Executor> make_opencl_executor(const OpenCLOptions& options);

/// Every OpenCL device of every platform, as "platform name: device name"; empty when there is none.
std::vector<std::string> list_opencl_devices();

}  // namespace loom::backend
