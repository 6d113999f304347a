#include "codegen/opencl_names.h"

#include <set>

#include "support/c_names.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// The OpenCL C built-in functions (OpenCL C 1.2, sections 6.12.1-6.12.11): math, integer, common, geometric,
// relational, vector data, synchronization, work-item, async copy and atomic functions.
const std::set<std::string>& opencl_builtin_functions() {
    static const std::set<std::string> names = {
        // math
        "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi", "atan2pi", "cbrt",
        "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
        "floor", "fma", "fmax", "fmin", "fmod", "fract", "frexp", "hypot", "ilogb", "ldexp", "lgamma", "lgamma_r",
        "log", "log2", "log10", "log1p", "logb", "mad", "maxmag", "minmag", "modf", "nan", "nextafter", "pow", "pown",
        "powr", "remainder", "remquo", "rint", "rootn", "round", "rsqrt", "sin", "sincos", "sinh", "sinpi", "sqrt",
        "tan", "tanh", "tanpi", "tgamma", "trunc", "half_cos", "half_divide", "half_exp", "half_exp2", "half_exp10",
        "half_log", "half_log2", "half_log10", "half_powr", "half_recip", "half_rsqrt", "half_sin", "half_sqrt",
        "half_tan", "native_cos", "native_divide", "native_exp", "native_exp2", "native_exp10", "native_log",
        "native_log2", "native_log10", "native_powr", "native_recip", "native_rsqrt", "native_sin", "native_sqrt",
        "native_tan",
        // integer
        "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "mad_hi", "mad_sat", "max", "min", "mul_hi",
        "rotate", "sub_sat", "upsample", "popcount", "mad24", "mul24",
        // common
        "degrees", "mix", "radians", "step", "smoothstep", "sign",
        // geometric
        "cross", "dot", "distance", "length", "normalize", "fast_distance", "fast_length", "fast_normalize",
        // relational
        "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater", "isfinite",
        "isinf", "isnan", "isnormal", "isordered", "isunordered", "signbit", "any", "all", "bitselect", "select",
        // vector data load and store
        "vload2", "vload3", "vload4", "vload8", "vload16", "vstore2", "vstore3", "vstore4", "vstore8", "vstore16",
        "vload_half", "vstore_half", "shuffle", "shuffle2", "vec_step",
        // synchronization and memory fences
        "barrier", "mem_fence", "read_mem_fence", "write_mem_fence",
        // work-item
        "get_work_dim", "get_global_size", "get_global_id", "get_local_size", "get_local_id", "get_num_groups",
        "get_group_id", "get_global_offset",
        // async copies
        "async_work_group_copy", "async_work_group_strided_copy", "wait_group_events", "prefetch",
        // atomics
        "atomic_add", "atomic_sub", "atomic_xchg", "atomic_inc", "atomic_dec", "atomic_cmpxchg", "atomic_min",
        "atomic_max", "atomic_and", "atomic_or", "atomic_xor", "printf",
    };
    return names;
}

}  // namespace

bool is_opencl_reserved(const std::string& name) {
    static const std::set<std::string> names = {
        "kernel", "global", "local", "constant", "private", "__kernel", "__global", "__local", "__constant",
        "__private", "read_only", "write_only", "read_write", "__read_only", "__write_only", "__read_write", "uniform",
        "pipe", "bool", "uchar", "ushort", "uint", "ulong", "half", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t",
        "image1d_t", "image1d_array_t", "image1d_buffer_t", "image2d_t", "image2d_array_t", "image3d_t", "sampler_t",
        "event_t", "NAN", "INFINITY", "MAXFLOAT", "HUGE_VAL", "HUGE_VALF", "FLT_MAX", "FLT_MIN",
        "FLT_EPSILON", "DBL_MAX", "DBL_MIN", "DBL_EPSILON", "CHAR_BIT", "CHAR_MAX", "CHAR_MIN", "INT_MAX", "INT_MIN",
        "UINT_MAX", "LONG_MAX", "LONG_MIN", "ULONG_MAX", "SHRT_MAX", "SHRT_MIN", "USHRT_MAX", "SCHAR_MAX",
        "SCHAR_MIN", "UCHAR_MAX", "M_E", "M_LOG2E", "M_LOG10E", "M_LN2", "M_LN10", "M_PI", "M_PI_2", "M_PI_4",
        "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_SQRT2", "M_SQRT1_2", "M_E_F", "M_LOG2E_F", "M_LOG10E_F", "M_LN2_F",
        "M_LN10_F", "M_PI_F", "M_PI_2_F", "M_PI_4_F", "M_1_PI_F", "M_2_PI_F", "M_2_SQRTPI_F", "M_SQRT2_F",
        "M_SQRT1_2_F",
    };
    if (names.count(name) || is_c_keyword(name) || name.starts_with("CLK_")) return true;
    for (const char* scalar : {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
                               "half"})
        for (const char* width : {"2", "3", "4", "8", "16"})
            if (name == std::string(scalar) + width) return true;
    return false;
}

void check_opencl_kernel_name(const std::string& name) {
    const std::string rename = cat(": name the kernel differently (e.g. name=\"", name, "_knl\")");
    user_assert(!opencl_builtin_functions().count(name), error_kind::LoopyError, "kernel name '", name,
                "' is the name of an OpenCL C built-in function, which OpenCL cannot give a kernel", rename);
    // lid and gid are the preamble's function-like macros: they clash with a function, not with a variable.
    const bool preamble_macro = name == "lid" || name == "gid";
    user_assert(!is_opencl_reserved(name) && !preamble_macro, error_kind::LoopyError, "kernel name '", name,
                "' is reserved in OpenCL C (a keyword, type or macro)", rename);
}

}  // namespace loom
