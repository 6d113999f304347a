#include "schedule/dependence_legality.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/delinearize.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/eval.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "schedule/kernel_split.h"
#include "schedule/linear_tree.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using isl_util::DimOrder;

// The pairs of `rel` whose input comes before (Less), at (Equal) or after (Greater) its output, lexicographically
// over `dims` (named in both). An empty `dims` orders no pair before another: all are Equal.
isl::map lex(const isl::map& rel, const std::vector<std::string>& dims, DimOrder order) {
    std::optional<isl::map> out;
    isl::map prefix = rel;  // equal on the dims before d
    for (const std::string& d : dims) {
        if (order != DimOrder::Equal) {
            const isl::map here = isl_util::constrain_dims(prefix, d, d, order);
            out = out ? isl_util::unite(*out, here) : here;
        }
        prefix = isl_util::constrain_dims(prefix, d, d, DimOrder::Equal);
    }
    if (order == DimOrder::Equal) return prefix;
    return out ? *out : isl::map::empty(rel.space());
}

// The pairs of `rel` that are not before each other over `dims`: at the same point, or after.
isl::map not_before(const isl::map& rel, const std::vector<std::string>& dims) {
    return isl_util::unite(lex(rel, dims, DimOrder::Equal), lex(rel, dims, DimOrder::Greater));
}

// The pairs of `rel` that differ in at least one of `dims`.
isl::map differing(const isl::map& rel, const std::vector<std::string>& dims) {
    std::optional<isl::map> out;
    for (const std::string& d : dims)
        for (const DimOrder o : {DimOrder::Less, DimOrder::Greater}) {
            const isl::map here = isl_util::constrain_dims(rel, d, d, o);
            out = out ? isl_util::unite(*out, here) : here;
        }
    return out ? *out : isl::map::empty(rel.space());
}

isl::map equal_on(isl::map rel, const std::vector<std::string>& dims) {
    for (const std::string& d : dims) rel = isl_util::constrain_dims(rel, d, d, DimOrder::Equal);
    return rel;
}

// A nosync of the instruction with itself in both scopes: its author says the order of its instances does not
// matter, which waives what no barrier could give either (an order isl cannot prove).
bool order_waived(const Instruction& insn) {
    return nosync(insn, insn, SyncScope::Local) && nosync(insn, insn, SyncScope::Global);
}

// The exact accesses of one instruction to one variable, as maps from its instances to elements.
struct ExactAccesses {
    std::optional<isl::map> reads, writes;
    /// An access that is not affine in the inames though no data decides it (`c[(m // 3)*i]`, a chunk over a
    /// parametric length): the elements it touches are known, but not to isl.
    std::optional<Access> unstated;
};

enum class DepKind { Flow, Anti };

// How an instruction runs: its inames by role, and the loops around it as the linearization nests them.
struct Roles {
    std::vector<std::string> groups, locals, hardware;  // the hardware inames, by axis kind
    std::vector<std::string> loops;       // the loops around it, outermost first (ilp and vec loops included)
    std::vector<std::string> host_loops;  // those of `loops` around a global barrier: separate launches
    std::vector<std::string> ordered;     // `loops` without the vec lanes, which run at once
    std::vector<std::string> barrier_loops;  // `loops` at whose top a barrier can go: no ilp or vec loop
    std::vector<std::string> meaning;     // all its inames in the order the kernel means (see the header)
};

class LegalityChecker {
public:
    explicit LegalityChecker(const KernelData& k) : k_(k) {
        const std::vector<std::string> inames = all_inames(k);
        inames_.insert(inames.begin(), inames.end());
        writers_ = writer_map(k);
        for (const std::string& i : inames) users_[i];
        for (const Instruction& insn : k.instructions)
            for (const std::string& i : insn.within_inames) users_[i].insert(insn.id);
        for (const LinearPlace& place : linear_places(k.linearization)) {
            if (place.item->kind != LinearItem::Kind::RunInstruction) continue;
            const Instruction* insn = find_instruction(k, place.item->name);
            if (!insn) continue;
            loops_[insn->id] = place.loops;
            if (is_global_barrier(*insn)) host_loops_.insert(place.loops.begin(), place.loops.end());
        }
    }

