// The memory a kernel call hands to each array argument: the caller's array when its layout is the declared
// one (views with gaps included, as a kernel with lp.auto strides declares them), otherwise a copy in the
// declared layout, which goes back into the caller's array after a run that writes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backends/host/host_array.h"
#include "ir/kernel.h"

namespace loom::backend {

using Values = std::map<std::string, std::int64_t>;

/// An array argument's memory for one call.
struct ArrayMemory {
    HostArray buffer;   // what the kernel's pointer points at
    HostArray logical;  // the caller's array, or the output allocated for it: what the call returns
    bool staged = false;  // buffer holds a copy in the declared layout
    std::vector<std::int64_t> strides;  // the declared layout, for copying a staged buffer back
    std::int64_t offset = 0;
};

/// Calls f(index, flat) for every index of `shape` in C order, with flat = offset + index . strides (one
/// stride per axis).
template <class F>
void each_element(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                  std::int64_t offset, F&& f) {
    std::int64_t count = 1;
    for (const std::int64_t n : shape) count *= n;
    std::vector<std::int64_t> index(shape.size(), 0);
    for (std::int64_t done = 0; done < count; ++done) {
        std::int64_t flat = offset;
        for (std::size_t j = 0; j < shape.size(); ++j) flat += index[j] * strides[j];
        f(index, flat);
        for (std::size_t j = shape.size(); j-- > 0;) {
            if (++index[j] < shape[j]) break;
            index[j] = 0;
        }
    }
}

/// The shape of `v` for these parameter values (ArgumentError when one is missing).
std::vector<std::int64_t> eval_shape(const Variable& v, const Values& values);

/// Checks `passed` against `v` (dtype, shape, alignment; strides where a host array can have the declared
/// ones) and returns the memory the kernel gets, or allocates a zero-filled output when `passed` is null.
/// ArgumentError for a mismatch; an input declared C-contiguous may have any strides (it is copied).
ArrayMemory array_memory(const Variable& v, const HostArray* passed, const Values& values);

/// What is checked of a device array passed for an argument.
struct DeviceMemory {
    DType dtype;
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;  // in elements
    const void* host;  // its host address where it has one (for the alignment check), else null
};

/// Checks a device array passed for `v`: dtype, shape, alignment and the declared layout (no offset), which it
/// must have as it is used in place. ArgumentError naming the argument otherwise.
void check_device_memory(const Variable& v, const DeviceMemory& d, const Values& values);

/// The order (C or Fortran) of a device array allocated for `v`; ArgumentError when the declared layout is
/// neither (padding, an offset or another axis order need host arrays).
Order device_order(const Variable& v, const Values& values);

/// The bytes from `a`'s first element to its last, gaps included: what a buffer over a view holds.
std::size_t span_bytes(const HostArray& a);

/// Copies a staged buffer back into the caller's array, after a run that wrote it.
void copy_back(const ArrayMemory& m);

/// The memory of an argument with `sep` axes: the caller's array with the full shape (or a zero-filled
/// output), split into one buffer per separate array, each in the layout of the other axes.
struct SepMemory {
    HostArray logical;
    std::vector<HostArray> pieces;  // in sep_pieces order
    std::vector<std::size_t> sep_axes;
    std::vector<std::int64_t> strides;  // sep axes: 0
    std::int64_t offset = 0;
};

/// Checks `passed` as array_memory does and splits it (or a new zero-filled array) into its pieces.
SepMemory sep_memory(const Variable& v, const HostArray* passed, const Values& values);

/// Copies the pieces back into the full array, after a run that wrote them.
void copy_back(const SepMemory& m);

}  // namespace loom::backend
