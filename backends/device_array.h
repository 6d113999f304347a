// Device arrays: an executor's memory that lives across calls, in C or Fortran order. Kernels use it in place,
// with no transfer (lua/device_binding.h gives scripts their "loom.DeviceArray").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "backends/host/host_array.h"
#include "backends/runtime.h"

namespace loom::backend {

/// A contiguous array in an executor's memory (C or Fortran order).
struct DeviceArray {
    std::shared_ptr<Executor> exec;
    std::shared_ptr<DeviceBuffer> buffer;  // null once released
    DType dtype = DType::Unknown;
    HostArray::Shape shape;
    Order order = Order::C;

    std::int64_t size() const;
    std::size_t nbytes() const;
    /// Its strides in elements.
    HostArray::Shape strides() const;
};

/// A new zero-filled device array on `exec`.
DeviceArray allocate_device_array(const std::shared_ptr<Executor>& exec, const HostArray::Shape& shape, DType dtype,
                                  Order order);

}  // namespace loom::backend
