#include <algorithm>

#include "ir/domain.h"
#include "ir/layout.h"
#include "parse/dim_tags.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

bool mentions(const ExprPtr& e, const std::string& name) {
    const std::vector<std::string> names = referenced_names(e);
    return std::find(names.begin(), names.end(), name) != names.end();
}

// The privatizing inames a writer of temporary `name` needs as new axes: those it runs in that its
// assignee does not already index by.
std::vector<std::string> new_axes(const Instruction& insn, const std::string& name, const std::set<std::string>& inames) {
    std::vector<std::string> out;
    for (const ExprPtr& a : insn.assignees) {
        if (a->name != name) continue;
        for (const std::string& i : insn.within_inames)
            if (inames.count(i) && !mentions(a, i)) out.push_back(i);
    }
    return out;
}

// Temporary -> its new axes, in iname order; LoopyError when two writers need different ones (loopy's check).
std::map<std::string, std::vector<std::string>> axes_to_add(const KernelData& k, const std::set<std::string>& inames,
                                                            const std::optional<std::set<std::string>>& only) {
    std::map<std::string, std::vector<std::string>> out;
    for (const Variable& t : k.temporaries) {
        if (t.address_space == AddressSpace::Local || t.address_space == AddressSpace::Global) continue;
        if (only && !only->count(t.name)) continue;
        for (const Instruction& insn : k.instructions) {
            const std::vector<std::string> axes = new_axes(insn, t.name, inames);
            if (axes.empty()) continue;
            const auto [it, added] = out.emplace(t.name, axes);
            user_assert(added || it->second == axes, "LoopyError", "instruction '", insn.id,
                        "' requires adding indices for privatizing var '", t.name, "' on iname(s) '", join(axes, ", "),
                        "', but previous instructions required different inames '", join(it->second, ", "), "'");
        }
    }
    return out;
}

// Every access to a privatized temporary gains its new indices, which the instruction must run in.
ExprPtr with_extra_indices(const ExprPtr& e, const std::map<std::string, std::vector<std::string>>& axes,
                           const Instruction& insn) {
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        const auto it = axes.find(n->name);
        if (it == axes.end() || (n->kind != ExprKind::Var && n->kind != ExprKind::Subscript)) return n;
        std::vector<ExprPtr> idx = n->kind == ExprKind::Subscript ? n->args : std::vector<ExprPtr>{};
        for (const std::string& i : it->second) {
            user_assert(insn.within_inames.count(i) != 0, "LoopyError", "instruction '", insn.id,
                        "' touches variable '", n->name, "', which privatization (as performed for vec inames) ",
                        "gives an axis along iname '", i, "', but the instruction is not within that iname");
            idx.push_back(var(i));
        }
        return subscript(n->name, idx);
    });
}

}  // namespace

Kernel privatize_temporaries_with_inames(const Kernel& kernel, const std::set<std::string>& inames,
                                         const std::optional<std::set<std::string>>& only_var_names) {
    for (const std::string& i : inames)
        user_assert(is_iname(*kernel, i), "LoopyError", "privatize_temporaries_with_inames: no iname named '", i, "'");
    for (const std::string& name : only_var_names.value_or(std::set<std::string>{}))
        user_assert(kernel.find_variable(name) != nullptr, "LoopyError", "privatize_temporaries_with_inames: '", name,
                    "' is not used in kernel '", kernel->name, "'");
    const std::map<std::string, std::vector<std::string>> axes = axes_to_add(*kernel, inames, only_var_names);
    if (axes.empty()) return kernel;
    KernelData k = kernel.copy();
    for (Instruction& insn : k.instructions) {
        for (ExprPtr& a : insn.assignees) a = with_extra_indices(a, axes, insn);
        if (insn.expression) insn.expression = with_extra_indices(insn.expression, axes, insn);
        for (ExprPtr& p : insn.predicates) p = with_extra_indices(p, axes, insn);
    }
    for (const auto& [name, new_inames] : axes) {
        Variable& t = *find_variable(k, name);
        std::vector<std::string> tags(t.shape.size(), "c");
        for (const std::string& i : new_inames) {
            t.shape.push_back(int_lit(static_extent(k, i)));
            tags.push_back(k.iname_tags.count(i) && k.iname_tags.at(i) == "vec" ? "vec" : "c");
        }
        t.is_array = true;
        t.dim_tags.clear();
        for (const std::string& tag : tags) t.dim_tags.push_back(parse_dim_tag(tag, name));
        t.strides.clear();
        t.stride_levels.clear();
        compute_layout(t);
    }
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
