// Fresh names for what transformations add to a kernel, as loopy's UniqueNameGenerator makes them.
#pragma once

#include <set>
#include <string>

#include "ir/kernel.h"
#include "support/error.h"

namespace loom {

/// Names not yet taken by variables, inames, parameters, substitution rules or instruction ids: `base`,
/// then `base_0`, `base_1`...; each name handed out is taken from then on.
class NameGenerator {
public:
    explicit NameGenerator(const KernelData& k) {
        for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
            for (const Variable& v : *vars) taken_.insert(v.name);
        for (const std::string& n : all_inames(k)) taken_.insert(n);
        for (const std::string& n : all_params(k)) taken_.insert(n);
        for (const SubstitutionRule& r : k.substitutions) taken_.insert(r.name);
        for (const Instruction& insn : k.instructions) taken_.insert(insn.id);
    }

    std::string operator()(const std::string& base) {
        std::string name = base;
        for (int n = 0; taken_.count(name); ++n) name = cat(base, "_", n);
        taken_.insert(name);
        return name;
    }

    bool is_taken(const std::string& name) const { return taken_.count(name) != 0; }
    void take(const std::string& name) { taken_.insert(name); }

private:
    std::set<std::string> taken_;
};

}  // namespace loom
