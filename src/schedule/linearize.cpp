#include "schedule/linearize.h"

#include <algorithm>
#include <map>
#include <vector>

#include "ir/access.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "schedule/iname_nesting.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

bool is_hardware_tag(const std::string& tag) {
    return tag.rfind("g.", 0) == 0 || tag.rfind("l.", 0) == 0;
}

namespace {

class Linearizer {
public:
    Linearizer(const Kernel& k, bool hardware_as_loops)
        : k_(k), inames_(k.all_inames()), hardware_as_loops_(hardware_as_loops) {
        for (const Instruction& insn : k->instructions) {
            pending_.push_back(&insn);
            for (const std::string& g : insn.groups) ++group_pending_[g];
        }
        find_domain_nesting();
    }

    std::vector<LinearItem> run() {
        schedule_level();
        if (!pending_.empty()) {
            std::vector<std::string> reasons;
            for (const Instruction* insn : pending_) reasons.push_back(cat("'", insn->id, "' ", why_blocked(*insn)));
            user_error("LoopyError", "cannot linearize kernel '", k_->name, "': ", join(reasons, "; "));
        }
        return std::move(items_);
    }

private:
    // Inames that loops are made for: hardware axes are not loops.
    std::set<std::string> loop_inames(const Instruction& insn) const {
        std::set<std::string> out;
        for (const std::string& i : insn.within_inames)
            if (hardware_as_loops_ || !is_hardware_tag(k_.iname_tag(i))) out.insert(i);
        return out;
    }

    bool deps_done(const Instruction& insn) const {
        return std::all_of(insn.depends_on.begin(), insn.depends_on.end(),
                           [&](const std::string& d) { return done_.count(d) != 0; });
    }

    // A loop whose bounds are temporaries is entered only after their writers ran, in the iteration of the
    // enclosing loops that is still open (a write in an earlier, closed loop would leave stale bounds).
    bool bounds_ready(const Instruction& insn) const {
        for (const std::string& i : loop_inames(insn)) {
            const auto it = bound_writers_.find(i);
            if (it == bound_writers_.end()) continue;
            for (const std::string& w : it->second) {
                const auto ran = ran_under_.find(w);
                if (ran == ran_under_.end() || ran->second.size() > entries_.size() ||
                    !std::equal(ran->second.begin(), ran->second.end(), entries_.begin()))
                    return false;
            }
        }
        return true;
    }

    // Groups with some but not all members run (loopy's "active" groups).
    bool conflicts_with_active_group(const Instruction& insn) const {
        return std::any_of(insn.conflicts_with_groups.begin(), insn.conflicts_with_groups.end(), [&](const std::string& g) {
            const auto it = group_pending_.find(g);
            return it != group_pending_.end() && it->second > 0 && group_started_.count(g);
        });
    }

    bool runnable(const Instruction& insn) const {
        return deps_done(insn) && bounds_ready(insn) && !conflicts_with_active_group(insn);
    }

    std::string why_blocked(const Instruction& insn) const {
        std::vector<std::string> waits;
        for (const std::string& d : insn.depends_on)
            if (!done_.count(d)) waits.push_back(d);
        if (!waits.empty()) return cat("waits for ", join(waits, ", "), " (cyclic dependencies?)");
        if (!bounds_ready(insn))
            return "runs in a loop whose bounds are written in another iteration of the loops around it";
        if (conflicts_with_active_group(insn)) return "conflicts with an instruction group that cannot be finished first";
        return "cannot be placed in its loops (contradictory loop nesting?)";
    }

    std::set<std::string> active_set() const { return {active_.begin(), active_.end()}; }

    // The ready instruction that goes first: highest priority, then source order.
    const Instruction* pick(const std::vector<const Instruction*>& ready) const {
        const Instruction* best = nullptr;
        for (const Instruction* insn : ready)
            if (!best || insn->priority > best->priority) best = insn;
        return best;
    }

    std::vector<const Instruction*> ready_where(bool exact) const {
        const std::set<std::string> active = active_set();
        std::vector<const Instruction*> out;
        for (const Instruction* insn : pending_) {
            if (!runnable(*insn)) continue;
            const std::set<std::string> loops = loop_inames(*insn);
            const bool inside = std::includes(loops.begin(), loops.end(), active.begin(), active.end());
            if (inside && (loops.size() == active.size()) == exact && (exact || may_enter_from_here(loops)))
                out.push_back(insn);
        }
        return out;
    }

    // Inside an ILP loop only ILP loops open: the ILP loop is left (and entered again later) around any
    // other loop, which keeps ILP innermost as loopy's breakable ILP loops do.
    bool may_enter_from_here(const std::set<std::string>& loops) const {
        const bool in_ilp =
            std::any_of(active_.begin(), active_.end(), [&](const std::string& i) { return nesting_rank(i) == 3; });
        if (!in_ilp) return true;
        return std::all_of(loops.begin(), loops.end(), [&](const std::string& i) {
            return nesting_rank(i) == 3 || std::count(active_.begin(), active_.end(), i) != 0;
        });
    }

