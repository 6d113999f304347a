#include "codegen/loop_nest.h"

#include <isl/union_map.h>

#include <set>

#include "codegen/vectorize.h"
#include "ir/domain.h"
#include "isl/isl.h"
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
};

bool tagged(const KernelData& k, const std::string& iname, const char* tag) {
    const auto it = k.iname_tags.find(iname);
    return it != k.iname_tags.end() && it->second == tag;
}

// Sequence positions and loops of every instruction, from the linearization.
std::vector<Placed> place_statements(const KernelData& k) {
    std::vector<Placed> out;
    std::vector<long> counter{0}, prefix;
    std::vector<std::string> loops;
    for (const LinearItem& item : k.linearization) {
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop:
                prefix.push_back(counter.back()++);
                loops.push_back(item.name);
                counter.push_back(0);
                break;
            case LinearItem::Kind::LeaveLoop:
                counter.pop_back();
                prefix.pop_back();
                loops.pop_back();
                break;
            case LinearItem::Kind::RunInstruction:
            case LinearItem::Kind::Barrier: {
                std::vector<long> pos = prefix;
                pos.push_back(counter.back()++);
                Statement st{nullptr, loops, std::nullopt, {}};
                if (item.kind == LinearItem::Kind::Barrier) {
                    st.barrier = item;
                } else {
                    st.insn = find_instruction(k, item.name);
                    if (st.insn->kind == InsnKind::Barrier)
                        st.barrier = LinearItem{LinearItem::Kind::Barrier, st.insn->mem_kind, "", st.insn->barrier_kind};
                }
                out.push_back({"S" + std::to_string(out.size()), st, pos, loops, std::nullopt});
                break;
            }
            default: break;
        }
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
        const auto vec = std::find_if(p.nest.begin(), p.nest.end(), [&](const std::string& i) { return tagged(k, i, "vec"); });
        if (vec == p.nest.end()) continue;
        p.lanes = static_cast<std::size_t>(vec - p.nest.begin());
        const std::string& lane = *vec;
        const std::optional<long> bound = isl_util::static_extent(domain_of(k, {lane}));
        user_assert(bound.has_value(), "LoopyError", "iname '", lane, "' is tagged 'vec', but the number of its ",
                    "values has no constant bound, which vectorizing or unrolling it needs");
        const long length = *bound;
        if (vector_types && is_vectorizable(k, *p.stmt.insn, lane, length) && lanes_are_full(k, *p.stmt.insn, lane, length)) {
            p.stmt.vector_iname = lane;
            p.stmt.loops.erase(p.stmt.loops.begin() + static_cast<long>(*p.lanes));
        }
    }
}

// The inames of `insn` that are hardware axes.
std::vector<std::string> hardware_of(const KernelData& k, const Instruction& insn) {
    std::vector<std::string> out;
    for (const std::string& i : insn.within_inames) {
        const auto it = k.iname_tags.find(i);
        if (it != k.iname_tags.end() && is_hardware_tag(it->second)) out.push_back(i);
    }
    return out;
}

// The domain of a statement: its loops as set dimensions and, with `hardware_as_params`, its hardware
// inames as parameters.
isl::set statement_domain(const KernelData& k, const Placed& p, bool hardware_as_params) {
    // Every work-item must reach a barrier: it is not restricted by the work-item ids.
    if (!hardware_as_params || p.stmt.barrier) return domain_of(k, p.stmt.loops);
    std::vector<std::string> dims = hardware_of(k, *p.stmt.insn);
    const std::size_t n_hw = dims.size();
    dims.insert(dims.end(), p.stmt.loops.begin(), p.stmt.loops.end());
    const isl::set d = domain_of(k, dims);
    return isl_util::dims_to_params(d, std::vector<std::string>(dims.begin(), dims.begin() + static_cast<long>(n_hw)));
}

struct Schedule {
    isl::union_map map;
    isl::union_map options;
};

// The schedule `S[loops] -> [p0, l0, p1, l1, ..., pd, 0..., lanes]` of every statement (2d+1 form, padded;
// a `vec` loop is a constant 0 at its depth and runs in the last dimension, which is left out when there is
// none), and the AST build options that unroll loops tagged "unr" and lanes.
Schedule schedule(const KernelData& k, const std::vector<Placed>& placed, bool hardware_as_params) {
    std::size_t depth = 0;
    bool any_lanes = false;
    for (const Placed& p : placed) {
        depth = std::max(depth, p.nest.size());
        any_lanes = any_lanes || p.lanes;
    }
    const int lanes_dim = static_cast<int>(2 * depth + 1);
    std::optional<isl::union_map> all;
    isl::union_map options(isl_util::ctx(), "{ }");
    for (const Placed& p : placed) {
        std::vector<int> dim_of(2 * depth + 1 + any_lanes, -1);
        std::vector<long> constant(dim_of.size(), 0);
        const bool vectorized = !p.stmt.vector_iname.empty();
        // The statement's domain lacks a vectorized iname: the loops after it are one dimension earlier.
        const auto domain_dim = [&](std::size_t d) { return static_cast<int>(vectorized && d > *p.lanes ? d - 1 : d); };
        for (std::size_t d = 0; d < p.nest.size(); ++d) {
            constant[2 * d] = p.positions[d];
            if (p.lanes != d) dim_of[2 * d + 1] = domain_dim(d);
        }
        constant[2 * p.nest.size()] = p.positions.back();
        const bool unrolled_lanes = p.lanes && !vectorized;
        if (unrolled_lanes) dim_of[static_cast<std::size_t>(lanes_dim)] = static_cast<int>(*p.lanes);
        const isl::set dom = statement_domain(k, p, hardware_as_params);
        const isl::map m = isl_util::schedule_map(dom, p.name, dim_of, constant);
        for (std::size_t d = 0; d < p.nest.size(); ++d)
            if (p.lanes != d && (tagged(k, p.nest[d], "unr") || tagged(k, p.nest[d], "vec")))
                options = options.unite(isl_util::loop_option(m, "unroll", static_cast<int>(2 * d + 1)));
        if (unrolled_lanes) options = options.unite(isl_util::loop_option(m, "unroll", lanes_dim));
        all = all ? all->unite(isl::union_map(m)) : isl::union_map(m);
    }
    return {all ? *all : isl::union_map(isl_util::ctx(), "{ }"), options};
}

