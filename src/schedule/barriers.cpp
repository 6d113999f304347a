#include "schedule/barriers.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "analysis/conflicts.h"
#include "analysis/prerequisites.h"
#include "ir/iname_tags.h"
#include "schedule/kernel_split.h"
#include "schedule/linear_tree.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// An instruction run since the last barrier, with the sequential loops around it.
struct Pending {
    const Instruction* insn;
    std::vector<std::string> loops;
};

std::vector<std::string> common_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < a.size() && i < b.size() && a[i] == b[i]; ++i) out.push_back(a[i]);
    return out;
}

class BarrierInserter {
public:
    BarrierInserter(const KernelData& k, const Prerequisites& prerequisites) : k_(k), prerequisites_(prerequisites) {}

    void process(std::vector<LinearNode>& block, const std::vector<std::string>& loops, std::vector<Pending>& pending) {
        for (std::size_t i = 0; i < block.size(); ++i) {
            LinearNode& n = block[i];
            switch (n.item.kind) {
                case LinearItem::Kind::RunInstruction: {
                    const Instruction* t = find_instruction(k_, n.item.name);
                    if (t->kind == InsnKind::Barrier) {
                        pending.clear();
                        break;
                    }
                    if (auto reason = needed_before(*t, loops, pending)) {
                        check_outside_ilp(loops, *reason);
                        block.insert(block.begin() + static_cast<long>(i), barrier(*reason));
                        ++i;
                        pending.clear();
                    }
                    pending.push_back({t, loops});
                    break;
                }
                case LinearItem::Kind::EnterLoop: {
                    // A hazard between what ran before the loop and what runs in it is resolved once,
                    // before the loop, not in every iteration.
                    if (auto reason = needed_before_loop(n, loops, pending)) {
                        check_outside_ilp(loops, *reason);
                        block.insert(block.begin() + static_cast<long>(i), barrier(*reason));
                        ++i;
                        pending.clear();
                    }
                    LinearNode& loop = block[i];  // the insertion above may have moved the node
                    std::vector<std::string> inner = loops;
                    inner.push_back(loop.item.name);
                    std::vector<Pending> body_pending = pending;
                    process(loop.body, inner, body_pending);
                    if (auto reason = carried_hazard(loop, loops)) {
                        check_outside_ilp(inner, *reason);
                        loop.body.insert(loop.body.begin(), barrier(*reason));
                    }
                    for (Pending& p : body_pending) pending.push_back(std::move(p));
                    break;
                }
                case LinearItem::Kind::Barrier: pending.clear(); break;
                default: break;
            }
        }
    }

private:
    // A dependency that local barriers must order: not waived by a nosync on the dependent instruction (loopy
    // looks there for loop-carried, reversed dependencies too).
    bool needs_local_sync(const Instruction& dependent, const Instruction& prerequisite) const {
        return prerequisites_.depends(dependent, prerequisite) && !nosync(dependent, prerequisite, SyncScope::Local);
    }

    // ILP iterations of a work-item run interleaved (unrolled) or in any order: no barrier can separate
    // them, so one needed inside an ILP loop is an error, as in loopy. The lanes of a `vec` loop run at once
    // (each statement on all lanes before the next, loop_nest.cpp): no barrier goes between them either, and
    // code generation has no place for one inside the lanes (an InternalError from isl before; fuzz_pipeline).
    void check_outside_ilp(const std::vector<std::string>& loops, const LinearItem& reason) const {
        for (const std::string& l : loops) {
            const InameTag tag = iname_tag(k_, l);
            user_assert(!tag.is_ilp(), error_kind::LoopyError, k_.name, ": a barrier is needed inside the loop over ILP iname '",
                        l, "' (", reason.comment, "), but barriers cannot be placed inside ILP loops");
            user_assert(!tag.is_vec(), error_kind::LoopyError, k_.name, ": a barrier is needed inside the loop over vec iname '",
                        l, "' (", reason.comment, "), but barriers cannot be placed inside vec loops, whose lanes ",
                        "run at once: tag it 'unr' or 'for' instead");
        }
    }

    bool shared_memory(const std::string& v) const {
        const Variable* var = find_variable(k_, v);
        if (!var) return false;
        if (var->kind == VarKind::Temporary) return var->address_space != AddressSpace::Private;
        return var->kind == VarKind::GlobalArg;
    }

