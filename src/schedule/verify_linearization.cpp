#include "schedule/verify_linearization.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "schedule/linear_tree.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// An instruction as the linearization runs it.
struct Placement {
    const Instruction* insn;
    std::vector<std::string> loops;  // the sequential loops around it, outermost first
    std::vector<long> positions;     // see LinearPlace
};

// The instances of an instruction and when they run.
struct Instances {
    std::vector<std::string> dims;  // see instance_dims
    isl::set set;                   // named after the instruction
    isl::map schedule;              // instance -> time: the 2d+1 schedule, the same for all work-items
};

// The number of loops (the same loop, not two loops over one iname) around both.
std::size_t common_loops(const Placement& a, const Placement& b) {
    std::size_t c = 0;
    while (c < a.loops.size() && c < b.loops.size() && a.loops[c] == b.loops[c] && a.positions[c] == b.positions[c]) ++c;
    return c;
}

// Whether a's item comes before b's in the linearization (then, inside the loops around both, each
// iteration runs a before b).
bool precedes(const Placement& a, const Placement& b) {
    const std::size_t c = common_loops(a, b);
    return a.positions[c] < b.positions[c];
}

// The loop inames the two share that are not loops around both (two loops over one iname).
std::vector<std::string> shared_separate_loops(const Placement& a, const Placement& b) {
    std::vector<std::string> out;
    for (std::size_t d = common_loops(a, b); d < a.loops.size(); ++d)
        if (std::find(b.loops.begin(), b.loops.end(), a.loops[d]) != b.loops.end()) out.push_back(a.loops[d]);
    return out;
}

// A read whose value is meant to come from the same iteration of the loops that `reader` shares with
// `writer`, a prerequisite of it that writes `variable`.
struct CheckedRead {
    const Placement* writer;
    const Placement* reader;
    std::string variable;
};

// The relations of one instruction with one variable (each nullopt when there is none).
struct Accesses {
    std::optional<isl::union_map> certain_writes, possible_writes, exact_reads;
};

// The accesses of the variables of the checked reads, by instruction (placement) and variable.
using AccessTable = std::map<std::pair<const Placement*, std::string>, Accesses>;

void add(std::optional<isl::union_map>& acc, const isl::map& m) {
    acc = acc ? acc->unite(isl::union_map(m)) : isl::union_map(m);
}

// The instance dimension that stands for hardware axis `tag` ("l.0") in an instruction without an iname on it,
// and back: the axis of a stand-in, nullopt for an iname.
const std::string stand_in_prefix = "_loom_axis_";
std::string stand_in(const InameTag& tag) { return stand_in_prefix + to_string(tag); }
std::optional<InameTag> stood_in_axis(const std::string& dim) {
    if (dim.rfind(stand_in_prefix, 0) != 0) return std::nullopt;
    return parse_iname_tag(dim.substr(stand_in_prefix.size()));
}

class Verifier {
public:
    explicit Verifier(const KernelData& k) : k_(k) {
        for (const Instruction& insn : k.instructions)
            for (const std::string& i : insn.within_inames)
                if (iname_tag(k, i).is_hardware()) axes_.insert(iname_tag(k, i));
        place_instructions();
    }

    // Instances that agree on the inames they share agree on the loops around both (shared inames), so the
    // first item that tells the two apart decides their order: where the prerequisite's comes first, all is
    // well. Elsewhere isl decides (a prerequisite without instances may run anywhere).
    void check_dependencies() {
        for (const Placement& r : placements_)
            for (const std::string& dep : r.insn->depends_on) {
                const Placement* w = placement_of(dep);
                if (!w || w == &r || precedes(*w, r)) continue;
                const isl::map early =
                    agreeing(*w, r, false).intersect(isl_util::not_before(instances(*w).schedule, instances(r).schedule));
                if (!early.is_empty()) report_order(*w, r, early);
            }
    }

