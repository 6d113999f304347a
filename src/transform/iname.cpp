// The iname transformations of loopy's transform/iname.py and transform/parameter.py. Each validates its
// arguments first, returns its input when `within` selects no instruction, and otherwise edits a copy of the
// kernel data: the domains (through isl), the instructions `within` selects, and the iname bookkeeping
// (tags, slabs, loop priorities).
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/names.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "parse/match.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

void check_inames_exist(const KernelData& k, const std::vector<std::string>& inames, const char* transform) {
    for (const std::string& i : inames)
        user_assert(is_iname(k, i), error_kind::LoopyError, transform, ": unknown iname '", i, "'");
}

// Whether the kernel already uses `name` for an iname, parameter, variable or substitution rule.
bool name_in_use(const KernelData& k, const std::string& name) {
    if (is_iname(k, name) || find_variable(k, name) || contains(all_params(k), name)) return true;
    return std::any_of(k.substitutions.begin(), k.substitutions.end(),
                       [&](const SubstitutionRule& r) { return r.name == name; });
}

void check_new_name(const KernelData& k, const std::string& name, const char* transform) {
    check_name(name, "iname", transform);
    user_assert(!name_in_use(k, name), error_kind::LoopyError, transform, ": new iname '", name,
                "' is already used in kernel '", k.name, "'");
}

// Which instructions `within` selects, in instruction order.
std::vector<bool> selection(const KernelData& k, const std::string& within) {
    const Match match = Match::parse(within);
    std::vector<bool> out;
    for (const Instruction& insn : k.instructions) out.push_back(match(insn, k.name));
    return out;
}

bool none_selected(const std::vector<bool>& sel) { return std::find(sel.begin(), sel.end(), true) == sel.end(); }
bool all_selected(const std::vector<bool>& sel) { return std::find(sel.begin(), sel.end(), false) == sel.end(); }

// --- expressions

using ReductionInames = std::function<std::vector<std::string>(const std::vector<std::string>&)>;

// `e` with the variables named in `values` replaced, and every reduction's inames passed through
// `reduction_inames`.
ExprPtr map_inames(const ExprPtr& e, const std::map<std::string, ExprPtr>& values,
                   const ReductionInames& reduction_inames) {
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        if (n->kind == ExprKind::Var) {
            const auto it = values.find(n->name);
            return it == values.end() ? n : it->second;
        }
        if (n->kind != ExprKind::Reduction && n->kind != ExprKind::SubArrayRef) return n;
        std::vector<std::string> inames = reduction_inames(n->inames);
        if (inames == n->inames) return n;
        if (n->kind == ExprKind::SubArrayRef) return sub_array_ref(n->name, n->args, std::move(inames));
        return reduction(n->name, std::move(inames), n->args, n->allow_simultaneous);
    });
}

// Each of `inames` replaced by `replacement[iname]` (a list, possibly empty), keeping the order.
std::vector<std::string> replace_names(const std::vector<std::string>& inames,
                                       const std::map<std::string, std::vector<std::string>>& replacement) {
    std::vector<std::string> out;
    for (const std::string& i : inames) {
        const auto it = replacement.find(i);
        if (it == replacement.end()) {
            out.push_back(i);
            continue;
        }
        for (const std::string& r : it->second)
            if (!contains(out, r)) out.push_back(r);
    }
    return out;
}

// Whether the body of `rule` uses `name` other than as one of its arguments.
bool rule_uses(const SubstitutionRule& rule, const std::string& name) {
    if (contains(rule.arguments, name)) return false;
    const std::vector<std::string> refs = referenced_names(rule.expression);
    return contains(refs, name) || reduction_inames(rule.expression).count(name) != 0;
}

// Applies `f` to the instructions `sel` selects and to the substitution rules that use one of `inames`.
// Rules are shared by all instructions, so they can follow only when every instruction is selected.
void rewrite_selected(KernelData& k, const std::vector<bool>& sel, const std::vector<std::string>& inames,
                      const char* transform, const std::function<ExprPtr(const ExprPtr&)>& f) {
    for (std::size_t n = 0; n < k.instructions.size(); ++n)
        if (sel[n]) rewrite_instruction(k.instructions[n], f);
    for (SubstitutionRule& rule : k.substitutions) {
        const bool uses = std::any_of(inames.begin(), inames.end(), [&](const std::string& i) { return rule_uses(rule, i); });
        if (!uses) continue;
        user_assert(all_selected(sel), error_kind::LoopyError, transform, ": substitution rule '", rule.name, "' uses iname(s) ",
                    join(inames, ", "), "; it can only be rewritten for all instructions (omit 'within')");
        rule.expression = f(rule.expression);
    }
}

// --- which inames are used

// Inames that instructions run in or reduce over (in their own expressions or in substitution rules).
std::set<std::string> instruction_inames(const KernelData& k) {
    std::set<std::string> used;
    for (const Instruction& insn : k.instructions) {
        used.insert(insn.within_inames.begin(), insn.within_inames.end());
        for (const std::string& r : bound_inames(insn)) used.insert(r);
    }
    for (const SubstitutionRule& rule : k.substitutions)
        for (const std::string& r : reduction_inames(rule.expression)) used.insert(r);
    return used;
}