    std::optional<std::string> crossing(const Instruction& source, const Instruction& sink,
                                        const std::vector<std::string>& same, const std::string& carried) const {
        for (const std::string& v : conflicting_variables(source, sink)) {
            if (!shared_memory(v)) continue;
            ConflictQuery q{&source, &sink, v, same, carried, ConflictScope::WorkItemsOfGroup};
            if (has_conflict(k_, q)) return v;
        }
        return std::nullopt;
    }

    std::optional<LinearItem> needed_before(const Instruction& t, const std::vector<std::string>& loops,
                                            const std::vector<Pending>& pending) const {
        for (const Pending& p : pending) {
            if (!needs_local_sync(t, *p.insn)) continue;
            if (auto v = crossing(*p.insn, t, common_prefix(loops, p.loops), "")) return item(*v, t, *p.insn, "depends on");
        }
        return std::nullopt;
    }

    std::optional<LinearItem> needed_before_loop(const LinearNode& loop, const std::vector<std::string>& loops,
                                                 const std::vector<Pending>& pending) const {
        std::vector<Placed> insns;
        collect(loop.body, false, insns);
        for (const Placed& t : insns)
            for (const Pending& p : pending) {
                if (!needs_local_sync(*t.insn, *p.insn)) continue;
                if (auto v = crossing(*p.insn, *t.insn, common_prefix(loops, p.loops), ""))
                    return item(*v, *t.insn, *p.insn, "depends on");
            }
        return std::nullopt;
    }

    // An instruction of a loop body and whether a barrier surely runs before it (after it) within one
    // iteration of that body: one earlier (later) on its own path, not in a sibling loop that might not run.
    struct Placed {
        const Instruction* insn;
        bool barrier_before = false;
        bool barrier_after = false;
    };

    void collect(const std::vector<LinearNode>& nodes, bool before, std::vector<Placed>& out) const {
        bool seen = before;
        for (const LinearNode& n : nodes) {
            if (is_barrier(k_, n)) seen = true;
            if (n.item.kind == LinearItem::Kind::RunInstruction) {
                const Instruction* insn = find_instruction(k_, n.item.name);
                if (insn->kind == InsnKind::Assignment) out.push_back({insn, seen, false});
            }
            if (n.item.kind == LinearItem::Kind::EnterLoop) collect(n.body, seen, out);
        }
        // A barrier later in this body follows everything collected before it here.
        bool later = false;
        std::size_t idx = out.size();
        for (std::size_t i = nodes.size(); i-- > 0;) {
            std::size_t count = 0;
            count_instructions(nodes[i], count);
            for (std::size_t c = 0; c < count; ++c) {
                --idx;
                if (later) out[idx].barrier_after = true;
            }
            if (is_barrier(k_, nodes[i])) later = true;
        }
    }

    void count_instructions(const LinearNode& n, std::size_t& count) const {
        if (n.item.kind == LinearItem::Kind::RunInstruction &&
            find_instruction(k_, n.item.name)->kind == InsnKind::Assignment)
            ++count;
        for (const LinearNode& c : n.body) count_instructions(c, count);
    }

    // A hazard between iterations of `loop`: an instruction of iteration a and a related one of a later
    // iteration b, with no barrier surely between them.
    std::optional<LinearItem> carried_hazard(const LinearNode& loop, const std::vector<std::string>& outer) const {
        std::vector<Placed> insns;
        collect(loop.body, false, insns);
        for (const Placed& x : insns)
            for (const Placed& y : insns) {
                // An instruction is related to its own instances of other iterations (`s[t] = s[t] + s[t+1]` in a
                // loop reads what a neighbour wrote the iteration before), though no one writes that dependency.
                const bool related = x.insn == y.insn ? !nosync(*x.insn, *x.insn, SyncScope::Local)
                                                      : needs_local_sync(*y.insn, *x.insn) || needs_local_sync(*x.insn, *y.insn);
                if (!related) continue;
                if (x.barrier_after || y.barrier_before) continue;
                if (auto v = crossing(*x.insn, *y.insn, outer, loop.item.name))
                    return x.insn == y.insn || prerequisites_.depends(*y.insn, *x.insn) ? item(*v, *y.insn, *x.insn, "depends on")
                                                     : item(*v, *y.insn, *x.insn, "rev-depends on");
            }
        return std::nullopt;
    }

