#include "ir/layout.h"

#include <algorithm>
#include <iterator>

#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using Kind = DimTag::Kind;

bool is_one(const ExprPtr& e) { return e->kind == ExprKind::IntLit && e->ival == 1; }

// A product with constants folded, so strides read `990` and `n`, not `1*10*99` and `1*n`; null where the
// constant product does not fit in 64 bits.
ExprPtr times(const ExprPtr& a, const ExprPtr& b) {
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit) {
        std::int64_t product = 0;
        return __builtin_mul_overflow(a->ival, b->ival, &product) ? nullptr : int_lit(product);
    }
    if (is_one(a)) return b;
    if (is_one(b)) return a;
    return binary(BinOp::Mul, a, b);
}

// One tag per axis: the declared ones less `?` tags (leftmost first) while there are too many, or the order's.
// Without a shape (lp.none) the fixed strides are the axes.
std::vector<DimTag> tags_per_axis(const Variable& v) {
    const std::size_t n = v.no_shape ? v.dim_tags.size() : v.shape.size();
    if (v.dim_tags.empty()) {
        DimTag by_order;
        by_order.kind = v.order == 'F' ? Kind::F : Kind::C;
        return std::vector<DimTag>(n, by_order);
    }
    std::vector<DimTag> tags = v.dim_tags;
    for (auto it = tags.begin(); tags.size() > n && it != tags.end();) it = it->optional ? tags.erase(it) : it + 1;
    user_assert(tags.size() == n, error_kind::LoopyError, "array '", v.name, "' has ", n, " axes but ", tags.size(),
                " dim tags");
    return tags;
}

bool is_storage_tag(const DimTag& t) { return t.kind != Kind::Sep && t.kind != Kind::Vec; }

// The extent of axis `j`, which a `sep` or `vec` tag needs to be a constant.
std::int64_t constant_extent(const Variable& v, std::size_t j, const char* tag) {
    const ExprPtr& e = v.shape[j];
    user_assert(e->kind == ExprKind::IntLit, error_kind::LoopyError, "axis ", j, " of array '", v.name, "' is tagged '", tag,
                "', but does not have constant length (", to_string(e), ")");
    return e->ival;
}

// loopy's rules for `sep` and `vec` axes: constant extents, separate arrays only of arguments, one vector
// axis of a length OpenCL has vector types for.
void check_sep_and_vec(const Variable& v, const std::vector<DimTag>& tags) {
    int vec_axes = 0;
    for (std::size_t j = 0; j < tags.size(); ++j) {
        if (tags[j].kind == Kind::Sep) {
            user_assert(v.is_arg(), error_kind::LoopyError, "axis ", j, " of temporary '", v.name,
                        "' is tagged 'sep': only arguments may be split into separate arrays");
            // Without entries the array would split into no arrays at all.
            user_assert(constant_extent(v, j, "sep") > 0, error_kind::LoopyError, "axis ", j, " of array '", v.name,
                        "' is tagged 'sep' with length 0: a separate array needs at least one entry");
        }
        if (tags[j].kind != Kind::Vec) continue;
        ++vec_axes;
        const std::int64_t n = constant_extent(v, j, "vec");
        user_assert(n == 2 || n == 3 || n == 4 || n == 8 || n == 16, error_kind::LoopyError, "axis ", j, " of array '", v.name,
                    "' is tagged 'vec' with length ", n, ": vector types have 2, 3, 4, 8 or 16 entries");
        user_assert(!is_complex(v.dtype), error_kind::LoopyError, "array '", v.name,
                    "' has complex entries, which cannot be vector entries ('vec' axis ", j, ")");
    }
    user_assert(vec_axes <= 1, error_kind::LoopyError, "array '", v.name, "' may only have one axis tagged 'vec'");
}

void check_supported(const Variable& v, const std::vector<DimTag>& tags) {
    check_sep_and_vec(v, tags);
    const auto explicit_level = [](const DimTag& t) { return t.level >= 0; };
    std::vector<DimTag> storage;
    std::copy_if(tags.begin(), tags.end(), std::back_inserter(storage), is_storage_tag);
    const bool any = std::any_of(storage.begin(), storage.end(), explicit_level);
    const bool all = std::all_of(storage.begin(), storage.end(), explicit_level);
    user_assert(!any || all, error_kind::LoopyError, "array '", v.name,
                "' mixes c/f (or stride: without a level) with explicit nesting levels (N0..N9) in its dim tags");
}

