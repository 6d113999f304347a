#include "schedule/save_reload.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/names.h"
#include "isl/isl.h"
#include "parse/make_kernel.h"
#include "schedule/kernel_split.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using Names = std::set<std::string>;
using Items = std::vector<LinearItem>;

const Instruction* instruction_of(const KernelData& k, const LinearItem& it) {
    return it.kind == LinearItem::Kind::RunInstruction ? find_instruction(k, it.name) : nullptr;
}

// Private and local temporaries are lost between device kernels; global ones and read-only tables are not.
bool needs_saving(const KernelData& k, const std::string& name) {
    const Variable* v = find_variable(k, name);
    return is_temporary(k, name) && v->address_space != AddressSpace::Global && v->initializer.empty();
}

// Backward liveness of the temporaries over the linearization, as loopy computes it: a read makes a
// temporary live, an unconditional write ends its live range (a write to an array only partly defines it,
// so it keeps the array live too), and a loop may run zero or several times.
class Liveness {
public:
    explicit Liveness(const KernelData& k) : in_(k.linearization.size()), out_(k.linearization.size()) {
        const Items& items = k.linearization;
        const auto succ = successors(items);
        std::vector<Names> gen(items.size()), kill(items.size());
        for (std::size_t i = 0; i < items.size(); ++i)
            if (const Instruction* insn = instruction_of(k, items[i])) gen_and_kill(k, *insn, gen[i], kill[i]);
        for (bool changed = true; changed;) {
            changed = false;
            for (std::size_t i = items.size(); i-- > 0;) {
                Names out;
                for (std::size_t s : succ[i]) out.insert(in_[s].begin(), in_[s].end());
                Names in = gen[i];
                for (const std::string& t : out)
                    if (!kill[i].count(t)) in.insert(t);
                changed = changed || in != in_[i] || out != out_[i];
                in_[i] = std::move(in);
                out_[i] = std::move(out);
            }
        }
    }

    const Names& live_in(std::size_t i) const { return in_[i]; }
    const Names& live_out(std::size_t i) const { return out_[i]; }

private:
    static void gen_and_kill(const KernelData& k, const Instruction& insn, Names& gen, Names& kill) {
        for (const std::string& w : written_names(insn)) {
            if (!is_temporary(k, w)) continue;
            if (insn.predicates.empty()) kill.insert(w);
            if (find_variable(k, w)->is_array) gen.insert(w);
        }
        for (const std::string& r : read_names(insn))
            if (is_temporary(k, r)) gen.insert(r);
    }

    // What may run right after each item: the next one, past an empty loop too, and a loop's first item
    // again after its last.
    static std::vector<std::set<std::size_t>> successors(const Items& items) {
        std::vector<std::size_t> partner(items.size());
        std::vector<std::size_t> open;
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (items[i].kind == LinearItem::Kind::EnterLoop) open.push_back(i);
            if (items[i].kind != LinearItem::Kind::LeaveLoop) continue;
            partner[i] = open.back();
            partner[open.back()] = i;
            open.pop_back();
        }
        std::vector<std::set<std::size_t>> succ(items.size());
        for (std::size_t i = items.size(); i-- > 0;) {
            if (i + 1 < items.size()) {
                succ[i].insert(i + 1);
                if (items[i + 1].kind == LinearItem::Kind::EnterLoop)
                    succ[i].insert(succ[partner[i + 1]].begin(), succ[partner[i + 1]].end());
            }
            if (items[i].kind == LinearItem::Kind::LeaveLoop) succ[i].insert(partner[i]);
        }
        return succ;
    }

    std::vector<Names> in_, out_;
};

// A device kernel of the linearization: its items [begin, end] (CALL to RETURN) and the global barriers
// around it.
struct Segment {
    std::string name;
    std::size_t begin = 0, end = 0;
    std::string pre_barrier, post_barrier;  // instruction ids; empty: none
    std::vector<const Instruction*> instructions;
    std::vector<std::string> host_loops;    // the loops the host runs it in
};

std::vector<Segment> segments_of(const KernelData& k) {
    std::vector<Segment> out;
    std::string last_barrier;
    for (std::size_t i = 0; i < k.linearization.size(); ++i) {
        const LinearItem& it = k.linearization[i];
        if (it.kind == LinearItem::Kind::CallKernel) out.push_back({it.name, i, i, last_barrier, "", {}, {}});
        if (it.kind == LinearItem::Kind::ReturnFromKernel) out.back().end = i;
        const Instruction* insn = instruction_of(k, it);
        if (!insn) continue;
        if (!is_global_barrier(*insn)) {
            out.back().instructions.push_back(insn);
            continue;
        }
        last_barrier = insn->id;
        if (!out.empty() && out.back().post_barrier.empty()) out.back().post_barrier = insn->id;
    }
    const std::vector<DeviceSegment> kernels = device_segments(k);
    for (std::size_t n = 0; n < out.size(); ++n) out[n].host_loops = kernels.at(n).host_loops;
    return out;
}

bool accesses(const Instruction& insn, const std::string& name) {
    return read_names(insn).count(name) || written_names(insn).count(name);
}

