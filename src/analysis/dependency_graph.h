// The instruction dependency graph as Graphviz text, and its rendering (loopy's get_dot_dependency_graph
// and show_dependency_graph).
#pragma once

#include <string>

#include "ir/kernel.h"

namespace loom {

/// `digraph NAME { ... }`: a box per instruction labelled with its text (`lhs <- rhs`; with `use_insn_id`
/// its id, the text going to the tooltip), an edge from each prerequisite to its dependent, and, when `k` is
/// linearized, a cluster per loop around the instructions it runs.
std::string dot_dependency_graph(const Kernel& k, bool use_insn_id = false);

/// Graphviz text rendered as SVG text by the `dot` program (which writes no file). LoopyError when `dot` is not
/// installed or rejects the graph.
std::string render_svg(const std::string& dot_text);

}  // namespace loom