    void check(const Instruction& insn) {
        if (insn.kind != InsnKind::Assignment || insn.atomic) return;
        const bool concurrent = std::any_of(insn.within_inames.begin(), insn.within_inames.end(),
                                            [&](const std::string& i) { return iname_tag(k_, i).is_concurrent(); });
        const auto placed = loops_.find(insn.id);
        // Without concurrent inames, and with the loops the kernel has always had, it runs as it means.
        if ((!concurrent && !k_.meant.instructions.count(insn.id)) || placed == loops_.end()) return;
        const std::set<std::string> read = read_names(insn);
        std::optional<isl::set> instances;
        std::optional<Roles> roles;
        for (const std::string& v : written_names(insn)) {
            if (!read.count(v) || !find_variable(k_, v)) continue;
            if (!instances) {
                instances = certain_instances(k_, insn);
                if (!instances) return;  // which instances run depends on data: beyond an exact check
                *instances = with_assumptions(*instances);
            }
            const ExactAccesses a = exact_accesses(insn, *instances, v);
            if (a.unstated && concurrent) refuse_unproven(insn, v, *a.unstated);
            if (!a.reads || !a.writes) continue;
            if (!roles) roles = roles_of(insn, placed->second);
            // Against the loops meant before transformations only where it writes `v` alone: another writer (an
            // accumulator's initialization) may overwrite `v` between two of its instances in that order, which
            // then do not depend on each other; only the order of its loops and dep= tell how.
            const Meant meant = writers_.at(v).size() == 1 ? meant_times(insn, *instances, roles->meaning) : Meant{};
            const isl::map flow = copies(v, *roles, isl_util::touching_pairs(*a.writes, *a.reads));
            const isl::map anti = copies(v, *roles, isl_util::touching_pairs(*a.reads, *a.writes));
            if (meant.unproven && !(isl_util::is_empty(differing(flow, roles->meaning)) && isl_util::is_empty(differing(anti, roles->meaning))))
                refuse_unproven_order(insn, v, meant, *roles);
            check_pairs(insn, v, *roles, meant, DepKind::Flow, flow);
            check_pairs(insn, v, *roles, meant, DepKind::Anti, anti);
        }
    }

private:
    // The loops the kernel meant for an instruction before transformations changed its inames or priorities
    // (KernelData::meant), as far as they are its own: their names, and its instances' values of them.
    struct Meant {
        std::vector<std::string> names;
        std::optional<isl::map> times;  // none where today's loops run them in order, or nothing was recorded
        bool unproven = false;          // today's loops reorder them, and isl cannot state their values
    };

