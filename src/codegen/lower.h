// The lowering driver: from a kernel with known types to device code, one stage after the other.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/host_program.h"
#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

/// A parameter of a generated device kernel, in signature order.
struct KernelParam {
    std::string name;
    std::string variable;  // the argument or temporary passed: `a` for the separate arrays `a_s0`, `a_s1`, ...
    DType dtype = DType::Unknown;
    bool is_pointer = false;
    bool is_written = false;
};

struct DeviceKernel {
    std::string name;
    std::vector<KernelParam> params;
    /// Number of work-groups and work-items per group along each axis, as expressions in the parameters
    /// (isl strings for the API, expressions for evaluation at launch).
    std::vector<ExprPtr> groups, local;
    std::vector<std::string> groups_isl, local_isl;
};

struct GeneratedCode {
    std::string device_code;
    std::string header;  // the declarations of the device kernels
    std::vector<DeviceKernel> kernels;
    HostProgram host;       // how the device kernels are launched
    std::string host_code;  // `host` as text: a C function on the C target, the launch sequence otherwise
    double isl_ast_seconds = 0;  // CPU time isl's AST generator took for all device kernels' loops
    double legality_seconds = 0;  // CPU time of the dependence check (generate_code only: emit_code has none)
};

/// Generates code for a kernel that preprocess_kernel returned.
GeneratedCode emit_code(const Kernel& preprocessed, TargetKind target);

/// Generates code for `target`; every type must be known (TypeInferenceError otherwise).
GeneratedCode generate_code(const Kernel& k, TargetKind target, const std::map<std::string, DType>& dtypes = {});

}  // namespace loom
