#include "codegen/loop_annotations.h"

#include <algorithm>
#include <optional>

#include "ir/iname_tags.h"

namespace loom {

std::string unroll_pragma(const KernelData& k, const std::string& iname, const Target& target) {
    const std::optional<int> hint = iname_tag(k, iname).unroll_hint();
    return hint ? target.unroll_pragma(*hint) : "";
}

std::string slab_comment(const LoopNest& nest, const AstNode& n, const std::vector<std::string>& open_loops) {
    const AstNode* s = first_statement(n);
    if (!s) return "";
    const Statement& st = nest.statements.at(s->statement);
    for (const std::string& l : st.loops) {
        if (std::count(open_loops.begin(), open_loops.end(), l)) continue;
        const auto it = st.slab_comments.find(l);
        return it == st.slab_comments.end() ? "" : it->second;
    }
    return "";
}

}  // namespace loom
