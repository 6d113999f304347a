#include "analysis/statistics.h"

#include <algorithm>
#include <set>

#include "analysis/types.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "ir/layout.h"
#include "isl/budget.h"
#include "isl/isl.h"
#include "parse/match.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

using isl_util::PwQPolynomial;

namespace {

// The points of `s`, counted within isl's operation budget for statistics: a domain whose count takes more (a
// modulus over many dimensions splits into residues dimension after dimension: minutes before) is a LimitError
// naming `what`, as the same work would be on every machine.
PwQPolynomial counted(const isl::set& s, const std::string& what) {
    constexpr unsigned long kCountOperations = 50'000'000;
    std::optional<PwQPolynomial> out = isl_util::within_operations(kCountOperations, [&] { return isl_util::card(s); });
    user_assert(out.has_value(), error_kind::LimitError, "statistics: counting ", what, " takes more than ", kCountOperations,
                " isl operations");
    return std::move(*out);
}

enum class Granularity { WorkItem, SubGroup, WorkGroup };

const char* granularity_name(Granularity g) {
    switch (g) {
        case Granularity::WorkItem: return "workitem";
        case Granularity::SubGroup: return "subgroup";
        case Granularity::WorkGroup: return "workgroup";
    }
    return "";
}

std::string stride_text(const Stride& s) {
    if (const auto* v = std::get_if<std::int64_t>(&s)) return std::to_string(*v);
    if (const auto* t = std::get_if<std::string>(&s)) return *t;
    return "None";
}

std::string field_text(const StatField& f, bool quoted = false, char quote = '\'') {
    if (!f) return "None";
    if (const auto* s = std::get_if<std::string>(&*f)) return quoted ? cat(quote, *s, quote) : *s;
    std::string out = "{";
    for (const auto& [axis, stride] : std::get<Strides>(*f))
        out += cat(out.size() > 1 ? ", " : "", axis, ": ", stride_text(stride));
    return out + "}";
}

}  // namespace

const std::vector<std::string>& key_fields(StatKind kind) {
    static const std::vector<std::string> op{"dtype", "name", "count_granularity", "kernel_name"};
    static const std::vector<std::string> mem{"mtype", "dtype", "lid_strides", "gid_strides", "direction",
                                              "variable", "variable_tags", "count_granularity", "kernel_name"};
    static const std::vector<std::string> sync{"kind", "kernel_name"};
    return kind == StatKind::Op ? op : kind == StatKind::MemAccess ? mem : sync;
}

std::string to_string(const StatKey& key) {
    const std::vector<StatField>& f = key.fields;
    switch (key.kind) {
        case StatKind::Op:
            // loopy leaves out a kernel name it does not know.
            return cat("Op(", field_text(f[0]), ", ", field_text(f[1]), ", ", field_text(f[2]),
                       f[3] ? ", " + field_text(f[3], true, '"') : "", ")");
        case StatKind::MemAccess: {
            std::string out = "MemAccess(";
            for (std::size_t i = 0; i < f.size(); ++i) out += cat(i ? ", " : "", field_text(f[i], i + 1 == f.size()));
            return out + ")";
        }
        case StatKind::Sync:
            return cat("Sync(", field_text(f[0]), ", ", field_text(f[1]), ")");
    }
    return "";
}

Stride canonical_stride(const ExprPtr& e) {
    const std::optional<std::string> text = affine::polynomial_text(e);
    if (!text) return std::monostate{};
    try {
        std::size_t used = 0;
        const long long v = std::stoll(*text, &used);
        if (used == text->size()) return static_cast<std::int64_t>(v);
    } catch (const std::exception&) {
    }
    return *text;
}

void check_granularity(const std::string& name) {
    for (Granularity g : {Granularity::WorkItem, Granularity::SubGroup, Granularity::WorkGroup})
        if (name == granularity_name(g)) return;
    user_error(error_kind::LoopyError, "count_granularity '", name, "' is not allowed: 'workitem', 'subgroup' or 'workgroup'");
}

void CountMap::add(const StatKey& key, const PwQPolynomial& count) {
    const auto [it, fresh] = index_.emplace(key, entries_.size());
    if (fresh) entries_.emplace_back(key, count);
    else entries_[it->second].second = entries_[it->second].second + count;
}

