#include "analysis/address_space.h"

#include <set>

#include "ir/access.h"

namespace loom {

namespace {

bool is_local_iname(const KernelData& k, const std::string& n) {
    const auto tag = k.iname_tags.find(n);
    return tag != k.iname_tags.end() && tag->second.rfind("l.", 0) == 0;
}

// Local memory when some write is indexed by a local axis, unless a write runs on a local axis its
// subscript does not use: the work-items along it would race for the same elements (loopy then keeps
// the temporary private, with a WriteRaceConditionWarning).
bool shared_by_work_group(const KernelData& k, const std::string& name) {
    bool local_index = false;
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            if (!a.is_write || a.name != name) continue;
            std::set<std::string> subscript_inames;
            for (const ExprPtr& idx : a.indices)
                for (const std::string& n : referenced_names(idx))
                    if (is_local_iname(k, n)) subscript_inames.insert(n);
            local_index |= !subscript_inames.empty();
            for (const std::string& i : insn.within_inames)
                if (is_local_iname(k, i) && !subscript_inames.count(i) && !subscript_inames.empty()) return false;
        }
    return local_index;
}

}  // namespace

Kernel resolve_address_spaces(const Kernel& kernel) {
    KernelData k = kernel.copy();
    bool changed = false;
    for (Variable& t : k.temporaries) {
        if (t.address_space != AddressSpace::Auto) continue;
        t.address_space = shared_by_work_group(k, t.name) ? AddressSpace::Local : AddressSpace::Private;
        changed = true;
    }
    return changed ? Kernel(std::make_shared<const KernelData>(std::move(k))) : kernel;
}

}  // namespace loom
