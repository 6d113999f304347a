// Names a C function or variable cannot have in the C and CUDA targets' code.
#pragma once

#include <string>

namespace loom {

/// The symbol of device kernel `name` on the C and CUDA targets: the name itself, or, where the name is a C
/// keyword or an identifier the code's headers (math.h, complex.h, stdbool.h, stdint.h) or the compiler declare
/// (e.g. "sin", "expf", "bool", "int32_t", "NAN", "linux"), the name with "_knl" appended so that the code
/// compiles and its calls of the C library still reach the library.
std::string c_kernel_symbol(const std::string& name);

/// C99 keywords and GNU C's own (`asm`, `typeof`).
bool is_c_keyword(const std::string& name);

/// Whether a variable or iname called `name` would break the C code: a C keyword, a type or object-like macro of
/// the headers the code includes or one GNU C predefines ("bool", "int32_t", "NAN", "linux"), a name of the C
/// implementation ("__x", "_X"), or a prefix of the code's own helpers and scratch variables ("loopy_", "lpy_").
/// Library function names are not reserved: a local variable may shadow them.
bool is_c_reserved(const std::string& name);

}  // namespace loom
