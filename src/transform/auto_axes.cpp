#include "transform/auto_axes.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ir/access.h"
#include "ir/domain.h"
#include "ir/eval.h"
#include "isl/isl.h"
#include "support/error.h"
#include "transform/transforms.h"

namespace loom {

namespace {

constexpr InameTag kAuto{InameTag::Kind::LocalAuto};
// loopy's ValueArg.approximately: what parameters stand for when strides are compared.
constexpr std::int64_t kApproximateParam = 1000;

bool is_auto(const KernelData& k, const std::string& iname) { return iname_tag(k, iname) == kAuto; }

// The local axis of an "l.N" iname; nullopt for others ("l.auto" included).
std::optional<std::size_t> local_axis(const KernelData& k, const std::string& iname) {
    const InameTag tag = iname_tag(k, iname);
    if (tag.kind != InameTag::Kind::Local) return std::nullopt;
    return static_cast<std::size_t>(tag.number);
}

// The work-group size the numbered local inames give, per axis (1 on an axis between used ones).
std::vector<std::int64_t> numbered_local_sizes(const KernelData& k) {
    std::vector<std::int64_t> sizes;
    for (const std::string& i : all_inames(k)) {
        const auto axis = local_axis(k, i);
        if (!axis) continue;
        if (sizes.size() <= *axis) sizes.resize(*axis + 1, 1);
        sizes[*axis] = std::max<std::int64_t>(sizes[*axis], static_extent(k, i));
    }
    return sizes;
}

// How far one step of `iname` moves `index` (parameters at their approximate value); nullopt when it does not
// appear or `index` cannot be evaluated.
std::optional<std::int64_t> coefficient(const ExprPtr& index, const std::string& iname,
                                        std::map<std::string, std::int64_t> values) {
    const auto at0 = eval_int(index, values);
    values[iname] = 1;
    const auto at1 = eval_int(index, values);
    if (!at0 || !at1 || *at1 == *at0) return std::nullopt;
    return *at1 - *at0;
}

// loopy's get_auto_axis_iname_ranking_by_stride: the inames of `insn`, those of its auto inames that
// step through the global arrays with the smallest stride (summed over the accesses) first; nullopt when
// no auto iname indexes a global array.
std::optional<std::vector<std::string>> ranking_by_stride(const KernelData& k, const Instruction& insn) {
    std::map<std::string, std::int64_t> values;
    for (const std::string& p : all_params(k)) values[p] = kApproximateParam;
    for (const std::string& i : all_inames(k)) values[i] = 0;
    std::map<std::string, std::int64_t> aggregate;
    for (const Access& a : accesses_of(insn)) {
        const Variable* v = find_variable(k, a.name);
        if (!v || !v->is_arg() || v->kind == VarKind::ValueArg || !a.subscripted) continue;
        std::map<std::string, std::int64_t> smallest;
        // A linear subscript, or an array without a shape, indexes the storage itself: stride 1.
        const bool flat = a.linear || v->storage_indexed();
        for (std::size_t axis = 0; axis < a.indices.size() && (flat || axis < v->strides.size()); ++axis) {
            const auto stride = flat ? std::optional<std::int64_t>(1) : eval_int(v->strides[axis], values);
            if (!stride) continue;
            for (const std::string& i : insn.within_inames) {
                const auto c = is_auto(k, i) ? coefficient(a.indices[axis], i, values) : std::nullopt;
                if (!c) continue;
                const auto it = smallest.find(i);
                if (it == smallest.end() || *c * *stride < it->second) smallest[i] = *c * *stride;
            }
        }
        for (const auto& [i, s] : smallest) aggregate[i] += s;
    }
    if (aggregate.empty()) return std::nullopt;
    std::vector<std::string> out(insn.within_inames.begin(), insn.within_inames.end());
    std::stable_sort(out.begin(), out.end(), [&](const std::string& a, const std::string& b) {
        const auto key = [&](const std::string& i) {
            const auto it = aggregate.find(i);
            return it == aggregate.end() ? std::int64_t{INT_MAX} : it->second;
        };
        return key(a) < key(b);
    });
    return out;
}

class AxisAssigner {
public:
    explicit AxisAssigner(const Kernel& k) : k_(k), sizes_(numbered_local_sizes(*k)) {}

