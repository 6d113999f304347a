// What the fuzz targets share: splitting an input into its parts, and the verdict on what a call raised.
// A typed user error (ParseError, LoopyError, ...) is a correct answer to hostile input; an InternalError or
// any other exception is a bug, reported by aborting so that libFuzzer keeps the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "support/error.h"

namespace loom::fuzz {

/// The input as text, cut at the first `max_parts - 1` `sep` bytes (every one by default).
inline std::vector<std::string> split(std::string_view text, char sep, std::size_t max_parts = SIZE_MAX) {
    std::vector<std::string> parts(1);
    for (const char c : text) {
        if (c == sep && parts.size() < max_parts)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

[[noreturn]] inline void bug(const std::string& what) {
    std::fprintf(stderr, "fuzz: not a typed user error: %s\n", what.c_str());
    std::abort();
}

inline std::string_view text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

/// Runs `f`; a Loom user error (or running out of memory) ends the input, anything else aborts.
template <class F>
void run_guarded(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        if (e.kind() == "InternalError") bug(e.what());
    } catch (const std::bad_alloc&) {
    } catch (const std::exception& e) {
        bug(e.what());
    } catch (...) {
        bug("an exception that is not a std::exception");
    }
}

}  // namespace loom::fuzz