    void check_dataflow() {
        std::vector<CheckedRead> checked;
        for (const CheckedRead& c : reads_from_prerequisites())
            if (!settled_by_order(c)) checked.push_back(c);
        if (checked.empty()) return;
        const AccessTable table = access_table(checked);
        const isl::union_map flow = last_writers(table);
        for (const CheckedRead& c : checked) {
            const std::optional<isl::union_map>& writes = table.at({c.writer, c.variable}).certain_writes;
            if (!writes) continue;
            const isl::map same = agreeing(*c.writer, *c.reader, true);
            // The elements the reader expects from the writer's instance in its own iteration of their loops.
            const isl::union_set expected = isl::union_map(same.reverse()).apply_range(*writes).wrap();
            const isl::union_map from_other_iteration = flow.intersect_domain(isl::union_set(instances(*c.writer).set))
                                                            .intersect_range(expected)
                                                            .range_factor_domain()
                                                            .subtract(isl::union_map(same));
            if (!from_other_iteration.is_empty())
                report_stale_read(*c.writer, *c.reader, c.variable, from_other_iteration.extract_map(same.space()));
        }
    }

private:
    void place_instructions() {
        const std::vector<LinearPlace> places = linear_places(k_.linearization);
        for (const LinearPlace& place : places) {
            depth_ = std::max(depth_, place.loops.size());
            if (place.item->kind != LinearItem::Kind::RunInstruction) continue;
            const Instruction* insn = find_instruction(k_, place.item->name);
            if (!insn)
                internal_error("the linearization of kernel '", k_.name, "' runs '", place.item->name,
                               "', which is no instruction");
            const auto [it, fresh] = index_.emplace(insn->id, placements_.size());
            if (!fresh) internal_error("the linearization of kernel '", k_.name, "' runs '", insn->id, "' twice");
            check_loops(*insn, place.loops);
            placements_.push_back({insn, place.loops, place.positions});
        }
        for (const Instruction& insn : k_.instructions)
            if (!index_.count(insn.id))
                internal_error("the linearization of kernel '", k_.name, "' never runs '", insn.id, "'");
    }

    // An instruction runs inside the loops of its sequential inames, each once, and no others (work-items are
    // no loops).
    void check_loops(const Instruction& insn, const std::vector<std::string>& loops) const {
        const std::set<std::string> around(loops.begin(), loops.end());
        for (const std::string& l : loops) {
            if (!insn.within_inames.count(l))
                internal_error("the linearization of kernel '", k_.name, "' runs '", insn.id, "' in loop '", l,
                               "', which is not one of its inames (",
                               join({insn.within_inames.begin(), insn.within_inames.end()}, ", "), ")");
            if (iname_tag(k_, l).is_hardware())
                internal_error("the linearization of kernel '", k_.name, "' runs '", insn.id, "' in a loop over '", l,
                               "', which is a hardware axis (", iname_tag(k_, l), ")");
            if (std::count(loops.begin(), loops.end(), l) > 1)
                internal_error("the linearization of kernel '", k_.name, "' runs '", insn.id, "' in two loops over '",
                               l, "', one inside the other");
        }
        for (const std::string& i : insn.within_inames)
            if (!around.count(i) && !iname_tag(k_, i).is_hardware())
                internal_error("the linearization of kernel '", k_.name, "' runs '", insn.id, "' outside loop '", i,
                               "' (loops around it: ", loops.empty() ? "none" : join(loops, ", "), ")");
    }

    const Placement* placement_of(const std::string& id) const {
        const auto it = index_.find(id);
        return it == index_.end() ? nullptr : &placements_[it->second];
    }

    // Built with isl once, and only for instructions whose checks the order of items does not settle.
    const Instances& instances(const Placement& p) {
        auto it = instances_.find(&p);
        if (it == instances_.end()) it = instances_.emplace(&p, build_instances(p)).first;
        return it->second;
    }

    // One per hardware axis of the kernel (the instruction's iname on it, or a stand-in where it runs on the
    // whole axis), then its loops.
    std::vector<std::string> instance_dims(const Placement& p) const {
        std::vector<std::string> out;
        for (const InameTag& tag : axes_) {
            const auto it = std::find_if(p.insn->within_inames.begin(), p.insn->within_inames.end(),
                                         [&](const std::string& i) { return iname_tag(k_, i) == tag; });
            out.push_back(it == p.insn->within_inames.end() ? stand_in(tag) : *it);
        }
        out.insert(out.end(), p.loops.begin(), p.loops.end());
        return out;
    }

