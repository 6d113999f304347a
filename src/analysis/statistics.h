// Performance statistics, after loopy's statistics.py (tutorial, "Obtaining Performance Statistics"): how
// many arithmetic operations, memory accesses and synchronizations a kernel performs, each as an exact count
// in the kernel's parameters (isl_util::card, a piecewise quasi-polynomial; loopy without barvinok only
// approximates those of non-rectangular domains).
//
// Counts follow loopy's rules: every operation of an instruction counts once per run of the instruction (both
// branches of an `if` expression, the assignees' subscripts too); a run is a point of the domain of the
// instruction's inames. An operation or access counted per work-item counts every point; per work-group, the
// points without the local inames; per sub-group, those times the sub-groups of a work-group. With
// `count_redundant_work`, hardware axes an instruction does not use multiply its runs by their extents.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/kernel.h"
#include "isl/counting.h"

namespace loom {

/// What a statistics key counts; its fields, in order, are key_fields(type).
enum class StatKind { Op, MemAccess, Sync };

/// The stride of a work-item or work-group index in an access: elements per step of the index, a constant,
/// an expression of the parameters (canonical text, `ell * m`), or unknown (the index is not affine in it).
using Stride = std::variant<std::monostate, std::int64_t, std::string>;
using Strides = std::map<int, Stride>;  // axis -> stride
/// A field of a key: absent (loopy's None), a name, or strides.
using StatField = std::optional<std::variant<std::string, Strides>>;

/// loopy's Op, MemAccess and Sync: a kind and its fields (key_fields order).
struct StatKey {
    StatKind kind = StatKind::Op;
    std::vector<StatField> fields;
    bool operator==(const StatKey& o) const { return kind == o.kind && fields == o.fields; }
    bool operator<(const StatKey& o) const { return kind != o.kind ? kind < o.kind : fields < o.fields; }
};

/// The field names of a kind: Op (dtype, name, count_granularity, kernel_name), MemAccess (mtype, dtype,
/// lid_strides, gid_strides, direction, variable, variable_tags, count_granularity, kernel_name), Sync (kind,
/// kernel_name).
const std::vector<std::string>& key_fields(StatKind kind);
/// `Op(float32, add, subgroup, "stats_knl")`, `MemAccess(global, float32, {0: 1, 1: 128}, {}, load, a, None,
/// workitem, 'stats_knl')`, `Sync(kernel_launch, stats_knl)`, as loopy prints them (numpy names for types).
std::string to_string(const StatKey& key);

/// `e`, an expression of the parameters, as a canonical stride; unknown unless it is a polynomial.
Stride canonical_stride(const ExprPtr& e);

/// loopy's count granularities: "workitem", "subgroup", "workgroup". LoopyError for any other name.
void check_granularity(const std::string& name);

/// Counts by key, in the order keys were first added, all functions of the same parameters.
class CountMap {
public:
    using Entry = std::pair<StatKey, isl_util::PwQPolynomial>;
    explicit CountMap(std::vector<std::string> params) : params_(std::move(params)) {}
    const std::vector<std::string>& params() const { return params_; }
    /// Adds `count` to the count of `key`.
    void add(const StatKey& key, const isl_util::PwQPolynomial& count);
    const std::vector<Entry>& entries() const { return entries_; }
    /// The sum of all counts (zero for no counts).
    isl_util::PwQPolynomial total() const;

private:
    std::vector<std::string> params_;
    std::vector<Entry> entries_;
    std::map<StatKey, std::size_t> index_;
};

struct StatOptions {
    int subgroup_size = 0;  // 0: none given (an error where a sub-group count needs one)
    bool count_redundant_work = false;
    bool count_within_subscripts = true;
    std::string within;  // a match expression: the instructions counted (empty: all)
};

/// loopy's get_op_map for a preprocessed kernel (types known, reductions realized).
CountMap op_map(const Kernel& preprocessed, const StatOptions& opts);
/// loopy's get_mem_access_map for a preprocessed kernel: loads and stores of global arrays (arguments and
/// global temporaries) and of local temporaries, the accesses of ir/access (unlike loopy, the loads of `if=`
/// conditions count, and loads in an assignee's subscript are loads).
CountMap mem_access_map(const Kernel& preprocessed, const StatOptions& opts);
/// loopy's get_synchronization_map for a linearized kernel: per work-item, its barriers and the launches of
/// its device kernels, each as often as the loops around it run.
CountMap synchronization_map(const Kernel& linearized);

/// loopy's access footprint: the elements of one variable that the accesses in one direction touch, over all
/// runs of all instructions, where the kernel's assumptions hold (a set of the parameters and the element
/// indices, its tuple the variable's name).
struct AccessFootprint {
    std::string variable;
    std::string direction;  // "read" or "write"
    isl::set elements;
};

/// loopy's gather_access_footprints for a preprocessed kernel: the footprint of each subscripted variable (of
/// any kind) and direction, writes first, each list in the order of the variables' first accesses. The
/// accesses are those of ir/access, as mem_access_map counts them: unlike loopy, reads in `if=` conditions
/// count, and a read in an assignee's subscript is a read. An index that is not quasi-affine, or that reads a
/// variable, has no footprint: a LoopyError naming it, or no contribution with `ignore_uncountable`.
std::vector<AccessFootprint> access_footprints(const Kernel& preprocessed, bool ignore_uncountable);

/// loopy's gather_access_footprint_bytes for one footprint: its elements times the size of the variable's
/// type, a count in the kernel's parameters.
isl_util::PwQPolynomial footprint_bytes(const KernelData& k, const AccessFootprint& f);

}  // namespace loom
