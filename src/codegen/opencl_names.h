// Names a device kernel cannot have on OpenCL.
#pragma once

#include <string>

namespace loom {

/// LoopyError when kernel `name` is the name of an OpenCL C built-in function: the OpenCL compiler gives the
/// kernel no such name (clCreateKernel fails with CL_INVALID_KERNEL_NAME), so the message names it and asks
/// for another name.
void check_opencl_kernel_name(const std::string& name);

}  // namespace loom
