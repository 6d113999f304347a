#include "schedule/grid_loops.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/domain.h"
#include "isl/isl.h"
#include "schedule/linear_tree.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "transform/privatize.h"

namespace loom {

namespace {

class GridLoops {
public:
    explicit GridLoops(const KernelData& k) : k_(k) {}

    std::vector<LinearNode> run(const std::vector<LinearNode>& tree) {
        std::vector<LinearNode> body = phases(tree);
        // Group axes outermost, axis 0 innermost among them: one loop per axis, which stands for every
        // iname on that axis (see the loop nest).
        std::set<InameTag> axes;
        for (const std::string& g : group_inames())
            if (axes.insert(iname_tag(k_, g)).second) body = {loop(g, std::move(body))};
        return body;
    }

    /// Temporaries that a work-item uses in more than one phase.
    std::set<std::string> live_across_phases() const {
        std::set<std::string> out;
        for (const auto& [name, nests] : nests_of_temporary_)
            if (nests.size() > 1) out.insert(name);
        return out;
    }

private:
    int axis_of(const std::string& iname) const { return iname_tag(k_, iname).number; }

    // Group inames that the instructions use, highest axis first.
    std::vector<std::string> group_inames() const {
        std::set<std::string> used;
        for (const LinearItem& it : k_.linearization)
            if (it.kind == LinearItem::Kind::RunInstruction)
                for (const std::string& i : find_instruction(k_, it.name)->within_inames)
                    if (iname_tag(k_, i).is_group()) used.insert(i);
        std::vector<std::string> out(used.begin(), used.end());
        std::stable_sort(out.begin(), out.end(),
                         [&](const std::string& a, const std::string& b) { return axis_of(a) > axis_of(b); });
        return out;
    }

    static LinearNode loop(const std::string& iname, std::vector<LinearNode> body) {
        return LinearNode{{LinearItem::Kind::EnterLoop, iname, "", ""}, std::move(body)};
    }

    void local_inames(const LinearNode& n, std::set<std::string>& out) const {
        if (n.item.kind == LinearItem::Kind::RunInstruction) {
            for (const std::string& i : find_instruction(k_, n.item.name)->within_inames)
                if (iname_tag(k_, i).is_local()) out.insert(i);
        }
        for (const LinearNode& c : n.body) local_inames(c, out);
    }

    bool contains_barrier(const LinearNode& n) const {
        return is_barrier(k_, n) ||
               std::any_of(n.body.begin(), n.body.end(), [&](const LinearNode& c) { return contains_barrier(c); });
    }

    bool one_iname_per_axis(const std::set<std::string>& inames) const {
        std::set<InameTag> tags;
        for (const std::string& i : inames)
            if (!tags.insert(iname_tag(k_, i)).second) return false;
        return true;
    }

    void record_nest(const LinearNode& n) {
        if (n.item.kind == LinearItem::Kind::RunInstruction)
            for (const Access& a : accesses_of(*find_instruction(k_, n.item.name))) {
                const Variable* v = find_variable(k_, a.name);
                if (v && v->kind == VarKind::Temporary && v->address_space == AddressSpace::Private)
                    nests_of_temporary_[a.name].insert(nest_count_);
            }
        for (const LinearNode& c : n.body) record_nest(c);
    }

    // Runs the nodes of one phase (no barrier among them) for every work-item, in loops over `locals`.
    void flush(std::vector<LinearNode>& cur, const std::set<std::string>& locals, std::vector<LinearNode>& out) {
        if (cur.empty()) return;
        for (const LinearNode& n : cur) record_nest(n);
        ++nest_count_;
        std::vector<LinearNode> body = std::move(cur);
        cur.clear();
        std::vector<std::string> order(locals.begin(), locals.end());
        std::sort(order.begin(), order.end(),
                  [&](const std::string& a, const std::string& b) { return axis_of(a) < axis_of(b); });
        for (const std::string& l : order) body = {loop(l, std::move(body))};
        for (LinearNode& n : body) out.push_back(std::move(n));
    }

    std::vector<LinearNode> phases(const std::vector<LinearNode>& nodes) {
        std::vector<LinearNode> out, cur;
        std::set<std::string> cur_locals;
        for (const LinearNode& n : nodes) {
            if (is_barrier(k_, n)) {
                flush(cur, cur_locals, out);
                continue;
            }
            std::set<std::string> locals;
            local_inames(n, locals);
            const bool split_inside = n.item.kind == LinearItem::Kind::EnterLoop &&
                                      (contains_barrier(n) || !one_iname_per_axis(locals));
            if (split_inside) {
                flush(cur, cur_locals, out);
                LinearNode copy = n;
                copy.body = phases(n.body);
                out.push_back(std::move(copy));
                continue;
            }
            if (!cur.empty() && locals != cur_locals) flush(cur, cur_locals, out);
            cur_locals = locals;
            cur.push_back(n);
        }
        flush(cur, cur_locals, out);
        return out;
    }

    const KernelData& k_;
    int nest_count_ = 0;
    std::map<std::string, std::set<int>> nests_of_temporary_;
};

// Gives temporary `name` one copy per work-item: an extra leading axis per local axis, indexed by the
// accessing instruction's local iname on that axis.
void privatize(KernelData& k, const std::string& name) {
    std::map<InameTag, std::string> iname_of_axis;  // l.0 -> an iname, for the extents
    for (const Instruction& insn : k.instructions) {
        if (!read_names(insn).count(name) && !written_names(insn).count(name)) continue;
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k, i).is_local()) iname_of_axis.emplace(iname_tag(k, i), i);
    }
    std::vector<InameTag> axes;
    for (const auto& [tag, iname] : iname_of_axis) axes.push_back(tag);
    std::reverse(axes.begin(), axes.end());  // l.0 varies fastest
    auto index_for = [&](const Instruction& insn, const InameTag& axis_tag) -> ExprPtr {
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k, i) == axis_tag) return var(i);
        user_error(error_kind::LoopyError, "private temporary '", name, "' lives across a barrier but instruction '", insn.id,
                   "' uses it outside the local axis ", axis_tag);
    };
    std::vector<ExprPtr> extents;
    for (const InameTag& a : axes) extents.push_back(int_lit(static_extent(k, iname_of_axis.at(a))));
    add_temporary_axes(k, name, extents, true, [&](const Instruction& insn) {
        std::vector<ExprPtr> lead;
        for (const InameTag& a : axes) lead.push_back(index_for(insn, a));
        return lead;
    });
}

// Whether some instruction writing `name` runs on a local axis. A temporary written only outside the local
// axes holds the same values for every work-item of a group, so one copy serves them all.
bool written_per_work_item(const KernelData& k, const std::string& name) {
    return std::any_of(k.instructions.begin(), k.instructions.end(), [&](const Instruction& insn) {
        return written_names(insn).count(name) &&
               std::any_of(insn.within_inames.begin(), insn.within_inames.end(),
                           [&](const std::string& i) { return iname_tag(k, i).is_local(); });
    });
}

}  // namespace

Kernel grid_as_loops(const Kernel& kernel) {
    const bool parallel = std::any_of(kernel->iname_tags.begin(), kernel->iname_tags.end(),
                                      [](const auto& t) { return t.second.is_hardware(); });
    if (!parallel) return kernel;
    GridLoops g(*kernel);
    const std::vector<LinearNode> tree = g.run(to_tree(kernel->linearization));
    KernelData k = kernel.copy();
    k.linearization = to_items(tree);
    for (const std::string& t : g.live_across_phases())
        if (written_per_work_item(k, t)) privatize(k, t);
    return Kernel(std::move(k));
}

}  // namespace loom