    LinearItem item(const std::string& var, const Instruction& sink, const Instruction& source, const char* rel) const {
        const Variable* v = find_variable(k_, var);
        const bool global_mem = v && v->is_arg();
        LinearItem b{LinearItem::Kind::Barrier, "", cat("for ", var, " (", sink.id, " ", rel, " ", source.id, ")"),
                     "local"};
        if (global_mem) b.name = "global";  // the memory the barrier fences
        return b;
    }

    static LinearNode barrier(const LinearItem& it) { return LinearNode{it, {}}; }

    const KernelData& k_;
    const Prerequisites& prerequisites_;
};

// The sequential loops around each instruction, outermost first.
std::map<std::string, std::vector<std::string>> loop_stacks(const KernelData& k) {
    std::map<std::string, std::vector<std::string>> out;
    std::vector<std::string> stack;
    for (const LinearItem& it : k.linearization) {
        if (it.kind == LinearItem::Kind::EnterLoop) stack.push_back(it.name);
        if (it.kind == LinearItem::Kind::LeaveLoop) stack.pop_back();
        if (it.kind == LinearItem::Kind::RunInstruction) out[it.name] = stack;
    }
    return out;
}

// Whether a `... gbarrier` runs between `source` and `sink`: then they end up in different device kernels.
class GlobalBarrierPositions {
public:
    explicit GlobalBarrierPositions(const KernelData& k) {
        for (std::size_t i = 0; i < k.linearization.size(); ++i) {
            const LinearItem& it = k.linearization[i];
            if (it.kind != LinearItem::Kind::RunInstruction) continue;
            position_[it.name] = i;
            const Instruction* insn = find_instruction(k, it.name);
            if (insn && is_global_barrier(*insn)) barriers_.push_back(i);
        }
    }

    bool between(const std::string& source, const std::string& sink) const {
        const std::size_t from = position_.at(source), to = position_.at(sink);
        return std::any_of(barriers_.begin(), barriers_.end(), [&](std::size_t b) { return from < b && b < to; });
    }

private:
    std::map<std::string, std::size_t> position_;
    std::vector<std::size_t> barriers_;
};

// Dependencies across work-groups cannot be ordered inside one device kernel. Only the host loops (those
// around a global barrier: an iteration is a launch) run both instances in one iteration; the work-groups of
// one launch run the device's own sequential loops each at its own pace, so two instances in different
// iterations of such a loop are not ordered either.
void check_global_dependencies(const KernelData& k, const Prerequisites& prerequisites) {
    const auto stacks = loop_stacks(k);
    std::set<std::string> host_loops;
    for (const auto& [id, loops] : stacks)
        if (const Instruction* insn = find_instruction(k, id); insn && is_global_barrier(*insn)) host_loops.insert(loops.begin(), loops.end());
    const GlobalBarrierPositions global_barriers(k);
    for (const Instruction& t : k.instructions)
        for (const std::string& dep : prerequisites.of(t)) {
            const Instruction* s = find_instruction(k, dep);
            if (!s || nosync(t, *s, SyncScope::Global) || global_barriers.between(s->id, t.id)) continue;
            std::vector<std::string> same;
            for (const std::string& l : common_prefix(stacks.at(s->id), stacks.at(t.id)))
                if (host_loops.count(l)) same.push_back(l);
            for (const std::string& v : conflicting_variables(*s, t)) {
                const Variable* var = find_variable(k, v);
                if (!var || !(var->is_arg() || var->address_space == AddressSpace::Global)) continue;
                if (has_conflict(k, {s, &t, v, same, "", ConflictScope::Groups}))
                    user_error(error_kind::MissingBarrierError, k.name, ": Dependency '", t.id, " depends on ", s->id,
                               "' (for variable '", v,
                               "') requires synchronization by a global barrier (add a 'no_sync_with' instruction "
                               "option to state that no synchronization is needed)");
            }
        }
}

}  // namespace

Kernel insert_barriers(const Kernel& kernel) {
    const bool parallel = std::any_of(kernel->iname_tags.begin(), kernel->iname_tags.end(),
                                      [](const auto& t) { return t.second.is_hardware(); });
    if (!parallel) return kernel;
    const Prerequisites prerequisites(*kernel);
    check_global_dependencies(*kernel, prerequisites);
    std::vector<LinearNode> tree = to_tree(kernel->linearization);
    std::vector<Pending> pending;
    BarrierInserter(*kernel, prerequisites).process(tree, {}, pending);
    KernelData out = kernel.copy();
    out.linearization = to_items(tree);
    return Kernel(std::move(out));
}

}  // namespace loom