PwQPolynomial CountMap::total() const {
    PwQPolynomial sum = PwQPolynomial::constant(params_, 0);
    for (const Entry& e : entries_) sum = sum + e.second;
    return sum;
}

namespace {

// The parameters counts are functions of: the kernel's, sorted (loopy's `[l, m, n] -> { ... }`).
std::vector<std::string> count_params(const KernelData& k) {
    std::vector<std::string> params = all_params(k);
    std::sort(params.begin(), params.end());
    return params;
}

// --- How often an instruction runs, per granularity (loopy's count_insn_runs and _get_insn_count).

class RunCounter {
public:
    RunCounter(const KernelData& k, const StatOptions& opts) : k_(k), opts_(opts), params_(count_params(k)) {
        for (const auto& [iname, tag] : k.iname_tags)
            if (tag.is_hardware()) {
                auto& axes = tag.is_group() ? group_axes_ : local_axes_;
                const auto n = static_cast<std::size_t>(tag.number);
                if (axes.size() <= n) axes.resize(n + 1);
                axes[n].push_back(iname);
            }
    }

    const std::vector<std::string>& params() const { return params_; }

    PwQPolynomial runs(const Instruction& insn, Granularity g) {
        const bool per_item = g == Granularity::WorkItem;
        std::vector<std::string> inames;
        for (const std::string& i : insn.within_inames)
            if (per_item || !is_local(i)) inames.push_back(i);
        PwQPolynomial n = points(inames);
        if (opts_.count_redundant_work) n = n * unused_axes(insn, per_item);
        if (g == Granularity::SubGroup) n = n.scaled(subgroups_per_group());
        return n;
    }

    // The points of the domain of `inames` (loopy's count_inames_domain).
    PwQPolynomial points(const std::vector<std::string>& inames) {
        if (inames.empty()) return PwQPolynomial::constant(params_, 1);
        if (const auto it = cache_.find(inames); it != cache_.end()) return it->second;
        PwQPolynomial c = counted(domain_of(k_, inames), cat("the instances of ", join(inames, ", "))).aligned(params_);
        return cache_.emplace(inames, c).first->second;
    }

private:
    bool is_local(const std::string& iname) const { return iname_tag(k_, iname).is_local(); }

    // The extents of the hardware axes `insn` does not run in: each of their work-items (or groups) repeats it.
    PwQPolynomial unused_axes(const Instruction& insn, bool with_local) {
        PwQPolynomial f = PwQPolynomial::constant(params_, 1);
        auto multiply = [&](const std::vector<std::vector<std::string>>& axes, bool local) {
            for (const std::vector<std::string>& inames : axes) {
                if (inames.empty() || std::any_of(inames.begin(), inames.end(),
                                                  [&](const std::string& i) { return insn.within_inames.count(i); }))
                    continue;
                if (local) {
                    f = f.scaled(local_size(inames));
                    continue;
                }
                f = f * isl_util::count_of(group_count(k_, inames)).aligned(params_);
            }
        };
        multiply(group_axes_, false);
        if (with_local) multiply(local_axes_, true);
        return f;
    }

    std::int64_t local_size(const std::vector<std::string>& inames) const {
        std::int64_t size = 1;
        for (const std::string& i : inames) {
            const std::optional<long> n = extent_bound(k_, i);
            user_assert(n, error_kind::LoopyError, "statistics: the work-group size along the axis of iname '", i,
                        "' is not a constant, so sub-groups per work-group are unknown");
            size = std::max<std::int64_t>(size, *n);
        }
        return size;
    }

    std::int64_t subgroups_per_group() const {
        user_assert(opts_.subgroup_size > 0, error_kind::LoopyError,
                    "statistics: no sub-group size given (pass subgroup_size=N or subgroup_size='guess')");
        std::int64_t group = 1;
        for (const std::vector<std::string>& inames : local_axes_)
            if (!inames.empty()) group *= local_size(inames);
        return (group + opts_.subgroup_size - 1) / opts_.subgroup_size;
    }

