#include "isl/relations.h"

#include <isl/map.h>
#include <isl/point.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include "isl/isl.h"
#include "support/error.h"

namespace loom::isl_util {

isl::set with_tuple_name(const isl::set& s, const std::string& name) {
    return isl::manage(isl_set_set_tuple_name(s.copy(), name.c_str()));
}

isl::map with_tuple_names(const isl::map& m, const std::string& domain, const std::string& range) {
    isl_map* out = isl_map_set_tuple_name(m.copy(), isl_dim_in, domain.empty() ? nullptr : domain.c_str());
    return isl::manage(isl_map_set_tuple_name(out, isl_dim_out, range.empty() ? nullptr : range.c_str()));
}

isl::map all_pairs(const isl::set& from, const isl::set& to) {
    isl_set* a = isl_set_align_params(from.copy(), isl_set_get_space(to.get()));
    isl_set* b = isl_set_align_params(to.copy(), isl_set_get_space(a));
    return isl::manage(isl_map_from_domain_and_range(a, b));
}

isl::set flat_product(const isl::set& first, const isl::set& second) {
    isl_set* a = isl_set_align_params(first.copy(), isl_set_get_space(second.get()));
    isl_set* b = isl_set_align_params(second.copy(), isl_set_get_space(a));
    return isl::manage(isl_set_flat_product(a, b));
}

isl::map flat_range_product(const isl::map& first, const isl::map& second) {
    isl_map* a = isl_map_align_params(first.copy(), isl_map_get_space(second.get()));
    isl_map* b = isl_map_align_params(second.copy(), isl_map_get_space(a));
    return isl::manage(isl_map_flat_range_product(a, b));
}

isl::map not_before(const isl::map& first, const isl::map& second) {
    isl_map* a = isl_map_align_params(first.copy(), isl_map_get_space(second.get()));
    isl_map* b = isl_map_align_params(second.copy(), isl_map_get_space(a));
    return isl::manage(isl_map_lex_ge_map(a, b));
}

isl::map before(const isl::map& first, const isl::map& second) {
    isl_map* a = isl_map_align_params(first.copy(), isl_map_get_space(second.get()));
    isl_map* b = isl_map_align_params(second.copy(), isl_map_get_space(a));
    return isl::manage(isl_map_lex_lt_map(a, b));
}

std::vector<std::string> varying_dims(const isl::map& pairs) {
    isl_set* deltas = isl_map_deltas(pairs.copy());
    std::vector<std::string> out;
    const int n = static_cast<int>(isl_map_dim(pairs.get(), isl_dim_in));
    for (int i = 0; i < n; ++i) {
        isl_val* v = deltas ? isl_set_plain_get_val_if_fixed(deltas, isl_dim_set, static_cast<unsigned>(i)) : nullptr;
        if (!v || isl_val_is_zero(v) != isl_bool_true) out.push_back(isl_map_get_dim_name(pairs.get(), isl_dim_in, static_cast<unsigned>(i)));
        isl_val_free(v);
    }
    isl_set_free(deltas);
    return out;
}

namespace {

long value_of(isl_val* v) {
    const isl::val held = isl::manage(v);
    const std::optional<long> out = long_value(held.get());
    internal_assert(out.has_value(), "sample point with a non-integer coordinate");
    return *out;
}

}  // namespace

std::optional<PointValues> sample_point(const isl::set& s) {
    const isl::point p = isl::manage(isl_set_sample_point(s.copy()));
    if (isl_point_is_void(p.get()) == isl_bool_true) return std::nullopt;
    PointValues out;
    // A point fixes the parameters too; their values are its coordinates of kind isl_dim_param.
    for (int i = 0; i < static_cast<int>(isl_set_dim(s.get(), isl_dim_param)); ++i)
        out.params.emplace_back(isl_set_get_dim_name(s.get(), isl_dim_param, static_cast<unsigned>(i)),
                                value_of(isl_point_get_coordinate_val(p.get(), isl_dim_param, i)));
    for (int i = 0; i < static_cast<int>(isl_set_dim(s.get(), isl_dim_set)); ++i)
        out.coordinates.push_back(value_of(isl_point_get_coordinate_val(p.get(), isl_dim_set, i)));
    return out;
}

}  // namespace loom::isl_util
