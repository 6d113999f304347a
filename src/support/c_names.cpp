#include "support/c_names.h"

#include <cctype>
#include <set>

namespace loom {

bool is_c_keyword(const std::string& name) {
    static const std::set<std::string> keywords = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "asm",
        "typeof",
    };
    return keywords.count(name) > 0;
}

namespace {

// The functions and function-like macros of math.h (C99 and the POSIX/BSD/SVID extensions glibc declares by
// default) and complex.h. The math functions appear once: their float ("f") and long double ("l") variants are
// derived.
const std::set<std::string>& header_functions() {
    static const std::set<std::string> names = {
        "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh",
        "drem", "erf", "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "finite", "floor", "fma", "fmax", "fmin",
        "fmod", "frexp", "gamma", "hypot", "ilogb", "isinf", "isnan", "j0", "j1", "jn", "ldexp", "lgamma",
        "lgamma_r", "lgammaf_r", "lgammal_r", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint",
        "lround", "modf", "nan", "nearbyint", "nextafter", "nexttoward", "pow", "remainder", "remquo", "rint",
        "round", "scalb", "scalbln", "scalbn", "significand", "sin", "sinh", "sqrt", "tan", "tanh", "tgamma", "trunc",
        "y0", "y1", "yn",
        "fpclassify", "isfinite", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater",
        "isnormal", "isunordered", "signbit",
        "cabs", "cacos", "cacosh", "carg", "casin", "casinh", "catan", "catanh", "ccos", "ccosh", "cexp", "cimag",
        "clog", "conj", "cpow", "cproj", "creal", "csin", "csinh", "csqrt", "ctan", "ctanh", "CMPLX",
        // complex.h's imaginary unit: a kernel symbol only, the code spells it _Complex_I where a variable is I
        "I",
    };
    return names;
}

// The types and object-like macros of math.h, complex.h, stdbool.h and stdint.h, and the system macros GNU C
// predefines: a variable of such a name does not compile, or compiles into something else.
const std::set<std::string>& header_macros_and_types() {
    static const std::set<std::string> names = {
        // math.h
        "math_errhandling", "float_t", "double_t", "HUGE_VAL", "HUGE_VALF",
        "HUGE_VALL", "INFINITY", "NAN", "FP_ILOGB0", "FP_ILOGBNAN", "FP_INFINITE", "FP_NAN", "FP_NORMAL",
        "FP_SUBNORMAL", "FP_ZERO", "MATH_ERREXCEPT", "MATH_ERRNO", "M_1_PI", "M_2_PI", "M_2_SQRTPI", "M_E",
        "M_LN10", "M_LN2", "M_LOG10E", "M_LOG2E", "M_PI", "M_PI_2", "M_PI_4", "M_SQRT1_2", "M_SQRT2",
        // complex.h (the code spells the imaginary unit _Complex_I where a variable is named I)
        "complex", "imaginary",
        // stdbool.h
        "bool", "true", "false",
        // stdint.h types and macros
        "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "int_least8_t",
        "int_least16_t", "int_least32_t", "int_least64_t", "uint_least8_t", "uint_least16_t", "uint_least32_t",
        "uint_least64_t", "int_fast8_t", "int_fast16_t", "int_fast32_t", "int_fast64_t", "uint_fast8_t",
        "uint_fast16_t", "uint_fast32_t", "uint_fast64_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t",
        "INT8_C", "INT16_C", "INT32_C", "INT64_C", "UINT8_C", "UINT16_C", "UINT32_C", "UINT64_C", "INTMAX_C",
        "UINTMAX_C", "INT8_MAX", "INT16_MAX", "INT32_MAX", "INT64_MAX", "INT8_MIN", "INT16_MIN", "INT32_MIN",
        "INT64_MIN", "UINT8_MAX", "UINT16_MAX", "UINT32_MAX", "UINT64_MAX", "INT_LEAST8_MAX", "INT_LEAST16_MAX",
        "INT_LEAST32_MAX", "INT_LEAST64_MAX", "INT_LEAST8_MIN", "INT_LEAST16_MIN", "INT_LEAST32_MIN",
        "INT_LEAST64_MIN", "UINT_LEAST8_MAX", "UINT_LEAST16_MAX", "UINT_LEAST32_MAX", "UINT_LEAST64_MAX",
        "INT_FAST8_MAX", "INT_FAST16_MAX", "INT_FAST32_MAX", "INT_FAST64_MAX", "INT_FAST8_MIN", "INT_FAST16_MIN",
        "INT_FAST32_MIN", "INT_FAST64_MIN", "UINT_FAST8_MAX", "UINT_FAST16_MAX", "UINT_FAST32_MAX",
        "UINT_FAST64_MAX", "INTPTR_MAX", "INTPTR_MIN", "UINTPTR_MAX", "INTMAX_MAX", "INTMAX_MIN", "UINTMAX_MAX",
        "PTRDIFF_MAX", "PTRDIFF_MIN", "SIZE_MAX", "SIG_ATOMIC_MAX", "SIG_ATOMIC_MIN", "WCHAR_MAX", "WCHAR_MIN",
        "WINT_MAX", "WINT_MIN",
        // predefined by GNU C
        "linux", "unix",
    };
    return names;
}

bool is_header_function(const std::string& name) {
    if (header_functions().count(name)) return true;
    const bool variant = name.size() > 1 && (name.back() == 'f' || name.back() == 'l');
    return variant && header_functions().count(name.substr(0, name.size() - 1)) > 0;
}

}  // namespace

std::string c_kernel_symbol(const std::string& name) {
    return is_c_keyword(name) || header_macros_and_types().count(name) || is_header_function(name) ? name + "_knl"
                                                                                                  : name;
}

bool is_c_reserved(const std::string& name) {
    // The C implementation's names (`__`, `_` and a capital) and the prefixes of the code's helper functions and
    // scratch variables (loopy_floor_div_int32, lpy_..., loopy_old_val).
    for (const char* prefix : {"__", "loopy_", "lpy_"})
        if (name.starts_with(prefix)) return true;
    const bool implementation = name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]));
    return implementation || is_c_keyword(name) || header_macros_and_types().count(name) > 0;
}

}  // namespace loom