    const KernelData& k_;
    const StatOptions& opts_;
    std::vector<std::string> params_;
    std::vector<std::vector<std::string>> group_axes_, local_axes_;  // inames per hardware axis
    std::map<std::vector<std::string>, PwQPolynomial> cache_;
};

// What one run of an instruction does: operations or accesses, each with its granularity and multiplicity.
using RunTally = std::vector<std::pair<StatKey, std::pair<Granularity, std::int64_t>>>;

void tally(RunTally& t, StatKey key, Granularity g, std::int64_t n = 1) {
    for (auto& [k, v] : t)
        if (k == key) {
            v.second += n;
            return;
        }
    t.push_back({std::move(key), {g, n}});
}

// --- Operations (loopy's ExpressionOpCounter).

const char* op_name(BinOp op) {
    switch (op) {
        case BinOp::Add: case BinOp::Sub: return "add";
        case BinOp::Mul: return "mul";
        case BinOp::Div: case BinOp::FloorDiv: case BinOp::Mod: case BinOp::CDiv: case BinOp::CMod: return "div";
        case BinOp::Pow: return "pow";
        case BinOp::Shl: case BinOp::Shr: return "shift";
        case BinOp::BitAnd: case BinOp::BitOr: case BinOp::BitXor: return "bw";
        default: return nullptr;  // comparisons and logic are free
    }
}

bool is_minus_one(const ExprPtr& e) { return e->kind == ExprKind::IntLit && e->ival == -1; }

class OpCounter {
public:
    OpCounter(const KernelData& k, ExprTyper& typer, bool within_subscripts, RunTally& out)
        : kernel_name_(k.name), typer_(typer), within_subscripts_(within_subscripts), out_(out) {}

    void count(const ExprPtr& e) {
        switch (e->kind) {
            case ExprKind::Subscript:
                if (!within_subscripts_) return;
                break;
            case ExprKind::Call:
                add(e, "func:" + e->name);
                break;
            case ExprKind::Binary:
                // A product with -1 is a negation, which loopy does not count.
                if (const char* name = op_name(e->op); name && !(e->op == BinOp::Mul && (is_minus_one(e->args[0]) || is_minus_one(e->args[1]))))
                    add(e, name);
                break;
            case ExprKind::Unary:
                if (e->unop == "~") add(e, "bw");
                break;
            default:
                break;  // literals, variables and casts are free; an `if` counts its condition and both branches
        }
        for (const ExprPtr& a : e->args) count(a);
    }

private:
    void add(const ExprPtr& e, std::string name) {
        tally(out_, {StatKind::Op, {dtype_name(typer_.type(e).dtype), std::move(name), std::string("subgroup"), kernel_name_}},
              Granularity::SubGroup);
    }

