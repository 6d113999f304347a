#pragma once

#include <cstddef>

namespace loom {

/// Runs main-like `body(argc, argv)` on a thread with a 512 MiB stack, whatever `ulimit -s` says (only the pages
/// used are committed): the engine's walks over expressions recurse once per level of a tree (up to
/// kMaxExprDepth). On the caller's own stack where no such thread can be made.
int run_on_big_stack(int (*body)(int, char**), int argc, char** argv);

/// The bytes of stack left below the caller's frame on this thread (SIZE_MAX when the system does not say).
std::size_t stack_left();

}  // namespace loom
