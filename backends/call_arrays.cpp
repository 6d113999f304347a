#include "backends/call_arrays.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "ir/eval.h"
#include "ir/layout.h"
#include "support/error.h"

namespace loom::backend {

namespace {

std::int64_t eval_for(const Variable& v, const ExprPtr& e, const Values& values, const char* what) {
    const auto n = eval_int(e, values);
    if (!n) throw Error(error_kind::ArgumentError, cat("cannot evaluate the ", what, " ", to_string(e), " of '", v.name, "'"));
    return *n;
}

ArrayMemory unstaged(const HostArray& buffer, const HostArray& logical) { return {buffer, logical, false, {}, 0}; }

// Whether no two elements share memory: each axis, by increasing stride, steps past all that the smaller ones
// span. Every view made by slicing is so; a host's strides (loom_push_array) need not be.
bool without_self_overlap(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides) {
    std::vector<std::pair<std::int64_t, std::int64_t>> axes;  // (stride, extent) of the axes that step
    for (std::size_t k = 0; k < shape.size(); ++k)
        if (shape[k] > 1) axes.emplace_back(strides[k], shape[k]);
    std::sort(axes.begin(), axes.end());
    std::int64_t span = 1;
    for (const auto& [stride, extent] : axes) {
        if (stride < span) return false;
        span = stride * (extent - 1) + span;
    }
    return true;
}

// Elements a buffer of `v` needs for a layout spanning `span`: whole vectors, as a 3-vector is loaded whole.
std::int64_t buffer_elements(const Variable& v, std::int64_t span) {
    const std::int64_t size = vector_size(v);
    return (span + size - 1) / size * size;
}

ArrayMemory stage(const Variable& v, const HostArray& logical, bool copy_in, std::vector<std::int64_t> strides,
                  std::int64_t offset) {
    ArrayMemory m{HostArray::zeros({buffer_elements(v, offset + storage_span(logical.shape(), strides))}, v.dtype),
                  logical, true, std::move(strides), offset};
    if (copy_in)
        each_element(logical.shape(), m.strides, offset,
                     [&](const HostArray::Index& i, std::int64_t flat) { m.buffer.set({flat}, logical.get(i)); });
    return m;
}

void check_passed(const Variable& v, DType dtype, const std::vector<std::int64_t>& passed_shape, const void* data,
                  const std::vector<std::int64_t>& shape) {
    if (dtype != v.dtype)
        throw Error(error_kind::ArgumentError, cat("argument '", v.name, "': expected a ", dtype_name(v.dtype), " array, got ",
                                         dtype_name(dtype)));
    if (shape != passed_shape)
        throw Error(error_kind::ArgumentError, cat("argument '", v.name, "': expected shape ", shape_string(shape), ", got ",
                                         shape_string(passed_shape)));
    if (v.alignment > 0 && reinterpret_cast<std::uintptr_t>(data) % static_cast<std::uintptr_t>(v.alignment) != 0)
        throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is declared aligned to ", v.alignment,
                                         " bytes, but the array passed is not"));
}

void check_passed(const Variable& v, const HostArray& a, const std::vector<std::int64_t>& shape) {
    check_passed(v, a.dtype(), a.shape(), a.data(), shape);
}

// The layout of `v` for these values: strides and offset, checked non-negative.
std::pair<std::vector<std::int64_t>, std::int64_t> eval_layout(const Variable& v, const Values& values) {
    std::vector<std::int64_t> strides;
    for (const ExprPtr& s : v.strides) strides.push_back(eval_for(v, s, values, "stride"));
    const std::int64_t offset = v.offset ? eval_for(v, v.offset, values, "offset") : 0;
    for (const std::int64_t s : strides)
        if (s < 0 || offset < 0)
            throw Error(error_kind::ArgumentError, cat("array '", v.name, "' has a negative stride or offset for these values"));
    return {std::move(strides), offset};
}

// Which of the separate arrays (in sep_pieces order) element `index` of `m`'s array lies in.
std::size_t piece_of(const SepMemory& m, const HostArray::Index& index) {
    std::size_t piece = 0;
    for (const std::size_t axis : m.sep_axes)
        piece = piece * static_cast<std::size_t>(m.logical.shape()[axis]) + static_cast<std::size_t>(index[axis]);
    return piece;
}

// An argument without a shape (lp.none) is its caller's storage, whatever its shape: any array whose elements
// lie contiguously in C order (an input with other strides is copied into that order); an index (plus the
// offset, if any) counts its elements.
ArrayMemory storage_memory(const Variable& v, const HostArray* passed) {
    if (!passed)
        throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' has no shape (lp.none), so it cannot be allocated: ",
                                         "pass it"));
    check_passed(v, *passed, passed->shape());
    const HostArray& a = *passed;
    if (same_strides(a.shape(), a.strides(), contiguous_strides(a.shape(), 'C'))) return unstaged(a, a);
    if (v.is_output.value_or(false))
        throw Error(error_kind::ArgumentError,
                    cat("argument '", v.name, "' is written by the kernel and must be a contiguous array"));
    return unstaged(a.copy(), a);
}

}  // namespace

std::vector<std::int64_t> eval_shape(const Variable& v, const Values& values) {
    std::vector<std::int64_t> shape;
    for (const ExprPtr& s : v.shape) shape.push_back(eval_for(v, s, values, "shape"));
    return shape;
}

