// loopy's privatize_temporaries_with_inames, and the axis insertion it shares with the C target's
// per-work-item temporaries.
#include "transform/privatize.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/iname_tags.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "parse/dim_tags.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

// The dim tags of `v` once it has `added` new axes: `c` for each axis, as loopy forgets a privatized
// temporary's layout, but the new `vec` axes and a `vec` axis it already has stay vector entries.
std::vector<DimTag> tags_with_axes(const Variable& v, const std::vector<std::string>& added, bool leading) {
    const std::optional<std::size_t> vec = vec_axis(v);
    std::vector<std::string> tags;
    for (std::size_t a = 0; a < v.shape.size(); ++a) tags.push_back(vec == a ? "vec" : "c");
    tags.insert(leading ? tags.begin() : tags.end(), added.begin(), added.end());
    return parse_dim_tags(tags, v.name);
}

}  // namespace

void add_temporary_axes(KernelData& k, const std::string& name, const std::vector<ExprPtr>& extents, bool leading,
                        const std::function<std::vector<ExprPtr>(const Instruction&)>& index_of,
                        std::vector<std::string> axis_tags) {
    for (Instruction& insn : k.instructions) {
        if (!read_names(insn).count(name) && !written_names(insn).count(name)) continue;
        const std::vector<ExprPtr> added = index_of(insn);
        auto extend = [&](const ExprPtr& e) {
            return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
                if (n->name != name || (n->kind != ExprKind::Var && n->kind != ExprKind::Subscript)) return n;
                user_assert(!n->linear, error_kind::LoopyError, "cannot add axes to '", name, "': instruction '", insn.id,
                            "' indexes it with the linear subscript '", to_string(n), "'");
                std::vector<ExprPtr> idx = n->kind == ExprKind::Subscript ? n->args : std::vector<ExprPtr>{};
                idx.insert(leading ? idx.begin() : idx.end(), added.begin(), added.end());
                return subscript(name, idx);
            });
        };
        for (ExprPtr& a : insn.assignees) a = extend(a);
        if (insn.expression) insn.expression = extend(insn.expression);
        for (ExprPtr& p : insn.predicates) p = extend(p);
    }
    Variable* v = find_variable(k, name);
    axis_tags.resize(extents.size(), "c");
    v->dim_tags = tags_with_axes(*v, axis_tags, leading);
    v->shape.insert(leading ? v->shape.begin() : v->shape.end(), extents.begin(), extents.end());
    v->is_array = true;
    v->stride_levels.clear();
    v->strides.clear();
    compute_layout(*v);
}

namespace {

// `inames` as the axes of a privatized temporary: in the order their loops nest (vec lanes innermost), so that
// the innermost loop walks the contiguous last axis and its copies touch consecutive entries.
std::vector<std::string> axis_order(const KernelData& k, const std::vector<std::string>& inames) {
    std::vector<std::string> out = nesting_order(k, inames);
    std::stable_partition(out.begin(), out.end(), [&](const std::string& i) { return !iname_tag(k, i).is_vec(); });
    return out;
}

// The privatizing inames each temporary needs: those its writers run in but do not index it by. Writers
// that need different ones are an error, as in loopy.
std::map<std::string, std::vector<std::string>> axes_needed(const KernelData& k, const std::set<std::string>& inames,
                                                            const std::optional<std::set<std::string>>& only) {
    std::map<std::string, std::vector<std::string>> out;
    for (const Instruction& insn : k.instructions)
        for (const ExprPtr& lhs : insn.assignees) {
            const Variable* v = find_variable(k, lhs->name);
            if (!v || v->kind != VarKind::Temporary || (only && !only->count(v->name))) continue;
            const std::vector<std::string> indexed = referenced_names(lhs);
            std::vector<std::string> needed;
            for (const std::string& i : insn.within_inames)
                if (inames.count(i) && std::find(indexed.begin(), indexed.end(), i) == indexed.end()) needed.push_back(i);
            if (needed.empty()) continue;
            needed = axis_order(k, needed);
            const auto it = out.emplace(v->name, needed).first;
            user_assert(it->second == needed, error_kind::LoopyError, "instruction '", insn.id,
                        "' requires adding indices for privatizing var '", v->name, "' on iname(s) '",
                        join(needed, ", "), "', but previous instructions required different inames '",
                        join(it->second, ", "), "'");
        }
    return out;
}

}  // namespace

Kernel privatize_temporaries_with_inames(const Kernel& kernel, const std::set<std::string>& inames,
                                         const std::optional<std::set<std::string>>& only_var_names) {
    const KernelData& src = *kernel;
    for (const std::string& i : inames)
        user_assert(is_iname(src, i), error_kind::LoopyError, "privatize_temporaries_with_inames: no iname named '", i, "'");
    for (const std::string& v : only_var_names.value_or(std::set<std::string>{}))
        user_assert(find_variable(src, v) != nullptr, error_kind::LoopyError, "privatize_temporaries_with_inames: variable '", v,
                    "' is not used in kernel '", src.name, "'");
    const auto needed = axes_needed(src, inames, only_var_names);
    if (needed.empty()) return kernel;
    KernelData k = kernel.copy();
    const isl::set ctx = assumption_context(src);
    for (const auto& [name, axes] : needed) {
        std::vector<ExprPtr> extents;
        std::vector<std::string> tags;
        std::map<std::string, ExprPtr> offset;
        for (const std::string& i : axes) {
            const isl::set dom = domain_of(src, {i});
            const auto length = constant_length(src, i);
            const auto lower = affine::single_piece_expr(isl_util::dim_min(dom, 0), ctx);
            user_assert(length.has_value() && lower.has_value(), error_kind::LoopyError, "privatizing '", name,
                        "' over iname '", i, "' needs a bounded length and a single lower bound of that iname");
            extents.push_back(int_lit(*length));
            tags.push_back(kernel.iname_tag(i).is_vec() ? "vec" : "c");
            offset[i] = *lower;
        }
        // `axes` by an init-capture: clang before 16 cannot capture a structured binding (the fuzz build).
        add_temporary_axes(k, name, extents, false, [&, &axes = axes](const Instruction& insn) {
            std::vector<ExprPtr> idx;
            for (const std::string& i : axes) {
                user_assert(insn.within_inames.count(i) != 0, error_kind::LoopyError, "Kernel '", src.name, "': Instruction '",
                            insn.id, "': touched variable that (for privatization, e.g. as performed for ILP) ",
                            "required iname(s) '", i, "', but that the instruction was not previously within the ",
                            "iname(s). To remedy this, first promote the instruction into the iname.");
                const ExprPtr& lo = offset.at(i);
                const bool zero = lo->kind == ExprKind::IntLit && lo->ival == 0;
                idx.push_back(zero ? var(i) : binary(BinOp::Sub, var(i), lo));
            }
            return idx;
        }, tags);
    }
    return Kernel(std::move(k));
}

Kernel realize_ilp(const Kernel& k) {
    std::set<std::string> privatizing;
    for (const auto& [iname, tag] : k->iname_tags)
        if (tag.is_innermost()) privatizing.insert(iname);
    return privatizing.empty() ? k : privatize_temporaries_with_inames(k, privatizing);
}

}  // namespace loom
