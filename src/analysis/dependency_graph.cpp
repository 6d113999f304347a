#include "analysis/dependency_graph.h"

#include <cerrno>
#include <cstring>
#include <sstream>

#include "support/error.h"
#include "support/process.h"
#include "support/strings.h"

namespace loom {

namespace {

// A Graphviz quoted string.
std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out + "\"";
}

// What an instruction does, as loopy labels it: `lhs <- rhs`, cut at 200 characters.
std::string operation(const Instruction& insn) {
    if (insn.kind != InsnKind::Assignment) return "<instruction " + insn.id + ">";
    std::vector<std::string> lhs;
    for (const ExprPtr& a : insn.assignees) lhs.push_back(to_string(a));
    std::string op = join(lhs, ", ") + " <- " + to_string(insn.expression);
    return op.size() > 200 ? op.substr(0, 200) + "..." : op;
}

void loop_clusters(std::ostringstream& os, const KernelData& k) {
    for (const LinearItem& item : k.linearization) {
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop:
                os << "subgraph " << quoted("cluster_" + item.name) << " { label=" << quoted(item.name) << "\n";
                break;
            case LinearItem::Kind::LeaveLoop: os << "}\n"; break;
            case LinearItem::Kind::RunInstruction: os << quoted(item.name) << "\n"; break;
            default: break;
        }
    }
}

}  // namespace

std::string dot_dependency_graph(const Kernel& kernel, bool use_insn_id) {
    const KernelData& k = *kernel;
    std::ostringstream os;
    os << "digraph " << k.name << " {\n";
    for (const Instruction& insn : k.instructions) {
        const std::string op = operation(insn);
        os << quoted(insn.id) << " [label=" << quoted(use_insn_id ? insn.id : op)
           << ",shape=\"box\",tooltip=" << quoted(use_insn_id ? op : insn.id) << "];\n";
        for (const std::string& dep : insn.depends_on) os << quoted(dep) << " -> " << quoted(insn.id) << "\n";
    }
    if (k.linearized) loop_clusters(os, k);
    os << "}\n";
    return os.str();
}

std::string render_svg(const std::string& dot_text) {
    const ProcessResult result = run_process({"dot", "-Tsvg"}, dot_text, false, "rendering the dependency graph");
    user_assert(result.spawn_error != ENOENT, error_kind::LoopyError,
                "show_dependency_graph needs the Graphviz program 'dot', which is not on PATH (install graphviz)");
    user_assert(result.spawn_error == 0, error_kind::LoopyError, "show_dependency_graph: cannot run 'dot': ",
                std::strerror(result.spawn_error));
    user_assert(result.succeeded, error_kind::LoopyError, "show_dependency_graph: 'dot' failed: ", trim(result.errors));
    return result.output;
}

}  // namespace loom
