// Typed errors of the engine. User mistakes raise loom::Error with a kind from SPEC ("ParseError",
// "LoopyError", ...); our own bugs raise it with kind "InternalError". The Lua boundary turns them into
// error objects with the same fields; the engine itself never prints and exits.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace loom {

/// The kinds of errors a script sees as err.kind (SPEC's), and the warning categories (loopy's names) that
/// warnings turned into errors carry, each spelled once.
namespace error_kind {
inline constexpr char ArgumentError[] = "ArgumentError";
inline constexpr char BuildError[] = "BuildError";
inline constexpr char DependenceViolationError[] = "DependenceViolationError";
inline constexpr char IndexError[] = "IndexError";
inline constexpr char InternalError[] = "InternalError";
inline constexpr char KeyError[] = "KeyError";
inline constexpr char LimitError[] = "LimitError";
inline constexpr char LoopyError[] = "LoopyError";
inline constexpr char MemoryError[] = "MemoryError";
inline constexpr char MissingBarrierError[] = "MissingBarrierError";
inline constexpr char MissingDefinitionError[] = "MissingDefinitionError";
inline constexpr char OKLError[] = "OKLError";
inline constexpr char ParseError[] = "ParseError";
inline constexpr char RuntimeError[] = "RuntimeError";
inline constexpr char SandboxError[] = "SandboxError";
inline constexpr char StaticValueFindingError[] = "StaticValueFindingError";
inline constexpr char TypeInferenceError[] = "TypeInferenceError";
inline constexpr char CacheWarning[] = "CacheWarning";
inline constexpr char UnusedInameWarning[] = "UnusedInameWarning";
inline constexpr char VariableAccessNotOrdered[] = "VariableAccessNotOrdered";
inline constexpr char WriteRaceConditionWarning[] = "WriteRaceConditionWarning";
}  // namespace error_kind

class Error : public std::runtime_error {
public:
    Error(std::string kind, std::string message, int line = 0, int column = 0)
        : std::runtime_error(kind + ": " + message),
          kind_(std::move(kind)),
          message_(std::move(message)),
          line_(line),
          column_(column) {}

    const std::string& kind() const { return kind_; }
    const std::string& message() const { return message_; }
    /// 1-based position in the text the error is about (instruction or domain); 0 when unknown.
    int line() const { return line_; }
    int column() const { return column_; }

private:
    std::string kind_;
    std::string message_;
    int line_;
    int column_;
};

namespace detail {
inline void append(std::ostringstream&) {}
template <class T, class... Rest>
void append(std::ostringstream& os, const T& first, const Rest&... rest) {
    os << first;
    append(os, rest...);
}
}  // namespace detail

/// Concatenates the streamable pieces into one message.
template <class... Parts>
std::string cat(const Parts&... parts) {
    std::ostringstream os;
    detail::append(os, parts...);
    return os.str();
}

/// Raises a user-facing error of the given kind.
template <class... Parts>
[[noreturn]] void user_error(const std::string& kind, const Parts&... parts) {
    throw Error(kind, cat(parts...));
}

/// Our own invariant failed: a bug in Loom, reported instead of crashing the host.
template <class... Parts>
[[noreturn]] void internal_error(const Parts&... parts) {
    throw Error(error_kind::InternalError, cat("internal error: ", parts...));
}

}  // namespace loom

// The checks are macros so that the message parts (often isl sets formatted as text) are evaluated only when
// the check fails: a passing check costs its condition alone.

/// `user_assert(cond, kind, parts...)`: raises user_error(kind, parts...) unless `cond` holds.
#define user_assert(cond, kind, ...)                        \
    do {                                                    \
        if (!(cond)) ::loom::user_error(kind, __VA_ARGS__); \
    } while (0)

/// `internal_assert(cond, parts...)`: raises an InternalError with the message unless `cond` holds.
#define internal_assert(cond, ...)                        \
    do {                                                  \
        if (!(cond)) ::loom::internal_error(__VA_ARGS__); \
    } while (0)