ArrayMemory array_memory(const Variable& v, const HostArray* passed, const Values& values) {
    if (v.no_shape) return storage_memory(v, passed);
    const std::vector<std::int64_t> shape = eval_shape(v, values);
    auto [strides, offset] = eval_layout(v, values);
    const bool c_layout = offset == 0 && same_strides(shape, strides, contiguous_strides(shape, 'C'));
    const bool f_layout = offset == 0 && same_strides(shape, strides, contiguous_strides(shape, 'F'));
    if (!passed) {
        const HostArray out = HostArray::zeros(shape, v.dtype, !c_layout && f_layout ? Order::F : Order::C);
        if (c_layout || f_layout) return unstaged(out, out);
        return stage(v, out, false, std::move(strides), offset);
    }
    const HostArray& a = *passed;
    check_passed(v, a, shape);
    // In place where the layouts agree, also with gaps (a view: the buffer spans them); never where elements
    // share memory.
    if (offset == 0 && same_strides(shape, a.strides(), strides) && without_self_overlap(shape, a.strides()))
        return unstaged(a, a);
    const bool written = v.is_output.value_or(false);
    if (c_layout) {
        if (written)
            throw Error(error_kind::ArgumentError,
                        cat("argument '", v.name, "' is written by the kernel and must be a contiguous array"));
        return unstaged(a.copy(), a);
    }
    if (f_layout)
        throw Error(error_kind::ArgumentError, cat("strides mismatch on argument '", v.name, "' (got ", shape_string(a.strides()),
                                         ", expected ", shape_string(strides),
                                         "): pass a Fortran-order array, as lp.zeros(shape, dtype, \"F\") makes"));
    return stage(v, a, true, std::move(strides), offset);
}

void check_device_memory(const Variable& v, const DeviceMemory& d, const Values& values) {
    if (v.no_shape) {  // any shape, in C order (as storage_memory takes host arrays)
        check_passed(v, d.dtype, d.shape, d.host, d.shape);
        user_assert(same_strides(d.shape, d.strides, contiguous_strides(d.shape, 'C')), error_kind::ArgumentError, "argument '",
                    v.name, "' has no shape (lp.none): a device array for it must be in C order");
        return;
    }
    const std::vector<std::int64_t> shape = eval_shape(v, values);
    check_passed(v, d.dtype, d.shape, d.host, shape);
    const auto [strides, offset] = eval_layout(v, values);
    user_assert(offset == 0 && same_strides(shape, d.strides, strides), error_kind::ArgumentError, "strides mismatch on argument '",
                v.name, "' (got ", shape_string(d.strides), ", expected ", shape_string(strides),
                offset ? cat(" at offset ", offset) : "",
                "): a device array is used in place, so it must have the declared layout");
}

Order device_order(const Variable& v, const Values& values) {
    user_assert(!v.no_shape, error_kind::ArgumentError, "argument '", v.name,
                "' has no shape (lp.none), so it cannot be allocated: pass it");
    const std::vector<std::int64_t> shape = eval_shape(v, values);
    const auto [strides, offset] = eval_layout(v, values);
    if (offset == 0 && same_strides(shape, strides, contiguous_strides(shape, 'C'))) return Order::C;
    if (offset == 0 && same_strides(shape, strides, contiguous_strides(shape, 'F'))) return Order::F;
    user_error(error_kind::ArgumentError, "argument '", v.name, "' has a layout (strides ", shape_string(strides), ", offset ",
               offset, ") that device arrays cannot have: pass a host array for it");
}

std::size_t span_bytes(const HostArray& a) {
    return static_cast<std::size_t>(storage_span(a.shape(), a.strides())) * dtype_size(a.dtype());
}

void copy_back(const ArrayMemory& m) {
    HostArray out = m.logical;
    each_element(out.shape(), m.strides, m.offset,
                 [&](const HostArray::Index& i, std::int64_t flat) { out.set(i, m.buffer.get({flat})); });
}

SepMemory sep_memory(const Variable& v, const HostArray* passed, const Values& values) {
    const std::vector<std::int64_t> shape = eval_shape(v, values);
    if (passed) check_passed(v, *passed, shape);
    auto [strides, offset] = eval_layout(v, values);
    SepMemory m{passed ? *passed : HostArray::zeros(shape, v.dtype), {}, sep_axes(v), std::move(strides), offset};
    std::vector<std::int64_t> piece_shape = shape;
    for (const std::size_t axis : m.sep_axes) piece_shape[axis] = 1;
    const std::int64_t elements = buffer_elements(v, offset + storage_span(piece_shape, m.strides));
    for (std::size_t n = 0; n < sep_pieces(v).size(); ++n) m.pieces.push_back(HostArray::zeros({elements}, v.dtype));
    if (passed)
        each_element(shape, m.strides, offset, [&](const HostArray::Index& i, std::int64_t flat) {
            m.pieces[piece_of(m, i)].set({flat}, m.logical.get(i));
        });
    return m;
}

void copy_back(const SepMemory& m) {
    HostArray out = m.logical;
    each_element(out.shape(), m.strides, m.offset, [&](const HostArray::Index& i, std::int64_t flat) {
        out.set(i, m.pieces[piece_of(m, i)].get({flat}));
    });
}

}  // namespace loom::backend