// Instruction inames, plus the inames whose values bound the domain of a used iname (its domain's parameters).
std::set<std::string> used_inames(const KernelData& k) {
    std::set<std::string> used = instruction_inames(k);
    for (bool changed = true; changed;) {
        changed = false;
        for (const isl::set& d : k.domains) {
            const std::vector<std::string> dims = isl_util::set_dim_names(d);
            if (std::none_of(dims.begin(), dims.end(), [&](const std::string& i) { return used.count(i) != 0; })) continue;
            for (const std::string& p : isl_util::param_names(d.space()))
                if (is_iname(k, p) && used.insert(p).second) changed = true;
        }
    }
    return used;
}

// Projects `names` out of every domain (dropping domains left without dimensions) and forgets their tags,
// slabs and priorities.
void remove_inames(KernelData& k, const std::set<std::string>& names) {
    if (names.empty()) return;
    const std::vector<std::string> list(names.begin(), names.end());
    std::vector<isl::set> domains;
    for (const isl::set& d : k.domains) {
        const bool had_dims = d.tuple_dim() != 0;
        isl::set reduced = isl_util::project_out(d, list);
        if (had_dims && reduced.tuple_dim() == 0) continue;
        domains.push_back(reduced);
    }
    k.domains = std::move(domains);
    for (const std::string& i : names) {
        k.iname_tags.erase(i);
        k.iname_slabs.erase(i);
    }
    for (std::vector<std::string>& prio : k.loop_priority)
        prio.erase(std::remove_if(prio.begin(), prio.end(), [&](const std::string& i) { return names.count(i) != 0; }),
                   prio.end());
}

// --- tags

// Parses `text` (tag_inames' forms, transforms.h) once for the transform to apply later: rejects tags loopy does
// not know, and `like.X` for an X that is not an iname.
TagRequest checked_tag(const KernelData& k, const std::string& text, const char* transform) {
    const std::optional<TagRequest> request = parse_tag_request(text);
    user_assert(request.has_value(), error_kind::LoopyError, transform, ": unknown iname tag '", text,
                "' (expected for, ord, l.N, g.N, unr, unr_hint, unr_hint.N, ilp, ilp.unr, ilp.seq, vec, like.INAME, "
                "unused.g or unused.l)");
    user_assert(request->kind != TagRequest::Kind::Like || is_iname(k, request->iname), error_kind::LoopyError, transform,
                ": tag '", text, "' names unknown iname '", request->iname, "'");
    return *request;
}

// The lowest axis of a kind (InameTag::group or InameTag::local) that no iname is tagged with.
InameTag lowest_unused_axis(const KernelData& k, InameTag (*axis)(int)) {
    for (int n = 0;; ++n) {
        const InameTag candidate = axis(n);
        if (std::none_of(k.iname_tags.begin(), k.iname_tags.end(),
                         [&](const auto& entry) { return entry.second == candidate; }))
            return candidate;
    }
}

// The tag to store: none, or `like.X` and `unused.g`/`unused.l` resolved against the current tags.
InameTag resolve_tag(const KernelData& k, const TagRequest& request) {
    switch (request.kind) {
        case TagRequest::Kind::None: return {};
        case TagRequest::Kind::Tag: return request.tag;
        case TagRequest::Kind::Like: return iname_tag(k, request.iname);
        case TagRequest::Kind::UnusedGroup: return lowest_unused_axis(k, &InameTag::group);
        case TagRequest::Kind::UnusedLocal: return lowest_unused_axis(k, &InameTag::local);
    }
    return {};
}

void apply_tag(KernelData& k, const std::string& iname, const TagRequest& request, const char* transform) {
    const InameTag resolved = resolve_tag(k, request);
    const auto it = k.iname_tags.find(iname);
    if (resolved.is_none()) {
        if (it != k.iname_tags.end()) k.iname_tags.erase(it);
        return;
    }
    user_assert(it == k.iname_tags.end() || it->second == resolved, error_kind::LoopyError, transform, ": iname '", iname,
                "' is already tagged '", iname_tag(k, iname), "'--cannot retag as '", resolved, "'");
    k.iname_tags[iname] = resolved;
}

// --- the loops the kernel meant (KernelData::meant)

// Records the kernel's loops, before a transformation changes its inames or priorities, once.
void remember_meant_loops(KernelData& k) {
    if (!k.meant.loops.empty()) return;
    for (const std::string& i : nesting_order(k, all_inames(k))) k.meant.loops.emplace_back(i, var(i));
    for (const Instruction& insn : k.instructions) k.meant.instructions.insert(insn.id);
}

// The meant loops in today's inames, after a transformation put `values` in place of the inames they name.
void rewrite_meant_loops(KernelData& k, const std::map<std::string, ExprPtr>& values) {
    for (auto& [name, e] : k.meant.loops) e = substitute(e, values);
}

