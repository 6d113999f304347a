#include "codegen/loop_nest.h"

#include <algorithm>
#include <set>

#include "codegen/unroll.h"
#include "codegen/vectorize.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "schedule/linear_tree.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

struct Placed {
    std::string name;
    Statement stmt;
    std::vector<long> positions;  // sequence position at each depth, outermost first
    std::vector<std::string> nest;     // the loops around it, outermost first (stmt.loops lacks a vectorized one)
    std::optional<std::size_t> lanes;  // depth in `nest` of a `vec` loop, which runs innermost for it
    std::vector<int> slab;             // per loop of `nest`: 0 head (or no slabs), 1 bulk, 2 tail
    std::optional<isl::set> piece;     // over the loops: the slabs this copy runs, unset for all
};

// The loops of `insn`: a grid loop over a hardware axis (the C target's group loops) stands for the
// instruction's own iname on that axis, so that instructions with different inames on one axis share the
// loop, each within its own bounds.
std::vector<std::string> loops_of(const KernelData& k, const Instruction& insn, const std::vector<std::string>& loops) {
    std::vector<std::string> out = loops;
    for (std::string& l : out) {
        const InameTag tag = iname_tag(k, l);
        if (insn.within_inames.count(l) || !tag.is_hardware()) continue;
        for (const std::string& i : insn.within_inames)
            if (iname_tag(k, i) == tag) l = i;
    }
    return out;
}

// Sequence positions and loops of every instruction, from the linearization.
std::vector<Placed> place_statements(const KernelData& k) {
    std::vector<Placed> out;
    for (const LinearPlace& place : linear_places(k.linearization)) {
        const LinearItem& item = *place.item;
        Statement st{nullptr, place.loops, std::nullopt, {}, {}};
        if (item.kind == LinearItem::Kind::Barrier) {
            st.barrier = item;
        } else {
            st.insn = find_instruction(k, item.name);
            st.loops = loops_of(k, *st.insn, place.loops);
            if (st.insn->kind == InsnKind::Barrier)
                st.barrier = LinearItem{LinearItem::Kind::Barrier, st.insn->mem_kind, "", st.insn->barrier_kind};
        }
        out.push_back({"S" + std::to_string(out.size()), st, place.positions, st.loops, std::nullopt,
                       std::vector<int>(place.loops.size(), 0), std::nullopt});
    }
    return out;
}

// Whether the instances of `insn` are all values of its other inames times 0..length-1 of `lane`: then
// running every lane at once needs no guard on it (loopy's vectorization bounds).
bool lanes_are_full(const KernelData& k, const Instruction& insn, const std::string& lane, long length) {
    std::vector<std::string> others;
    for (const std::string& i : insn.within_inames)
        if (i != lane) others.push_back(i);
    std::vector<std::string> all = others;
    all.push_back(lane);
    const isl::set full = domain_of(k, all);
    isl::set expected = isl_util::add_named_dims(domain_of(k, others), {lane}, false);
    isl::set range(isl_util::ctx(), cat("{ [", join(all, ", "), "] : 0 <= ", lane, " < ", length, " }"));
    range = isl_util::align_params(range, expected.space());
    expected = isl_util::align_params(expected, range.space()).intersect(range);
    return expected.is_equal(isl_util::align_params(full, expected.space()));
}

// A loop over a `vec` iname runs each instruction in it on all lanes, innermost, as loopy's vectorization
// does: on OpenCL at once where the instruction is vectorizable, otherwise (and on the other targets) as
// unrolled copies, one instruction after the other. Loops inside it stay around the lanes.
void plan_vector_lanes(const KernelData& k, std::vector<Placed>& placed, bool vector_types) {
    for (Placed& p : placed) {
        if (p.stmt.barrier) continue;
        const auto vec = std::find_if(p.nest.begin(), p.nest.end(),
                                      [&](const std::string& i) { return iname_tag(k, i).is_vec(); });
        if (vec == p.nest.end()) continue;
        p.lanes = static_cast<std::size_t>(vec - p.nest.begin());
        const std::string& lane = *vec;
        const std::optional<long> bound = extent_bound(k, lane);
        user_assert(bound.has_value(), error_kind::LoopyError, "iname '", lane, "' is tagged 'vec', but the number of its ",
                    "values has no constant bound, which vectorizing or unrolling it needs");
        const long length = *bound;
        if (vector_types && is_vectorizable(k, *p.stmt.insn, lane, length) && lanes_are_full(k, *p.stmt.insn, lane, length)) {
            p.stmt.vector_iname = lane;
            p.stmt.loops.erase(p.stmt.loops.begin() + static_cast<long>(*p.lanes));
            // Slabs of the loops around are independent of the lanes, which are full.
            if (p.piece) p.piece = isl_util::project_out(*p.piece, {lane});
        }
    }
}

