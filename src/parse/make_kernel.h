// Kernel creation: loopy's make_kernel. Parses domains and instructions, names instructions, guesses the
// arguments that were not declared, finds `lp.auto` shapes from access footprints, the loops each
// instruction runs in, and the dependencies the single-writer heuristic implies.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

struct MakeKernelInput {
    std::vector<std::string> domains;
    std::vector<std::string> instructions;
    std::vector<Variable> args;       // declared arguments and temporaries, in order
    bool guess_remaining_args = true; // "..." in the argument list, or no list at all
    std::string name = "loopy_kernel";
    std::string assumptions;
    std::string target = "opencl";
    std::vector<std::string> silenced_warnings;
    DType index_dtype = DType::Int32;
    bool seq_dependencies = false;
    char default_order = 'C';         // of the arrays and temporaries that are not declared
    bool check_dep_resolution = true;  // a `dep`/`nosync` naming no instruction is an error
    bool default_offset_auto = false;  // default_offset=lp.auto: guessed arrays get an offset argument
    std::map<std::string, long> known_parameters;  // values assumed while finding shapes (fixed_parameters)
    bool is_entrypoint = true;  // false: make_function
};

Kernel make_kernel(const MakeKernelInput& in);

/// Recomputes `lp.auto` shapes and C/F strides of arrays from the current instructions and domains (used
/// by make_kernel and by transformations that change accesses).
void finish_array_layouts(KernelData& k);

/// Fills the strides of `v`, unless known, from its shape and dim tags (or order): see compute_layout.
void set_default_strides(Variable& v);

}  // namespace loom