// --- split and chunk

// How a split maps the old iname: OLD - offset = fixed + fixed_length*varying in the domain, where `fixed`
// is the inner iname for split_iname and the outer one for chunk_iname; `index` is OLD in the instructions.
struct SplitPlan {
    std::int64_t fixed_length = 1;
    bool fixed_is_inner = true;
    ExprPtr offset;  // null: 0
    std::function<ExprPtr(const ExprPtr& inner, const ExprPtr& outer)> index;
};

// The set dimensions of `d` with `added` right after `old`: new inames take the place of the one they
// replace in the kernel's iname order, which the linearizer follows where nothing else decides, so that a
// split or a join keeps the order of the loops (and so the meaning of the kernel, dependence_legality.h).
std::vector<std::string> dims_in_place(const isl::set& d, const std::string& old, const std::vector<std::string>& added) {
    std::vector<std::string> out;
    for (const std::string& n : isl_util::set_dim_names(d))
        if (std::find(added.begin(), added.end(), n) == added.end()) {
            out.push_back(n);
            if (n == old) out.insert(out.end(), added.begin(), added.end());
        }
    return out;
}

isl::set split_domain(const isl::set& d, const std::string& old, const std::string& outer, const std::string& inner,
                      const SplitPlan& plan) {
    // An iname that a nested domain uses as a parameter is split there as a parameter.
    const bool as_params = isl_util::is_param(d, old);
    isl::set s = isl_util::add_named_dims(d, {outer, inner}, as_params);
    if (!as_params) s = isl_util::project_onto(s, dims_in_place(s, old, {outer, inner}));
    const ExprPtr fixed = var(plan.fixed_is_inner ? inner : outer);
    const ExprPtr varying = var(plan.fixed_is_inner ? outer : inner);
    s = affine::add_constraint(s, fixed, BinOp::Ge, int_lit(0));
    s = affine::add_constraint(s, fixed, BinOp::Lt, int_lit(plan.fixed_length));
    const ExprPtr lhs = plan.offset ? binary(BinOp::Sub, var(old), plan.offset) : var(old);
    return affine::add_constraint(s, lhs, BinOp::Eq,
                                    binary(BinOp::Add, fixed, binary(BinOp::Mul, int_lit(plan.fixed_length), varying)));
}

Kernel split_backend(const Kernel& kernel, const std::string& iname, const SplitPlan& plan, const SplitOptions& o,
                     const char* transform) {
    const KernelData& src = *kernel;
    user_assert(!src.iname_tags.count(iname), error_kind::LoopyError, transform, ": cannot split already tagged iname '", iname,
                "' (tag '", iname_tag(src, iname), "')");
    const std::string outer = o.outer_iname.empty() ? iname + "_outer" : o.outer_iname;
    const std::string inner = o.inner_iname.empty() ? iname + "_inner" : o.inner_iname;
    user_assert(outer != inner, error_kind::LoopyError, transform, ": outer and inner iname are both named '", outer, "'");
    check_new_name(src, outer, transform);
    check_new_name(src, inner, transform);
    const TagRequest outer_tag = checked_tag(src, o.outer_tag, transform);
    const TagRequest inner_tag = checked_tag(src, o.inner_tag, transform);
    user_assert(o.slabs.first >= 0 && o.slabs.second >= 0, error_kind::LoopyError, transform, ": slabs must be non-negative");
    const std::vector<bool> sel = selection(src, o.within);
    if (none_selected(sel)) return kernel;

    KernelData k = kernel.copy();
    remember_meant_loops(k);
    for (isl::set& d : k.domains)
        if (isl_util::has_dim(d, iname)) d = split_domain(d, iname, outer, inner, plan);
    const ExprPtr index = plan.index(var(inner), var(outer));
    if (all_selected(sel)) rewrite_meant_loops(k, {{iname, index}});
    const std::map<std::string, std::vector<std::string>> split_names{{iname, {outer, inner}}};
    rewrite_selected(k, sel, {iname}, transform, [&](const ExprPtr& e) {
        return map_inames(e, {{iname, index}},
                          [&](const std::vector<std::string>& inames) { return replace_names(inames, split_names); });
    });
    for (std::size_t n = 0; n < k.instructions.size(); ++n)
        if (sel[n] && k.instructions[n].within_inames.erase(iname)) k.instructions[n].within_inames.insert({outer, inner});
    k.applied_iname_rewrites.push_back({{iname, index}});
    if (o.slabs != std::pair<int, int>{0, 0}) k.iname_slabs[outer] = o.slabs;
    for (std::vector<std::string>& prio : k.loop_priority) prio = replace_names(prio, split_names);
    apply_tag(k, outer, outer_tag, transform);
    apply_tag(k, inner, inner_tag, transform);
    // Nested domains that used the old iname as a parameter now say the same through the new ones.
    if (!instruction_inames(k).count(iname)) remove_inames(k, {iname});
    return unlinearized_kernel(std::move(k));
}

