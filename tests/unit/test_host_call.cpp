// loom.h's calls from the host: a script builds a kernel, the host calls it on its own buffers with no Lua in
// the call, repeatedly (through the plans of earlier calls) and with new shapes; every wrong argument is an error
// the host reads, before anything runs; a handle made in a sandbox builds in its cache directory, charges its
// memory account and outlives the state.
#include <catch2/catch.hpp>
#include <lua.hpp>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "lua/loom.h"
#include "tests/unit/embed_helpers.h"

namespace {

namespace fs = std::filesystem;
using loom::test::new_loom_state;
using loom::test::run_lua;
using loom::test::temp_dir;

// y[i] = a*x[i] + y[i] on the C target: y is read and written, n comes from the shapes.
const char* const kAxpy = R"(
    local lp = require("loom")
    knl = lp.make_kernel("{[i]: 0<=i<n}", "y[i] = a*x[i] + y[i]",
        {lp.ValueArg("a", "float32"), lp.GlobalArg("x", "float32", {shape = "n"}),
         lp.GlobalArg("y", "float32", {shape = "n"}), "..."}, {target = "c"})
    exec = lp.c.executor()
)";

// The handle on the global `knl`, on the global `exec` when `with_exec`.
loom_kernel* handle(lua_State* L, bool with_exec) {
    lua_getglobal(L, "knl");
    lua_getglobal(L, "exec");
    loom_kernel* k = loom_kernel_new(L, -2, with_exec ? -1 : 0);
    INFO((k ? "" : luaL_tolstring(L, -1, nullptr)));
    REQUIRE(k != nullptr);
    lua_pop(L, 2);
    return k;
}

loom_arg array_arg(const char* name, const char* dtype, std::vector<float>& data, const std::int64_t* shape) {
    loom_arg a{};
    a.name = name;
    a.kind = LOOM_ARG_ARRAY;
    a.array = {data.data(), dtype, 1, shape, nullptr};
    return a;
}

loom_arg float_arg(const char* name, double value) {
    loom_arg a{};
    a.name = name;
    a.kind = LOOM_ARG_FLOAT;
    a.number = value;
    return a;
}

// Calls y = a*x + y and checks every element against a plain loop.
void check_axpy(loom_kernel* k, std::size_t n, float a) {
    std::vector<float> x(n), y(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<float>(i) + 0.5f;
        y[i] = static_cast<float>(3 * i % 7);
        expected[i] = a * x[i] + y[i];
    }
    const std::int64_t shape[] = {static_cast<std::int64_t>(n)};
    const loom_arg args[] = {float_arg("a", a), array_arg("x", "float32", x, shape), array_arg("y", "float32", y, shape)};
    INFO(loom_kernel_error(k));
    REQUIRE(loom_kernel_call(k, args, 3) == 0);
    CHECK(std::string(loom_kernel_error(k)).empty());
    for (std::size_t i = 0; i < n; ++i) CHECK(y[i] == expected[i]);
}

// The error of a call of `k` on `args`, which must fail without touching `y`.
std::string failure(loom_kernel* k, const std::vector<loom_arg>& args, const std::vector<float>& y) {
    const std::vector<float> before = y;
    REQUIRE(loom_kernel_call(k, args.data(), static_cast<int>(args.size())) == -1);
    CHECK(y == before);
    return loom_kernel_error(k);
}

}  // namespace

TEST_CASE("the host calls a script's kernel on its own buffers, again and with new shapes", "[host_call]") {
    lua_State* L = new_loom_state();
    run_lua(L, kAxpy);
    for (const bool with_exec : {true, false}) {
        loom_kernel* k = handle(L, with_exec);
        check_axpy(k, 16, 2.0f);
        check_axpy(k, 16, -1.5f);  // the plan of the first call, a new value of a
        check_axpy(k, 1000, 0.25f);
        check_axpy(k, 16, 3.0f);
        loom_kernel_free(k);
    }
    // The handle holds what it needs: the state may go first.
    loom_kernel* k = handle(L, true);
    lua_close(L);
    check_axpy(k, 33, 1.0f);
    loom_kernel_free(k);
    loom_kernel_free(nullptr);
}