    void run_instruction(const Instruction* insn) {
        items_.push_back({LinearItem::Kind::RunInstruction, insn->id, "", ""});
        done_.insert(insn->id);
        ran_under_[insn->id] = entries_;
        for (const std::string& g : insn->groups) {
            --group_pending_[g];
            group_started_.insert(g);
        }
        pending_.erase(std::find(pending_.begin(), pending_.end(), insn));
    }

    // Whether `outer` must enclose `inner`, by a loop priority or by domain nesting.
    bool must_enclose(const std::string& outer, const std::string& inner) const {
        const int ro = nesting_rank(outer), ri = nesting_rank(inner);
        if (ro != ri) return ro < ri;
        for (const std::vector<std::string>& prio : k_->loop_priority) {
            const auto o = std::find(prio.begin(), prio.end(), outer), i = std::find(prio.begin(), prio.end(), inner);
            if (o != prio.end() && i != prio.end() && o < i) return true;
        }
        const auto it = nested_in_.find(inner);
        return it != nested_in_.end() && it->second.count(outer);
    }

    std::string choose_loop(const Instruction& insn) const {
        std::vector<std::string> options;
        const std::set<std::string> loops = loop_inames(insn);
        for (const std::string& i : inames_)
            if (loops.count(i) && !std::count(active_.begin(), active_.end(), i)) options.push_back(i);
        for (const std::string& cand : options) {
            const bool blocked = std::any_of(options.begin(), options.end(), [&](const std::string& other) {
                return other != cand && must_enclose(other, cand);
            });
            if (!blocked) return cand;
        }
        user_error("LoopyError", "loop priorities for instruction '", insn.id, "' are contradictory");
    }

    void schedule_level() {
        for (;;) {
            const std::vector<const Instruction*> here = ready_where(true);
            if (!here.empty()) {
                run_instruction(pick(here));
                continue;
            }
            const std::vector<const Instruction*> deeper = ready_where(false);
            if (deeper.empty()) return;
            const std::string iname = choose_loop(*pick(deeper));
            items_.push_back({LinearItem::Kind::EnterLoop, iname, "", ""});
            active_.push_back(iname);
            entries_.push_back(next_entry_++);
            schedule_level();
            entries_.pop_back();
            active_.pop_back();
            items_.push_back({LinearItem::Kind::LeaveLoop, iname, "", ""});
        }
    }

    // Group axes (0) enclose local axes (1), which enclose loops (2), which enclose ILP loops (3): as in
    // loopy, ILP inames nest innermost, whatever the loop priorities say.
    int nesting_rank(const std::string& iname) const {
        const std::string tag = k_.iname_tag(iname);
        if (tag.rfind("g.", 0) == 0) return 0;
        if (tag.rfind("l.", 0) == 0) return 1;
        return is_ilp_tag(tag) ? 3 : 2;
    }

    // The loops of a nested domain go inside those of its ancestors; a domain bounded by temporaries is
    // entered after their writers.
    void find_domain_nesting() {
        const std::vector<int> parents = domain_parents(*k_);
        for (std::size_t d = 0; d < k_->domains.size(); ++d) {
            const std::vector<std::string> dims = isl_util::set_dim_names(k_->domains[d]);
            for (int a = parents[d]; a >= 0; a = parents[static_cast<std::size_t>(a)])
                for (const std::string& outer : isl_util::set_dim_names(k_->domains[static_cast<std::size_t>(a)]))
                    for (const std::string& dim : dims) nested_in_[dim].insert(outer);
            for (const std::string& p : isl_util::param_names(k_->domains[d].space())) {
                const Variable* v = k_.find_variable(p);
                if (!v || v->is_arg()) continue;
                for (const Instruction& insn : k_->instructions)
                    if (written_names(insn).count(p))
                        for (const std::string& dim : dims) bound_writers_[dim].insert(insn.id);
            }
        }
    }

    const Kernel& k_;
    std::vector<std::string> inames_;
    bool hardware_as_loops_;
    std::vector<const Instruction*> pending_;
    std::set<std::string> done_;
    std::vector<std::string> active_;
    std::vector<LinearItem> items_;
    std::map<std::string, std::set<std::string>> nested_in_;
    std::map<std::string, std::set<std::string>> bound_writers_;  // iname -> writers of its bounds
    std::vector<long> entries_;                                   // serial numbers of the open loops
    long next_entry_ = 0;
    std::map<std::string, std::vector<long>> ran_under_;          // instruction -> open loops when it ran
    std::map<std::string, int> group_pending_;                    // group -> members not yet run
    std::set<std::string> group_started_;
};

}  // namespace

Kernel linearize(const Kernel& k, bool hardware_as_loops) {
    check_schedulable_iname_nesting(*k);
    KernelData out = k.copy();
    out.linearization = Linearizer(k, hardware_as_loops).run();
    out.linearized = true;
    return Kernel(std::make_shared<const KernelData>(std::move(out)));
}

}  // namespace loom
