// The OpenCL executor of a build without OpenCL (LOOM_WITH_OPENCL=OFF): there are no devices, and asking for a
// queue says why, so that a host without an OpenCL ICD still links Loom and runs kernels on the C target.
#include "backends/opencl/opencl_executor.h"
#include "support/error.h"

namespace loom::backend {

std::shared_ptr<Executor> make_opencl_executor(const OpenCLOptions&) {
    user_error(error_kind::RuntimeError, "this Loom was built without OpenCL (LOOM_WITH_OPENCL=OFF): run kernels on "
               "lp.c.executor{} or make them with the option target = \"c\"");
}

std::vector<std::string> list_opencl_devices() { return {}; }

}  // namespace loom::backend
