// Relations between statement instances that isl's C++ interface lacks: what checks of a schedule against
// dependences and dataflow need (the linearization verifier).
#pragma once

#include <isl/cpp.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loom::isl_util {

/// `s` with its tuple named `name` (statement instances are told apart by their tuple).
isl::set with_tuple_name(const isl::set& s, const std::string& name);

/// `m` with its domain tuple named `domain` and its range tuple named `range` ("" leaves it unnamed). Names are
/// taken as they are (isl::id's string constructor would parse them: "t.save" would become "t").
isl::map with_tuple_names(const isl::map& m, const std::string& domain, const std::string& range);

/// { a -> b : a in `from`, b in `to` }.
isl::map all_pairs(const isl::set& from, const isl::set& to);

/// The points of `first` followed by those of `second` in one tuple (unnamed): { [a, b] : a in first, b in second }.
isl::set flat_product(const isl::set& first, const isl::set& second);

/// { x -> [a, b] : x -> a in `first`, x -> b in `second` }, the range flattened and unnamed.
isl::map flat_range_product(const isl::map& first, const isl::map& second);

/// For two schedules (instance -> time, the times in one space): { a -> b : first(a) is not lexicographically
/// before second(b) }.
isl::map not_before(const isl::map& first, const isl::map& second);
/// For two schedules, as not_before: { a -> b : first(a) is lexicographically before second(b) }.
isl::map before(const isl::map& first, const isl::map& second);

/// The names of the input dimensions on which a pair of `pairs` (a relation of one space to itself) may differ:
/// all but those that isl's deltas plainly fix at zero (a superset where an equality is not explicit).
std::vector<std::string> varying_dims(const isl::map& pairs);

/// A point of a set: its parameter values (by name) and its coordinates.
struct PointValues {
    std::vector<std::pair<std::string, long>> params;
    std::vector<long> coordinates;
};

/// Some point of `s`, every parameter fixed too; nullopt when `s` is empty.
std::optional<PointValues> sample_point(const isl::set& s);

}  // namespace loom::isl_util