    Instances build_instances(const Placement& p) {
        Instances out;
        out.dims = instance_dims(p);
        std::vector<std::string> own;  // the instruction's inames among the dims
        for (const std::string& d : out.dims)
            if (!stood_in_axis(d)) own.push_back(d);
        isl::set s = domain_of(k_, own);
        for (const std::string& d : out.dims)
            if (const auto axis = stood_in_axis(d)) s = isl_util::flat_product(s, axis_range(*axis));
        out.set = isl_util::with_tuple_name(isl_util::project_onto(s, out.dims), p.insn->id);

        // Work-items run in lockstep: two instances of one statement on different work-items run together,
        // neither before the other (if they touch one element, that is a race, which barriers cannot order).
        std::vector<int> dim_of(2 * depth_ + 1, -1);
        std::vector<long> constant(dim_of.size(), 0);
        for (std::size_t d = 0; d < p.loops.size(); ++d) {
            constant[2 * d] = p.positions[d];
            dim_of[2 * d + 1] = static_cast<int>(axes_.size() + d);
        }
        constant[2 * p.loops.size()] = p.positions.back();
        out.schedule = isl_util::schedule_map(out.set, p.insn->id, dim_of, constant);
        return out;
    }

    // The values of hardware axis `tag`: those of all inames on it.
    const isl::set& axis_range(const InameTag& tag) {
        auto known = axis_ranges_.find(tag);
        if (known != axis_ranges_.end()) return known->second;
        std::optional<isl::set> out;
        for (const std::string& i : all_inames(k_)) {
            if (iname_tag(k_, i) != tag) continue;
            isl::set values = isl_util::rename_dim(domain_of(k_, {i}), i, stand_in(tag));
            if (out) values = isl_util::align_params(values, out->space());
            out = out ? isl_util::align_params(*out, values.space()).unite(values) : values;
        }
        internal_assert(out.has_value(), "no iname on hardware axis ", tag);
        return axis_ranges_.emplace(tag, *out).first->second;
    }

    // Pairs of instances of `w` and `r` that agree on the inames the two share: all of them, or the
    // sequential loops only.
    isl::map agreeing(const Placement& w, const Placement& r, bool loops_only) {
        isl::map m = isl_util::all_pairs(instances(w).set, instances(r).set);
        for (const std::string& i : shared_inames(w, r, loops_only))
            m = isl_util::constrain_dims(m, i, i, isl_util::DimOrder::Equal);
        return m;
    }

    std::vector<std::string> shared_inames(const Placement& w, const Placement& r, bool loops_only) {
        const std::vector<std::string>& candidates = loops_only ? w.loops : instances(w).dims;
        const std::vector<std::string>& others = loops_only ? r.loops : instances(r).dims;
        std::vector<std::string> out;
        for (const std::string& i : candidates)
            if (w.insn->within_inames.count(i) && r.insn->within_inames.count(i) &&
                std::find(others.begin(), others.end(), i) != others.end())
                out.push_back(i);
        return out;
    }

    // Whether `writer` writes `variable` from the iterations of an ILP or vector iname it shares with `reader`
    // without indexing it by that iname: a write race (WriteRaceConditionWarning), where the kernel itself
    // leaves which iteration's value the read sees open, as loopy does.
    bool races_across_shared_ilp(const Instruction& writer, const Instruction& reader, const std::string& variable) const {
        for (const ExprPtr& lhs : writer.assignees) {
            if (lhs->name != variable) continue;
            const std::vector<std::string> indexed = referenced_names(lhs);
            for (const std::string& i : writer.within_inames)
                if (reader.within_inames.count(i) && iname_tag(k_, i).is_innermost() &&
                    std::find(indexed.begin(), indexed.end(), i) == indexed.end())
                    return true;
        }
        return false;
    }

    std::vector<CheckedRead> reads_from_prerequisites() const {
        std::vector<CheckedRead> out;
        for (const Placement& r : placements_) {
            if (!r.insn->predicates.empty()) continue;
            const std::set<std::string> read = read_names(*r.insn);
            for (const std::string& dep : r.insn->depends_on) {
                const Placement* w = placement_of(dep);
                if (!w || w == &r) continue;
                for (const std::string& v : written_names(*w->insn))
                    if (read.count(v) && find_variable(k_, v) && !races_across_shared_ilp(*w->insn, *r.insn, v))
                        out.push_back({w, &r, v});
            }
        }
        return out;
    }

