#include "analysis/types.h"
#include "ir/domain.h"
#include "ir/names.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

Kernel set_options(const Kernel& kernel, const OptionUpdate& u) {
    KernelData k = kernel.copy();
    KernelOptions& o = k.options;
    if (u.write_code) o.write_code = *u.write_code;
    if (u.write_wrapper) o.write_wrapper = *u.write_wrapper;
    if (u.return_dict) o.return_dict = *u.return_dict;
    if (u.allow_terminal_colors) o.allow_terminal_colors = *u.allow_terminal_colors;
    if (u.check_dep_resolution) o.check_dep_resolution = *u.check_dep_resolution;
    if (u.insert_gbarriers) o.insert_gbarriers = *u.insert_gbarriers;
    if (u.checked) o.checked = *u.checked;
    if (u.build_options) o.build_options = *u.build_options;
    if (u.target) o.target = *u.target;
    if (u.access_ordering) o.access_ordering = *u.access_ordering;
    return Kernel(std::move(k));
}

Kernel add_dtypes(const Kernel& kernel, const std::map<std::string, DType>& dtypes) {
    KernelData k = kernel.copy();
    for (const auto& [name, t] : dtypes) {
        Variable* v = find_variable(k, name);
        user_assert(v != nullptr, error_kind::LoopyError, "add_dtypes: no argument or temporary named '", name, "'");
        user_assert(v->dtype == DType::Unknown || v->dtype == t, error_kind::LoopyError, "add_dtypes: '", name,
                    "' already has type ", dtype_name(v->dtype));
        v->dtype = t;
    }
    return Kernel(std::move(k));
}

Kernel add_and_infer_dtypes(const Kernel& k, const std::map<std::string, DType>& dtypes) {
    return infer_types(add_dtypes(k, dtypes), {}, false);
}

Kernel set_temporary_address_space(const Kernel& kernel, const std::string& name, AddressSpace space) {
    KernelData k = kernel.copy();
    Variable* v = find_variable(k, name);
    user_assert(v != nullptr && v->kind == VarKind::Temporary, error_kind::LoopyError,
                "set_temporary_address_space: no temporary named '", name, "'");
    v->address_space = space;
    return Kernel(std::move(k));
}

namespace {

// `e` with every use of variable `from` (as a value or an array) named `to`.
ExprPtr rename_variable(const ExprPtr& e, const std::string& from, const std::string& to) {
    if (!e) return e;
    return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
        const bool named = n->kind == ExprKind::Var || n->kind == ExprKind::Subscript || n->kind == ExprKind::SubArrayRef;
        if (!named || n->name != from) return n;
        auto renamed = std::make_shared<Expr>(*n);
        renamed->name = to;
        return renamed;
    });
}

}  // namespace

Kernel rename_argument(const Kernel& kernel, const std::string& old_name, const std::string& new_name) {
    const char* transform = "rename_argument";
    const Variable* arg = kernel.find_variable(old_name);
    user_assert(arg && arg->is_arg(), error_kind::LoopyError, transform, ": old arg name '", old_name, "' does not exist");
    if (new_name == old_name) return kernel;
    check_name(new_name, "argument name", transform);
    user_assert(!kernel.find_variable(new_name) && !is_iname(*kernel, new_name), error_kind::LoopyError, transform,
                ": argument name '", new_name, "' conflicts with an existing identifier--cannot rename");
    KernelData k = kernel.copy();
    const auto rename = [&](const ExprPtr& e) { return rename_variable(e, old_name, new_name); };
    for (auto* vars : {&k.args, &k.temporaries})
        for (Variable& v : *vars) {
            if (v.name == old_name) v.name = new_name;
            for (auto* exprs : {&v.shape, &v.strides})
                for (ExprPtr& e : *exprs) e = rename(e);
            v.offset = rename(v.offset);
        }
    for (Instruction& insn : k.instructions) {
        for (ExprPtr& a : insn.assignees) a = rename(a);
        insn.expression = rename(insn.expression);
        for (ExprPtr& p : insn.predicates) p = rename(p);
    }
    for (SubstitutionRule& r : k.substitutions) r.expression = rename(r.expression);
    // A value argument is a parameter of the domains and assumptions.
    for (isl::set& d : k.domains)
        if (isl_util::is_param(d, old_name)) d = isl_util::rename_dim(d, old_name, new_name);
    if (isl_util::is_param(k.assumptions, old_name)) k.assumptions = isl_util::rename_dim(k.assumptions, old_name, new_name);
    return unlinearized_kernel(std::move(k));
}

}  // namespace loom
