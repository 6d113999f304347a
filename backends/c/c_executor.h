// The C runtime: compiles generated C into a shared object once per (source, compiler, flags), keeps it in the
// on-disk cache, and calls its functions through prepared libffi call interfaces.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/runtime.h"

namespace loom::backend {

struct COptions {
    std::string cc = "cc";            // the compiler, looked up in PATH
    std::vector<std::string> cflags;  // added after Loom's own flags (-O3 -march=native -fopenmp ...)
    int threads = 0;                  // OpenMP threads for the group loops; 0 leaves OpenMP's default
};

/// An executor of target "c".
std::shared_ptr<Executor> make_c_executor(const COptions& options);

}  // namespace loom::backend
