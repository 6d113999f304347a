#include "schedule/global_barriers.h"

#include <set>

#include "analysis/conflicts.h"
#include "ir/names.h"
#include "schedule/linearize.h"

namespace loom {

namespace {

bool is_global_memory(const KernelData& k, const std::string& name) {
    const Variable* v = find_variable(k, name);
    if (!v) return false;
    return v->kind == VarKind::GlobalArg || (v->kind == VarKind::Temporary && v->address_space == AddressSpace::Global);
}

// Sequential loops both instructions run in: a split between their instances there would run the loop on
// the host.
bool share_loop(const KernelData& k, const Instruction& a, const Instruction& b) {
    for (const std::string& i : a.within_inames)
        if (b.within_inames.count(i) && !iname_tag(k, i).is_hardware()) return true;
    return false;
}

bool needs_global_barrier(const KernelData& k, const Instruction& source, const Instruction& sink) {
    if (source.kind == InsnKind::Barrier || sink.kind == InsnKind::Barrier || share_loop(k, source, sink)) return false;
    for (const std::string& v : conflicting_variables(source, sink))
        if (is_global_memory(k, v) && has_conflict(k, {&source, &sink, v, {}, "", ConflictScope::Groups})) return true;
    return false;
}

Instruction global_barrier(std::string id, const Instruction& sink, std::set<std::string> sources) {
    Instruction b;
    b.kind = InsnKind::Barrier;
    b.id = std::move(id);
    b.barrier_kind = "global";
    b.mem_kind = "global";
    b.depends_on = std::move(sources);
    b.depends_on_is_final = true;
    b.within_inames = sink.within_inames;
    b.within_inames_is_final = true;
    b.line = sink.line;
    return b;
}

}  // namespace

Kernel insert_global_barriers(const Kernel& kernel) {
    const KernelData& k = *kernel;
    KernelData out = kernel.copy();
    NameGenerator names(k);
    std::vector<Instruction> barriers;
    for (Instruction& t : out.instructions) {
        std::set<std::string> sources;
        for (const std::string& dep : t.depends_on) {
            const Instruction* s = find_instruction(k, dep);
            if (s && needs_global_barrier(k, *s, t)) sources.insert(dep);
        }
        if (sources.empty()) continue;
        // The sink's hardware inames only: the barrier is outside every sequential loop.
        Instruction b = global_barrier(names("gbarrier"), t, sources);
        for (auto it = b.within_inames.begin(); it != b.within_inames.end();)
            it = iname_tag(k, *it).is_hardware() ? std::next(it) : b.within_inames.erase(it);
        for (const std::string& s : sources) t.depends_on.erase(s);
        t.depends_on.insert(b.id);
        barriers.push_back(std::move(b));
    }
    if (barriers.empty()) return kernel;
    out.instructions.insert(out.instructions.end(), barriers.begin(), barriers.end());
    return Kernel(std::move(out));
}

}  // namespace loom
