#include "isl/box.h"

#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/set.h>

#include "isl/isl.h"

namespace loom::isl_util {

namespace {

std::optional<FixedBox> range_box(const isl::set& s) {
    isl_map* m = isl_map_from_range(s.copy());
    isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(m);
    isl_map_free(m);
    if (!box) return std::nullopt;
    std::optional<FixedBox> out;
    if (isl_fixed_box_is_valid(box) == isl_bool_true) {
        const isl::multi_val size = isl::manage(isl_fixed_box_get_size(box));
        out = FixedBox{isl::manage(isl_fixed_box_get_offset(box)), {}};
        for (int i = 0; i < isl_multi_val_size(size.get()); ++i) {
            const std::optional<long> n = long_value(isl::manage(isl_multi_val_get_at(size.get(), i)));
            if (!n) {
                out.reset();
                break;
            }
            out->size.push_back(*n);
        }
    }
    isl_fixed_box_free(box);
    return out;
}

}  // namespace

// First from the constraints on the set's own dimensions alone: a box around that superset holds `s` too,
// and isl finds it many times faster without the constraints among the parameters (the outer inames of a
// prefetch). Where those are needed for a fixed size, from all of `s`.
std::optional<FixedBox> fixed_box_hull(const isl::set& s) {
    const int n = static_cast<int>(isl_set_dim(s.get(), isl_dim_set));
    const isl::set own = isl::manage(isl_set_drop_constraints_not_involving_dims(s.copy(), isl_dim_set, 0, n));
    if (std::optional<FixedBox> box = range_box(own)) return box;
    return range_box(s);
}

}  // namespace loom::isl_util
