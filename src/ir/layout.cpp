#include "ir/layout.h"

#include <algorithm>

#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using Kind = DimTag::Kind;

bool is_one(const ExprPtr& e) { return e->kind == ExprKind::IntLit && e->ival == 1; }

// A product with constants folded, so strides read `990` and `n`, not `1*10*99` and `1*n`.
ExprPtr times(const ExprPtr& a, const ExprPtr& b) {
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit) return int_lit(a->ival * b->ival);
    if (is_one(a)) return b;
    if (is_one(b)) return a;
    return binary(BinOp::Mul, a, b);
}

// One tag per axis: the declared ones less `?` tags (leftmost first) while there are too many, or the order's.
std::vector<DimTag> tags_per_axis(const Variable& v) {
    const std::size_t n = v.shape.size();
    if (v.dim_tags.empty()) {
        DimTag by_order;
        by_order.kind = v.order == 'F' ? Kind::F : Kind::C;
        return std::vector<DimTag>(n, by_order);
    }
    std::vector<DimTag> tags = v.dim_tags;
    for (auto it = tags.begin(); tags.size() > n && it != tags.end();) it = it->optional ? tags.erase(it) : it + 1;
    user_assert(tags.size() == n, "LoopyError", "array '", v.name, "' has ", n, " axes but ", tags.size(),
                " dim tags");
    return tags;
}

void check_supported(const Variable& v, const std::vector<DimTag>& tags) {
    for (std::size_t j = 0; j < tags.size(); ++j) {
        user_assert(tags[j].kind != Kind::Sep, "LoopyError", "array '", v.name, "': axis ", j,
                    " is tagged 'sep' (separate arrays), which this code generator does not support");
        user_assert(tags[j].kind != Kind::Vec, "LoopyError", "array '", v.name, "': axis ", j,
                    " is tagged 'vec' (vector entries), which this code generator does not support");
    }
    const auto explicit_level = [](const DimTag& t) { return t.level >= 0; };
    const bool any = std::any_of(tags.begin(), tags.end(), explicit_level);
    const bool all = std::all_of(tags.begin(), tags.end(), explicit_level);
    user_assert(!any || all, "LoopyError", "array '", v.name,
                "' mixes c/f (or stride: without a level) with explicit nesting levels (N0..N9) in its dim tags");
}

// The nesting level of each axis (-1 for a fixed stride without one), as loopy numbers them: read left to
// right, `c` takes one below the lowest so far and `f` one above the highest; then shifted to start at 0.
std::vector<int> nesting_levels(const Variable& v, const std::vector<DimTag>& tags) {
    std::vector<int> levels;
    std::vector<int> used;
    for (const DimTag& t : tags) {
        int level = t.level;
        if (t.kind == Kind::C) level = used.empty() ? 0 : *std::min_element(used.begin(), used.end()) - 1;
        if (t.kind == Kind::F) level = used.empty() ? 0 : *std::max_element(used.begin(), used.end()) + 1;
        const bool has_level = t.kind != Kind::Stride || t.level >= 0;
        if (has_level) {
            user_assert(std::find(used.begin(), used.end(), level) == used.end(), "LoopyError", "array '", v.name,
                        "': nesting level N", level, " is given to more than one axis");
            used.push_back(level);
        }
        levels.push_back(has_level ? level : -1);
    }
    if (used.empty()) return levels;
    const int lowest = *std::min_element(used.begin(), used.end());
    std::sort(used.begin(), used.end());
    for (std::size_t r = 0; r < used.size(); ++r)
        user_assert(used[r] == lowest + static_cast<int>(r), "LoopyError", "the nesting levels of array '", v.name,
                    "' are not contiguous");
    for (std::size_t j = 0; j < levels.size(); ++j)
        if (tags[j].kind != Kind::Stride || tags[j].level >= 0) levels[j] -= lowest;
    return levels;
}

}  // namespace

void compute_layout(Variable& v) {
    const std::vector<DimTag> tags = tags_per_axis(v);
    check_supported(v, tags);
    const std::size_t n = tags.size();
    v.stride_levels = nesting_levels(v, tags);
    v.strides.assign(n, nullptr);
    std::vector<std::size_t> by_level;
    for (std::size_t j = 0; j < n; ++j) {
        if (v.stride_levels[j] < 0) v.strides[j] = tags[j].stride;
        else by_level.push_back(j);
    }
    std::sort(by_level.begin(), by_level.end(),
              [&](std::size_t a, std::size_t b) { return v.stride_levels[a] < v.stride_levels[b]; });
    // Each level's stride is the previous one's times its extent; a fixed stride with a level restarts the
    // chain from itself (loopy carries the bare stride on, which makes the next axis alias this one).
    ExprPtr stride = int_lit(1);
    for (const std::size_t axis : by_level) {
        if (tags[axis].kind == Kind::Stride) stride = tags[axis].stride;
        v.strides[axis] = stride;
        stride = times(stride, v.shape[axis]);
    }
}

std::string dim_tags_text(const Variable& v) {
    std::vector<std::string> tags;
    for (std::size_t j = 0; j < v.strides.size(); ++j) {
        const int level = j < v.stride_levels.size() ? v.stride_levels[j] : -1;
        tags.push_back((level >= 0 ? cat("N", level, ":") : std::string()) + "stride:" + to_string(v.strides[j]));
    }
    return "(" + join(tags, ", ") + ")";
}

std::int64_t storage_span(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
    std::int64_t last = 0;
    for (std::size_t j = 0; j < shape.size(); ++j) {
        if (shape[j] <= 0) return 0;
        last += (shape[j] - 1) * strides[j];
    }
    return last + 1;
}

bool is_compact(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
    std::vector<std::size_t> axes;
    for (std::size_t j = 0; j < shape.size(); ++j)
        if (shape[j] > 1) axes.push_back(j);
    std::sort(axes.begin(), axes.end(), [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
    std::int64_t expect = 1;
    for (const std::size_t a : axes) {
        if (strides[a] != expect) return false;
        expect *= shape[a];
    }
    return true;
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, char order) {
    const std::size_t n = shape.size();
    std::vector<std::int64_t> strides(n);
    std::int64_t step = 1;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t axis = order == 'F' ? k : n - 1 - k;
        strides[axis] = step;
        step *= shape[axis];
    }
    return strides;
}

bool same_strides(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& a,
                  const std::vector<std::int64_t>& b) {
    if (a.size() != shape.size() || b.size() != shape.size()) return false;
    for (std::size_t j = 0; j < shape.size(); ++j)
        if (shape[j] > 1 && a[j] != b[j]) return false;
    return true;
}

}  // namespace loom
