#include "isl/box.h"

#include <isl/fixed_box.h>
#include <isl/map.h>
#include <isl/set.h>

#include "isl/isl.h"

namespace loom::isl_util {

std::optional<std::vector<BoxAxis>> fixed_box_hull(const isl::set& s) {
    isl_fixed_box* box = isl_map_get_range_simple_fixed_box_hull(isl_map_from_range(s.copy()));
    if (!box) return std::nullopt;
    std::optional<std::vector<BoxAxis>> out;
    if (isl_fixed_box_is_valid(box) == isl_bool_true) {
        const isl::multi_aff offset = isl::manage(isl_fixed_box_get_offset(box));
        const isl::multi_val size = isl::manage(isl_fixed_box_get_size(box));
        out.emplace();
        for (int i = 0; i < isl_multi_val_size(size.get()); ++i) {
            isl_val* v = isl_multi_val_get_at(size.get(), i);
            const bool fixed = isl_val_is_int(v) == isl_bool_true;
            const long n = fixed ? isl_val_get_num_si(v) : 0;
            isl_val_free(v);
            if (!fixed) {
                out.reset();
                break;
            }
            out->push_back({aff_to_expr(isl::manage(isl_multi_aff_get_at(offset.get(), i))), n});
        }
    }
    isl_fixed_box_free(box);
    return out;
}

}  // namespace loom::isl_util
