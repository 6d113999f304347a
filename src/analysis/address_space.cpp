#include "analysis/address_space.h"

#include "ir/access.h"

namespace loom {

namespace {

bool written_by_local_index(const KernelData& k, const std::string& name) {
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            if (!a.is_write || a.name != name) continue;
            for (const ExprPtr& idx : a.indices)
                for (const std::string& n : referenced_names(idx)) {
                    const auto tag = k.iname_tags.find(n);
                    if (tag != k.iname_tags.end() && tag->second.rfind("l.", 0) == 0) return true;
                }
        }
    return false;
}

}  // namespace

Kernel resolve_address_spaces(const Kernel& kernel) {
    KernelData k = kernel.copy();
    bool changed = false;
    for (Variable& t : k.temporaries) {
        if (t.address_space != AddressSpace::Auto) continue;
        t.address_space = written_by_local_index(k, t.name) ? AddressSpace::Local : AddressSpace::Private;
        changed = true;
    }
    return changed ? Kernel(std::make_shared<const KernelData>(std::move(k))) : kernel;
}

}  // namespace loom