// The inames of `insn` that are hardware axes.
std::vector<std::string> hardware_of(const KernelData& k, const Instruction& insn) {
    std::vector<std::string> out;
    for (const std::string& i : insn.within_inames)
        if (iname_tag(k, i).is_hardware()) out.push_back(i);
    return out;
}

// split_iname's slabs of `iname` when it is emitted as a loop: hardware axes, unrolled inames and vec
// lanes have none.
std::optional<std::pair<int, int>> slabs_of(const KernelData& k, const std::string& iname) {
    const auto it = k.iname_slabs.find(iname);
    if (it == k.iname_slabs.end()) return std::nullopt;
    const InameTag tag = iname_tag(k, iname);
    if (tag.is_hardware() || tag.is_unrolled() || tag.is_vec()) return std::nullopt;
    return it->second;
}

// The three slabs (head, bulk, tail) of loop `d` of `loops`, as sets over all of `loops`: the first `head`
// and the last `tail` values of the loop for each iteration of the loops around it, and the rest.
std::vector<isl::set> slab_pieces(const KernelData& k, const std::vector<std::string>& loops, std::size_t d,
                                  std::pair<int, int> slabs) {
    const std::vector<std::string> prefix(loops.begin(), loops.begin() + static_cast<long>(d) + 1);
    const std::vector<std::string> rest(loops.begin() + static_cast<long>(d) + 1, loops.end());
    const isl::set range = domain_of(k, prefix);
    const isl::set past_head = isl_util::beyond(range, static_cast<int>(d), slabs.first, true);
    const isl::set before_tail = isl_util::beyond(range, static_cast<int>(d), slabs.second, false);
    std::vector<isl::set> out;
    for (const isl::set& piece :
         {range.subtract(past_head), past_head.intersect(before_tail), past_head.subtract(before_tail)})
        out.push_back(isl_util::add_named_dims(piece, rest, false));
    return out;
}

// The copies of `p`, one per non-empty slab of its loop `d` (`pieces`: head, bulk, tail).
void add_slab_copies(const Placed& p, std::size_t d, const std::vector<isl::set>& pieces, std::vector<Placed>& out) {
    static const char* const names[] = {"initial", "bulk", "final"};
    const auto non_empty = std::count_if(pieces.begin(), pieces.end(), [](const isl::set& x) { return !x.is_empty(); });
    const std::string& loop = p.stmt.loops[d];
    for (int s = 0; s < 3; ++s) {
        const isl::set& piece = pieces[static_cast<std::size_t>(s)];
        if (piece.is_empty()) continue;
        Placed copy = p;
        copy.name += cat("_", s);
        copy.slab[d] = s;
        if (non_empty > 1) copy.stmt.slab_comments[loop] = cat(names[s], " slab for '", loop, "'");
        copy.piece = p.piece ? p.piece->intersect(isl_util::align_params(piece, p.piece->space())) : piece;
        out.push_back(std::move(copy));
    }
}

// Each statement in a loop with slabs becomes one copy per non-empty slab; the copies of one slab stay
// together in the loop's sequence position, so the loop is emitted as head, bulk and tail loops.
std::vector<Placed> separate_slabs(const KernelData& k, std::vector<Placed> placed) {
    std::map<std::pair<std::vector<std::string>, std::size_t>, std::vector<isl::set>> pieces;  // statements share loops
    for (std::size_t d = 0;; ++d) {
        bool deeper = false;
        std::vector<Placed> next;
        for (Placed& p : placed) {
            deeper = deeper || p.stmt.loops.size() > d;
            const auto slabs = p.stmt.loops.size() > d ? slabs_of(k, p.stmt.loops[d]) : std::nullopt;
            if (!slabs) {
                next.push_back(std::move(p));
                continue;
            }
            auto [it, fresh] = pieces.try_emplace({p.stmt.loops, d});
            if (fresh) it->second = slab_pieces(k, p.stmt.loops, d, *slabs);
            add_slab_copies(p, d, it->second, next);
        }
        placed = std::move(next);
        if (!deeper) return placed;
    }
}

// The group and work-item ids as parameters of the AST build (DESIGN decision 3): one per hardware axis,
// named after its first iname, so that isl sees what all inames on the axis share.
struct GridIds {
    std::map<std::string, std::string> param;  // hardware iname -> the parameter of its axis
    std::map<std::string, isl::set> range;     // parameter -> what the launch grid guarantees about it

    // Whether hardware iname `h` takes every index of its axis for all values of the inames related to it
    // (iname_factor) in the domain of `inames`: then no statement's domain constrains it beyond the grid.
    bool spans(const KernelData& k, const std::vector<std::string>& inames, const std::string& h) const {
        const isl::set factor = iname_factor(k, inames, h);
        const auto known = spanning.find({factor.get(), h});
        if (known != spanning.end()) return known->second.second;
        const std::string& p = param.at(h);
        const bool all = isl_util::spans(isl_util::rename_dim(factor, h, p), p, range.at(p));
        spanning.emplace(std::pair{factor.get(), h}, std::pair{factor, all});
        return all;
    }

