#include "support/error.h"
#include "transform/transforms.h"

namespace loom {

Kernel set_options(const Kernel& kernel, const OptionUpdate& u) {
    KernelData k = kernel.copy();
    KernelOptions& o = k.options;
    if (u.write_code) o.write_code = *u.write_code;
    if (u.return_dict) o.return_dict = *u.return_dict;
    if (u.allow_terminal_colors) o.allow_terminal_colors = *u.allow_terminal_colors;
    if (u.check_dep_resolution) o.check_dep_resolution = *u.check_dep_resolution;
    if (u.insert_gbarriers) o.insert_gbarriers = *u.insert_gbarriers;
    if (u.build_options) o.build_options = *u.build_options;
    if (u.target) o.target = *u.target;
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

Kernel add_dtypes(const Kernel& kernel, const std::map<std::string, DType>& dtypes) {
    KernelData k = kernel.copy();
    for (const auto& [name, t] : dtypes) {
        Variable* v = find_variable(k, name);
        user_assert(v != nullptr, "LoopyError", "add_dtypes: no argument or temporary named '", name, "'");
        user_assert(v->dtype == DType::Unknown || v->dtype == t, "LoopyError", "add_dtypes: '", name,
                    "' already has type ", dtype_name(v->dtype));
        v->dtype = t;
    }
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

Kernel set_temporary_address_space(const Kernel& kernel, const std::string& name, AddressSpace space) {
    KernelData k = kernel.copy();
    Variable* v = find_variable(k, name);
    user_assert(v != nullptr && v->kind == VarKind::Temporary, "LoopyError",
                "set_temporary_address_space: no temporary named '", name, "'");
    v->address_space = space;
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
