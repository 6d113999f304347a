// A linearization viewed as a tree (a loop owns the items between its EnterLoop and LeaveLoop), for passes
// that treat loops as units.
#pragma once

#include <vector>

#include "ir/kernel.h"

namespace loom {

struct LinearNode {
    LinearItem item;
    std::vector<LinearNode> body;  // EnterLoop: the loop's items
};

std::vector<LinearNode> to_tree(const std::vector<LinearItem>& items);
std::vector<LinearItem> to_items(const std::vector<LinearNode>& nodes);

/// Whether the node is a barrier (inserted, or a `... lbarrier`/`... gbarrier` instruction).
bool is_barrier(const KernelData& k, const LinearNode& n);

}  // namespace loom