    // When the writer runs first and, of the loops the two share, those that are not loops around both are
    // determined by the element the writer writes, any other iteration's instance writing an element the reader
    // expects from the writer's instance in its own iteration differs from it in a loop around both: it runs
    // before that instance, which runs before the read, so its value is never the one read.
    bool settled_by_order(const CheckedRead& c) {
        if (!precedes(*c.writer, *c.reader)) return false;
        const std::vector<std::string> separate = shared_separate_loops(*c.writer, *c.reader);
        if (separate.empty()) return true;
        // Any instance will do: over all integer points, the condition holds over the instances too.
        isl::set any = isl_util::add_named_dims(isl::set(isl_util::ctx(), "{ [] }"), instance_dims(*c.writer), false);
        any = isl_util::with_tuple_name(any, c.writer->insn->id);
        const std::optional<isl::union_map> writes = accesses(*c.writer, any, c.variable, false).certain_writes;
        if (!writes) return true;
        isl::map same_loops = isl::map::universe(any.space().map_from_set());
        for (const std::string& l : separate) same_loops = isl_util::constrain_dims(same_loops, l, l, isl_util::DimOrder::Equal);
        return writes->apply_range(writes->reverse()).is_subset(isl::union_map(same_loops));
    }

    // Private temporaries exist once per work-item, local ones once per work-group: the hardware axes that
    // tell their copies apart lead each element.
    std::vector<int> storage_axes(const std::string& variable) const {
        const Variable* v = find_variable(k_, variable);
        std::vector<int> out;
        if (!v || v->kind != VarKind::Temporary || v->address_space == AddressSpace::Global) return out;
        int a = 0;
        for (const InameTag& tag : axes_) {
            if (v->address_space != AddressSpace::Local || tag.is_group()) out.push_back(a);
            ++a;
        }
        return out;
    }

    // The accesses of `p` to `variable`, from its instances `set`.
    Accesses accesses(const Placement& p, const isl::set& set, const std::string& variable, bool with_reads) const {
        const std::vector<int> key = storage_axes(variable);
        const isl::map copy = isl_util::schedule_map(set, p.insn->id, key, std::vector<long>(key.size(), 0));
        Accesses out;
        for (const Access& a : accesses_of(*p.insn)) {
            if (a.name != variable) continue;
            const std::vector<ExprPtr> indices = storage_indices(k_, a);
            const std::optional<isl::map> exact = data_dependent(k_, a) ? std::nullopt : affine::exact_access_map(set, indices);
            const isl::map touched = isl_util::with_tuple_names(exact ? *exact : affine::access_map(set, indices), p.insn->id, "");
            const isl::map element = isl_util::with_tuple_names(isl_util::flat_range_product(copy, touched), p.insn->id, variable);
            const bool certain = exact && p.insn->predicates.empty();
            if (a.is_write) add(certain ? out.certain_writes : out.possible_writes, element);
            else if (certain && with_reads) add(out.exact_reads, element);
        }
        return out;
    }

    // The writes of every instruction to the variables of `checked`, and the reads the checks are about.
    AccessTable access_table(const std::vector<CheckedRead>& checked) {
        std::set<std::pair<const Placement*, std::string>> reads;
        std::set<std::string> variables;
        for (const CheckedRead& c : checked) {
            reads.insert({c.reader, c.variable});
            variables.insert(c.variable);
        }
        AccessTable out;
        for (const Placement& p : placements_) {
            const std::set<std::string> written = written_names(*p.insn);
            for (const std::string& v : variables) {
                const bool read_here = reads.count({&p, v}) != 0;
                if (read_here || written.count(v)) out.emplace(std::make_pair(&p, v), accesses(p, instances(p).set, v, read_here));
            }
        }
        return out;
    }

    // isl's dataflow analysis for the checked reads: { writer instance -> [reader instance -> element] } where
    // the writer is certainly the last to write the element before the read.
    isl::union_map last_writers(const AccessTable& table) {
        isl::union_map reads = isl::union_map::empty(isl_util::ctx()), certain = reads, possible = reads, schedule = reads;
        std::set<const Placement*> scheduled;
        for (const auto& [key, a] : table) {
            if (a.exact_reads) reads = reads.unite(*a.exact_reads);
            if (a.certain_writes) certain = certain.unite(*a.certain_writes);
            if (a.possible_writes) possible = possible.unite(*a.possible_writes);
            if (scheduled.insert(key.first).second) schedule = schedule.unite(isl::union_map(instances(*key.first).schedule));
        }
        return isl::union_access_info(reads)
            .set_must_source(certain)
            .set_may_source(possible)
            .set_schedule_map(schedule)
            .compute_flow()
            .full_must_dependence();
    }