    std::string kernel_name_;
    ExprTyper& typer_;
    bool within_subscripts_;
    RunTally& out_;
};

// --- Memory accesses (loopy's GlobalMemAccessCounter and LocalMemAccessCounter).

// The coefficient of `x` in the affine index `e` (floor divisions by their numerator, as loopy's stride
// collector does); null when `e` is not affine in x.
ExprPtr coefficient(const ExprPtr& e, const std::string& x) {
    const std::vector<std::string> names = referenced_names(e);
    if (std::find(names.begin(), names.end(), x) == names.end()) return int_lit(0);
    if (e->kind == ExprKind::Var) return int_lit(1);
    if (e->kind == ExprKind::Unary && e->unop == "-") {
        const ExprPtr c = coefficient(e->args[0], x);
        return c ? unary("-", c) : nullptr;
    }
    if (e->kind == ExprKind::Cast) return coefficient(e->args[0], x);
    if (e->kind != ExprKind::Binary) return nullptr;
    const ExprPtr a = coefficient(e->args[0], x), b = coefficient(e->args[1], x);
    if (!a || !b) return nullptr;
    switch (e->op) {
        case BinOp::Add: return binary(BinOp::Add, a, b);
        case BinOp::Sub: return binary(BinOp::Sub, a, b);
        case BinOp::Mul: {
            const bool left_free = a->kind == ExprKind::IntLit && a->ival == 0;
            const bool right_free = b->kind == ExprKind::IntLit && b->ival == 0;
            if (left_free) return binary(BinOp::Mul, e->args[0], b);
            if (right_free) return binary(BinOp::Mul, a, e->args[1]);
            return nullptr;
        }
        case BinOp::FloorDiv: return a;
        default: return nullptr;
    }
}

// The stride of each hardware axis of one kind (&InameTag::is_local or is_group) whose iname the subscripted
// access `a` of `v` uses: the elements between the addresses of neighbouring work-items (work-groups).
Strides strides(const KernelData& k, const Variable& v, const Access& a, TagPredicate is_kind) {
    const std::vector<std::size_t> skipped = sep_axes(v);
    const std::optional<std::size_t> vec = vec_axis(v);
    std::set<std::string> used;
    for (const ExprPtr& i : a.indices)
        for (const std::string& name : referenced_names(i)) used.insert(name);
    Strides out;
    for (const std::string& iname : used) {
        const InameTag tag = iname_tag(k, iname);
        if (!(tag.*is_kind)()) continue;
        ExprPtr total = int_lit(0);
        for (std::size_t axis = 0; axis < a.indices.size() && total; ++axis) {
            if (std::count(skipped.begin(), skipped.end(), axis) || vec == axis) continue;
            const ExprPtr c = coefficient(a.indices[axis], iname);
            const ExprPtr stride = a.linear || v.strides.size() <= axis ? int_lit(1) : v.strides[axis];
            total = c ? binary(BinOp::Add, total, binary(BinOp::Mul, c, stride)) : nullptr;
        }
        out[tag.number] = total ? canonical_stride(total) : Stride{};
    }
    return out;
}

// The global and local memory accesses among those of `insn` (ir/access: its stores, and its loads, those of
// subscripts and predicates included), as loopy's GlobalMemAccessCounter and LocalMemAccessCounter key them.
void count_accesses(const KernelData& k, const Instruction& insn, RunTally& out) {
    for (const Access& a : accesses_of(insn)) {
        const Variable* v = find_variable(k, a.name);
        if (!v || !v->is_array) continue;
        const bool global = v->kind == VarKind::GlobalArg ||
                            (v->kind == VarKind::Temporary && v->address_space == AddressSpace::Global);
        const bool local = v->kind == VarKind::Temporary && v->address_space == AddressSpace::Local;
        if (!global && !local) continue;
        StatKey key{StatKind::MemAccess, {std::string(global ? "global" : "local"), dtype_name(v->dtype), std::nullopt,
                                          std::nullopt, std::string(a.is_write ? "store" : "load"), a.name,
                                          std::nullopt, std::nullopt, k.name}};
        Granularity g = Granularity::SubGroup;
        if (a.subscripted) {
            const Strides lid = strides(k, *v, a, &InameTag::is_local);
            // An access whose address varies along work-item axis 0 counts per work-item; a uniform one (a
            // broadcast) once per sub-group.
            const auto l0 = lid.find(0);
            if (global && l0 != lid.end() && l0->second != Stride(std::int64_t{0})) g = Granularity::WorkItem;
            key.fields[2] = lid;
            key.fields[3] = strides(k, *v, a, &InameTag::is_group);
        } else if (global) {
            g = Granularity::WorkItem;  // loopy's map_variable
            key.fields[2] = key.fields[3] = Strides{};
        } else {
            key.fields[5] = std::nullopt;  // loopy's unsubscripted local access names no variable
        }
        key.fields[7] = std::string(granularity_name(g));
        tally(out, std::move(key), g);
    }
}

// Counts what `per_run` finds in each counted assignment, times its runs.
template <class PerRun>
CountMap count_instructions(const Kernel& kernel, const StatOptions& opts, PerRun&& per_run) {
    const KernelData& k = *kernel;
    const Match within = Match::parse(opts.within);
    RunCounter runs(k, opts);
    ExprTyper typer(k);
    CountMap out(runs.params());
    for (const Instruction& insn : k.instructions) {
        if (insn.kind != InsnKind::Assignment || !within(insn, k.name)) continue;
        RunTally t;
        per_run(insn, typer, t);
        for (const auto& [key, gn] : t) out.add(key, runs.runs(insn, gn.first).scaled(gn.second));
    }
    return out;
}

}  // namespace

CountMap op_map(const Kernel& k, const StatOptions& opts) {
    return count_instructions(k, opts, [&](const Instruction& insn, ExprTyper& typer, RunTally& t) {
        OpCounter ops(*k, typer, opts.count_within_subscripts, t);
        for (const ExprPtr& a : insn.assignees) ops.count(a);
        ops.count(insn.expression);
    });
}

