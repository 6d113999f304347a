#include "analysis/dependency_graph.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/error.h"
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

// Where `program` is found on PATH, or "" when it is not.
std::string find_program(const std::string& program) {
    const char* path = std::getenv("PATH");
    for (const std::string& dir : split_trimmed(path ? path : "", ':')) {
        const std::string candidate = dir + "/" + program;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

std::string shell_quoted(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
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

void write_svg(const std::string& dot_text, const std::string& path) {
    const std::string dot = find_program("dot");
    user_assert(!dot.empty(), "LoopyError",
                "show_dependency_graph needs the Graphviz program 'dot', which is not on PATH (install graphviz)");
    std::string input = (std::filesystem::temp_directory_path() / "loom-graph-XXXXXX").string();
    const int fd = mkstemp(input.data());
    user_assert(fd >= 0, "LoopyError", "show_dependency_graph: cannot create a temporary file");
    close(fd);
    std::ofstream(input) << dot_text;
    // dot reads a value starting with '-' after -o as its next option: such a path is written relative.
    const std::string output_path = path.starts_with("-") ? "./" + path : path;
    const std::string command =
        shell_quoted(dot) + " -Tsvg -o " + shell_quoted(output_path) + " " + shell_quoted(input) + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    std::string output;
    if (pipe) {
        char buf[512];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
    }
    const int status = pipe ? pclose(pipe) : -1;
    std::filesystem::remove(input);
    user_assert(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "LoopyError",
                "show_dependency_graph: 'dot' failed writing '", path, "': ", trim(output));
}

}  // namespace loom