    // "f(i=2, j=3)" from the coordinates of an instance, starting at `first`.
    std::string instance(const Placement& p, const std::vector<long>& coordinates, std::size_t first) {
        const std::vector<std::string>& dims = instances(p).dims;
        std::vector<std::string> parts;
        for (std::size_t d = 0; d < dims.size(); ++d) {
            const std::optional<InameTag> axis = stood_in_axis(dims[d]);
            parts.push_back(cat(axis ? to_string(*axis) : dims[d], "=", coordinates[first + d]));
        }
        return cat(p.insn->id, "(", join(parts, ", "), ")");
    }

    static std::string parameters(const isl_util::PointValues& pt) {
        std::vector<std::string> parts;
        for (const auto& [name, value] : pt.params) parts.push_back(cat(name, "=", value));
        return parts.empty() ? "" : cat(" (with ", join(parts, ", "), ")");
    }

    static std::string loops_note(const Placement& w, const Placement& r) {
        return cat("; loops around '", w.insn->id, "': ", w.loops.empty() ? "none" : join(w.loops, ", "), ", around '",
                   r.insn->id, "': ", r.loops.empty() ? "none" : join(r.loops, ", "));
    }

    [[noreturn]] void report_order(const Placement& w, const Placement& r, const isl::map& early) {
        const isl_util::PointValues pt = *isl_util::sample_point(early.wrap());
        const std::vector<std::string> shared = shared_inames(w, r, false);
        internal_error("the linearization of kernel '", k_.name, "' breaks a dependency: '", r.insn->id,
                       "' depends on '", w.insn->id, "' (shared inames: ", shared.empty() ? "none" : join(shared, ", "),
                       "), but ", instance(r, pt.coordinates, instances(w).dims.size()), " does not run after ",
                       instance(w, pt.coordinates, 0), parameters(pt), loops_note(w, r));
    }

    [[noreturn]] void report_stale_read(const Placement& w, const Placement& r, const std::string& variable,
                                        const isl::map& stale) {
        const isl_util::PointValues pt = *isl_util::sample_point(stale.wrap());
        const std::vector<std::string>& w_dims = instances(w).dims;
        const std::vector<std::string>& r_dims = instances(r).dims;
        std::vector<std::string> differing;
        for (const std::string& l : shared_inames(w, r, true)) {
            const auto at = [&](const std::vector<std::string>& dims, std::size_t first) {
                return pt.coordinates[first + static_cast<std::size_t>(std::find(dims.begin(), dims.end(), l) - dims.begin())];
            };
            if (at(w_dims, 0) != at(r_dims, w_dims.size())) differing.push_back(l);
        }
        internal_error("the linearization of kernel '", k_.name, "' breaks a dependency: '", r.insn->id, "' reads '",
                       variable, "' written by '", w.insn->id, "' in another iteration of ",
                       differing.size() == 1 ? "loop " : "loops ", join(differing, ", "), ": ",
                       instance(r, pt.coordinates, w_dims.size()), " reads the value ", instance(w, pt.coordinates, 0),
                       " wrote, not that of '", w.insn->id, "' in its own iteration", parameters(pt), loops_note(w, r));
    }

    const KernelData& k_;
    std::set<InameTag> axes_;  // hardware axes ("g.0", "l.1", ...) of the instructions, group axes first
    std::vector<Placement> placements_;
    std::size_t depth_ = 0;                     // of the deepest loop nest
    std::map<std::string, std::size_t> index_;  // instruction id -> its placement
    std::map<const Placement*, Instances> instances_;
    std::map<InameTag, isl::set> axis_ranges_;
};

}  // namespace

void verify_linearization(const KernelData& k) {
    isl_util::guard(error_kind::InternalError, cat("verifying the linearization of kernel '", k.name, "'"), [&] {
        Verifier v(k);
        v.check_dependencies();
        v.check_dataflow();
    });
}

}  // namespace loom