// "g.0, l.1" for the error messages.
std::string joined(const std::vector<InameTag>& tags) {
    std::vector<std::string> texts;
    for (const InameTag& t : tags) texts.push_back(to_string(t));
    return join(texts, ", ");
}

// The global array a temporary is kept in between device kernels.
struct Slot {
    std::string name;
    std::vector<InameTag> hardware_tags;  // g.0 < g.1 < ... < l.0 < ...: its leading axes
    std::vector<ExprPtr> shape;
    bool padded = false;                     // a scalar outside any hardware axis: one element
};

enum class Mode { Save, Reload };

class Saver {
public:
    explicit Saver(const Kernel& kernel) : k_(*kernel), out_(kernel.copy()), names_(out_) {}

    void add(const std::string& temporary, const Segment& seg, Mode mode) {
        const Slot& slot = slot_of(temporary);
        const Variable& t = *find_variable(k_, temporary);
        const char* mode_name = mode == Mode::Save ? "save" : "reload";
        std::vector<const Instruction*> users;
        for (const Instruction* insn : seg.instructions)
            if (accesses(*insn, temporary)) users.push_back(insn);

        // New inames over the whole grid (as loopy): the slot is indexed by hardware ids, whatever inames
        // the instructions of each device kernel use. It runs in each iteration of the host loops around.
        Instruction insn;
        insn.within_inames.insert(seg.host_loops.begin(), seg.host_loops.end());
        std::vector<ExprPtr> slot_index, own_index;
        for (std::size_t d = 0; d < slot.hardware_tags.size(); ++d) {
            const std::string iname = new_iname(cat(temporary, "_", mode_name, "_hw_dim_", d, "_", seg.name),
                                                slot.shape[d]);
            out_.iname_tags[iname] = slot.hardware_tags[d];
            slot_index.push_back(var(iname));
            insn.within_inames.insert(iname);
        }
        for (std::size_t d = 0; d < t.shape.size(); ++d) {
            const std::string iname = new_iname(cat(temporary, "_", mode_name, "_axis_", d, "_", seg.name), t.shape[d]);
            own_index.push_back(var(iname));
            insn.within_inames.insert(iname);
        }
        slot_index.insert(slot_index.end(), own_index.begin(), own_index.end());
        if (slot.padded) slot_index.push_back(int_lit(0));
        const ExprPtr in_slot = subscript(slot.name, slot_index);
        const ExprPtr in_temporary = own_index.empty() ? var(temporary) : subscript(temporary, own_index);

        insn.id = names_(cat(temporary, ".", mode_name));
        insn.assignees = {mode == Mode::Save ? in_slot : in_temporary};
        insn.expression = mode == Mode::Save ? in_temporary : in_slot;
        insn.within_inames_is_final = true;
        insn.depends_on_is_final = true;
        order(insn, temporary, seg, users, mode);
        added_.push_back(std::move(insn));
    }

    Kernel finish() {
        std::sort(added_.begin(), added_.end(), [](const Instruction& a, const Instruction& b) { return a.id < b.id; });
        out_.instructions.insert(out_.instructions.end(), added_.begin(), added_.end());
        return unlinearized_kernel(std::move(out_));
    }

private:
    // The hardware axes an instruction runs on, in slot order. Other parallel tags have no place in a slot.
    std::vector<InameTag> hardware_tags(const Instruction& insn) const {
        std::vector<InameTag> out;
        for (const std::string& i : insn.within_inames) {
            const InameTag t = iname_tag(k_, i);
            user_assert(!t.is_innermost(), error_kind::LoopyError, "save_and_reload_temporaries: iname '", i,
                        "' of instruction '", insn.id, "' is tagged '", t,
                        "'; only group and local axes are supported for saving temporaries");
            if (t.is_hardware()) out.push_back(t);
        }
        std::sort(out.begin(), out.end());
        return out;
    }

    // Every instruction using the temporary must run on the same hardware axes: they index the slot.
    std::vector<InameTag> common_hardware_tags(const std::string& temporary) const {
        std::optional<std::vector<InameTag>> tags;
        std::string first;
        for (const Instruction& insn : k_.instructions) {
            if (!accesses(insn, temporary)) continue;
            const std::vector<InameTag> mine = hardware_tags(insn);
            if (!tags) {
                tags = mine;
                first = insn.id;
            }
            user_assert(*tags == mine, error_kind::LoopyError, "save_and_reload_temporaries: inconsistent parallel tags across "
                        "instructions that access '", temporary, "' (instruction '", first, "' has tags '",
                        joined(*tags), "' but instruction '", insn.id, "' has tags '", joined(mine), "')");
        }
        return tags.value_or(std::vector<InameTag>{});
    }

