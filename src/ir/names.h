// Fresh names for what transformations add to a kernel, as loopy's UniqueNameGenerator makes them.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

/// Names not yet taken by variables, inames, parameters, substitution rules or instruction ids: `base`,
/// then `base_0`, `base_1`...; each name handed out is taken from then on.
class NameGenerator {
public:
    explicit NameGenerator(const KernelData& k);
    std::string operator()(const std::string& base);

    bool is_taken(const std::string& name) const { return taken_.count(name) != 0; }
    void take(const std::string& name) { taken_.insert(name); }

private:
    std::set<std::string> taken_;
};

}  // namespace loom
