// A linearization viewed as a tree (a loop owns the items between its EnterLoop and LeaveLoop), for passes
// that treat loops as units.
#pragma once

#include <string>
#include <vector>

#include "ir/kernel.h"

namespace loom {

struct LinearNode {
    LinearItem item;
    std::vector<LinearNode> body;  // EnterLoop: the loop's items
};

std::vector<LinearNode> to_tree(const std::vector<LinearItem>& items);
std::vector<LinearItem> to_items(const std::vector<LinearNode>& nodes);

/// Where a RunInstruction or Barrier item runs: the loops around it and its position among the items of each
/// block it is in, both outermost first (one more position than loops). Interleaved with the loop counters,
/// (positions[0], loops[0], positions[1], ..., positions[d]) orders all instances of all items as the
/// linearization runs them, lexicographically: the 2d+1 schedule. CALL/RETURN markers take no position.
struct LinearPlace {
    const LinearItem* item;
    std::vector<std::string> loops;
    std::vector<long> positions;
};

/// The places of the RunInstruction and Barrier items of `items`, in order.
std::vector<LinearPlace> linear_places(const std::vector<LinearItem>& items);

/// Whether the node is a barrier (inserted, or a `... lbarrier`/`... gbarrier` instruction).
bool is_barrier(const KernelData& k, const LinearNode& n);

}  // namespace loom
