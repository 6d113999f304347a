// loom.h's host buffers: loom_push_array wraps a host's memory without a copy and releases its owner exactly
// once (after the array and all its views are collected, or at once on failure); loom_check_array shows any
// Loom array to the host.
#include <catch2/catch.hpp>
#include <lua.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "lua/loom.h"
#include "tests/unit/embed_helpers.h"

namespace {

using loom::test::new_loom_state;
using loom::test::run_lua;

struct CountedOwner {
    loom_owner base{&CountedOwner::release_one};
    int releases = 0;
    static void release_one(loom_owner* self) { ++reinterpret_cast<CountedOwner*>(self)->releases; }
};

std::string raised_kind(lua_State* L) {
    lua_getfield(L, -1, "kind");
    std::string kind = lua_tostring(L, -1);
    lua_pop(L, 1);
    return kind;
}

}  // namespace

TEST_CASE("loom_push_array shares the host's memory and releases its owner once", "[embed]") {
    std::vector<float> data = {1, 2, 3, 4, 5, 6};
    CountedOwner owner;
    lua_State* L = new_loom_state();
    const std::int64_t shape[] = {2, 3};
    REQUIRE(loom_push_array(L, data.data(), "float32", 2, shape, nullptr, &owner.base) == 1);
    lua_setglobal(L, "a");
    // Lua reads and writes the host's memory in place; views and kernels share it.
    run_lua(L, "assert(a:get(1, 2) == 6 and a.dtype == 'float32' and #a == 6)");
    run_lua(L, "a:set(0, 0, 10)");
    CHECK(data[0] == 10);
    run_lua(L, "v = a:view{1, {0, 3, 2}}; v:fill(-1)");
    CHECK(data[3] == -1);
    CHECK(data[5] == -1);
    CHECK(data[4] == 5);
    run_lua(L, R"(
        local lp = require("loom")
        local knl = lp.make_kernel("{[i]: 0<=i<n}", "x[i] = 2*x[i]", { lp.GlobalArg("x", "float32", { shape = "n" }), "..." })
        knl(lp.c.executor(), { x = a:reshape(6) })
    )");
    CHECK(data[1] == 4);
    // The array is gone, its view is not: the owner is kept.
    run_lua(L, "a = nil; collectgarbage(); collectgarbage()");
    CHECK(owner.releases == 0);
    run_lua(L, "v = nil; collectgarbage(); collectgarbage()");
    CHECK(owner.releases == 1);
    lua_close(L);
    CHECK(owner.releases == 1);
}

TEST_CASE("loom_push_array takes strides and releases the owner at lua_close", "[embed]") {
    std::vector<double> data(12);
    for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<double>(k);
    CountedOwner owner;
    lua_State* L = new_loom_state();
    const std::int64_t shape[] = {3, 2}, strides[] = {4, 2};  // every other element of the first 3 rows of 4
    REQUIRE(loom_push_array(L, data.data(), "float64", 2, shape, strides, &owner.base) == 1);
    lua_setglobal(L, "a");
    run_lua(L, "assert(a:get(2, 1) == 10 and a:get(1, 0) == 4)");
    loom_array_view view{};
    lua_getglobal(L, "a");
    REQUIRE(loom_check_array(L, -1, &view) == 1);
    CHECK(view.data == data.data());
    CHECK(std::strcmp(view.dtype, "float64") == 0);
    CHECK(view.ndim == 2);
    CHECK(view.shape[0] == 3);
    CHECK(view.strides[0] == 4);
    CHECK(view.strides[1] == 2);
    lua_pop(L, 1);
    lua_close(L);
    CHECK(owner.releases == 1);
}

TEST_CASE("loom_push_array refuses bad arguments with an error object and releases the owner", "[embed]") {
    float x = 0;
    lua_State* L = new_loom_state();
    const int top = lua_gettop(L);
    const std::int64_t shape[] = {1}, negative[] = {-1};
    struct Case {
        const char* dtype;
        const std::int64_t* shape;
        const std::int64_t* strides;
        void* data;
    };
    const Case cases[] = {{"float33", shape, nullptr, &x},
                          {nullptr, shape, nullptr, &x},
                          {"float32", negative, nullptr, &x},
                          {"float32", shape, negative, &x},
                          {"float32", shape, nullptr, nullptr}};
    for (const Case& c : cases) {
        CountedOwner owner;
        REQUIRE(loom_push_array(L, c.data, c.dtype, 1, c.shape, c.strides, &owner.base) == 0);
        CHECK(raised_kind(L) == "ArgumentError");
        CHECK(owner.releases == 1);
        lua_pop(L, 1);
    }
    CHECK(lua_gettop(L) == top);
    // Without an owner the host keeps its memory alive; NULL is not released.
    REQUIRE(loom_push_array(L, &x, "float32", 1, shape, nullptr, nullptr) == 1);
    lua_pop(L, 1);
    lua_close(L);
}

TEST_CASE("loom_check_array sees Loom's own arrays and nothing else", "[embed]") {
    lua_State* L = new_loom_state();
    run_lua(L, "b = require('loom').arange(5, 'int32'):view{{1, 5, 2}}");
    lua_getglobal(L, "b");
    loom_array_view view{};
    REQUIRE(loom_check_array(L, -1, &view) == 1);
    CHECK(view.ndim == 1);
    CHECK(view.shape[0] == 2);
    CHECK(view.strides[0] == 2);
    CHECK(static_cast<const std::int32_t*>(view.data)[0] == 1);
    CHECK(static_cast<const std::int32_t*>(view.data)[2] == 3);
    lua_pushnumber(L, 1);
    lua_newtable(L);
    CHECK(loom_check_array(L, -1, &view) == 0);
    CHECK(loom_check_array(L, -2, &view) == 0);
    lua_close(L);
}
