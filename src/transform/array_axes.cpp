#include "parse/array_decls.h"
#include "parse/dim_tags.h"
#include "parse/make_kernel.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

Kernel tag_array_axes(const Kernel& kernel, const std::vector<std::string>& names,
                      const std::vector<std::string>& dim_tags) {
    user_assert(!names.empty(), error_kind::LoopyError, "tag_array_axes: no array named");
    // An empty tag list would silently fall back to the default layout instead of tagging anything.
    user_assert(!dim_tags.empty(), error_kind::LoopyError, "tag_array_axes: no dim tags given for '", join(names, ","), "'");
    KernelData k = kernel.copy();
    for (const std::string& name : names) {
        Variable* v = find_variable(k, name);
        user_assert(v != nullptr && v->is_array, error_kind::LoopyError, "tag_array_axes: no array named '", name, "'");
        v->dim_tags = parse_dim_tags(dim_tags, name);
    }
    add_stride_args(k);
    // The strides follow from the new tags by the rules of a declaration: an array without a shape (lp.none)
    // takes fixed strides (its axes) or one contiguous axis, not tags whose strides need its extents.
    for (const std::string& name : names) {
        Variable* v = find_variable(k, name);
        v->strides.clear();
        v->stride_levels.clear();
        set_default_strides(*v);
    }
    return Kernel(std::move(k));
}

}  // namespace loom
