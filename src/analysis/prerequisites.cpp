#include "analysis/prerequisites.h"

namespace loom {

Prerequisites::Prerequisites(const KernelData& k) {
    for (const Instruction& insn : k.instructions) collect(k, insn);
}

const std::set<std::string>& Prerequisites::collect(const KernelData& k, const Instruction& insn) {
    if (const auto it = all_.find(insn.id); it != all_.end()) return it->second;
    std::set<std::string>& out = all_[insn.id];  // empty while it is collected: a cycle stops here
    std::set<std::string> found;
    for (const std::string& d : insn.depends_on) {
        const Instruction* dep = find_instruction(k, d);
        if (!dep || !found.insert(d).second) continue;
        const std::set<std::string>& further = collect(k, *dep);
        found.insert(further.begin(), further.end());
    }
    found.erase(insn.id);
    out = std::move(found);
    return out;
}

}  // namespace loom
