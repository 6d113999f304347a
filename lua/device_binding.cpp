#include "lua/device_binding.h"

#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "lua/args.h"
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "support/error.h"

namespace loom::lua {

namespace {

constexpr const char* kDeviceArrayMeta = "loom.DeviceArray";

// The userdata block, as for host arrays: `array` points into `storage` until __gc, null after.
struct DeviceBox {
    DeviceArray* array;
    alignas(DeviceArray) std::byte storage[sizeof(DeviceArray)];
};

static_assert(std::is_nothrow_move_constructible_v<DeviceArray>, "push_device_array relies on a move that cannot throw");

// The device array at `idx`, which must not have been released.
DeviceArray& check_device_array(lua_State* L, int idx, const char* fname) {
    auto* box = static_cast<DeviceBox*>(check_udata(L, idx, kDeviceArrayMeta, fname));
    if (!box->array || !box->array->buffer) arg_error(L, idx, fname, "the device array has been released");
    return *box->array;
}

// `a`'s elements contiguous in `order`: `a` itself where they already are, else a copy.
HostArray contiguous_in(const HostArray& a, Order order) {
    if (order == Order::C) return a.is_contiguous() ? a : a.copy();
    const HostArray t = a.transpose();  // Fortran order is C order of the reversed axes
    return t.is_contiguous() ? a : t.copy().transpose();
}

void check_same_layout(lua_State* L, const DeviceArray& d, const HostArray& a, int arg, const char* fname) {
    if (a.dtype() != d.dtype || a.shape() != d.shape)
        arg_error(L, arg, fname,
                  cat("expected a ", dtype_name(d.dtype), " array of shape ", shape_string(d.shape), ", got a ",
                      dtype_name(a.dtype()), " array of shape ", shape_string(a.shape())));
}

// ---- Executor methods and lp.cl functions ----

// queue:to_device(a): a device array with a copy of a's elements, on every executor (on C too, so that a script
// behaves the same on each: the device array never aliases a).
int l_to_device(lua_State* L) {
    const char* f = "to_device";
    const std::shared_ptr<backend::Executor> exec = check_executor_ptr(L, 1, f);
    const HostArray a = contiguous_in(check_array(L, 2, f), Order::C);
    DeviceArray d = allocate_device_array(exec, a.shape(), a.dtype(), Order::C);
    exec->write(*d.buffer, a.data(), a.nbytes());
    push_device_array(L, std::move(d));
    return 1;
}

int l_finish(lua_State* L) {
    check_executor_ptr(L, 1, "finish")->finish();
    return 0;
}

// lp.cl.zeros(queue, shape [, dtype [, order]]); lp.cl.empty is the same (new memory is always cleared).
template <const char* Name>
int l_new_device_array(lua_State* L) {
    const std::shared_ptr<backend::Executor> exec = check_executor_ptr(L, 1, Name);
    const HostArray::Shape shape = check_shape(L, 2, Name);
    const DType dtype = opt_dtype(L, 3, Name, DType::Float64);
    push_device_array(L, allocate_device_array(exec, shape, dtype, opt_order(L, 4, Name)));
    return 1;
}

constexpr char kZeros[] = "cl.zeros";
constexpr char kEmpty[] = "cl.empty";

// ---- Methods ----

// d:get([out]): the elements, once every command enqueued before has run: in a new host array, or in `out`, a host
// array of d's dtype and shape whose elements lie in d's order (a host program's own buffer: one transfer, no
// copy), which it returns.
int l_get(lua_State* L) {
    const DeviceArray& d = check_device_array(L, 1, "get");
    if (lua_isnoneornil(L, 2)) {
        const HostArray out = HostArray::empty(d.shape, d.dtype, d.order);
        d.exec->read(*d.buffer, out.data(), d.nbytes());
        push_array(L, out);
        return 1;
    }
    const HostArray& out = check_array(L, 2, "get");
    check_same_layout(L, d, out, 2, "get");
    if (!(d.order == Order::C ? out : out.transpose()).is_contiguous())
        arg_error(L, 2, "get", "the array's elements must lie contiguous in the device array's order (copy() it)");
    d.exec->read(*d.buffer, out.data(), d.nbytes());
    lua_settop(L, 2);
    return 1;
}

// d:set(a): copies the host array a (same dtype and shape) into d.
int l_set(lua_State* L) {
    const DeviceArray& d = check_device_array(L, 1, "set");
    const HostArray& a = check_array(L, 2, "set");
    check_same_layout(L, d, a, 2, "set");
    d.exec->write(*d.buffer, contiguous_in(a, d.order).data(), d.nbytes());
    return 0;
}

int l_copy(lua_State* L) {
    const DeviceArray& d = check_device_array(L, 1, "copy");
    DeviceArray out = allocate_device_array(d.exec, d.shape, d.dtype, d.order);
    d.exec->copy(*d.buffer, *out.buffer);
    push_device_array(L, std::move(out));
    return 1;
}

// d:release(): frees the memory now rather than at collection; using d afterwards is an ArgumentError. Kernels
// still enqueued on it finish first (the runtime keeps it until then).
int l_release(lua_State* L) {
    auto* box = static_cast<DeviceBox*>(check_udata(L, 1, kDeviceArrayMeta, "release"));
    if (box->array) box->array->buffer.reset();
    return 0;
}

// Fields first, then the methods table (upvalue 1). Methods are found on a released array too, so that they name
// themselves in the error (and release stays callable).
int l_index(lua_State* L) {
    check_udata(L, 1, kDeviceArrayMeta, "__index");
    const std::string_view key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (is_array_field(key)) {
        const DeviceArray& d = check_device_array(L, 1, std::string(key).c_str());
        push_array_field(L, key, d.shape, d.dtype);
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

int l_len(lua_State* L) {
    lua_pushinteger(L, static_cast<lua_Integer>(check_device_array(L, 1, "__len").size()));
    return 1;
}

int l_tostring(lua_State* L) {
    auto* box = static_cast<DeviceBox*>(check_udata(L, 1, kDeviceArrayMeta, "__tostring"));
    const DeviceArray* d = box->array;
    const std::string s = d && d->buffer ? cat("loom.DeviceArray(shape=", shape_string(d->shape), ", dtype=",
                                               dtype_name(d->dtype), ", on ", d->exec->description(), ")")
                                         : std::string("loom.DeviceArray (released)");
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

int l_gc(lua_State* L) {
    auto* box = static_cast<DeviceBox*>(check_udata(L, 1, kDeviceArrayMeta, "__gc"));
    if (box->array) {
        box->array->~DeviceArray();
        box->array = nullptr;
    }
    return 0;
}

const luaL_Reg kMethods[] = {
    {"get", trampoline<l_get>},         {"set", trampoline<l_set>}, {"copy", trampoline<l_copy>},
    {"release", trampoline<l_release>}, {nullptr, nullptr},
};

const luaL_Reg kMetamethods[] = {
    {"__len", trampoline<l_len>},
    {"__tostring", trampoline<l_tostring>},
    {"__gc", trampoline<l_gc>},
    {nullptr, nullptr},
};

}  // namespace

DeviceArray* test_device_array(lua_State* L, int idx) {
    auto* box = static_cast<DeviceBox*>(test_udata(L, idx, kDeviceArrayMeta));
    return box ? box->array : nullptr;
}

void push_device_array(lua_State* L, DeviceArray d) {
    auto* box = static_cast<DeviceBox*>(lua_newuserdatauv(L, sizeof(DeviceBox), 0));
    box->array = nullptr;
    luaL_setmetatable(L, kDeviceArrayMeta);
    box->array = new (box->storage) DeviceArray(std::move(d));
}

void register_device_api(lua_State* L, int cl_table, int executor_methods) {
    cl_table = lua_absindex(L, cl_table);
    executor_methods = lua_absindex(L, executor_methods);
    luaL_newmetatable(L, kDeviceArrayMeta);
    luaL_setfuncs(L, kMetamethods, 0);
    lua_newtable(L);
    luaL_setfuncs(L, kMethods, 0);
    lua_pushcclosure(L, trampoline<l_index>, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    const luaL_Reg cl[] = {{"zeros", trampoline<l_new_device_array<kZeros>>},
                           {"empty", trampoline<l_new_device_array<kEmpty>>},
                           {nullptr, nullptr}};
    lua_pushvalue(L, cl_table);
    luaL_setfuncs(L, cl, 0);
    lua_pop(L, 1);
    const luaL_Reg methods[] = {{"to_device", trampoline<l_to_device>}, {"finish", trampoline<l_finish>}, {nullptr, nullptr}};
    lua_pushvalue(L, executor_methods);
    luaL_setfuncs(L, methods, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
