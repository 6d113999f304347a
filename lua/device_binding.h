// The Lua face of device arrays: queue:to_device(a), lp.cl.zeros/empty(queue, shape, dtype) and the
// "loom.DeviceArray" userdata (d:get(), d:set(a), d:copy(), d:release(), d.shape, d.dtype, d.ndim, #d). A device
// array is an executor's memory that lives across calls: kernels use it in place, with no transfer.
#pragma once

#include <lua.hpp>

#include "backends/device_array.h"

namespace loom::lua {

using backend::allocate_device_array;
using backend::DeviceArray;

/// The device array at `idx`, or nullptr when the value there is not one. It may have been released.
DeviceArray* test_device_array(lua_State* L, int idx);

/// Pushes a new "loom.DeviceArray" userdata holding `d` (sharing its buffer).
void push_device_array(lua_State* L, DeviceArray d);

/// Creates the "loom.DeviceArray" metatable, adds zeros and empty to the table at `cl_table` (lp.cl) and
/// to_device and finish to the executors' method table at `executor_methods`.
void register_device_api(lua_State* L, int cl_table, int executor_methods);

}  // namespace loom::lua
