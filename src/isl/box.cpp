#include "isl/box.h"

#include <isl/map.h>
#include <isl/set.h>

#include "isl/isl.h"

namespace loom::isl_util {

namespace {

std::optional<FixedBox> range_box(const isl::set& s) {
    const isl::map m = isl::manage(isl_map_from_range(s.copy()));
    isl_fixed_box* found = isl_map_get_range_simple_fixed_box_hull(m.get());
    if (!found) return std::nullopt;
    const isl::fixed_box box = isl::manage(found);  // owned before long_value may throw
    if (!box.is_valid()) return std::nullopt;
    const isl::multi_val size = box.size();
    FixedBox out{box.offset(), {}};
    for (unsigned i = 0; i < size.size(); ++i) {
        const std::optional<long> n = long_value(size.at(static_cast<int>(i)));
        if (!n) return std::nullopt;
        out.size.push_back(*n);
    }
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
