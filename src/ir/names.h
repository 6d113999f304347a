// Fresh names for what transformations add to a kernel.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Names not yet taken by variables, inames, parameters or instructions of a kernel: `base`, then `base_0`,
/// `base_1`... as loopy's UniqueNameGenerator. Every name handed out counts as taken.
class NameGenerator {
public:
    explicit NameGenerator(const KernelData& k);
    std::string operator()(const std::string& base);

private:
    std::set<std::string> taken_;
};

}  // namespace loom