// `bound` (dim_min or dim_size) of `iname` over the domain, as one expression in the parameters.
ExprPtr iname_bound(const KernelData& k, const std::string& iname, isl::pw_aff (*bound)(const isl::set&, int),
                    const char* transform) {
    const auto e = affine::single_piece_expr(bound(domain_of(k, {iname}), 0), assumption_context(k));
    user_assert(e.has_value(), error_kind::LoopyError, transform, ": the bounds of iname '", iname,
                "' are not single affine expressions of the parameters");
    return *e;
}

// chunk_iname's index map needs every value of `iname` in [lo, lo + size) whatever the other inames are.
void check_box(const KernelData& k, const std::string& iname, const ExprPtr& lo, const ExprPtr& size,
               const char* transform) {
    const isl::set ctx = assumption_context(k);
    for (const isl::set& d : k.domains) {
        if (!isl_util::has_dim(d, iname) || isl_util::is_param(d, iname)) continue;
        isl::set box = isl_util::eliminate_dim(d, iname);
        box = affine::add_constraint(box, var(iname), BinOp::Ge, lo);
        box = affine::add_constraint(box, var(iname), BinOp::Lt, binary(BinOp::Add, lo, size));
        const isl::set dom = d.intersect_params(isl_util::align_params(ctx, d.space()));
        box = box.intersect_params(isl_util::align_params(ctx, box.space()));
        user_assert(dom.is_equal(isl_util::align_params(box, dom.space())), error_kind::LoopyError, transform, ": domain '",
                    isl_util::to_str(d), "' is not box-shaped in iname '", iname, "'");
    }
}

ExprPtr plus(const ExprPtr& a, const ExprPtr& b) {
    if (a->kind == ExprKind::IntLit && a->ival == 0) return b;
    if (b->kind == ExprKind::IntLit && b->ival == 0) return a;
    return binary(BinOp::Add, a, b);
}

ExprPtr times(const ExprPtr& a, const ExprPtr& b) {
    if (a->kind == ExprKind::IntLit && a->ival == 1) return b;
    return binary(BinOp::Mul, a, b);
}

// OLD for chunk `outer`, position `inner`: the first size mod n chunks have ceil(size/n) entries, the
// others floor(size/n).
std::function<ExprPtr(const ExprPtr&, const ExprPtr&)> chunk_index(const ExprPtr& lo, const ExprPtr& size,
                                                                    std::int64_t num_chunks) {
    const ExprPtr n = int_lit(num_chunks);
    if (size->kind == ExprKind::IntLit) {
        const std::int64_t s = std::max<std::int64_t>(size->ival, 0);
        const std::int64_t ceil = (s + num_chunks - 1) / num_chunks, floor = s / num_chunks, mod = s % num_chunks;
        return [=](const ExprPtr& inner, const ExprPtr& outer) {
            ExprPtr start = times(int_lit(ceil), outer);
            if (mod != 0) {
                const ExprPtr first = call("min", {outer, int_lit(mod)});
                start = plus(times(int_lit(ceil), first), times(int_lit(floor), binary(BinOp::Sub, outer, first)));
            }
            return plus(plus(lo, inner), start);
        };
    }
    const ExprPtr ceil = binary(BinOp::FloorDiv, binary(BinOp::Add, size, int_lit(num_chunks - 1)), n);
    const ExprPtr floor = binary(BinOp::FloorDiv, size, n);
    const ExprPtr mod = binary(BinOp::Mod, size, n);
    return [=](const ExprPtr& inner, const ExprPtr& outer) {
        const ExprPtr first = call("min", {outer, mod});
        const ExprPtr start = plus(times(ceil, first), times(floor, binary(BinOp::Sub, outer, first)));
        return plus(plus(lo, inner), start);
    };
}

// --- join

// The domain that declares all of `inames`; nested domains must not depend on them.
std::size_t joint_home_domain(const KernelData& k, const std::vector<std::string>& inames, const char* transform) {
    const int home = home_domain(k, inames[0]);
    internal_assert(home >= 0, "iname '", inames[0], "' has no domain");
    for (const std::string& i : inames)
        user_assert(home_domain(k, i) == home, error_kind::LoopyError, transform, ": inames '", inames[0], "' and '", i,
                    "' belong to different domains");
    for (const isl::set& d : k.domains)
        for (const std::string& i : inames)
            user_assert(!isl_util::is_param(d, i), error_kind::LoopyError, transform, ": domain '", isl_util::to_str(d),
                        "' depends on iname '", i, "'");
    return static_cast<std::size_t>(home);
}

struct JoinMap {
    ExprPtr joint;                          // the new iname in terms of the old ones
    std::map<std::string, ExprPtr> values;  // each old iname in terms of the new one
};

