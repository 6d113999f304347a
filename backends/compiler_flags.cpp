#include "backends/compiler_flags.h"

#include <regex>

#include "support/error.h"

namespace loom::backend {

namespace {

// A feature name and an optional value, neither able to spell a path ('/' and '.' excluded from -f values).
const std::regex& allowed_pattern() {
    static const std::regex pattern(
        "-O[0-3sgz]?|-Ofast|-g[0-3]?|-w|-W[a-z][a-z0-9-]*(=[a-z0-9-]+)?|-std=[a-z0-9+]+|"
        "-f[a-z][a-z0-9-]*(=[a-z0-9-]+)?|-m[a-z][a-z0-9-]*(=[a-z0-9_.-]+)?|-cl-[a-z][a-z0-9-]*(=[A-Za-z0-9.]+)?");
    return pattern;
}

// -f flags that load code or write files named by the compiler outside the build.
bool is_denied_feature(const std::string& flag) {
    for (const char* prefix : {"-fplugin", "-fdump", "-fprofile", "-fauto-profile"})
        if (flag.starts_with(prefix)) return true;
    return false;
}

}  // namespace

bool is_allowed_flag(const std::string& flag) {
    return std::regex_match(flag, allowed_pattern()) && !is_denied_feature(flag);
}

void check_allowed_flags(const std::vector<std::string>& flags, const std::string& function, const std::string& option) {
    for (const std::string& flag : flags)
        user_assert(is_allowed_flag(flag), error_kind::ArgumentError, "bad argument to '", function, "' (option '", option,
                    "': flag '", flag, "' is not allowed in a restricted state; allowed are -O*, -g*, -w, -W<warning>, "
                    "-std=, -f<feature>, -m<option> and -cl-<option>)");
}

bool is_allowed_compiler(const std::string& cc) {
    static const std::regex pattern("(cc|gcc|clang)(-[0-9]+(\\.[0-9]+)*)?");
    return std::regex_match(cc, pattern);
}

}  // namespace loom::backend
