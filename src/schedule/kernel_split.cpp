#include "schedule/kernel_split.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "schedule/linear_tree.h"
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

namespace {

// The temporaries a device kernel writes, and those it reads before writing them (an instruction reads its
// operands before it writes: `acc = acc + x` reads first).
struct SegmentUses {
    std::set<std::string> written, read_first;
};

SegmentUses uses_of(const KernelData& k, const DeviceSegment& seg) {
    SegmentUses u;
    for (const LinearItem& it : seg.items) {
        if (it.kind != LinearItem::Kind::RunInstruction) continue;
        const Instruction* insn = find_instruction(k, it.name);
        for (const std::string& r : read_names(*insn))
            if (!u.written.count(r)) u.read_first.insert(r);
        for (const std::string& w : written_names(*insn)) u.written.insert(w);
    }
    return u;
}

}  // namespace

void check_definitions(const KernelData& k) {
    const std::vector<DeviceSegment> segments = device_segments(k);
    std::vector<SegmentUses> uses;
    for (const DeviceSegment& seg : segments) uses.push_back(uses_of(k, seg));
    for (std::size_t s = 0; s < segments.size(); ++s) {
        for (const std::string& r : uses[s].read_first) {
            const Variable* v = find_variable(k, r);
            if (!v || v->kind != VarKind::Temporary || v->address_space == AddressSpace::Global) continue;
            if (!v->initializer.empty()) continue;
            // Read before written here: its value is another device kernel's (a reduction's accumulator
            // initialized before a global barrier, updated after it) or none at all.
            const bool written_elsewhere = std::any_of(uses.begin(), uses.end(), [&](const SegmentUses& u) {
                return &u != &uses[s] && u.written.count(r);
            });
            if (uses[s].written.count(r) && !written_elsewhere) continue;  // carried by a loop of this kernel
            user_error(error_kind::MissingDefinitionError, "temporary variable '", r, "' gets used in subkernel '",
                       segments[s].name,
                       "' without a definition (maybe you forgot to call loopy.save_and_reload_temporaries?)");
        }
    }
}

std::vector<DeviceSegment> device_segments(const KernelData& k) {
    std::vector<DeviceSegment> out;
    std::vector<std::string> host_loops;
    bool inside = false;
    for (const LinearItem& it : k.linearization) {
        if (it.kind == LinearItem::Kind::CallKernel) {
            out.push_back({it.name, {}, host_loops});
            inside = true;
        } else if (it.kind == LinearItem::Kind::ReturnFromKernel) {
            inside = false;
        } else if (inside) {
            out.back().items.push_back(it);
        } else if (it.kind == LinearItem::Kind::EnterLoop) {
            host_loops.push_back(it.name);
        } else if (it.kind == LinearItem::Kind::LeaveLoop) {
            host_loops.pop_back();
        }
    }
    return out;
}

namespace {

bool holds_global_barrier(const KernelData& k, const std::vector<LinearNode>& nodes) {
    for (const LinearNode& n : nodes)
        if (is_gbarrier_item(k, n.item) || holds_global_barrier(k, n.body)) return true;
    return false;
}

// Splits a block of the linearization (loopy's map_schedule_onto_host_or_device): a loop whose body holds a
// global barrier stays on the host, its body split in turn; every other run of items between global
// barriers becomes one device kernel. Kernels are named in the order they appear.
class Splitter {
public:
    explicit Splitter(const KernelData& k) : k_(k) {}

    std::vector<LinearItem> split(const std::vector<LinearNode>& nodes) {
        std::vector<LinearItem> out, chunk;
        for (const LinearNode& n : nodes) {
            if (is_gbarrier_item(k_, n.item)) {
                flush(chunk, out);
                out.push_back(n.item);
            } else if (n.item.kind == LinearItem::Kind::EnterLoop && holds_global_barrier(k_, n.body)) {
                check_host_loop(n.item.name);
                flush(chunk, out);
                out.push_back(n.item);
                const std::vector<LinearItem> body = split(n.body);
                out.insert(out.end(), body.begin(), body.end());
                out.push_back({LinearItem::Kind::LeaveLoop, n.item.name, "", ""});
            } else {
                const std::vector<LinearItem> items = to_items({n});
                chunk.insert(chunk.end(), items.begin(), items.end());
            }
        }
        flush(chunk, out);
        return out;
    }

    std::size_t kernels() const { return count_; }

private:
    void flush(std::vector<LinearItem>& chunk, std::vector<LinearItem>& out) {
        if (chunk.empty()) return;
        const std::string name = kernel_name(k_, count_++);
        out.push_back({LinearItem::Kind::CallKernel, name, "", ""});
        out.insert(out.end(), chunk.begin(), chunk.end());
        out.push_back({LinearItem::Kind::ReturnFromKernel, name, "", ""});
        chunk.clear();
    }

    // The host runs the loop one iteration after the other.
    void check_host_loop(const std::string& iname) const {
        const InameTag tag = iname_tag(k_, iname);
        user_assert(tag.is_none() || tag.kind == InameTag::Kind::Ord, error_kind::LoopyError, "a global barrier is inside the "
                    "loop over '", iname, "', tagged '", tag,
                    "': a loop around a global barrier runs on the host and must be sequential");
    }

    const KernelData& k_;
    std::size_t count_ = 0;
};

}  // namespace

Kernel split_device_kernels(const Kernel& kernel) {
    const KernelData& k = *kernel;
    for (const LinearItem& it : k.linearization)
        if (it.kind == LinearItem::Kind::CallKernel) return kernel;  // already split
    Splitter splitter(k);
    std::vector<LinearItem> out = splitter.split(to_tree(k.linearization));
    // A kernel with nothing to run is still one (empty) device kernel.
    if (splitter.kernels() == 0)
        out.insert(out.end(), {{LinearItem::Kind::CallKernel, k.name, "", ""}, {LinearItem::Kind::ReturnFromKernel, k.name, "", ""}});
    KernelData data = kernel.copy();
    data.linearization = std::move(out);
    return Kernel(std::move(data));
}

}  // namespace loom
