// The Graphviz text of the dependency graph: a node per instruction, prerequisite -> dependent edges, loop
// clusters from a linearization.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "analysis/dependency_graph.h"
#include "helpers.h"
#include "schedule/linearize.h"

using namespace loom;

namespace {

Kernel kernel(std::vector<std::string> instructions) {
    return test::kernel({"{ [i, j]: 0<=i,j<n }"}, std::move(instructions), "", "graph_knl");
}

}  // namespace

TEST_CASE("dependency graph nodes and edges", "[dependency_graph]") {
    const Kernel k = kernel({"<> t = 2*a[i] {id=double}", "out[i] = t + 1 {id=inc}", "... lbarrier {id=bar, dep=inc}"});
    CHECK(dot_dependency_graph(k) ==
          "digraph graph_knl {\n"
          "\"double\" [label=\"t <- 2*a[i]\",shape=\"box\",tooltip=\"double\"];\n"
          "\"inc\" [label=\"out[i] <- t + 1\",shape=\"box\",tooltip=\"inc\"];\n"
          "\"double\" -> \"inc\"\n"
          "\"bar\" [label=\"<instruction bar>\",shape=\"box\",tooltip=\"bar\"];\n"
          "\"inc\" -> \"bar\"\n"
          "}\n");
}

TEST_CASE("dependency graph labels by id", "[dependency_graph]") {
    const Kernel k = kernel({"out[i] = a[i] {id=copy}"});
    CHECK(dot_dependency_graph(k, true) ==
          "digraph graph_knl {\n"
          "\"copy\" [label=\"copy\",shape=\"box\",tooltip=\"out[i] <- a[i]\"];\n"
          "}\n");
}

TEST_CASE("dependency graph clusters loops of a linearized kernel", "[dependency_graph]") {
    const Kernel k = linearize(kernel({"out[i] = a[i] {id=row}", "s = sum(j, b[j]) {id=total}"}));
    const std::string dot = dot_dependency_graph(k);
    CHECK(dot.find("subgraph \"cluster_i\" { label=\"i\"\n\"row\"\n}\n") != std::string::npos);
    CHECK(dot.find("\"total\"\n") != std::string::npos);
}

TEST_CASE("dependency graph cuts long labels", "[dependency_graph]") {
    std::string sum = "a[i]";
    for (int n = 0; n < 60; ++n) sum += " + a[i]";
    const std::string dot = dot_dependency_graph(kernel({"out[i] = " + sum + " {id=long}"}));
    const std::string label = "[label=\"out[i] <- " + sum.substr(0, 200 - 10) + "...\"";
    CHECK(dot.find(label) != std::string::npos);
}