    // The number of ids on hardware axis `axis_tag` among the temporary's instructions: for a local axis
    // the work-group size, for a group axis the largest group id + 1 (hardware inames start at 0).
    ExprPtr axis_size(const std::string& temporary, const InameTag& axis_tag) const {
        std::optional<isl::pw_aff> groups;
        long local = 1;
        for (const Instruction& insn : k_.instructions) {
            if (!accesses(insn, temporary)) continue;
            for (const std::string& i : insn.within_inames) {
                if (iname_tag(k_, i) != axis_tag) continue;
                if (axis_tag.is_local()) {
                    local = std::max(local, static_extent(k_, i));
                    continue;
                }
                // dim_size, not the launch grid's isl_util::extent: the size bounds the domain of a new iname,
                // which takes one affine piece (extent adds a 0 where the domain is empty).
                const isl::pw_aff e = isl_util::dim_size(domain_of(k_, {i}), 0);
                groups = groups ? isl_util::union_max(*groups, e) : e;
            }
        }
        return groups ? affine::pw_aff_to_expr(*groups, assumption_context(k_)) : int_lit(local);
    }

    const Slot& slot_of(const std::string& temporary) {
        const auto known = slots_.find(temporary);
        if (known != slots_.end()) return known->second;
        const Variable& t = *find_variable(k_, temporary);
        Slot slot{names_(temporary + "_save_slot"), common_hardware_tags(temporary), {}, false};
        // A local temporary is shared by its group: one copy per group.
        if (t.address_space == AddressSpace::Local)
            slot.hardware_tags.erase(std::remove_if(slot.hardware_tags.begin(), slot.hardware_tags.end(),
                                                    [](const InameTag& g) { return g.is_local(); }),
                                     slot.hardware_tags.end());
        Variable v;
        v.name = slot.name;
        v.kind = VarKind::Temporary;
        v.dtype = t.dtype;
        v.address_space = AddressSpace::Global;
        for (const InameTag& g : slot.hardware_tags) v.shape.push_back(axis_size(temporary, g));
        v.shape.insert(v.shape.end(), t.shape.begin(), t.shape.end());
        slot.padded = v.shape.empty();
        if (slot.padded) v.shape.push_back(int_lit(1));
        set_default_strides(v);
        slot.shape = v.shape;
        out_.temporaries.push_back(std::move(v));
        return slots_.emplace(temporary, std::move(slot)).first->second;
    }

    std::string new_iname(const std::string& base, const ExprPtr& extent) {
        const std::string name = names_(base);
        out_.domains.push_back(slab_domain(name, extent));
        return name;
    }

    // A save follows every use in its device kernel, a reload precedes them all, and both stay between the
    // global barriers around it.
    void order(Instruction& insn, const std::string& temporary, const Segment& seg,
               const std::vector<const Instruction*>& users, Mode mode) {
        if (!seg.pre_barrier.empty()) insn.depends_on.insert(seg.pre_barrier);
        std::vector<std::string> later;
        if (mode == Mode::Save) {
            for (const Instruction* u : users) insn.depends_on.insert(u->id);
            // The reload reads the slot this writes, in the same work-item: no barrier between them.
            const auto reload = reloads_.find({seg.name, temporary});
            if (reload != reloads_.end()) insn.no_sync_with.push_back({reload->second, SyncScope::Global});
        } else {
            for (const Instruction* u : users) later.push_back(u->id);
            reloads_[{seg.name, temporary}] = insn.id;
        }
        if (!seg.post_barrier.empty()) later.push_back(seg.post_barrier);
        for (const std::string& id : later) mutable_instruction(id).depends_on.insert(insn.id);
    }

    Instruction& mutable_instruction(const std::string& id) {
        for (Instruction& insn : out_.instructions)
            if (insn.id == id) return insn;
        for (Instruction& insn : added_)
            if (insn.id == id) return insn;
        internal_assert(false, "save_and_reload_temporaries: no instruction '", id, "'");
        return out_.instructions.front();
    }

    const KernelData& k_;
    KernelData out_;
    NameGenerator names_;
    std::vector<Instruction> added_;
    std::map<std::string, Slot> slots_;
    std::map<std::pair<std::string, std::string>, std::string> reloads_;  // (kernel, temporary) -> reload id
};

}  // namespace

Kernel save_and_reload_temporaries(const Kernel& kernel) {
    const KernelData& k = *kernel;
    internal_assert(k.linearized, "save_and_reload_temporaries needs a linearized kernel");
    const Liveness live(k);
    Saver saver(kernel);
    bool any = false;
    for (const Segment& seg : segments_of(k)) {
        Names used, written;
        for (const Instruction* insn : seg.instructions) {
            for (const std::string& n : read_names(*insn)) used.insert(n);
            for (const std::string& n : written_names(*insn)) written.insert(n);
        }
        used.insert(written.begin(), written.end());
        // Nothing is live before the first device kernel or after the last.
        if (seg.begin != 0)
            for (const std::string& t : live.live_out(seg.begin))
                if (used.count(t) && needs_saving(k, t)) {
                    saver.add(t, seg, Mode::Reload);
                    any = true;
                }
        if (seg.end + 1 != k.linearization.size())
            for (const std::string& t : live.live_in(seg.end))
                if (written.count(t) && needs_saving(k, t)) {
                    saver.add(t, seg, Mode::Save);
                    any = true;
                }
    }
    return any ? saver.finish() : kernel;
}

}  // namespace loom
