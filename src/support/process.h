// Running another program (a C compiler, Graphviz's dot) and collecting what it prints.
#pragma once

#include <string>
#include <vector>

namespace loom {

struct ProcessResult {
    int spawn_error = 0;     // errno of a program that could not be started (nothing else is set then)
    bool succeeded = false;  // exited with status 0
    std::string output;      // stdout, with stderr interleaved when merged
    std::string errors;      // stderr when not merged
};

/// Runs `argv` (argv[0] looked up in PATH; an argument vector, never a shell line, so that nothing in it is
/// reinterpreted) with `input` on its standard input, in this process's environment with `environment`'s
/// "NAME=value" entries put over it. The current deadline (support/limits.h) stops it: the program is killed and
/// a LimitError raised naming `step`.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input, bool merge_errors,
                          const char* step, const std::vector<std::string>& environment = {});

}  // namespace loom
