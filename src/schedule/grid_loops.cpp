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

int axis_of(const std::string& tag) { return std::stoi(tag.substr(2)); }

class GridLoops {
public:
    explicit GridLoops(const KernelData& k) : k_(k) {}

    std::vector<LinearNode> run(const std::vector<LinearNode>& tree) {
        std::vector<LinearNode> body = phases(tree);
        // Group axes outermost, axis 0 innermost among them: one loop per axis, which stands for every
        // iname on that axis (see the loop nest).
        std::set<std::string> axes;
        for (const std::string& g : hardware_of_kind('g'))
            if (axes.insert(tag(g)).second) body = {loop(g, std::move(body))};
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
    std::string tag(const std::string& iname) const {
        const auto it = k_.iname_tags.find(iname);
        return it == k_.iname_tags.end() ? "" : it->second;
    }

    // Hardware inames of kind 'g' or 'l' that the instructions use, highest axis first.
    std::vector<std::string> hardware_of_kind(char kind) const {
        std::set<std::string> used;
        for (const LinearItem& it : k_.linearization)
            if (it.kind == LinearItem::Kind::RunInstruction)
                for (const std::string& i : find_instruction(k_, it.name)->within_inames)
                    if (is_hardware_tag(tag(i)) && tag(i)[0] == kind) used.insert(i);
        std::vector<std::string> out(used.begin(), used.end());
        std::stable_sort(out.begin(), out.end(),
                         [&](const std::string& a, const std::string& b) { return axis_of(tag(a)) > axis_of(tag(b)); });
        return out;
    }

    static LinearNode loop(const std::string& iname, std::vector<LinearNode> body) {
        return LinearNode{{LinearItem::Kind::EnterLoop, iname, "", ""}, std::move(body)};
    }

    void local_inames(const LinearNode& n, std::set<std::string>& out) const {
        if (n.item.kind == LinearItem::Kind::RunInstruction) {
            for (const std::string& i : find_instruction(k_, n.item.name)->within_inames)
                if (tag(i).rfind("l.", 0) == 0) out.insert(i);
        }
        for (const LinearNode& c : n.body) local_inames(c, out);
    }

    bool contains_barrier(const LinearNode& n) const {
        return is_barrier(k_, n) ||
               std::any_of(n.body.begin(), n.body.end(), [&](const LinearNode& c) { return contains_barrier(c); });
    }

    bool one_iname_per_axis(const std::set<std::string>& inames) const {
        std::set<std::string> tags;
        for (const std::string& i : inames)
            if (!tags.insert(tag(i)).second) return false;
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
                  [&](const std::string& a, const std::string& b) { return axis_of(tag(a)) < axis_of(tag(b)); });
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
    std::map<std::string, std::string> iname_of_axis;  // "l.0" -> an iname, for the extents
    for (const Instruction& insn : k.instructions) {
        if (!read_names(insn).count(name) && !written_names(insn).count(name)) continue;
        for (const std::string& i : insn.within_inames) {
            const auto t = k.iname_tags.find(i);
            if (t != k.iname_tags.end() && t->second.rfind("l.", 0) == 0) iname_of_axis.emplace(t->second, i);
        }
    }
    std::vector<std::string> axes;
    for (const auto& [tag, iname] : iname_of_axis) axes.push_back(tag);
    std::reverse(axes.begin(), axes.end());  // l.0 varies fastest
    auto index_for = [&](const Instruction& insn, const std::string& axis_tag) -> ExprPtr {
        for (const std::string& i : insn.within_inames)
            if (k.iname_tags.count(i) && k.iname_tags.at(i) == axis_tag) return var(i);
        user_error("LoopyError", "private temporary '", name, "' lives across a barrier but instruction '", insn.id,
                   "' uses it outside the local axis ", axis_tag);
    };
    std::vector<ExprPtr> extents;
    for (const std::string& a : axes) extents.push_back(int_lit(static_extent(k, iname_of_axis.at(a))));
    add_temporary_axes(k, name, extents, true, [&](const Instruction& insn) {
        std::vector<ExprPtr> lead;
        for (const std::string& a : axes) lead.push_back(index_for(insn, a));
        return lead;
    });
}

}  // namespace

Kernel grid_as_loops(const Kernel& kernel) {
    const bool parallel = std::any_of(kernel->iname_tags.begin(), kernel->iname_tags.end(),
                                      [](const auto& t) { return is_hardware_tag(t.second); });
    if (!parallel) return kernel;
    GridLoops g(*kernel);
    const std::vector<LinearNode> tree = g.run(to_tree(kernel->linearization));
    KernelData k = kernel.copy();
    k.linearization = to_items(tree);
    for (const std::string& t : g.live_across_phases()) privatize(k, t);
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