    // By factor, an isl object that statements with the same domains share (held, so its address stays its own).
    mutable std::map<std::pair<const void*, std::string>, std::pair<isl::set, bool>> spanning;
};

// Every work-item exists for each local id below the work-group size and each group id below the number of
// groups; an axis is as large as its largest iname.
GridIds grid_ids(const KernelData& k) {
    GridIds out;
    std::map<InameTag, std::string> first;  // axis tag -> its parameter
    std::map<InameTag, long> group_size;     // local axis tag -> work-group size on it
    for (const std::string& h : hardware_inames(k)) {
        const InameTag tag = iname_tag(k, h);
        const std::string& param = first.try_emplace(tag, h).first->second;
        out.param[h] = param;
        if (tag.is_local()) {
            // A work-group sized at launch (its inames bounded by parameters) is covered as group axes are.
            if (const std::optional<long> size = extent_bound(k, h)) {
                group_size[tag] = std::max(group_size[tag], *size);
                continue;
            }
        }
        const isl::set box = isl_util::rename_dim(isl_util::index_box(domain_of(k, {h})), h, param);
        const auto known = out.range.find(param);
        out.range.insert_or_assign(param, known == out.range.end() ? box : known->second.unite(box));
    }
    for (const auto& [tag, size] : group_size) {
        const std::string& param = first.at(tag);
        const isl::set range = isl_util::param_range(param, 0, size - 1);
        const auto sized_at_launch = out.range.find(param);
        out.range.insert_or_assign(param, sized_at_launch == out.range.end() ? range : sized_at_launch->second.unite(range));
    }
    return out;
}

// The domain of a statement's loops as set dimensions, and with `ids` (targets that launch a grid) the ids
// of its hardware inames as parameters where they matter: an id that the statement's domain does not
// constrain beyond the grid's range would only slow isl down.
isl::set loops_domain(const KernelData& k, const Placed& p, const GridIds* ids) {
    // Every work-item must reach a barrier: it is not restricted by the work-item ids.
    if (!ids || p.stmt.barrier) return domain_of(k, p.stmt.loops);
    const std::vector<std::string> hardware = hardware_of(k, *p.stmt.insn);
    std::vector<std::string> dims = hardware;
    dims.insert(dims.end(), p.stmt.loops.begin(), p.stmt.loops.end());
    std::vector<std::string> kept, spanned;
    for (const std::string& h : hardware)
        (ids->spans(k, dims, h) ? spanned : kept).push_back(h);
    // Projected out of the statement's whole domain, not left out of it: the domain of the remaining inames
    // alone need not be the domain they come from, which may hold conditions on the parameters (an empty
    // domain for some sizes: without them every work-item ran the statement).
    isl::set d = isl_util::dims_to_params(isl_util::project_out(domain_of(k, dims), spanned), kept);
    for (const std::string& h : kept)
        if (ids->param.at(h) != h) d = isl_util::rename_dim(d, h, ids->param.at(h));
    return d;
}

// A statement's domain for isl's AST generator, and the condition on the work-item's ids that its
// instances also need where isl does not get those ids (see split_guard); null where none.
struct StatementDomain {
    isl::set loops;
    ExprPtr guard;
};

// Where an id bounds a scaled loop (a fetch split by the work-group size: each work-item takes every 8th
// element up to a bound of its own), isl would spend milliseconds on loop bounds that divide by the id. The
// loops range over every id's iterations instead, and the condition the id adds guards the statement.
StatementDomain split_guard(const KernelData& k, const Placed& p, const isl::set& d, const GridIds& ids) {
    std::vector<std::string> params;
    for (const auto& [id, range] : ids.range)
        if (isl_util::is_param(d, id)) params.push_back(id);
    if (!isl_util::scaled_against_params(d, params)) return {d, nullptr};
    isl::set known = isl_util::align_params(assumption_context(k), d.space());
    for (const std::string& id : params) known = known.intersect(isl_util::align_params(ids.range.at(id), known.space()));
    const isl::set loops = isl_util::project_out(d, params);
    const isl::set guard = d.gist(isl_util::align_params(loops, known.space()).intersect_params(known));
    if (isl_util::plain_is_universe(guard)) return {loops, nullptr};
    return {loops, affine::condition_expr(isl_util::dims_to_params(guard, p.stmt.loops).params(), known)};
}