JoinMap join_map(const KernelData& k, const std::vector<std::string>& inames, const std::string& new_iname,
                 const char* transform) {
    JoinMap out{int_lit(0), {}};
    const isl::set ctx = assumption_context(k);
    std::int64_t divisor = 1;
    for (std::size_t n = inames.size(); n-- > 0;) {  // fastest varying first
        const std::string& i = inames[n];
        const ExprPtr lo = iname_bound(k, i, isl_util::dim_min, transform);
        out.joint = plus(out.joint, times(int_lit(divisor), binary(BinOp::Sub, var(i), lo)));
        ExprPtr value = divisor == 1 ? var(new_iname) : binary(BinOp::FloorDiv, var(new_iname), int_lit(divisor));
        if (n > 0) {
            const std::optional<long> length = constant_length(k, i);
            user_assert(length.has_value(), error_kind::LoopyError, transform, ": iname '", i, "' has no constant length");
            value = binary(BinOp::Mod, value, int_lit(*length));
            divisor *= *length;
        }
        out.values[i] = plus(value, lo);
    }
    return out;
}

// A reduction over some of the joined inames must cover all of them: they become the new iname.
std::vector<std::string> join_reduction(const std::vector<std::string>& red, const std::vector<std::string>& joined,
                                        const std::string& new_iname, const char* transform) {
    const auto n = std::count_if(red.begin(), red.end(), [&](const std::string& i) { return contains(joined, i); });
    if (n == 0) return red;
    user_assert(static_cast<std::size_t>(n) == joined.size(), error_kind::LoopyError, transform,
                ": a reduction over '", join(red, ", "), "' does not use all of the joined inames ", join(joined, ", "));
    std::map<std::string, std::vector<std::string>> repl;
    for (const std::string& i : joined) repl[i] = {new_iname};
    return replace_names(red, repl);
}

// --- duplicate

// A selected instruction that runs in `old` and in inames of a domain nested in `old` would lose the
// connection between the two.
void check_no_nested_use(const KernelData& k, const std::vector<bool>& sel, const std::string& old,
                         const char* transform) {
    for (std::size_t n = 0; n < k.instructions.size(); ++n) {
        const Instruction& insn = k.instructions[n];
        if (!sel[n] || !insn.within_inames.count(old)) continue;
        for (const isl::set& d : k.domains) {
            if (!isl_util::is_param(d, old)) continue;
            for (const std::string& i : isl_util::set_dim_names(d))
                user_assert(!insn.within_inames.count(i), error_kind::LoopyError, transform, ": instruction '", insn.id,
                            "' runs in iname '", i, "' whose bounds depend on '", old, "'");
        }
    }
}

// Gives the selected instructions `new_iname` instead of `old` (both existing inames).
void move_instructions(KernelData& k, const std::vector<bool>& sel, const std::string& old,
                       const std::string& new_iname, const char* transform) {
    const std::map<std::string, std::vector<std::string>> repl{{old, {new_iname}}};
    rewrite_selected(k, sel, {old}, transform, [&](const ExprPtr& e) {
        return map_inames(e, {{old, var(new_iname)}},
                          [&](const std::vector<std::string>& inames) { return replace_names(inames, repl); });
    });
    for (std::size_t n = 0; n < k.instructions.size(); ++n)
        if (sel[n] && k.instructions[n].within_inames.erase(old)) k.instructions[n].within_inames.insert(new_iname);
}

// Whether `a` and `b` run over the same values given every other iname (loopy's rename_iname check).
bool same_bounds(const KernelData& k, const std::string& a, const std::string& b) {
    const std::vector<std::string> inames = all_inames(k);
    const isl::set dom = domain_of(k, inames);
    std::vector<std::string> order;
    for (const std::string& i : inames)
        if (i != a) order.push_back(i);
    const isl::set with_b = isl_util::project_onto(dom, order);
    std::vector<std::string> without_b;
    for (const std::string& i : inames)
        if (i != b) without_b.push_back(i);
    const isl::set with_a = isl_util::rename_dim(isl_util::project_onto(dom, without_b), a, b);
    return with_b.is_equal(isl_util::project_onto(with_a, order));
}

}  // namespace

namespace {

// A cycle of "goes outside" edges that the loop priorities state (each names its inames outermost first),
// as a path that returns to its start; empty when they agree.
std::vector<std::string> priority_cycle(const std::vector<std::vector<std::string>>& priorities) {
    std::map<std::string, std::set<std::string>> inside;
    for (const std::vector<std::string>& prio : priorities)
        for (std::size_t a = 0; a < prio.size(); ++a)
            for (std::size_t b = a + 1; b < prio.size(); ++b) inside[prio[a]].insert(prio[b]);
    std::map<std::string, int> state;  // 1: on the current path, 2: finished
    std::vector<std::string> path;
    std::function<bool(const std::string&)> visit = [&](const std::string& i) {
        state[i] = 1;
        path.push_back(i);
        for (const std::string& j : inside[i]) {
            if (state[j] == 1) {
                path.erase(path.begin(), std::find(path.begin(), path.end(), j));
                path.push_back(j);
                return true;
            }
            if (state[j] == 0 && visit(j)) return true;
        }
        state[i] = 2;
        path.pop_back();
        return false;
    };
    for (const auto& [i, _] : inside)
        if (state[i] == 0 && visit(i)) return path;
    return {};
}

}  // namespace