TEST_CASE("a host's wrong arguments are errors it reads, found before the kernel runs", "[host_call]") {
    lua_State* L = new_loom_state();
    run_lua(L, kAxpy);
    loom_kernel* k = handle(L, true);
    std::vector<float> x(8, 1.0f), y(8, 2.0f);
    std::vector<double> wide(8, 1.0);
    const std::int64_t shape[] = {8}, short_shape[] = {4};
    const loom_arg a = float_arg("a", 2), xs = array_arg("x", "float32", x, shape), ys = array_arg("y", "float32", y, shape);
    // A plan exists for this signature: the errors below must not slip through it.
    REQUIRE(loom_kernel_call(k, std::vector<loom_arg>{a, xs, ys}.data(), 3) == 0);
    y.assign(8, 2.0f);

    CHECK_THAT(failure(k, {a, xs}, y), Catch::Contains("ArgumentError") && Catch::Contains("'y'"));
    loom_arg stray = float_arg("b", 1);
    CHECK_THAT(failure(k, {a, xs, ys, stray}, y), Catch::Contains("ArgumentError") && Catch::Contains("'b'"));
    loom_arg doubled = xs;
    doubled.array.dtype = "float64";
    doubled.array.data = wide.data();
    CHECK_THAT(failure(k, {a, doubled, ys}, y), Catch::Contains("ArgumentError") && Catch::Contains("float64"));
    loom_arg shorter = xs;
    shorter.array.shape = short_shape;
    CHECK_THAT(failure(k, {a, shorter, ys}, y), Catch::Contains("ArgumentError"));
    loom_arg unknown = xs;
    unknown.array.dtype = "float17";
    CHECK_THAT(failure(k, {a, unknown, ys}, y), Catch::Contains("unknown dtype 'float17'"));
    loom_arg nameless = xs;
    nameless.name = nullptr;
    CHECK_THAT(failure(k, {a, nameless, ys}, y), Catch::Contains("has no name"));
    CHECK_THAT(failure(k, {a, xs, ys, xs}, y), Catch::Contains("'x' is passed twice"));
    loom_arg bad_kind = a;
    bad_kind.kind = 7;
    CHECK_THAT(failure(k, {bad_kind, xs, ys}, y), Catch::Contains("unknown kind 7"));
    loom_arg no_data = xs;
    no_data.array.data = nullptr;
    CHECK_THAT(failure(k, {a, no_data, ys}, y), Catch::Contains("null data"));
    // After all of them the handle still works.
    check_axpy(k, 8, 2.0f);
    loom_kernel_free(k);

    // Only a kernel and an executor make a handle; the error object says why.
    lua_pushinteger(L, 3);
    CHECK(loom_kernel_new(L, -1, 0) == nullptr);
    lua_getfield(L, -1, "kind");
    CHECK(std::string(lua_tostring(L, -1)) == "ArgumentError");
    lua_pop(L, 3);
    lua_getglobal(L, "knl");
    lua_pushinteger(L, 3);
    CHECK(loom_kernel_new(L, -2, -1) == nullptr);
    lua_getfield(L, -1, "kind");
    CHECK(std::string(lua_tostring(L, -1)) == "ArgumentError");
    lua_pop(L, 4);
    CHECK(lua_gettop(L) == 0);
    lua_close(L);
}

TEST_CASE("a handle made in a sandbox builds in its directory, charges its account and outlives it", "[host_call]") {
    const fs::path cache = temp_dir();
    loom_limits limits{};
    limits.memory = std::size_t{256} << 20;
    limits.cache_dir = cache.c_str();
    lua_State* S = loom_sandbox_new(&limits);
    REQUIRE(S != nullptr);
    REQUIRE(luaL_loadstring(S, kAxpy) == LUA_OK);
    REQUIRE(loom_sandbox_pcall(S, 0, 0, 0) == LUA_OK);
    loom_kernel* k = handle(S, true);
    const std::size_t before = loom_sandbox_memory(S);
    check_axpy(k, 64, 2.0f);
    CHECK(loom_sandbox_memory(S) > before);  // the compiled kernel
    std::size_t libraries = 0;
    for (const auto& entry : fs::recursive_directory_iterator(cache)) libraries += entry.path().extension() == ".so";
    CHECK(libraries == 1);
    loom_sandbox_close(S);
    check_axpy(k, 64, 0.5f);
    loom_kernel_free(k);
    fs::remove_all(cache);
}
