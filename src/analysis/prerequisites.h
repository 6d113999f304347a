// Which instructions each one depends on, directly or through others (`dep=` chains): an instruction ordered
// after another only through a third (`s`, then `m` after `s`, then `t` after `m`) still needs its accesses
// ordered against the other's across work-items, as a direct dependency does.
#pragma once

#include <map>
#include <set>
#include <string>

#include "ir/kernel.h"

namespace loom {

class Prerequisites {
public:
    explicit Prerequisites(const KernelData& k);

    bool depends(const Instruction& later, const Instruction& earlier) const {
        return all_.at(later.id).count(earlier.id) != 0;
    }

    const std::set<std::string>& of(const Instruction& insn) const { return all_.at(insn.id); }

private:
    const std::set<std::string>& collect(const KernelData& k, const Instruction& insn);

    std::map<std::string, std::set<std::string>> all_;
};

}  // namespace loom