    Kernel run() {
        for (std::size_t axis = 0;;) {
            if (assign_one(axis)) continue;  // the kernel changed: start over on this axis
            if (axis >= sizes_.size()) return leftovers_as_loops();
            ++axis;
        }
    }

private:
    // One assignment for `axis` (or, past the numbered axes, for any axis); false when there is none.
    bool assign_one(std::size_t axis) {
        for (const Instruction& insn : k_->instructions) {
            if (insn.kind != InsnKind::Assignment) continue;
            std::vector<std::string> autos;
            std::set<std::size_t> taken;
            for (const std::string& i : insn.within_inames) {
                if (is_auto(*k_, i)) autos.push_back(i);
                if (const auto a = local_axis(*k_, i)) taken.insert(*a);
            }
            if (autos.empty()) continue;
            if (axis < sizes_.size()) {
                if (taken.count(axis)) continue;
                const auto ranking = ranking_by_stride(*k_, insn);
                if (!ranking) continue;
                for (const std::string& i : *ranking) {
                    if (!is_auto(*k_, i)) continue;
                    assign(i, axis);
                    return true;
                }
                continue;
            }
            // Past the numbered axes, loopy takes the shortest auto iname first.
            std::stable_sort(autos.begin(), autos.end(), [&](const std::string& a, const std::string& b) {
                return constant_length(*k_, a).value_or(-1) > constant_length(*k_, b).value_or(-1);
            });
            assign(autos.back(), fitting_axis(autos.back(), taken));
            return true;
        }
        return false;
    }

    // A free axis at least as long as `iname`, else the shortest free one; nullopt when none is free.
    std::optional<std::size_t> fitting_axis(const std::string& iname, const std::set<std::size_t>& taken) const {
        const std::int64_t length = constant_length(*k_, iname).value_or(0);
        std::vector<std::size_t> shorter;
        for (std::size_t a = 0; a < sizes_.size(); ++a) {
            if (taken.count(a)) continue;
            if (sizes_[a] >= length) return a;
            shorter.push_back(a);
        }
        if (shorter.empty()) return std::nullopt;
        return *std::min_element(shorter.begin(), shorter.end(),
                                 [&](std::size_t a, std::size_t b) { return sizes_[a] < sizes_[b]; });
    }

    void assign(const std::string& iname, std::optional<std::size_t> axis) {
        const auto length = constant_length(*k_, iname);
        KernelData k = k_.copy();
        k.iname_tags.erase(iname);
        k_ = Kernel(std::move(k));
        if (!length || !axis) return;  // a sequential loop
        const std::string tag = to_string(InameTag::local(static_cast<int>(*axis)));
        if (*length > sizes_[*axis]) {
            SplitOptions o;
            o.inner_tag = tag;
            k_ = split_iname(k_, iname, sizes_[*axis], o);
            return;
        }
        k_ = tag_inames(k_, {{iname, tag}});
    }

    // Auto inames of instructions that are not assignments run as loops.
    Kernel leftovers_as_loops() const {
        KernelData k = k_.copy();
        for (auto it = k.iname_tags.begin(); it != k.iname_tags.end();)
            it = it->second == kAuto ? k.iname_tags.erase(it) : std::next(it);
        return Kernel(std::move(k));
    }

    Kernel k_;
    std::vector<std::int64_t> sizes_;  // fixed before any assignment, as in loopy
};

}  // namespace

Kernel assign_automatic_axes(const Kernel& k) {
    const bool any = std::any_of(k->iname_tags.begin(), k->iname_tags.end(),
                                 [](const auto& t) { return t.second == kAuto; });
    return any ? AxisAssigner(k).run() : k;
}

}  // namespace loom