// Whether the axis's stride comes from its nesting level (computed strides and `N1:stride:EXPR`).
bool has_level(const DimTag& t) { return is_storage_tag(t) && (t.kind != Kind::Stride || t.level >= 0); }

// The nesting level of each axis (-1 for a fixed stride without one), as loopy numbers them: read left to
// right, `c` takes one below the lowest so far and `f` one above the highest; then shifted to start at 0.
std::vector<int> nesting_levels(const Variable& v, const std::vector<DimTag>& tags) {
    std::vector<int> levels;
    std::vector<int> used;
    for (const DimTag& t : tags) {
        int level = t.level;
        if (t.kind == Kind::C) level = used.empty() ? 0 : *std::min_element(used.begin(), used.end()) - 1;
        if (t.kind == Kind::F) level = used.empty() ? 0 : *std::max_element(used.begin(), used.end()) + 1;
        if (has_level(t)) {
            user_assert(std::find(used.begin(), used.end(), level) == used.end(), error_kind::LoopyError, "array '", v.name,
                        "': nesting level N", level, " is given to more than one axis");
            used.push_back(level);
        }
        levels.push_back(has_level(t) ? level : -1);
    }
    if (used.empty()) return levels;
    const int lowest = *std::min_element(used.begin(), used.end());
    std::sort(used.begin(), used.end());
    for (std::size_t r = 0; r < used.size(); ++r)
        user_assert(used[r] == lowest + static_cast<int>(r), error_kind::LoopyError, "the nesting levels of array '", v.name,
                    "' are not contiguous");
    for (std::size_t j = 0; j < levels.size(); ++j)
        if (has_level(tags[j])) levels[j] -= lowest;
    return levels;
}

}  // namespace

void compute_layout(Variable& v) {
    user_assert(v.shape.size() <= kMaxArrayAxes, error_kind::LoopyError, "array '", v.name, "' would have ", v.shape.size(),
                " axes; arrays have at most ", kMaxArrayAxes, " (numpy's limit)");
    const std::vector<DimTag> tags = tags_per_axis(v);
    check_supported(v, tags);
    const std::size_t n = tags.size();
    v.stride_levels = nesting_levels(v, tags);
    v.strides.assign(n, nullptr);
    std::vector<std::size_t> by_level;
    for (std::size_t j = 0; j < n; ++j) {
        if (tags[j].kind == Kind::Sep) v.strides[j] = int_lit(0);  // the axis picks an array, not an element
        else if (tags[j].kind == Kind::Vec) v.strides[j] = int_lit(1);
        else if (v.stride_levels[j] < 0) v.strides[j] = tags[j].stride;
        else by_level.push_back(j);
    }
    std::sort(by_level.begin(), by_level.end(),
              [&](std::size_t a, std::size_t b) { return v.stride_levels[a] < v.stride_levels[b]; });
    // Each level's stride is the previous one's times its extent; a fixed stride with a level restarts the
    // chain from itself (loopy carries the bare stride on, which makes the next axis alias this one). Vector
    // entries are the innermost level, a 3-vector taking the room of 4 as in OpenCL.
    ExprPtr stride = int_lit(vector_size(v));
    for (const std::size_t axis : by_level) {
        if (tags[axis].kind == Kind::Stride) stride = tags[axis].stride;
        v.strides[axis] = stride;
        stride = times(stride, v.shape[axis]);
        user_assert(stride != nullptr, error_kind::LoopyError, "array '", v.name, "' of shape ", shape_text(v.shape),
                    " has more elements than a 64-bit index counts");
    }
}

std::string shape_text(const std::vector<ExprPtr>& shape) {
    std::vector<std::string> axes;
    for (const ExprPtr& e : shape) axes.push_back(e ? to_string(e) : "?");
    return "(" + join(axes, ", ") + ")";
}

std::string dim_tags_text(const Variable& v) {
    const std::vector<DimTag> kinds = v.is_array ? tags_per_axis(v) : std::vector<DimTag>();
    std::vector<std::string> tags;
    for (std::size_t j = 0; j < v.strides.size(); ++j) {
        const Kind kind = j < kinds.size() ? kinds[j].kind : Kind::Stride;
        const int level = j < v.stride_levels.size() ? v.stride_levels[j] : -1;
        if (kind == Kind::Sep || kind == Kind::Vec) tags.push_back(kind == Kind::Sep ? "sep" : "vec");
        else tags.push_back((level >= 0 ? cat("N", level, ":") : std::string()) + "stride:" + to_string(v.strides[j]));
    }
    return "(" + join(tags, ", ") + ")";
}