// The instances statement `p` runs on a device, as one set of parameters: the points of its loops' domain `d`
// for every work-item of the grid (the ids the domain bounds are parameters of it, the others range over
// the launch) where its guard holds. Each must be an instance of its domain (of its slab's piece of it): a
// mistake in how the work-item axes leave the domain, as finding 43 was, is an InternalError naming the
// statement and a point, never code. Where every id stayed a parameter of `d` and no guard was split off, `d`
// is its domain by construction and there is nothing to check. Barriers are left out: every work-item reaches
// them. Statements over the same inames in the same slabs have the same domains: `checked` holds those done.
void check_instances(const KernelData& k, const Placed& p, const StatementDomain& d, const GridIds& ids,
                     std::set<std::string>& checked) {
    if (p.stmt.barrier) return;
    std::vector<std::string> dims = hardware_of(k, *p.stmt.insn);
    const auto left = [&](const std::string& h) { return !isl_util::is_param(d.loops, ids.param.at(h)); };
    if (!d.guard && std::none_of(dims.begin(), dims.end(), left)) return;
    std::string key = join(dims, ",") + ";" + join(p.stmt.loops, ",") + ";";
    for (const int slab : p.slab) key += std::to_string(slab);
    if (!checked.insert(key).second) return;
    std::set<std::string> axes;
    for (const std::string& h : dims)
        if (!axes.insert(ids.param.at(h)).second) return;  // two inames on one axis: not one id each
    isl::set ran = isl_util::dims_to_params(d.loops, p.stmt.loops).params();
    const auto restrict = [&](const isl::set& params) {
        ran = isl_util::align_params(ran, params.space());
        ran = ran.intersect_params(isl_util::align_params(params, ran.space()));
    };
    if (d.guard)
        if (const std::optional<isl::set> guard = affine::condition_set(d.guard)) restrict(*guard);
    for (const std::string& axis : axes) restrict(ids.range.at(axis));
    restrict(assumption_context(k));
    const std::size_t hardware = dims.size();
    dims.insert(dims.end(), p.stmt.loops.begin(), p.stmt.loops.end());
    isl::set domain = isl_util::dims_to_params(domain_of(k, dims), dims).params();
    for (std::size_t h = 0; h < hardware; ++h)
        if (ids.param.at(dims[h]) != dims[h]) domain = isl_util::rename_dim(domain, dims[h], ids.param.at(dims[h]));
    if (p.piece) domain = domain.intersect(isl_util::dims_to_params(*p.piece, p.stmt.loops).params());
    domain = isl_util::align_params(domain, ran.space());
    ran = isl_util::align_params(ran, domain.space());
    if (ran.is_subset(domain)) return;
    std::vector<std::string> at;
    if (const auto point = isl_util::sample_point(ran.subtract(domain)))
        for (const auto& [name, value] : point->params) at.push_back(cat(name, " = ", value));
    internal_assert(false, "the code would run instruction '", p.stmt.insn->id, "' where its domain does not hold: at ",
                    join(at, ", "));
}

// The domain of a statement: that of its loops, restricted to its slabs.
StatementDomain statement_domain(const KernelData& k, const Placed& p, const GridIds* ids) {
    isl::set d = loops_domain(k, p, ids);
    if (p.piece) {
        const isl::set piece = isl_util::align_params(*p.piece, d.space());
        d = isl_util::align_params(d, piece.space()).intersect(piece);
    }
    return ids ? split_guard(k, p, d, *ids) : StatementDomain{d, nullptr};
}

// Whether loop `d` of `p` is unrolled: tagged "unr", "ilp" or "ilp.unr", or a `vec` loop other than lanes
// that run as one vector operation.
bool unrolled(const KernelData& k, const Placed& p, std::size_t d) {
    if (p.lanes == d) return p.stmt.vector_iname.empty();
    const InameTag tag = iname_tag(k, p.nest[d]);
    return tag.is_unrolled() || tag.is_vec();
}

// The copies of one statement that unrolling may make: beyond it the generated code would take minutes and
// gigabytes to print (a `vec` iname of 3e8 lanes; found by fuzz_pipeline).
constexpr long kMaxUnrolledCopies = 16384;

// The unrolled inames of the statements. Each needs a constant length (loopy's message), and a statement's
// copies, the product of its unrolled loops' lengths, are bounded.
std::set<std::string> unrolled_inames(const KernelData& k, const std::vector<Placed>& placed) {
    std::map<std::string, long> lengths;
    for (const Placed& p : placed) {
        long copies = 1;
        for (std::size_t d = 0; d < p.nest.size(); ++d) {
            const std::string& iname = p.nest[d];
            if (!unrolled(k, p, d)) continue;
            if (!lengths.count(iname)) {
                const auto length = constant_length(k, iname);
                user_assert(length.has_value(), error_kind::LoopyError, "length of unrolled loop '", iname,
                            "' is not a constant, cannot unroll");
                lengths[iname] = *length;
            }
            copies *= std::max(lengths[iname], 1L);
            user_assert(copies <= kMaxUnrolledCopies, error_kind::LoopyError, "unrolling loop '", iname, "' would make more than ",
                        kMaxUnrolledCopies, " copies of instruction '", p.stmt.insn ? p.stmt.insn->id : p.name,
                        "' (", lengths[iname], " for this loop): tag it 'for', or split it and unroll the inner part");
        }
    }
    std::set<std::string> out;
    for (const auto& [iname, length] : lengths) out.insert(iname);
    return out;
}