ExprPtr substitute(const ExprPtr& e, const std::map<std::string, ExprPtr>& subst) {
    if (!e) return e;
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if (n->kind != ExprKind::Var) return n;
        const auto it = subst.find(n->name);
        return it == subst.end() ? n : it->second;
    });
}

const isl_util::AstNode* first_statement(const isl_util::AstNode& n) {
    if (n.kind == isl_util::AstNode::Kind::User) return &n;
    for (const isl_util::AstNode& c : n.children)
        if (const isl_util::AstNode* s = first_statement(c)) return s;
    return nullptr;
}

// isl names loop iterators after schedule dimensions (c1, c3, ...); dimension 2d+1 is loop d of every
// statement below it, the one past them its `vec` loop. `nests`: the loops of each statement by depth.
void rename_iterators(isl_util::AstNode& n, std::map<std::string, ExprPtr> subst,
                      const std::map<std::string, const Placed*>& nests) {
    if (n.kind == isl_util::AstNode::Kind::For) {
        const isl_util::AstNode* s = first_statement(n);
        internal_assert(s != nullptr, "empty loop in generated AST");
        const std::size_t d = (std::stoul(n.iterator.substr(1)) - 1) / 2;
        const Placed& p = *nests.at(s->statement);
        const std::string& iname = d < p.nest.size() && p.lanes != d ? p.nest[d] : p.nest.at(p.lanes.value());
        subst[n.iterator] = var(iname);
        n.iterator = iname;
    }
    n.init = substitute(n.init, subst);
    n.cond = substitute(n.cond, subst);
    n.inc = substitute(n.inc, subst);
    for (ExprPtr& a : n.args) a = substitute(a, subst);
    for (isl_util::AstNode& c : n.children) rename_iterators(c, subst, nests);
}

}  // namespace

std::vector<std::string> hardware_inames(const KernelData& k) {
    // Of a linearized kernel, only those its instructions run in: a device kernel's grid covers its own.
    std::set<std::string> used;
    for (const LinearItem& it : k.linearization)
        if (it.kind == LinearItem::Kind::RunInstruction)
            for (const std::string& i : find_instruction(k, it.name)->within_inames) used.insert(i);
    std::vector<std::string> out;
    for (const std::string& i : all_inames(k)) {
        const auto it = k.iname_tags.find(i);
        if (it != k.iname_tags.end() && is_hardware_tag(it->second) && (!k.linearized || used.count(i)))
            out.push_back(i);
    }
    return out;
}

namespace {

// What the launch grid guarantees: every hardware index lies in [0, its extent).
isl::set grid_context(const KernelData& k, bool hardware_as_params) {
    isl::set ctx = assumption_context(k);
    if (!hardware_as_params) return ctx;
    for (const std::string& h : hardware_inames(k)) {
        // Work-items exist for every local id below the static work-group size, whatever the parameters.
        const bool local = k.iname_tags.at(h)[0] == 'l';
        isl::set box = local ? isl_util::param_range(h, 0, static_extent(k, h) - 1) : isl_util::index_box(domain_of(k, {h}));
        ctx = isl_util::align_params(ctx, box.space());
        box = isl_util::align_params(box, ctx.space());
        ctx = ctx.intersect(box);
    }
    return ctx;
}

}  // namespace

LoopNest build_loop_nest(const KernelData& k, bool hardware_as_params, bool vector_types) {
    internal_assert(k.linearized, "build_loop_nest needs a linearized kernel");
    LoopNest out;
    std::vector<Placed> placed = place_statements(k);
    plan_vector_lanes(k, placed, vector_types);
    for (const Placed& p : placed) out.statements[p.name] = p.stmt;
    const Schedule sched = schedule(k, placed, hardware_as_params);
    out.root = isl_util::generate_ast(sched.map, grid_context(k, hardware_as_params), sched.options);
    std::map<std::string, const Placed*> nests;
    for (const Placed& p : placed) nests[p.name] = &p;
    rename_iterators(out.root, {}, nests);
    return out;
}

}  // namespace loom
