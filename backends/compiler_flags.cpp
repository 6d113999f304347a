#include "backends/compiler_flags.h"

#include <regex>

#include "support/error.h"

namespace loom::backend {

namespace {

// Each family by name: optimization and debug levels, warnings (no `-Wl,`/`-Wa,`: a comma passes options on),
// the language standard, the floating-point and vectorization switches, loop and inlining heuristics, the
// instruction set of this host only (`-march=native`: another machine's set is an illegal instruction in the
// host's process) and tuning for any, and OpenCL's -cl-* options. Everything that changes the calling
// convention, reserves registers, instruments or sanitizes the code (a sanitizer's runtime ends the process),
// names a file or program, or defines a macro stays out.
const std::regex& allowed_pattern() {
    static const std::regex pattern(
        "-O[0-3sgz]?|-Ofast|-g[0-3]?|-w|-W(no-)?[a-z][a-z0-9-]*(=[a-z0-9-]+)?|-Werror(=[a-z0-9-]+)?|"
        "-std=(c|gnu)(89|90|99|11|17|18|2x|23)|"
        "-f(no-)?(fast-math|unsafe-math-optimizations|math-errno|finite-math-only|trapping-math|associative-math|"
        "reciprocal-math|signed-zeros|rounding-math|wrapv|strict-aliasing|strict-overflow|omit-frame-pointer|"
        "unroll-loops|unroll-all-loops|peel-loops|vectorize|slp-vectorize|tree-vectorize|tree-loop-vectorize|"
        "tree-slp-vectorize|prefetch-loop-arrays|inline|inline-functions|inline-small-functions|builtin|"
        "openmp-simd|split-loops|unswitch-loops|ipa-cp-clone|gcse|loop-interchange|loop-unroll-and-jam|"
        "version-loops-for-strides|tree-loop-distribution|predictive-commoning|schedule-insns|schedule-insns2|"
        "diagnostics-color|stack-protector|stack-protector-strong|stack-protector-all)|"
        "-ffp-contract=(off|on|fast|fast-honor-pragmas)|-fexcess-precision=(fast|standard)|"
        "-fvect-cost-model=(unlimited|dynamic|cheap|very-cheap)|-fsimd-cost-model=(unlimited|dynamic|cheap|very-cheap)|"
        "-march=native|-mcpu=native|-mtune=[a-z0-9_-]+|-mprefer-vector-width=(128|256|512|none)|"
        "-cl-[a-z][a-z0-9-]*(=[A-Za-z0-9.]+)?");
    return pattern;
}

}  // namespace

bool is_allowed_flag(const std::string& flag) { return std::regex_match(flag, allowed_pattern()); }

void check_allowed_flags(const std::vector<std::string>& flags, const std::string& function, const std::string& option) {
    for (const std::string& flag : flags)
        user_assert(is_allowed_flag(flag), error_kind::ArgumentError, "bad argument to '", function, "' (option '", option,
                    "': flag '", flag, "' is not allowed in a restricted state; allowed are -O*, -g*, -w, -W<warning>, "
                    "-std=c*, the -f switches of floating-point math, vectorization, unrolling and inlining, "
                    "-march=native, -mtune=, -mprefer-vector-width= and -cl-<option>: docs/tutorial.md, 'Limits on input')");
}

bool is_allowed_compiler(const std::string& cc) {
    static const std::regex pattern("(cc|gcc|clang)(-[0-9]+(\\.[0-9]+)*)?");
    return std::regex_match(cc, pattern);
}

}  // namespace loom::backend