// The inames some subscript along a `sep` axis uses, or along a `vec` axis where the target has vector types
// (CExprPrinter::print_subscript): that index must be a constant in the code (one of the separate arrays, one
// vector entry), so their loops are unrolled whatever the target.
std::set<std::string> indexing_constant_axes(const KernelData& k, bool vector_types) {
    std::set<std::string> out;
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            const Variable* v = find_variable(k, a.name);
            if (!v || a.linear) continue;
            std::vector<std::size_t> axes = sep_axes(*v);
            if (const std::optional<std::size_t> lanes = vec_axis(*v); lanes && vector_types) axes.push_back(*lanes);
            for (std::size_t axis : axes)
                if (axis < a.indices.size())
                    for (const std::string& n : referenced_names(a.indices[axis])) out.insert(n);
        }
    return out;
}

// Of the unrolled inames, those whose copies are written out where the compiler unrolls the loops tagged to
// be unrolled (Target::compiler_unrolls): the lanes of `vec` loops that are no vector operation, and the
// inames that must be constants in subscripts.
std::set<std::string> written_out(const KernelData& k, std::set<std::string> unrolled, const Target& target) {
    const auto tagged = [&](const std::string& iname) { return iname_tag(k, iname).is_unrolled(); };
    if (std::none_of(unrolled.begin(), unrolled.end(), tagged)) return unrolled;
    const std::set<std::string> constant = indexing_constant_axes(k, target.has_vector_types());
    std::erase_if(unrolled, [&](const std::string& iname) { return tagged(iname) && !constant.count(iname); });
    return unrolled;
}

// Loops whose iname takes the same constant range for every value of the others in each statement in them
// (the register tiles of a tuned kernel, the rounds of a prefetch): isl sees a mark for each, not a
// dimension, which spares its AST generator most of its work; the mark becomes the loop again
// (generate_ast), then its copies where it is unrolled. Hardware axes are no loops on a device, and on the
// host their loops get the names of the grid; a loop run once is left to isl, which writes no loop for it.
MarkedLoops independent_loops(const KernelData& k, const std::vector<Placed>& placed, const std::vector<isl::set>& domains) {
    MarkedLoops out;
    std::set<std::string> refused;
    for (std::size_t s = 0; s < placed.size(); ++s) {
        const Placed& p = placed[s];
        for (std::size_t d = 0; d < p.nest.size(); ++d) {
            const std::string& iname = p.nest[d];
            if (refused.count(iname)) continue;
            // The lanes of a `vec` loop stay a dimension of the statements that run on them (ScheduleTree::item),
            // so a loop that is some statement's lanes is no mark for any (found by fuzz_pipeline).
            const bool markable = p.lanes != d && !iname_tag(k, iname).is_hardware();
            const int dim = isl_util::set_dim_position(domains[s], iname);
            const auto range = !markable || dim < 0 ? std::nullopt : isl_util::independent_range(domains[s], dim);
            const auto known = out.find(iname);
            const bool loop = range && (range->first < range->second || unrolled(k, p, d));
            if (loop && (known == out.end() || known->second == *range)) {
                out[iname] = *range;
                continue;
            }
            refused.insert(iname);
            if (known != out.end()) out.erase(known);
        }
    }
    return out;
}

// The isl schedule tree of the linearization (DESIGN decision 3): at each depth the statements and loops
// in sequence order (a loop's slabs are consecutive: head, bulk, tail), each loop a band over its iname, or
// a mark for those of `marked` (no dimension of the statement domains). Unrolled loops are loops here too:
// their copies are made from isl's AST (unroll_loops).
class ScheduleTree {
public:
    ScheduleTree(const std::vector<Placed>& placed, const std::vector<isl::set>& domains,
                 const MarkedLoops& marked)
        : placed_(placed), domains_(domains), marked_(marked) {}

    isl::schedule build() {
        std::vector<std::size_t> all(placed_.size());
        for (std::size_t s = 0; s < all.size(); ++s) all[s] = s;
        const isl::schedule tree = level(all, 0);
        // isl writes an outermost loop that runs once (the head or tail slab of a loop) as a conditional
        // expression: below a band of the sequence positions, the slabs of an outermost loop are not outermost.
        const bool outer_slabs = std::any_of(placed_.begin(), placed_.end(), [](const Placed& p) {
            return !p.nest.empty() && p.stmt.slab_comments.count(p.nest[0]);
        });
        if (!outer_slabs) return tree;
        std::optional<isl::union_map> positions;
        for (std::size_t s : all) {
            const isl::union_map m(isl_util::schedule_map(universe(s), placed_[s].name, {-1}, {position(s, 0)}));
            positions = positions ? positions->unite(m) : m;
        }
        return loop_schedule(tree, *positions);
    }

private:
    // The position of statement `s` in the sequence at `depth`: a loop's slabs are consecutive.
    long position(std::size_t s, std::size_t depth) const {
        const Placed& p = placed_[s];
        return 3 * p.positions[depth] + (depth < p.nest.size() ? p.slab[depth] : 0);
    }

