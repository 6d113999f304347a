// Names a device kernel cannot have on OpenCL.
#pragma once

#include <string>

namespace loom {

/// LoopyError when kernel `name` is the name of an OpenCL C built-in function (the OpenCL compiler gives the
/// kernel no such name: clCreateKernel fails with CL_INVALID_KERNEL_NAME) or a name OpenCL C reserves (a
/// keyword, type or macro: the code does not build); the message names it and asks for another name. The
/// kernel name is the one the OpenCL program exports, so it is not renamed as on the C target.
void check_opencl_kernel_name(const std::string& name);

/// Whether OpenCL C reserves `name` besides its built-in functions: a C or OpenCL keyword, qualifier, scalar,
/// vector or opaque type, or one of its macros.
bool is_opencl_reserved(const std::string& name);

}  // namespace loom
