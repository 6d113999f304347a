// The compiler flags a script may pass when its state restricts them (a sandboxed state: SPEC "Embedding"): the
// C executor's `cflags` and a kernel's `build_options` go onto a compiler's command line, where a flag such as
// -wrapper, -B, -fplugin, @file or -o runs or loads any program, reads any file or writes one anywhere.
#pragma once

#include <string>
#include <vector>

namespace loom::backend {

/// Whether a restricted state may pass `flag`: only the allow-list of flags known to keep the calling
/// convention and the host's process intact (optimization and debug levels, warnings, -std=, the -f switches of
/// floating-point math, vectorization, unrolling and inlining, -march=native, -mtune=, -mprefer-vector-width=,
/// OpenCL's -cl-*); none that names a file, a directory or a program, loads a plugin, defines a macro (one could
/// redefine what the generated code calls), sanitizes or instruments the code, reserves registers or changes
/// the ABI (-mabi=, -ffixed-*, -fcall-used-*: wrong results or a crash in the host).
bool is_allowed_flag(const std::string& flag);

/// ArgumentError naming `function`, its option `option` and the first flag of `flags` not on the allow-list.
void check_allowed_flags(const std::vector<std::string>& flags, const std::string& function, const std::string& option);

/// Whether a restricted state may use the C compiler `cc`: a compiler name looked up in PATH (cc, gcc, clang,
/// with a version suffix), not a path to any program.
bool is_allowed_compiler(const std::string& cc);

}  // namespace loom::backend