CountMap mem_access_map(const Kernel& k, const StatOptions& opts) {
    return count_instructions(k, opts, [&](const Instruction& insn, ExprTyper&, RunTally& t) { count_accesses(*k, insn, t); });
}

CountMap synchronization_map(const Kernel& kernel) {
    const KernelData& k = *kernel;
    StatOptions opts;
    RunCounter runs(k, opts);
    CountMap out(runs.params());
    std::vector<std::string> loops;
    auto event = [&](const std::string& kind) {
        out.add({StatKind::Sync, {kind, k.name}}, runs.points(loops));
    };
    for (const LinearItem& item : k.linearization) {
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop: loops.push_back(item.name); break;
            case LinearItem::Kind::LeaveLoop: loops.pop_back(); break;
            case LinearItem::Kind::Barrier: event("barrier_" + item.sync_kind); break;
            case LinearItem::Kind::CallKernel: event("kernel_launch"); break;
            case LinearItem::Kind::RunInstruction:
                // A barrier the kernel states (`... lbarrier`) rather than one barrier insertion placed.
                if (const Instruction* insn = find_instruction(k, item.name); insn && insn->kind == InsnKind::Barrier)
                    event("barrier_" + insn->barrier_kind);
                break;
            default: break;
        }
    }
    return out;
}

// --- Access footprints (loopy's AccessFootprintGatherer).

namespace {

// The elements access `a` of `insn` touches over the runs of the loops around it; nullopt where an index is
// not quasi-affine or reads data.
std::optional<isl::set> touched_elements(const KernelData& k, const Instruction& insn, const Access& a) {
    if (data_dependent(k, a)) return std::nullopt;
    const std::optional<isl::map> m = affine::exact_access_map(domain_of(k, access_loops(insn, a)), storage_indices(k, a));
    if (!m) return std::nullopt;
    return isl_util::as_elements(m->range(), a.name);
}

std::string subscript_text(const Access& a) {
    std::vector<std::string> indices;
    for (const ExprPtr& i : a.indices) indices.push_back(to_string(i));
    return a.linear ? cat(a.name, "[[", indices[0], "]]") : cat(a.name, "[", join(indices, ", "), "]");
}

void add_footprint(std::vector<AccessFootprint>& out, AccessFootprint f) {
    for (AccessFootprint& g : out)
        if (g.variable == f.variable && g.direction == f.direction) {
            g.elements = isl_util::unite(g.elements, f.elements);
            return;
        }
    out.push_back(std::move(f));
}

}  // namespace

std::vector<AccessFootprint> access_footprints(const Kernel& kernel, bool ignore_uncountable) {
    const KernelData& k = *kernel;
    std::vector<AccessFootprint> writes, reads;
    for (const Instruction& insn : k.instructions) {
        if (insn.kind != InsnKind::Assignment) continue;
        for (const Access& a : accesses_of(insn)) {
            if (!a.subscripted) continue;
            const std::optional<isl::set> touched = touched_elements(k, insn, a);
            user_assert(touched || ignore_uncountable, error_kind::LoopyError, "failed to gather footprint: ", subscript_text(a),
                        " in instruction '", insn.id, "' is not quasi-affine in the inames and parameters",
                        " (ignore_uncountable=true leaves it out)");
            if (touched)
                add_footprint(a.is_write ? writes : reads, {a.name, a.is_write ? "write" : "read", *touched});
        }
    }
    for (AccessFootprint& f : reads) writes.push_back(std::move(f));
    // As loopy's get_access_map: the elements touched where the assumptions hold.
    for (AccessFootprint& f : writes) {
        const isl::set assumed = isl_util::align_params(assumption_context(k), f.elements.space());
        f.elements = isl_util::align_params(f.elements, assumed.space()).intersect_params(assumed);
    }
    return writes;
}

PwQPolynomial footprint_bytes(const KernelData& k, const AccessFootprint& f) {
    const Variable* v = find_variable(k, f.variable);
    // Preprocessing has inferred every type or raised a TypeInferenceError.
    internal_assert(v && v->dtype != DType::Unknown, "footprint_bytes: no type for '", f.variable, "'");
    return counted(f.elements, cat("the footprint of ", f.variable)).aligned(count_params(k)).scaled(static_cast<std::int64_t>(dtype_size(v->dtype)));
}

}  // namespace loom
