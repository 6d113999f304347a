#include "schedule/linear_tree.h"

namespace loom {

namespace {

std::vector<LinearNode> build(const std::vector<LinearItem>& items, std::size_t& pos) {
    std::vector<LinearNode> out;
    while (pos < items.size()) {
        const LinearItem& it = items[pos++];
        if (it.kind == LinearItem::Kind::LeaveLoop) return out;
        LinearNode n{it, {}};
        if (it.kind == LinearItem::Kind::EnterLoop) n.body = build(items, pos);
        out.push_back(std::move(n));
    }
    return out;
}

void flatten(const std::vector<LinearNode>& nodes, std::vector<LinearItem>& out) {
    for (const LinearNode& n : nodes) {
        out.push_back(n.item);
        if (n.item.kind != LinearItem::Kind::EnterLoop) continue;
        flatten(n.body, out);
        out.push_back({LinearItem::Kind::LeaveLoop, n.item.name, "", ""});
    }
}

}  // namespace

std::vector<LinearNode> to_tree(const std::vector<LinearItem>& items) {
    std::size_t pos = 0;
    return build(items, pos);
}

std::vector<LinearItem> to_items(const std::vector<LinearNode>& nodes) {
    std::vector<LinearItem> out;
    flatten(nodes, out);
    return out;
}

bool is_barrier(const KernelData& k, const LinearNode& n) {
    if (n.item.kind == LinearItem::Kind::Barrier) return true;
    if (n.item.kind != LinearItem::Kind::RunInstruction) return false;
    const Instruction* insn = find_instruction(k, n.item.name);
    return insn && insn->kind == InsnKind::Barrier;
}

}  // namespace loom
