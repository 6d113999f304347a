#include "schedule/linearize.h"

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "ir/access.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "schedule/iname_nesting.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom {

namespace {

using InameSet = std::set<std::string>;

// Where the search stands: what ran, which loops are open, and what each open loop has run so far.
struct SearchState {
    std::vector<LinearItem> items;
    std::vector<const Instruction*> pending;  // in source order
    std::set<std::string> done;
    std::vector<std::string> active;      // open loops, outermost first
    std::vector<bool> ran_inside;         // per open loop: an instruction ran since it was entered
    std::vector<long> entries;            // per open loop: its serial number
    long next_entry = 0;
    std::map<std::string, std::vector<long>> ran_under;  // instruction -> open loops when it ran
    std::map<std::string, int> group_pending;            // group -> members not yet run
    std::set<std::string> group_started;
};

// loopy's linearization (loopy/schedule, the "legacy" algorithm): a depth-first search that runs every
// instruction whose dependencies are done as soon as exactly its loops are open, leaves a loop only when
// no instruction that has not run needs it, and otherwise enters a loop that brings some instruction
// closer to running — backtracking over that choice when it leads to a dead end. ILP loops are the one
// exception: they may be left and entered again (privatization makes that safe), as loopy's breakable
// inames.
class Linearizer {
public:
    Linearizer(const Kernel& k, bool hardware_as_loops) : k_(k), hardware_as_loops_(hardware_as_loops) {
        const std::vector<std::string> inames = k.all_inames();
        for (std::size_t n = 0; n < inames.size(); ++n) iname_order_[inames[n]] = static_cast<int>(n);
        for (const Instruction& insn : k->instructions) {
            loops_[insn.id] = loop_inames(insn);
            top_priority_ = std::max(top_priority_, insn.priority);
        }
        find_nesting_around();
        find_loop_dependencies();
        find_bound_writers();
    }

    std::vector<LinearItem> run() {
        SearchState start;
        for (const Instruction& insn : k_->instructions) {
            start.pending.push_back(&insn);
            for (const std::string& g : insn.groups) ++start.group_pending[g];
        }
        if (search(std::move(start))) return std::move(result_);
        if (budget_ <= 0)
            user_error(error_kind::LoopyError, "cannot linearize kernel '", k_->name, "': no order found after ", kBudget,
                       " loop choices (simplify the loop nesting with prioritize_loops)");
        std::vector<std::string> reasons;
        for (const Instruction* insn : deepest_.pending)
            reasons.push_back(cat("'", insn->id, "' ", why_blocked(deepest_, *insn)));
        user_error(error_kind::LoopyError, "cannot linearize kernel '", k_->name, "': ", join(reasons, "; "));
    }

private:
    static constexpr long kBudget = 20000;  // loop entries tried before giving up

    bool is_loop(const std::string& iname) const {
        return hardware_as_loops_ || !k_.iname_tag(iname).is_hardware();
    }

    // Inames that loops are made for: hardware axes are not loops.
    InameSet loop_inames(const Instruction& insn) const {
        InameSet out;
        for (const std::string& i : insn.within_inames)
            if (is_loop(i)) out.insert(i);
        return out;
    }

    bool is_breakable(const std::string& iname) const { return k_.iname_tag(iname).is_innermost(); }

    // Group axes (0) enclose local axes (1), which enclose loops (2), which enclose ILP and vec loops (3): as
    // in loopy, those nest innermost, whatever the loop priorities say.
    int nesting_rank(const std::string& iname) const {
        const InameTag tag = k_.iname_tag(iname);
        if (tag.is_group()) return 0;
        if (tag.is_local()) return 1;
        return tag.is_innermost() ? 3 : 2;
    }

    // An iname nests around another when the other's domain uses it as a parameter, or when every instruction that uses
    // the other also uses it (loopy's loop_nest_around_map). ILP inames run innermost and nest around none.
    void find_nesting_around() {
        std::map<std::string, std::set<std::string>> users;  // iname -> instructions in it
        for (const Instruction& insn : k_->instructions)
            for (const std::string& i : insn.within_inames) users[i].insert(insn.id);
        for (const auto& [inner, inner_users] : users)
            for (const auto& [outer, outer_users] : users)
                if (inner != outer && !is_breakable(outer) && inner_users.size() < outer_users.size() &&
                    std::includes(outer_users.begin(), outer_users.end(), inner_users.begin(), inner_users.end()))
                    around_[inner].insert(outer);
        // A domain's bounds may use outer inames as parameters: those loops go around its inames. Not ILP and
        // vec loops, which stay innermost (as in loopy): the loops inside their domains run over the values
        // any of their iterations needs, each copy under its guard.
        const std::vector<std::string> inames = k_.all_inames();
        const std::set<std::string> all(inames.begin(), inames.end());
        for (const isl::set& d : k_->domains)
            for (const std::string& outer : isl_util::param_names(d.space()))
                if (all.count(outer) && !is_breakable(outer))
                    for (const std::string& inner : isl_util::set_dim_names(d)) around_[inner].insert(outer);
    }

    // Instructions that must have run before a loop is entered: the dependencies, outside that loop, of the
    // instructions inside it, when nothing forces them into it (loopy's loop_insn_dep_map).
    void find_loop_dependencies() {
        std::map<std::string, InameSet> nests_with;  // iname -> inames some instruction shares with it
        for (const Instruction& insn : k_->instructions)
            for (const std::string& a : loops_.at(insn.id)) nests_with[a].insert(loops_.at(insn.id).begin(), loops_.at(insn.id).end());
        for (const Instruction& insn : k_->instructions)
            for (const std::string& iname : loops_.at(insn.id)) {
                if (is_breakable(iname)) continue;  // entered again where a dependency needs it
                for (const std::string& dep_id : insn.depends_on) {
                    const Instruction* dep = k_.find_instruction(dep_id);
                    if (!dep || dep->within_inames.count(iname)) continue;
                    const bool outside = std::all_of(dep->within_inames.begin(), dep->within_inames.end(), [&](const std::string& d) {
                        return around_[iname].count(d) || !is_loop(d) || is_breakable(d) || !nests_with[iname].count(d);
                    });
                    if (outside) loop_deps_[iname].insert(dep_id);
                }
            }
    }

    // A loop whose bounds are temporaries is entered only after their writers ran.
    void find_bound_writers() {
        for (const isl::set& dom : k_->domains) {
            for (const std::string& p : isl_util::param_names(dom.space())) {
                const Variable* v = k_.find_variable(p);
                if (!v || v->is_arg()) continue;
                for (const Instruction& insn : k_->instructions)
                    if (written_names(insn).count(p))
                        for (const std::string& dim : isl_util::set_dim_names(dom)) bound_writers_[dim].insert(insn.id);
            }
        }
    }

    static bool deps_done(const SearchState& s, const Instruction& insn) {
        return std::all_of(insn.depends_on.begin(), insn.depends_on.end(),
                           [&](const std::string& d) { return s.done.count(d) != 0; });
    }

    // Groups with some but not all members run (loopy's "active" groups).
    static bool conflicts_with_active_group(const SearchState& s, const Instruction& insn) {
        return std::any_of(insn.conflicts_with_groups.begin(), insn.conflicts_with_groups.end(), [&](const std::string& g) {
            const auto it = s.group_pending.find(g);
            return it != s.group_pending.end() && it->second > 0 && s.group_started.count(g);
        });
    }

    // Whether `insn` may run inside some deeper nest of the open loops (loopy's "reachable").
    bool reachable(const SearchState& s, const Instruction& insn) const {
        const InameSet& loops = loops_.at(insn.id);
        return deps_done(s, insn) && !conflicts_with_active_group(s, insn) &&
               std::all_of(s.active.begin(), s.active.end(), [&](const std::string& a) { return loops.count(a) != 0; });
    }

    // The ready instruction that goes first: highest priority, then source order. The first ready one of the
    // kernel's top priority ends the scan, so that a kernel of many instructions is not scanned whole per step.
    const Instruction* ready_instruction(const SearchState& s) const {
        const Instruction* best = nullptr;
        for (const Instruction* insn : s.pending) {
            if (loops_.at(insn->id).size() != s.active.size() || !reachable(s, *insn)) continue;
            if (!best || insn->priority > best->priority) best = insn;
            if (best->priority == top_priority_) break;
        }
        return best;
    }

    static void run_instruction(SearchState& s, const Instruction* insn) {
        s.items.push_back({LinearItem::Kind::RunInstruction, insn->id, "", ""});
        s.done.insert(insn->id);
        s.ran_under[insn->id] = s.entries;
        std::fill(s.ran_inside.begin(), s.ran_inside.end(), true);
        for (const std::string& g : insn->groups) {
            --s.group_pending[g];
            s.group_started.insert(g);
        }
        s.pending.erase(std::find(s.pending.begin(), s.pending.end(), insn));
    }

    bool needed_by_pending(const SearchState& s, const std::string& iname, bool only_reachable) const {
        return std::any_of(s.pending.begin(), s.pending.end(), [&](const Instruction* insn) {
            return loops_.at(insn->id).count(iname) && (!only_reachable || reachable(s, *insn));
        });
    }

    // The innermost loop may be left once something ran in it and no instruction that has not run needs it;
    // an ILP loop as soon as no instruction that needs it can run deeper now.
    bool can_leave(const SearchState& s) const {
        if (s.active.empty() || !s.ran_inside.back()) return false;
        const std::string& top = s.active.back();
        return !needed_by_pending(s, top, is_breakable(top));
    }

    static void leave_loop(SearchState& s) {
        s.items.push_back({LinearItem::Kind::LeaveLoop, s.active.back(), "", ""});
        s.active.pop_back();
        s.ran_inside.pop_back();
        s.entries.pop_back();
    }

    static void enter_loop(SearchState& s, const std::string& iname) {
        s.items.push_back({LinearItem::Kind::EnterLoop, iname, "", ""});
        s.active.push_back(iname);
        s.ran_inside.push_back(false);
        s.entries.push_back(s.next_entry++);
    }

    // The writers of the loop's bounds ran in the iteration of the open loops that is still open (a write in
    // an earlier, closed loop would leave stale bounds).
    bool bounds_ready(const SearchState& s, const std::string& iname) const {
        const auto it = bound_writers_.find(iname);
        if (it == bound_writers_.end()) return true;
        return std::all_of(it->second.begin(), it->second.end(), [&](const std::string& w) {
            const auto ran = s.ran_under.find(w);
            return ran != s.ran_under.end() && ran->second.size() <= s.entries.size() &&
                   std::equal(ran->second.begin(), ran->second.end(), s.entries.begin());
        });
    }

    bool may_enter(const SearchState& s, const std::string& iname) const {
        const auto open = [&](const std::string& i) { return !is_loop(i) || std::count(s.active.begin(), s.active.end(), i); };
        const auto around = around_.find(iname);
        if (around != around_.end() && !std::all_of(around->second.begin(), around->second.end(), open)) return false;
        const auto deps = loop_deps_.find(iname);
        if (deps != loop_deps_.end() &&
            !std::all_of(deps->second.begin(), deps->second.end(), [&](const std::string& d) { return s.done.count(d); }))
            return false;
        // Inside an ILP loop only ILP loops open, which keeps ILP innermost.
        const bool in_ilp = std::any_of(s.active.begin(), s.active.end(), [&](const std::string& a) { return nesting_rank(a) == 3; });
        return (!in_ilp || nesting_rank(iname) == 3) && bounds_ready(s, iname);
    }

    // The loops worth entering, in the order to try them. A loop is useful when some reachable instruction
    // runs inside it and needs no loop of a lower nesting rank first; its usefulness is the highest priority
    // of those instructions. Loop priorities come first (loopy's priority tiers, in which the first iname of
    // a priority goes before the rest), then the other loops, ILP loops last (tiered alike); within a tier,
    // the most useful loop first, then the kernel's iname order.
    std::vector<std::string> loops_to_try(const SearchState& s) const {
        std::map<std::string, int> usefulness;
        for (const Instruction* insn : s.pending) {
            if (!reachable(s, *insn)) continue;
            int lowest = 4;
            std::vector<std::string> closed;
            for (const std::string& i : loops_.at(insn->id))
                if (!std::count(s.active.begin(), s.active.end(), i)) {
                    closed.push_back(i);
                    lowest = std::min(lowest, nesting_rank(i));
                }
            for (const std::string& i : closed)
                if (nesting_rank(i) == lowest && may_enter(s, i)) {
                    const auto [it, fresh] = usefulness.try_emplace(i, insn->priority);
                    if (!fresh) it->second = std::max(it->second, insn->priority);
                }
        }
        std::vector<std::string> out;
        for (const auto& [i, u] : usefulness) out.push_back(i);
        // ILP loops after all others, among themselves in the priorities' order too (which privatization
        // gave their temporaries' axes).
        const auto tier = [&](const std::string& i) {
            return (nesting_rank(i) == 3 ? 1 << 20 : 0) + priority_tier(i, usefulness);
        };
        std::sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
            const int ta = tier(a), tb = tier(b);
            if (ta != tb) return ta < tb;
            if (usefulness.at(a) != usefulness.at(b)) return usefulness.at(a) > usefulness.at(b);
            return iname_order_.at(a) < iname_order_.at(b);
        });
        return out;
    }

    // The tier of `iname` among the useful loops: 0 when no useful loop has priority over it, one more per
    // useful loop that must go before it, a large tier for loops no priority names.
    int priority_tier(const std::string& iname, const std::map<std::string, int>& useful) const {
        bool named = false;
        int before = 0;
        for (const std::vector<std::string>& prio : k_->loop_priority) {
            const auto self = std::find(prio.begin(), prio.end(), iname);
            if (self == prio.end()) continue;
            named = true;
            for (auto o = prio.begin(); o != self; ++o)
                if (useful.count(*o)) ++before;
        }
        return named ? before : (1 << 19);
    }

    // Runs, leaves and enters from `s` until every instruction ran; false at a dead end.
    bool search(SearchState s) {
        for (;;) {
            check_deadline("linearization");  // a search over thousands of instructions is one long stage
            if (const Instruction* insn = ready_instruction(s)) {
                run_instruction(s, insn);
            } else if (can_leave(s)) {
                leave_loop(s);
            } else {
                break;
            }
        }
        if (s.pending.empty() && s.active.empty()) {
            result_ = std::move(s.items);
            return true;
        }
        if (!failed_.insert(state_key(s)).second) return false;
        for (const std::string& iname : loops_to_try(s)) {
            if (--budget_ < 0) return false;
            SearchState next = s;
            enter_loop(next, iname);
            if (search(std::move(next))) return true;
        }
        // An ILP loop that some instruction could still use deeper may also be left.
        if (!s.active.empty() && s.ran_inside.back() && is_breakable(s.active.back())) {
            leave_loop(s);
            if (search(std::move(s))) return true;
        } else if (s.done.size() >= deepest_.done.size()) {
            deepest_ = std::move(s);
        }
        return false;
    }

    // What decides the rest of the search from a state: what ran, and which loops are open.
    static std::string state_key(const SearchState& s) {
        std::string key;
        for (std::size_t n = 0; n < s.active.size(); ++n) key += s.active[n] + (s.ran_inside[n] ? "+" : "-") + ",";
        key += "|";
        for (const std::string& d : s.done) key += d + ",";
        return key;
    }

    std::string why_blocked(const SearchState& s, const Instruction& insn) const {
        std::vector<std::string> waits;
        for (const std::string& d : insn.depends_on)
            if (!s.done.count(d)) waits.push_back(d);
        if (!waits.empty()) return cat("waits for ", join(waits, ", "), " (cyclic dependencies?)");
        if (conflicts_with_active_group(s, insn)) return "conflicts with an instruction group that cannot be finished first";
        for (const std::string& i : loops_.at(insn.id)) {
            if (std::count(s.active.begin(), s.active.end(), i)) continue;
            const auto deps = loop_deps_.find(i);
            std::vector<std::string> before;
            if (deps != loop_deps_.end())
                for (const std::string& d : deps->second)
                    if (!s.done.count(d)) before.push_back(d);
            if (!before.empty())
                return cat("runs in loop '", i, "', which can only start after ", join(before, ", "),
                           " (dependencies, outside that loop, of instructions inside it)");
        }
        for (const std::string& i : loops_.at(insn.id))
            if (!bounds_ready(s, i))
                return "runs in a loop whose bounds are written in another iteration of the loops around it";
        const InameSet& loops = loops_.at(insn.id);
        for (const std::string& open : s.active)
            if (!loops.count(open))
                return cat("must run outside loop '", open, "', which cannot close while instructions that need it have "
                           "not run (use separate inames, e.g. with duplicate_inames)");
        return "cannot be placed in its loops (contradictory loop nesting?)";
    }

    const Kernel& k_;
    bool hardware_as_loops_;
    std::map<std::string, int> iname_order_;
    std::map<std::string, InameSet> loops_;        // instruction -> its loops
    std::map<std::string, InameSet> around_;       // iname -> inames that must be open before it
    std::map<std::string, InameSet> loop_deps_;    // iname -> instructions that run before its loop
    std::map<std::string, InameSet> bound_writers_;  // iname -> writers of its bounds
    SearchState deepest_;                           // the dead end that ran the most, for the error
    std::set<std::string> failed_;                  // dead ends seen, by state_key
    std::vector<LinearItem> result_;
    long budget_ = kBudget;
    int top_priority_ = std::numeric_limits<int>::min();  // the highest priority of an instruction
};

}  // namespace

Kernel linearize(const Kernel& k, bool hardware_as_loops) {
    check_schedulable_iname_nesting(*k);
    KernelData out = k.copy();
    out.linearization = Linearizer(k, hardware_as_loops).run();
    out.linearized = true;
    return Kernel(std::move(out));
}

}  // namespace loom