    // The statements of `group` by position at `depth`.
    std::map<long, std::vector<std::size_t>> parts(const std::vector<std::size_t>& group, std::size_t depth) const {
        std::map<long, std::vector<std::size_t>> out;
        for (std::size_t s : group) out[position(s, depth)].push_back(s);
        return out;
    }

    // The statements of `group`, which share their loops above `depth`, in their order at `depth`.
    isl::schedule level(const std::vector<std::size_t>& group, std::size_t depth) {
        std::vector<isl::schedule> sequence;
        for (const auto& [position, part] : parts(group, depth)) sequence.push_back(item(part, depth));
        return sequence.size() == 1 ? sequence[0] : sequence_schedule(sequence);
    }

    // One item of the sequence at `depth`: a statement, or a loop and the statements in it.
    isl::schedule item(const std::vector<std::size_t>& part, std::size_t depth) {
        const Placed& p = placed_[part[0]];
        if (depth == p.nest.size()) {
            internal_assert(part.size() == 1, "statements '", p.name, "' and '", placed_[part[1]].name,
                            "' at one position of the linearization");
            const isl::schedule leaf = leaf_schedule(domains_[part[0]], p.name);
            // A statement in a `vec` loop runs on all its lanes before the next one.
            if (!p.lanes || !p.stmt.vector_iname.empty()) return leaf;
            return loop_schedule(leaf, times(part, {*p.lanes}));
        }
        if (p.lanes == depth) return level(part, depth + 1);  // the lanes run innermost
        // Loops directly inside one another make one band, which isl generates faster than nested bands.
        std::vector<std::size_t> loops{depth};
        while (nests_one_loop(part, loops.back() + 1)) loops.push_back(loops.back() + 1);
        isl::schedule tree = level(part, loops.back() + 1);
        std::vector<std::size_t> band;  // from the inside out
        const auto close_band = [&] {
            if (band.empty()) return;
            std::reverse(band.begin(), band.end());
            tree = loop_schedule(tree, times(part, band));
            band.clear();
        };
        for (auto d = loops.rbegin(); d != loops.rend(); ++d) {
            const std::string& iname = p.nest[*d];
            if (!marked_.count(iname)) {
                band.push_back(*d);
                continue;
            }
            close_band();
            tree = marked_schedule(tree, cat(iname, "#", marks_++));
        }
        close_band();
        return tree;
    }

    // The domain dimension of loop `d` of `p`: a vectorized statement's domain lacks its `vec` iname, and
    // every statement lacks the marked ones.
    int domain_dim(const Placed& p, std::size_t d) const {
        int dim = 0;
        for (std::size_t j = 0; j < d; ++j)
            if (!(j == p.lanes && !p.stmt.vector_iname.empty()) && !marked_.count(p.nest[j])) ++dim;
        return dim;
    }

    // Whether `part` is one loop at `depth` and nothing else.
    bool nests_one_loop(const std::vector<std::size_t>& part, std::size_t depth) const {
        const Placed& first = placed_[part[0]];
        return std::all_of(part.begin(), part.end(), [&](std::size_t s) {
            const Placed& p = placed_[s];
            return depth < p.nest.size() && p.lanes != depth && p.positions[depth] == first.positions[depth] &&
                   p.slab[depth] == first.slab[depth];
        });
    }

    // `S[...] -> [the inames of `loops`]` for the statements of `part`.
    isl::union_map times(const std::vector<std::size_t>& part, const std::vector<std::size_t>& loops) {
        std::optional<isl::union_map> out;
        for (std::size_t s : part) {
            const Placed& p = placed_[s];
            std::vector<int> dims;
            for (std::size_t d : loops) dims.push_back(domain_dim(p, d));
            const std::vector<long> none(dims.size(), 0);
            const isl::union_map m(isl_util::schedule_map(universe(s), p.name, dims, none));
            out = out ? out->unite(m) : m;
        }
        return *out;
    }

    // The space of statement `s`: a band is a function of the statement's dimensions, which the domain at the
    // root of the tree restricts (restating the domain in every band costs isl's AST generator).
    isl::set universe(std::size_t s) const { return isl::set::universe(domains_[s].space()); }

    const std::vector<Placed>& placed_;
    const std::vector<isl::set>& domains_;
    const MarkedLoops& marked_;
    int marks_ = 0;  // numbers the marked loops: each loop's mark is its own (generate_ast)
};

// isl's statement arguments are the values of the domain dimensions; those of the marked loops, which no
// domain has, are their inames, the iterators of the loops the marks became.
void restore_marked_args(AstNode& n, const std::map<std::string, Statement>& statements,
                         const MarkedLoops& marked) {
    if (n.kind == AstNode::Kind::User) {
        std::vector<ExprPtr> args;
        std::size_t next = 0;
        for (const std::string& loop : statements.at(n.statement).loops)
            args.push_back(marked.count(loop) ? var(loop) : n.args.at(next++));
        n.args = std::move(args);
    }
    for (AstNode& c : n.children) restore_marked_args(c, statements, marked);
}