Kernel prioritize_loops(const Kernel& kernel, const std::vector<std::string>& order) {
    KernelData k = kernel.copy();
    check_inames_exist(k, order, "prioritize_loops");
    remember_meant_loops(k);
    k.loop_priority.push_back(order);
    const std::vector<std::string> cycle = priority_cycle(k.loop_priority);
    user_assert(cycle.empty(), error_kind::LoopyError, "prioritize_loops: the order ", join(order, ", "),
                " contradicts the kernel's loop priorities: they would nest ", join(cycle, " outside "),
                " (a cycle; loopy's CycleError)");
    return unlinearized_kernel(std::move(k));
}

Kernel assume(const Kernel& kernel, const std::string& constraints) {
    KernelData k = kernel.copy();
    isl::set extra = parse_assumptions(constraints);
    isl::set current = isl_util::align_params(k.assumptions, extra.space());
    extra = isl_util::align_params(extra, current.space());
    k.assumptions = current.intersect(extra);
    return unlinearized_kernel(std::move(k));
}

Kernel split_iname(const Kernel& kernel, const std::string& iname, std::int64_t factor, const SplitOptions& options) {
    check_inames_exist(*kernel, {iname}, "split_iname");
    user_assert(factor >= 1, error_kind::LoopyError, "split_iname: the length of '", iname, "_inner' must be positive, got ",
                factor);
    check_index_value(*kernel, factor, "split_iname", "the split factor");
    SplitPlan plan;
    plan.fixed_length = factor;
    plan.index = [factor](const ExprPtr& inner, const ExprPtr& outer) {
        return binary(BinOp::Add, inner, binary(BinOp::Mul, outer, int_lit(factor)));
    };
    return split_backend(kernel, iname, plan, options, "split_iname");
}

Kernel chunk_iname(const Kernel& kernel, const std::string& iname, std::int64_t num_chunks, const SplitOptions& options) {
    const char* transform = "chunk_iname";
    check_inames_exist(*kernel, {iname}, transform);
    user_assert(num_chunks >= 1, error_kind::LoopyError, transform, ": the number of chunks must be positive, got ", num_chunks);
    check_index_value(*kernel, num_chunks, transform, "the number of chunks");
    const ExprPtr lo = iname_bound(*kernel, iname, isl_util::dim_min, transform);
    const ExprPtr size = iname_bound(*kernel, iname, isl_util::dim_size, transform);
    check_box(*kernel, iname, lo, size, transform);
    SplitPlan plan;
    plan.fixed_length = num_chunks;
    plan.fixed_is_inner = false;
    plan.offset = lo;
    plan.index = chunk_index(lo, size, num_chunks);
    return split_backend(kernel, iname, plan, options, transform);
}

Kernel join_inames(const Kernel& kernel, const std::vector<std::string>& inames, const std::string& new_iname,
                   const std::string& tag, const std::string& within) {
    const char* transform = "join_inames";
    const KernelData& src = *kernel;
    user_assert(!inames.empty(), error_kind::LoopyError, transform, ": no inames to join");
    check_inames_exist(src, inames, transform);
    for (std::size_t n = 0; n < inames.size(); ++n)
        user_assert(std::count(inames.begin(), inames.end(), inames[n]) == 1, error_kind::LoopyError, transform, ": iname '",
                    inames[n], "' is listed twice");
    const std::size_t home = joint_home_domain(src, inames, transform);
    const std::string name =
        new_iname.empty() ? NameGenerator(src)(join(std::vector<std::string>(inames.rbegin(), inames.rend()), "_and_"))
                          : new_iname;
    check_new_name(src, name, transform);
    const TagRequest request = checked_tag(src, tag, transform);
    const std::vector<bool> sel = selection(src, within);
    if (none_selected(sel)) return kernel;
    for (std::size_t n = 0; n < src.instructions.size(); ++n) {
        const Instruction& insn = src.instructions[n];
        const auto in = std::count_if(inames.begin(), inames.end(), [&](const std::string& i) { return insn.within_inames.count(i) != 0; });
        user_assert(!sel[n] || in == 0 || static_cast<std::size_t>(in) == inames.size(), error_kind::LoopyError, transform,
                    ": instruction '", insn.id, "' runs in only some of the inames ", join(inames, ", "));
    }

    const JoinMap map = join_map(src, inames, name, transform);
    KernelData k = kernel.copy();
    remember_meant_loops(k);
    if (all_selected(sel)) rewrite_meant_loops(k, map.values);
    isl::set& d = k.domains[home];
    d = affine::add_constraint(isl_util::add_named_dims(d, {name}, false), var(name), BinOp::Eq, map.joint);
    const auto first = std::find_if(inames.begin(), inames.end(), [&](const std::string& i) { return isl_util::has_dim(d, i); });
    if (first != inames.end()) d = isl_util::project_onto(d, dims_in_place(d, *first, {name}));
    rewrite_selected(k, sel, inames, transform, [&](const ExprPtr& e) {
        return map_inames(e, map.values, [&](const std::vector<std::string>& red) {
            return join_reduction(red, inames, name, transform);
        });
    });
    for (std::size_t n = 0; n < k.instructions.size(); ++n) {
        Instruction& insn = k.instructions[n];
        if (!sel[n] || !insn.within_inames.count(inames[0])) continue;
        for (const std::string& i : inames) insn.within_inames.erase(i);
        insn.within_inames.insert(name);
    }
    apply_tag(k, name, request, transform);
    const std::set<std::string> used = instruction_inames(k);
    std::set<std::string> unused;
    for (const std::string& i : inames)
        if (!used.count(i)) unused.insert(i);
    remove_inames(k, unused);
    return unlinearized_kernel(std::move(k));
}

