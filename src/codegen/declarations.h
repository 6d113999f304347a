// Declarations of temporaries in C-family code: arrays in the kernel body with constant sizes, and read-only
// tables with their values, at program scope where the target keeps constants there.
#pragma once

#include <functional>
#include <string>

#include "codegen/target.h"
#include "ir/kernel.h"

namespace loom {

/// Whether temporary `t` is declared at program scope instead of in the kernel body: a read-only table in
/// global memory (OpenCL `__constant`), and every read-only table on a target that runs on the host (C's
/// `static`, so the threads of the group loop share it instead of each copying it).
bool at_program_scope(const Variable& t, const Target& target);

/// The type of one entry of array `v` as declared: the target's vector type (OpenCL's `float4`) for an array
/// with a `vec` axis where it has vector types, the scalar type otherwise.
std::string element_type(const Variable& v, const Target& target);

/// Whether `v` is a temporary of one vector (its only axis is `vec`), which OpenCL declares as a plain
/// vector variable (`float4 acc`), as loopy does.
bool is_single_vector(const Variable& v);

/// Prints an expression in the kernel's value arguments as code.
using SizePrinter = std::function<std::string(const ExprPtr&)>;

/// `t`'s declaration without address-space qualifier and `;`: `float t[16]`, `int a[50 * 10 * 99]`,
/// `float const tab[4] = { 1.0f, 2.0f, 3.0f, 4.0f }`, with `__attribute__ ((aligned (N)))` when aligned.
/// With `print_size` (in a kernel body), a private array of the default layout whose shape depends on the
/// parameters is a variable-length array (`float t[n * m]`, loopy's variable-size temporary); any other array
/// whose size is not a constant is a StaticValueFindingError.
std::string temporary_declaration(const Variable& t, const Target& target, const SizePrinter& print_size = nullptr);

/// The program-scope declarations of the tables `k` reads (see at_program_scope), one per line, then a blank
/// line; "" if none.
std::string program_scope_declarations(const KernelData& k, const Target& target);

}  // namespace loom
