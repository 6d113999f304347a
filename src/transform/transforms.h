// Every kernel transformation, as a pure function: the input kernel is never changed, the result is a new
// Kernel. Names match loopy's (and the Lua API's). User mistakes raise typed errors naming the transform.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

// --- options and data (transform/data.cpp)
/// Options given by name; values are already converted by the caller.
struct OptionUpdate {
    std::optional<bool> write_code, return_dict, allow_terminal_colors, check_dep_resolution;
    std::optional<std::vector<std::string>> build_options;
    std::optional<std::string> target;
};
Kernel set_options(const Kernel& k, const OptionUpdate& update);
/// Sets the dtypes of the named variables; an unknown name, or a different dtype already set, is an error.
Kernel add_dtypes(const Kernel& k, const std::map<std::string, DType>& dtypes);

// --- inames (transform/iname.cpp)
/// Declares that the inames of `order` nest in that order where the dependencies leave a choice.
Kernel prioritize_loops(const Kernel& k, const std::vector<std::string>& order);
/// Adds parameter constraints (isl syntax) to the assumptions.
Kernel assume(const Kernel& k, const std::string& constraints);

}  // namespace loom