// The iname of the loop with isl's iterator `iterator`, from a statement below it: the band of a loop maps
// the statement's dimension for that iname to the loop's iterator, which isl writes as the argument.
const std::string* loop_iname(const AstNode& n, const std::string& iterator,
                              const std::map<std::string, Statement>& statements) {
    if (n.kind == AstNode::Kind::User) {
        for (std::size_t j = 0; j < n.args.size(); ++j)
            if (n.args[j]->kind == ExprKind::Var && n.args[j]->name == iterator)
                return &statements.at(n.statement).loops.at(j);
        return nullptr;
    }
    for (const AstNode& c : n.children)
        if (const std::string* iname = loop_iname(c, iterator, statements)) return iname;
    return nullptr;
}

// isl names loop iterators c0, c1, ...; they become the inames of the loops.
void rename_iterators(AstNode& n, std::map<std::string, ExprPtr> subst,
                      const std::map<std::string, Statement>& statements) {
    if (n.kind == AstNode::Kind::For) {
        const std::string* iname = loop_iname(n, n.iterator, statements);
        internal_assert(iname != nullptr, "no statement in the generated loop over ", n.iterator, " uses it");
        subst[n.iterator] = var(*iname);
        n.iterator = *iname;
    }
    n.init = substitute(n.init, subst);
    n.cond = substitute(n.cond, subst);
    n.inc = substitute(n.inc, subst);
    for (ExprPtr& a : n.args) a = substitute(a, subst);
    for (AstNode& c : n.children) rename_iterators(c, subst, statements);
}

}  // namespace

const AstNode* first_statement(const AstNode& n) {
    if (n.kind == AstNode::Kind::User) return &n;
    for (const AstNode& c : n.children)
        if (const AstNode* s = first_statement(c)) return s;
    return nullptr;
}

std::vector<std::string> hardware_inames(const KernelData& k) {
    // Of a linearized kernel, only those its instructions run in: a device kernel's grid covers its own.
    std::set<std::string> used;
    for (const LinearItem& it : k.linearization)
        if (it.kind == LinearItem::Kind::RunInstruction)
            for (const std::string& i : find_instruction(k, it.name)->within_inames) used.insert(i);
    std::vector<std::string> out;
    for (const std::string& i : all_inames(k))
        if (iname_tag(k, i).is_hardware() && (!k.linearized || used.count(i))) out.push_back(i);
    return out;
}

