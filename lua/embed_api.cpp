// loom.h's host-buffer functions: loom_push_array and loom_check_array.
#include <lua.hpp>

#include <memory>
#include <string>
#include <vector>

#include "lua/array_binding.h"
#include "lua/loom.h"
#include "lua/trampoline.h"

namespace loom::lua {

namespace {

struct PushRequest {
    void* data;
    const char* dtype;
    int ndim;
    const std::int64_t* shape;
    const std::int64_t* strides;
    loom_owner* owner;
    bool owner_taken = false;  // a shared_ptr holds it, which releases it: on failure too
};

HostArray::Shape shape_of(int ndim, const std::int64_t* values) {
    if (!values) return {};
    return HostArray::Shape(values, values + ndim);
}

// Runs protected (lua_pcall), so that a memory error of Lua's is an error result too.
int push_body(lua_State* L) {
    auto& r = *static_cast<PushRequest*>(lua_touserdata(L, 1));
    user_assert(r.ndim >= 0 && (r.shape || r.ndim == 0), error_kind::ArgumentError,
                "loom_push_array: ndim must be >= 0 with a shape of that many entries");
    const std::optional<DType> dtype = r.dtype ? dtype_from_name(r.dtype) : std::nullopt;
    user_assert(dtype.has_value(), error_kind::ArgumentError, "loom_push_array: unknown dtype '", r.dtype ? r.dtype : "(null)", "'");
    // The userdata is made (and the arguments validated) before the owner is taken: after that nothing allocates
    // Lua memory, so no Lua error can skip the release.
    const HostArray::Shape shape = shape_of(r.ndim, r.shape), strides = shape_of(r.ndim, r.strides);
    push_array(L, HostArray::wrap(r.data, *dtype, shape, strides, nullptr));
    if (r.owner) {
        r.owner_taken = true;  // from here on a shared_ptr releases it, also if making one fails
        std::shared_ptr<void> owner(r.owner, [](void* o) {
            auto* self = static_cast<loom_owner*>(o);
            self->release(self);
        });
        *test_array(L, -1) = HostArray::wrap(r.data, *dtype, shape, strides, std::move(owner));
    }
    return 1;
}

// The names loom_check_array hands out: one stable string per dtype.
const char* dtype_c_name(DType t) {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (int k = 0; k <= static_cast<int>(DType::Complex128); ++k) out.push_back(dtype_name(static_cast<DType>(k)));
        return out;
    }();
    return names.at(static_cast<std::size_t>(t)).c_str();
}

}  // namespace

}  // namespace loom::lua

extern "C" int loom_push_array(lua_State* L, void* data, const char* dtype, int ndim, const int64_t* shape,
                               const int64_t* strides, loom_owner* owner) {
    loom::lua::PushRequest request{data, dtype, ndim, shape, strides, owner};
    lua_pushcfunction(L, loom::lua::trampoline<loom::lua::push_body>);
    lua_pushlightuserdata(L, &request);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK) return 1;
    if (owner && !request.owner_taken) owner->release(owner);
    return 0;
}

extern "C" int loom_check_array(lua_State* L, int idx, loom_array_view* view) {
    const loom::HostArray* a = loom::lua::test_array(L, idx);
    if (!a) return 0;
    *view = {a->data(), loom::lua::dtype_c_name(a->dtype()), static_cast<int>(a->ndim()), a->shape().data(),
             a->strides().data()};
    return 1;
}
