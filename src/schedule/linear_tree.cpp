#include "schedule/linear_tree.h"

#include "support/error.h"

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

std::vector<LinearPlace> linear_places(const std::vector<LinearItem>& items) {
    std::vector<LinearPlace> out;
    std::vector<long> counter{0}, prefix;  // the next position in each open block; the loops' positions
    std::vector<std::string> loops;
    for (const LinearItem& item : items) {
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop:
                prefix.push_back(counter.back()++);
                loops.push_back(item.name);
                counter.push_back(0);
                break;
            case LinearItem::Kind::LeaveLoop:
                internal_assert(!loops.empty() && loops.back() == item.name, "linearization leaves loop '", item.name,
                                "', which is not the innermost open loop");
                counter.pop_back();
                prefix.pop_back();
                loops.pop_back();
                break;
            case LinearItem::Kind::RunInstruction:
            case LinearItem::Kind::Barrier: {
                std::vector<long> positions = prefix;
                positions.push_back(counter.back()++);
                out.push_back({&item, loops, std::move(positions)});
                break;
            }
            default: break;
        }
    }
    internal_assert(loops.empty(), "linearization leaves loop '", loops.empty() ? "" : loops.back(), "' open");
    return out;
}

bool is_barrier(const KernelData& k, const LinearNode& n) {
    if (n.item.kind == LinearItem::Kind::Barrier) return true;
    if (n.item.kind != LinearItem::Kind::RunInstruction) return false;
    const Instruction* insn = find_instruction(k, n.item.name);
    return insn && insn->kind == InsnKind::Barrier;
}

}  // namespace loom