namespace {

// What isl may assume: the assumptions, and the grid's range of each id. An id that no statement's domain
// uses is projected out; that it exists (the grid is not empty) still bounds the parameters.
isl::set build_context(const KernelData& k, const std::vector<isl::set>& domains, const GridIds* ids) {
    isl::set ctx = assumption_context(k);
    if (!ids) return ctx;
    std::vector<std::string> unused;
    for (const auto& [param, range] : ids->range) {
        ctx = isl_util::align_params(ctx, range.space());
        ctx = ctx.intersect(isl_util::align_params(range, ctx.space()));
        // An init-capture: clang before 16 cannot capture a structured binding (the fuzz build uses clang).
        const auto uses = [&name = param](const isl::set& d) { return isl_util::is_param(d, name); };
        if (std::none_of(domains.begin(), domains.end(), uses)) unused.push_back(param);
    }
    return isl_util::project_out(ctx, unused);
}

// Consecutive instructions in the same loops over the same domain go to isl as one statement, expanded again
// in the generated loops: isl's AST generator takes time quadratic in the statements of a sequence, and the
// instructions of long kernels mostly come in runs in one loop body.
bool runs_with(const Placed& a, const StatementDomain& da, const Placed& b, const StatementDomain& db) {
    const auto plain = [](const Placed& p) { return p.stmt.insn && !p.stmt.barrier && !p.lanes; };
    const std::size_t depth = a.nest.size();
    const auto same_guard = [&] {
        return da.guard && db.guard ? to_string(da.guard) == to_string(db.guard) : da.guard == db.guard;
    };
    return plain(a) && plain(b) && a.nest == b.nest && a.slab == b.slab &&
           a.stmt.slab_comments == b.stmt.slab_comments && a.positions.size() > depth &&
           b.positions.size() > depth && std::equal(a.positions.begin(), a.positions.begin() + depth, b.positions.begin()) &&
           same_guard() && da.loops.is_equal(db.loops);
}

// The statements of each run: by the name of the first, which stands for the run in the schedule.
using Runs = std::map<std::string, std::vector<std::string>>;

// Wraps each statement with a guard (loops_domain) in an `if`, its loops' values put in.
void add_guards(AstNode& n, const std::map<std::string, ExprPtr>& guards,
                const std::map<std::string, Statement>& statements) {
    for (AstNode& c : n.children) {
        add_guards(c, guards, statements);
        const auto guard = c.kind == AstNode::Kind::User ? guards.find(c.statement) : guards.end();
        if (guard == guards.end()) continue;
        std::map<std::string, ExprPtr> values;
        const std::vector<std::string>& loops = statements.at(c.statement).loops;
        for (std::size_t j = 0; j < loops.size(); ++j) values[loops[j]] = c.args.at(j);
        AstNode then;
        then.children.push_back(std::move(c));
        c = AstNode{};
        c.kind = AstNode::Kind::If;
        c.cond = substitute(guard->second, values);
        c.children.push_back(std::move(then));
    }
}

// Puts the other statements of a run after the first wherever the first is in `n`.
void expand_runs(AstNode& n, const Runs& runs) {
    std::vector<AstNode> children;
    for (AstNode& c : n.children) {
        expand_runs(c, runs);
        const auto run = c.kind == AstNode::Kind::User ? runs.find(c.statement) : runs.end();
        children.push_back(std::move(c));
        if (run == runs.end()) continue;
        for (std::size_t m = 1; m < run->second.size(); ++m) {
            AstNode copy = children.back();
            copy.statement = run->second[m];
            children.push_back(std::move(copy));
        }
    }
    n.children = std::move(children);
}

// The loops with `marked` as marks, their dimensions gone from the statement domains; nullopt where isl split
// a marked loop (generate_ast).
std::optional<AstNode> generate_marked_ast(const std::vector<Placed>& leaders, std::vector<isl::set> domains,
                                          const isl::set& context, const MarkedLoops& marked, double& isl_seconds) {
    std::vector<std::string> names;
    for (const auto& [iname, range] : marked) names.push_back(iname);
    for (isl::set& d : domains) d = isl_util::project_out(d, names);
    return generate_ast(ScheduleTree(leaders, domains, marked).build(), context, marked, &isl_seconds);
}

std::string statement_text(const Statement& s) {
    return s.insn ? "instruction '" + s.insn->id + "'" : std::string("a barrier");
}

// The statement domains' coefficients, as the kernel's were checked before preprocessing: projections make new
// ones (check_index_coefficients).
void check_coefficients(const KernelData& k, const std::vector<Placed>& leaders, const std::vector<isl::set>& domains,
                        const isl::set& context) {
    for (std::size_t i = 0; i < domains.size(); ++i) check_index_coefficients(k, domains[i], "the loops of " + statement_text(leaders[i].stmt));
    check_index_coefficients(k, context, "the assumptions");
}

}  // namespace

LoopNest build_loop_nest(const KernelData& k, const Target& target) {
    internal_assert(k.linearized, "build_loop_nest needs a linearized kernel");
    const bool hardware_as_params = !target.runs_on_host();
    LoopNest out;
    std::vector<Placed> placed = separate_slabs(k, place_statements(k));
    plan_vector_lanes(k, placed, target.has_vector_types());
    std::set<std::string> unrolled = unrolled_inames(k, placed);  // before anything costs time
    if (target.compiler_unrolls()) unrolled = written_out(k, std::move(unrolled), target);
    for (const Placed& p : placed) out.statements[p.name] = p.stmt;
    if (placed.empty()) return out;
    const std::optional<GridIds> ids = hardware_as_params ? std::optional(grid_ids(k)) : std::nullopt;
    std::vector<Placed> leaders;
    std::vector<isl::set> domains;
    std::map<std::string, ExprPtr> guards;  // by leader
    Runs runs;
    std::optional<StatementDomain> last;
    std::set<std::string> checked;  // check_instances
    for (const Placed& p : placed) {
        StatementDomain d = statement_domain(k, p, ids ? &*ids : nullptr);
        if (ids) check_instances(k, p, d, *ids, checked);
        if (last && runs_with(leaders.back(), *last, p, d)) {
            runs[leaders.back().name].push_back(p.name);
            continue;
        }
        leaders.push_back(p);
        domains.push_back(d.loops);
        if (d.guard) guards[p.name] = d.guard;
        runs[p.name] = {p.name};
        last = std::move(d);
    }
    const isl::set context = build_context(k, domains, ids ? &*ids : nullptr);
    check_coefficients(k, leaders, domains, context);
    MarkedLoops marked = independent_loops(k, leaders, domains);
    std::optional<AstNode> ast = generate_marked_ast(leaders, domains, context, marked, out.isl_ast_seconds);
    if (!ast) {
        marked.clear();
        ast = generate_marked_ast(leaders, domains, context, marked, out.isl_ast_seconds);
        internal_assert(ast.has_value(), "isl split a loop without marks");
    }
    AstNode& loops = *ast;
    restore_marked_args(loops, out.statements, marked);
    add_guards(loops, guards, out.statements);
    expand_runs(loops, runs);
    rename_iterators(loops, {}, out.statements);
    out.root = unroll_loops(loops, unrolled, context);
    return out;
}

}  // namespace loom
