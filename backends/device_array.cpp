#include "backends/device_array.h"

#include <algorithm>

namespace loom::backend {

std::int64_t DeviceArray::size() const {
    std::int64_t n = 1;
    for (const std::int64_t d : shape) n *= d;
    return n;
}

std::size_t DeviceArray::nbytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype); }

HostArray::Shape DeviceArray::strides() const {
    HostArray::Shape strides(shape.size());
    std::int64_t step = 1;
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const std::size_t axis = order == Order::C ? shape.size() - 1 - k : k;
        strides[axis] = step;
        step *= std::max<std::int64_t>(shape[axis], 1);
    }
    return strides;
}

DeviceArray allocate_device_array(const std::shared_ptr<Executor>& exec, const HostArray::Shape& shape, DType dtype,
                                  Order order) {
    checked_element_count(shape, dtype);
    DeviceArray d{exec, nullptr, dtype, shape, order};
    d.buffer = exec->allocate(d.nbytes());
    return d;
}

}  // namespace loom::backend