std::vector<std::pair<std::string, std::string>> parse_iname_tags(const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& entry : split_trimmed(text, ',')) {
        const std::size_t colon = entry.find(':');
        user_assert(colon != std::string::npos, error_kind::LoopyError, "tag_inames: tag declaration '", entry, "' has no colon");
        out.emplace_back(trim(entry.substr(0, colon)), trim(entry.substr(colon + 1)));
    }
    return out;
}

Kernel tag_inames(const Kernel& kernel, const std::vector<std::pair<std::string, std::string>>& tags) {
    const char* transform = "tag_inames";
    const KernelData& src = *kernel;
    const std::vector<std::string> inames = all_inames(src);
    std::vector<std::pair<std::string, TagRequest>> expanded;
    for (const auto& [pattern, text] : tags) {
        const TagRequest tag = checked_tag(src, text, transform);
        if (pattern.find_first_of("*?[") == std::string::npos) {
            check_inames_exist(src, {pattern}, transform);
            expanded.emplace_back(pattern, tag);
            continue;
        }
        for (const std::string& i : inames)
            if (fnmatch(pattern, i)) expanded.emplace_back(i, tag);
    }
    KernelData k = kernel.copy();
    for (const auto& [iname, tag] : expanded) apply_tag(k, iname, tag, transform);
    return unlinearized_kernel(std::move(k));
}

Kernel duplicate_inames(const Kernel& kernel, const std::vector<std::string>& inames, const DuplicateOptions& o) {
    const char* transform = "duplicate_inames";
    const KernelData& src = *kernel;
    check_inames_exist(src, inames, transform);
    user_assert(o.new_inames.empty() || o.new_inames.size() == inames.size(), error_kind::LoopyError, transform,
                ": new_inames must have one entry per iname");
    std::vector<std::string> new_names;
    NameGenerator fresh(src);
    std::set<std::string> taken;
    for (std::size_t n = 0; n < inames.size(); ++n) {
        std::string name = o.new_inames.empty() ? fresh(inames[n] + o.suffix) : o.new_inames[n];
        check_new_name(src, name, transform);
        user_assert(taken.insert(name).second, error_kind::LoopyError, transform, ": new iname '", name, "' is given twice");
        new_names.push_back(std::move(name));
    }
    std::map<std::string, TagRequest> tags;
    for (const auto& [old, text] : o.tags) {
        user_assert(contains(inames, old), error_kind::LoopyError, transform, ": tag given for '", old, "', which is not duplicated");
        tags.emplace(old, checked_tag(src, text, transform));
    }
    const std::vector<bool> sel = selection(src, o.within);
    if (none_selected(sel)) return kernel;
    for (const std::string& old : inames) check_no_nested_use(src, sel, old, transform);

    KernelData k = kernel.copy();
    remember_meant_loops(k);  // the moved instructions' meant loops end where they name an iname they left
    for (std::size_t n = 0; n < inames.size(); ++n) {
        for (isl::set& d : k.domains)
            if (isl_util::has_dim(d, inames[n]) && !isl_util::is_param(d, inames[n]))
                d = isl_util::duplicate_dim(d, inames[n], new_names[n]);
        move_instructions(k, sel, inames[n], new_names[n], transform);
        const auto tag = tags.find(inames[n]);
        if (tag != tags.end()) apply_tag(k, new_names[n], tag->second, transform);
    }
    return unlinearized_kernel(std::move(k));
}

