#include "schedule/kernel_split.h"

#include <map>
#include <set>

#include "ir/access.h"
#include "support/error.h"

namespace loom {

bool is_global_barrier(const Instruction& insn) {
    return insn.kind == InsnKind::Barrier && insn.barrier_kind == "global";
}

namespace {

bool is_gbarrier_item(const KernelData& k, const LinearItem& it) {
    if (it.kind != LinearItem::Kind::RunInstruction) return false;
    const Instruction* insn = find_instruction(k, it.name);
    return insn && is_global_barrier(*insn);
}

std::string kernel_name(const KernelData& k, std::size_t index) {
    return index == 0 ? k.name : cat(k.name, "_", index - 1);
}

}  // namespace

void check_definitions(const KernelData& k) {
    for (const DeviceSegment& seg : device_segments(k)) {
        std::set<std::string> written, read;
        for (const LinearItem& it : seg.items) {
            if (it.kind != LinearItem::Kind::RunInstruction) continue;
            const Instruction* insn = find_instruction(k, it.name);
            for (const std::string& w : written_names(*insn)) written.insert(w);
            for (const std::string& r : read_names(*insn)) read.insert(r);
        }
        for (const std::string& r : read) {
            const Variable* v = find_variable(k, r);
            if (!v || v->kind != VarKind::Temporary || v->address_space == AddressSpace::Global || written.count(r)) continue;
            if (!v->initializer.empty()) continue;
            user_error("MissingDefinitionError", "temporary variable '", r, "' gets used in subkernel '", seg.name,
                       "' without a definition (maybe you forgot to call loopy.save_and_reload_temporaries?)");
        }
    }
}

std::vector<DeviceSegment> device_segments(const KernelData& k) {
    std::vector<DeviceSegment> out;
    for (const LinearItem& it : k.linearization) {
        if (it.kind == LinearItem::Kind::CallKernel) out.push_back({it.name, {}});
        else if (it.kind == LinearItem::Kind::ReturnFromKernel || is_gbarrier_item(k, it)) continue;
        else if (!out.empty()) out.back().items.push_back(it);
    }
    return out;
}

Kernel split_device_kernels(const Kernel& kernel) {
    const KernelData& k = *kernel;
    std::vector<std::vector<LinearItem>> pieces(1);
    std::vector<LinearItem> barriers;  // barriers[i] follows pieces[i]
    int depth = 0;
    for (const LinearItem& it : k.linearization) {
        if (it.kind == LinearItem::Kind::CallKernel) return kernel;  // already split
        if (is_gbarrier_item(k, it)) {
            user_assert(depth == 0, "LoopyError", "global barrier '", it.name,
                        "' is inside a sequential loop: device kernels can only be split outside loops");
            barriers.push_back(it);
            pieces.emplace_back();
            continue;
        }
        if (it.kind == LinearItem::Kind::EnterLoop) ++depth;
        if (it.kind == LinearItem::Kind::LeaveLoop) --depth;
        pieces.back().push_back(it);
    }
    std::vector<LinearItem> out;
    std::size_t count = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (!pieces[i].empty() || (count == 0 && i + 1 == pieces.size())) {
            const std::string name = kernel_name(k, count++);
            out.push_back({LinearItem::Kind::CallKernel, name, "", ""});
            out.insert(out.end(), pieces[i].begin(), pieces[i].end());
            out.push_back({LinearItem::Kind::ReturnFromKernel, name, "", ""});
        }
        if (i < barriers.size()) out.push_back(barriers[i]);
    }
    KernelData data = kernel.copy();
    data.linearization = std::move(out);
    return Kernel(std::make_shared<const KernelData>(std::move(data)));
}

}  // namespace loom