namespace {

// The axes of `v` tagged `kind`, in order.
std::vector<std::size_t> axes_tagged(const Variable& v, Kind kind) {
    std::vector<std::size_t> out;
    if (!v.is_array || v.dim_tags.empty()) return out;
    const std::vector<DimTag> tags = tags_per_axis(v);
    for (std::size_t j = 0; j < tags.size(); ++j)
        if (tags[j].kind == kind) out.push_back(j);
    return out;
}

}  // namespace

std::optional<std::size_t> vec_axis(const Variable& v) {
    const std::vector<std::size_t> axes = axes_tagged(v, Kind::Vec);
    return axes.empty() ? std::nullopt : std::optional<std::size_t>(axes[0]);
}

std::int64_t vector_length(const Variable& v) {
    const std::optional<std::size_t> axis = vec_axis(v);
    return axis ? constant_extent(v, *axis, "vec") : 1;
}

std::int64_t vector_size(const Variable& v) {
    const std::int64_t n = vector_length(v);
    return n == 3 ? 4 : n;
}

namespace {

// `e` divided by `d` where a constant factor of it is a multiple of `d`; null otherwise.
ExprPtr exactly_divided(const ExprPtr& e, std::int64_t d) {
    if (e->kind == ExprKind::IntLit) return e->ival % d == 0 ? int_lit(e->ival / d) : nullptr;
    if (e->kind != ExprKind::Binary || e->op != BinOp::Mul) return nullptr;
    if (const ExprPtr left = exactly_divided(e->args[0], d)) return times(left, e->args[1]);
    if (const ExprPtr right = exactly_divided(e->args[1], d)) return times(e->args[0], right);
    return nullptr;
}

}  // namespace

ExprPtr stride_in_vectors(const Variable& v, const ExprPtr& s) {
    const std::int64_t size = vector_size(v);
    const ExprPtr out = exactly_divided(s, size);
    user_assert(out != nullptr, error_kind::LoopyError, "array '", v.name, "' has a stride or offset of ", to_string(s),
                ", which is not a multiple of the size of its vectors (", size, ")");
    return out;
}

std::vector<std::size_t> sep_axes(const Variable& v) { return axes_tagged(v, Kind::Sep); }

std::string sep_piece_name(const Variable& v, const std::vector<std::int64_t>& index) {
    std::vector<std::string> parts;
    for (const std::int64_t i : index) parts.push_back(std::to_string(i));
    return v.name + "_s" + join(parts, "_");
}

Variable sep_piece_variable(const Variable& v, const SepPiece& piece) {
    const std::vector<DimTag> tags = tags_per_axis(v);
    Variable out = v;
    out.name = piece.name;
    out.shape.clear();
    out.strides.clear();
    out.stride_levels.clear();
    out.dim_tags.clear();
    for (std::size_t j = 0; j < tags.size(); ++j) {
        if (tags[j].kind == Kind::Sep) continue;
        out.shape.push_back(v.shape[j]);
        out.strides.push_back(v.strides[j]);
        out.stride_levels.push_back(v.stride_levels[j]);
        out.dim_tags.push_back(tags[j]);
    }
    return out;
}

std::vector<SepPiece> sep_pieces(const Variable& v) {
    const std::vector<std::size_t> axes = sep_axes(v);
    std::vector<SepPiece> out;
    if (axes.empty()) return out;
    std::vector<std::int64_t> extents, index(axes.size(), 0);
    for (const std::size_t a : axes) extents.push_back(constant_extent(v, a, "sep"));
    if (std::find(extents.begin(), extents.end(), 0) != extents.end()) return out;
    for (;;) {
        out.push_back({sep_piece_name(v, index), index});
        std::size_t j = axes.size();  // the next index, last axis fastest
        for (; j > 0 && ++index[j - 1] == extents[j - 1]; --j) index[j - 1] = 0;
        if (j == 0) return out;
    }
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
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return true;  // no element to address
    for (std::size_t j = 0; j < shape.size(); ++j)
        if (shape[j] > 1 && a[j] != b[j]) return false;
    return true;
}

}  // namespace loom