Kernel rename_iname(const Kernel& kernel, const std::string& old_iname, const std::string& new_iname, bool existing_ok,
                    const std::string& within) {
    const char* transform = "rename_iname";
    const KernelData& src = *kernel;
    check_inames_exist(src, {old_iname}, transform);
    if (new_iname == old_iname) return kernel;
    const bool exists = is_iname(src, new_iname);
    if (!exists) check_new_name(src, new_iname, transform);
    user_assert(!exists || existing_ok, error_kind::LoopyError, transform, ": iname '", new_iname,
                "' conflicts with an existing identifier--cannot rename (pass existing_ok to merge them)");
    user_assert(!exists || same_bounds(src, old_iname, new_iname), error_kind::LoopyError, transform, ": inames '", old_iname,
                "' and '", new_iname, "' do not iterate over the same domain");
    const std::vector<bool> sel = selection(src, within);
    if (none_selected(sel)) return kernel;
    if (!exists && !all_selected(sel)) {
        DuplicateOptions dup;
        dup.within = within;
        dup.new_inames = {new_iname};
        KernelData k = duplicate_inames(kernel, {old_iname}, dup).copy();
        if (src.iname_tags.count(old_iname)) k.iname_tags[new_iname] = iname_tag(src, old_iname);
        if (!instruction_inames(k).count(old_iname)) remove_inames(k, {old_iname});
        return unlinearized_kernel(std::move(k));
    }
    KernelData k = kernel.copy();
    remember_meant_loops(k);
    if (exists) {
        move_instructions(k, sel, old_iname, new_iname, transform);
        if (!used_inames(k).count(old_iname)) remove_inames(k, {old_iname});
        return unlinearized_kernel(std::move(k));
    }
    // A plain rename: every domain (nested ones included), instruction and piece of bookkeeping.
    for (isl::set& d : k.domains)
        if (isl_util::has_dim(d, old_iname)) d = isl_util::rename_dim(d, old_iname, new_iname);
    move_instructions(k, sel, old_iname, new_iname, transform);
    auto move_entry = [&](auto& table) {
        const auto node = table.extract(old_iname);
        if (node) table[new_iname] = node.mapped();
    };
    move_entry(k.iname_tags);
    move_entry(k.iname_slabs);
    rewrite_meant_loops(k, {{old_iname, var(new_iname)}});
    for (std::vector<std::string>& prio : k.loop_priority) std::replace(prio.begin(), prio.end(), old_iname, new_iname);
    return unlinearized_kernel(std::move(k));
}

Kernel remove_unused_inames(const Kernel& kernel, const std::vector<std::string>& inames) {
    const KernelData& src = *kernel;
    check_inames_exist(src, inames, "remove_unused_inames");
    const std::set<std::string> used = used_inames(src);
    std::set<std::string> unused;
    for (const std::string& i : inames.empty() ? all_inames(src) : inames)
        if (!used.count(i)) unused.insert(i);
    if (unused.empty()) return kernel;
    KernelData k = kernel.copy();
    remove_inames(k, unused);
    return unlinearized_kernel(std::move(k));
}

Kernel fix_parameters(const Kernel& kernel, const std::map<std::string, ExprPtr>& values) {
    const char* transform = "fix_parameters";
    const KernelData& src = *kernel;
    user_assert(!values.empty(), error_kind::LoopyError, transform, ": no parameters given");
    const std::vector<std::string> params = all_params(src);
    for (const auto& [name, value] : values) {
        const Variable* v = find_variable(src, name);
        user_assert(contains(params, name) || (v && v->kind == VarKind::ValueArg), error_kind::LoopyError, transform, ": '", name,
                    "' is not a parameter of kernel '", src.name, "'");
        internal_assert(value->kind == ExprKind::IntLit || value->kind == ExprKind::FloatLit,
                        "fix_parameters: value of '", name, "' is not a literal");
        user_assert(value->kind == ExprKind::IntLit || !contains(params, name), error_kind::LoopyError, transform, ": parameter '",
                    name, "' bounds a domain and needs an integer value, got ", to_string(value));
    }

    KernelData k = kernel.copy();
    for (const auto& [name, value] : values) {
        if (value->kind != ExprKind::IntLit) continue;
        for (isl::set& d : k.domains)
            if (isl_util::has_dim(d, name)) d = isl_util::fix_dim(d, name, value->ival);
        if (!isl_util::has_dim(k.assumptions, name)) continue;
        k.assumptions = isl_util::fix_dim(k.assumptions, name, value->ival);
        user_assert(!k.assumptions.is_empty(), error_kind::LoopyError, transform, ": ", name, " = ", value->ival,
                    " contradicts the assumptions of kernel '", src.name, "'");
    }
    for (Instruction& insn : k.instructions) rewrite_instruction(insn, [&](const ExprPtr& e) { return substitute(e, values); });
    rewrite_meant_loops(k, values);  // a chunk's length over a parameter becomes a number: its values affine
    for (SubstitutionRule& rule : k.substitutions) {
        std::map<std::string, ExprPtr> free = values;
        for (const std::string& a : rule.arguments) free.erase(a);
        rule.expression = substitute(rule.expression, free);
    }
    for (std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (Variable& v : *vars) {
            for (ExprPtr& s : v.shape) s = substitute(s, values);
            for (ExprPtr& s : v.strides) s = substitute(s, values);
            v.offset = substitute(v.offset, values);
        }
    k.args.erase(std::remove_if(k.args.begin(), k.args.end(), [&](const Variable& v) {
                     return v.kind == VarKind::ValueArg && values.count(v.name);
                 }),
                 k.args.end());
    return unlinearized_kernel(std::move(k));
}

}  // namespace loom