    // `today` is the order of today's loops (Roles::meaning): where the meant loops are today's inames in that
    // order, they add nothing to it, and no isl map is made.
    Meant meant_times(const Instruction& insn, const isl::set& instances, const std::vector<std::string>& today) const {
        Meant out;
        std::vector<ExprPtr> values;
        std::vector<std::vector<std::string>> inames_of;  // per meant loop, the inames its value reads
        if (!k_.meant.instructions.count(insn.id)) return out;  // made later: no loops were meant for it
        for (const auto& [name, e] : k_.meant.loops) {
            const std::vector<std::string> names = referenced_names(e);
            if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return inames_.count(n) && !insn.within_inames.count(n); }))
                break;  // a loop it left (duplicate_inames): what comes after cannot be compared
            std::vector<std::string> own;
            for (const std::string& n : names)
                if (inames_.count(n)) own.push_back(n);
            if (own.empty()) continue;
            out.names.push_back(name);
            values.push_back(e);
            inames_of.push_back(std::move(own));
        }
        if (values.empty() || runs_in_meant_order(inames_of, today)) return out;
        out.times = affine::exact_access_map(instances, values);
        out.unproven = !out.times;
        return out;
    }

    // Whether today's loops (`today`) run the meant loops in their order without isl: each meant loop's value
    // reads inames of its own (none shared, as a join shares one), today's loops take them one meant loop after
    // the other, and each meant loop's inames in the kernel's iname order, in which a split or chunk puts the
    // outer part first (its value then grows with them lexicographically).
    bool runs_in_meant_order(const std::vector<std::vector<std::string>>& inames_of, const std::vector<std::string>& today) const {
        const std::vector<std::string> order = all_inames(k_);
        const auto rank = [&](const std::string& i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
        std::vector<std::string> expected;
        for (std::vector<std::string> own : inames_of) {
            std::sort(own.begin(), own.end(), [&](const std::string& a, const std::string& b) {
                return rank(a) < rank(b);
            });
            for (const std::string& i : own) {
                if (std::find(expected.begin(), expected.end(), i) != expected.end()) return false;
                expected.push_back(i);
            }
        }
        std::vector<std::string> ran;
        for (const std::string& i : today)
            if (std::find(expected.begin(), expected.end(), i) != expected.end()) ran.push_back(i);
        return ran == expected;
    }

    isl::set with_assumptions(const isl::set& s) const {
        const isl::set context = assumption_context(k_);
        const isl::set aligned = isl_util::align_params(s, context.space());
        return aligned.intersect_params(isl_util::align_params(context, aligned.space()));
    }

    // Accesses isl states exactly; a data-dependent index (`a[idx[i]]`) touches elements no check can know.
    ExactAccesses exact_accesses(const Instruction& insn, const isl::set& instances, const std::string& v) const {
        ExactAccesses out;
        const std::optional<std::vector<ExprPtr>> bases = radix_bases(k_, v);
        for (const Access& a : accesses_of(insn)) {
            if (a.name != v || data_dependent(k_, a) || !a.reduction_scope.empty()) continue;
            std::vector<ExprPtr> indices = storage_indices(k_, a);
            if (bases) indices = radix_digits(indices[0], *bases);  // b[i + n*j]: digits i and j (delinearize.h)
            const std::optional<isl::map> m = affine::exact_access_map(instances, indices);
            if (!m && !out.unstated) out.unstated = a;
            if (!m) continue;
            std::optional<isl::map>& slot = a.is_write ? out.writes : out.reads;
            slot = slot ? isl_util::unite(*slot, *m) : *m;
        }
        return out;
    }

    Roles roles_of(const Instruction& insn, const std::vector<std::string>& loops) const {
        Roles r;
        r.loops = loops;
        for (const std::string& i : insn.within_inames) {
            const InameTag tag = iname_tag(k_, i);
            if (tag.is_group()) r.groups.push_back(i);
            if (tag.is_local()) r.locals.push_back(i);
            if (tag.is_hardware()) r.hardware.push_back(i);
        }
        for (const std::string& l : loops) {
            const InameTag tag = iname_tag(k_, l);
            if (host_loops_.count(l)) r.host_loops.push_back(l);
            if (!tag.is_vec()) r.ordered.push_back(l);
            if (!tag.is_innermost()) r.barrier_loops.push_back(l);
        }
        r.meaning = meaning_order(insn, loops);
        return r;
    }

    // `r` with each list of inames cut down to those in `keep` (in their order).
    static Roles restricted(const Roles& r, const std::vector<std::string>& keep) {
        const auto cut = [&](const std::vector<std::string>& list) {
            std::vector<std::string> out;
            for (const std::string& i : list)
                if (std::find(keep.begin(), keep.end(), i) != keep.end()) out.push_back(i);
            return out;
        };
        return {cut(r.groups), cut(r.locals), cut(r.hardware), cut(r.loops), cut(r.host_loops), cut(r.ordered),
                cut(r.barrier_loops), cut(r.meaning)};
    }

    // The instruction's inames in the order the kernel means: the sequential loops as the linearization nests
    // them, and each concurrent iname where loop priorities and the kernel's iname order (nesting_order) place
    // it; an ilp or vec iname, a loop without its tag, also around an iname whose every user it shares and
    // more, as the linearizer would nest it (loopy's loop_nest_around_map). Hardware axes are no loops in
    // loopy's model, nor in OKL's (whose @inner loops sit inside the sequential loops around them): only
    // priorities and the iname order place them.
    std::vector<std::string> meaning_order(const Instruction& insn, const std::vector<std::string>& loops) const {
        const std::vector<std::string> order = nesting_order(k_, {insn.within_inames.begin(), insn.within_inames.end()});
        const auto rank = [&](const std::string& i) { return std::find(order.begin(), order.end(), i) - order.begin(); };
        std::vector<std::string> sequential;
        for (const std::string& l : loops)
            if (!iname_tag(k_, l).is_concurrent()) sequential.push_back(l);
        // Whether `a` must nest outside `b`.
        const auto outside = [&](const std::string& a, const std::string& b) {
            const auto sa = std::find(sequential.begin(), sequential.end(), a), sb = std::find(sequential.begin(), sequential.end(), b);
            if (sa != sequential.end() && sb != sequential.end()) return sa < sb;
            if (iname_tag(k_, a).is_hardware() || iname_tag(k_, b).is_hardware()) return false;
            const std::set<std::string>& ua = users_.at(a);
            const std::set<std::string>& ub = users_.at(b);
            return ub.size() < ua.size() && std::includes(ua.begin(), ua.end(), ub.begin(), ub.end());
        };
        std::vector<std::string> rest = order, out;
        while (!rest.empty()) {
            // The first iname (in nesting_order) that nothing left must nest outside of.
            auto next = std::find_if(rest.begin(), rest.end(), [&](const std::string& i) {
                return std::none_of(rest.begin(), rest.end(), [&](const std::string& o) { return o != i && outside(o, i); });
            });
            if (next == rest.end()) next = std::min_element(rest.begin(), rest.end(), [&](const std::string& x, const std::string& y) {
                return rank(x) < rank(y);
            });
            out.push_back(*next);
            rest.erase(next);
        }
        return out;
    }

    // Private temporaries exist once per work-item, local ones once per work-group: instances on different
    // copies touch different elements.
    isl::map copies(const std::string& v, const Roles& r, const isl::map& pairs) const {
        const Variable* var = find_variable(k_, v);
        if (!var || var->kind != VarKind::Temporary) return pairs;
        if (var->address_space == AddressSpace::Private) return equal_on(pairs, r.hardware);
        if (var->address_space == AddressSpace::Local) return equal_on(pairs, r.groups);
        return pairs;
    }

    void check_pairs(const Instruction& insn, const std::string& v, const Roles& all, const Meant& meant, DepKind kind,
                     const isl::map& touching) {
        // Pairs agree on the dims their accesses fix (an accumulator's own iname): the orders need only the others.
        const Roles r = restricted(all, isl_util::varying_dims(touching));
        if (r.meaning.empty()) return;
        // One work-item (no hardware iname varies), its loops in the kernel's order, no lanes: nothing to prove.
        std::vector<std::string> sequential_meaning;
        for (const std::string& i : r.meaning)
            if (!iname_tag(k_, i).is_hardware()) sequential_meaning.push_back(i);
        if (!meant.times && r.hardware.empty() && sequential_meaning == r.ordered && r.ordered == r.loops) return;
        const isl::map dependent = dependent_pairs(touching, r, meant);
        if (isl_util::is_empty(dependent)) return;
        if (!nosync(insn, insn, SyncScope::Global)) {
            // Different work-groups: only separate launches order them.
            const isl::map bad = not_before(differing(dependent, r.groups), r.host_loops);
            if (!isl_util::is_empty(bad)) report(insn, v, all, r, meant, kind, bad, Crossing::Groups);
        }
        const isl::map same_group = equal_on(dependent, r.groups);
        if (!nosync(insn, insn, SyncScope::Local)) {
            // Different work-items of a group: a barrier at the top of the loop whose iteration comes first.
            const isl::map bad = not_before(differing(same_group, r.locals), r.barrier_loops);
            if (!isl_util::is_empty(bad)) report(insn, v, all, r, meant, kind, bad, Crossing::WorkItems);
        }
        // One work-item: its loops run the earlier one first; vec lanes run at once, reads before writes.
        const isl::map same_item = equal_on(same_group, r.locals);
        const isl::map bad = kind == DepKind::Flow ? not_before(same_item, r.ordered) : lex(same_item, r.ordered, DimOrder::Greater);
        if (!isl_util::is_empty(bad)) report(insn, v, all, r, meant, kind, bad, Crossing::Order);
    }

    // The pairs of `touching` whose first instance comes first in the order the kernel means: that of the loops
    // it meant before transformations (where recorded), then that of today's loops (`r.meaning`).
    static isl::map dependent_pairs(const isl::map& touching, const Roles& r, const Meant& meant) {
        const isl::map by_loops = lex(touching, r.meaning, DimOrder::Less);
        if (!meant.times) return by_loops;
        const isl::map& t = *meant.times;
        const isl::map same = t.apply_range(t.reverse());
        return isl_util::unite(touching.intersect(isl_util::before(t, t)), by_loops.intersect(same));
    }

    // An instruction that reads and writes `v` at indices isl cannot state, under concurrent inames: its
    // instances' order cannot be proven, so the tags are refused, unless the instruction says the order does
    // not matter (a nosync with itself).
    void refuse_unproven(const Instruction& insn, const std::string& v, const Access& a) const {
        if (order_waived(insn)) return;
        std::vector<std::string> tagged;
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k_, i).is_concurrent()) tagged.push_back(cat(i, " on ", iname_tag(k_, i)));
        std::vector<std::string> indices;
        for (const ExprPtr& e : a.indices) indices.push_back(to_string(e));
        user_error(error_kind::DependenceViolationError, k_.name, ": '", insn.id, "' reads and writes ", v,
                   ", and its access ", v, "[", join(indices, ", "), "] is not affine in its inames, so no order of its ",
                   "instances can be proven for the concurrent inames (", join(tagged, ", "), "): fix the parameters ",
                   "that multiply inames (lp.fix_parameters; a chunk_iname over a parametric length makes such ",
                   "indices), or state that the order does not matter with a nosync of the instruction with itself");
    }

    // An instruction whose loops today run in another order than the kernel meant, where isl cannot state the
    // meant loops' values (a chunk over a parametric length): that the order keeps its dependences is unproven.
    void refuse_unproven_order(const Instruction& insn, const std::string& v, const Meant& meant, const Roles& r) const {
        if (order_waived(insn)) return;
        user_error(error_kind::DependenceViolationError, k_.name, ": '", insn.id, "' reads and writes ", v,
                   ", and its loops now run in another order (", join(r.loops, ", "), ") than the kernel meant (",
                   join(meant.names, ", "), "), whose values are not affine in today's inames, so no order of its ",
                   "instances can be proven: fix the parameters that multiply inames (lp.fix_parameters; a chunk_iname ",
                   "over a parametric length makes such values), keep the order, or state that it does not matter ",
                   "with a nosync of the instruction with itself");
    }

    enum class Crossing { Groups, WorkItems, Order };

    // "i_outer=1, i_inner=0" from the coordinates of an instance, starting at `first`.
    static std::string instance(const std::vector<std::string>& dims, const std::vector<long>& coords, std::size_t first) {
        std::vector<std::string> parts;
        for (std::size_t d = 0; d < dims.size(); ++d) parts.push_back(cat(dims[d], "=", coords[first + d]));
        return join(parts, ", ");
    }

    // `a[255]`: the element an access of `insn` to `v` touches at the instance `values`, as written.
    std::string element(const Instruction& insn, const std::string& v, bool write,
                        const std::map<std::string, std::int64_t>& values, const std::map<std::string, std::int64_t>& other,
                        bool other_write) const {
        std::vector<std::vector<std::int64_t>> other_elements;
        for (const Access& a : accesses_of(insn))
            if (a.name == v && a.is_write == other_write)
                if (const auto e = evaluated(a, other)) other_elements.push_back(*e);
        std::string fallback = v;
        for (const Access& a : accesses_of(insn)) {
            if (a.name != v || a.is_write != write) continue;
            const auto e = evaluated(a, values);
            if (!e) continue;
            std::vector<std::string> text;
            for (const std::int64_t x : *e) text.push_back(std::to_string(x));
            const std::string shown = text.empty() ? v : cat(v, "[", join(text, ", "), "]");
            if (std::find(other_elements.begin(), other_elements.end(), *e) != other_elements.end()) return shown;
            fallback = shown;
        }
        return fallback;
    }

    static std::optional<std::vector<std::int64_t>> evaluated(const Access& a, const std::map<std::string, std::int64_t>& values) {
        std::vector<std::int64_t> out;
        for (const ExprPtr& e : a.indices) {
            const std::optional<std::int64_t> x = eval_int(e, values);
            if (!x) return std::nullopt;
            out.push_back(*x);
        }
        return out;
    }

    // The first iname of `names` on which the witness pair differs, with its tag: "i_outer on g.0".
    std::string differing_iname(const std::vector<std::string>& names, const std::map<std::string, std::int64_t>& x,
                                const std::map<std::string, std::int64_t>& y) const {
        for (const std::string& n : names)
            if (x.at(n) != y.at(n)) return cat(n, " on ", iname_tag(k_, n));
        return "";
    }

    // `all` names the instruction's inames for the message, `r` those the witness pair may differ in.
    [[noreturn]] void report(const Instruction& insn, const std::string& v, const Roles& all, const Roles& r,
                             const Meant& meant, DepKind kind, const isl::map& bad, Crossing crossing) const {
        const isl_util::PointValues pt = *isl_util::sample_point(bad.wrap());
        const std::vector<std::string> dims = isl_util::set_dim_names(bad.domain());
        std::map<std::string, std::int64_t> x, y;
        for (const auto& [name, value] : pt.params) x[name] = y[name] = value;
        for (std::size_t d = 0; d < dims.size(); ++d) {
            x[dims[d]] = pt.coordinates[d];
            y[dims[d]] = pt.coordinates[dims.size() + d];
        }
        // The later instance (y) reads what the earlier (x) wrote, or writes what it read.
        const bool flow = kind == DepKind::Flow;
        const std::string later = cat("instance (", instance(dims, pt.coordinates, dims.size()), ") of '", insn.id, "'");
        const std::string earlier = cat("its instance (", instance(dims, pt.coordinates, 0), ")");
        const std::string what = flow ? cat(later, " reads ", element(insn, v, false, y, x, true), ", written by ", earlier)
                                      : cat(later, " writes ", element(insn, v, true, y, x, false), ", read by ", earlier);
        std::string why;
        switch (crossing) {
            case Crossing::Groups: {
                const bool same_launch = r.host_loops.empty() || !isl_util::is_empty(lex(bad, r.host_loops, DimOrder::Equal));
                why = cat("which runs in another work-group (", differing_iname(r.groups, x, y), ")",
                          same_launch ? "" : cat(" in an earlier launch of the host loops (", join(all.host_loops, ", "), ")"),
                          same_launch ? ": only a global barrier orders work-groups, and none can go between two "
                                        "instances of one instruction"
                                      : "",
                          "; keep the iname that carries the dependence sequential");
                break;
            }
            case Crossing::WorkItems:
                why = cat("which runs on another work-item of the group (", differing_iname(r.locals, x, y), ") ",
                          isl_util::is_empty(lex(bad, r.barrier_loops, DimOrder::Equal)) ? "later in the code" : "at the same point of the code",
                          ": no barrier can order them; keep the iname that carries the dependence sequential");
                break;
            case Crossing::Order: {
                const std::string lanes = differing_iname(r.ordered, x, y).empty() ? lane_note(x, y) : "";
                why = lanes.empty() ? cat("which the loop order (", join(all.loops, ", "), ") now runs after it")
                                    : cat("which runs at once with it as lanes of one vector (", lanes,
                                          "): all lanes read before any writes");
                break;
            }
        }
        std::vector<std::string> params;
        for (const auto& [name, value] : pt.params) params.push_back(cat(name, "=", value));
        const std::string order = meant.times ? cat(join(meant.names, ", "), " as before the transformations")
                                              : join(all.meaning, ", ");
        user_error(error_kind::DependenceViolationError, k_.name, ": ", what, " earlier in the kernel's sequential order (",
                   order, "), ", why, params.empty() ? "" : cat(" (with ", join(params, ", "), ")"));
    }

    std::string lane_note(const std::map<std::string, std::int64_t>& x, const std::map<std::string, std::int64_t>& y) const {
        for (const auto& [name, value] : x)
            if (iname_tag(k_, name).is_vec() && y.at(name) != value) return cat(name, " on vec");
        return "";
    }

    const KernelData& k_;
    std::set<std::string> inames_;
    std::map<std::string, std::vector<const Instruction*>> writers_;  // variable -> the instructions writing it
    std::map<std::string, std::set<std::string>> users_;              // iname -> the instructions running in it
    std::map<std::string, std::vector<std::string>> loops_;  // instruction -> the loops around it
    std::set<std::string> host_loops_;
};

}  // namespace

void check_dependence_legality(const KernelData& k) {
    isl_util::guard(error_kind::InternalError, cat("checking the dependences of kernel '", k.name, "'"), [&] {
        LegalityChecker checker(k);
        for (const Instruction& insn : k.instructions) checker.check(insn);
    });
}

}  // namespace loom
