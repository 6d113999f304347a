// What the tests of loom.h share: a Lua state with loom loaded, a chunk run in it, and a fresh directory.
#pragma once

#include <catch2/catch.hpp>
#include <lua.hpp>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "lua/loom.h"

namespace loom::test {

/// A new Lua state with the standard libraries and loom (as require("loom") and the global `loom`).
inline lua_State* new_loom_state() {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "loom", luaopen_loom, 1);
    lua_pop(L, 1);
    return L;
}

/// Runs the chunk `code` in L; the test fails, showing the error, when it raises one.
inline void run_lua(lua_State* L, const char* code) {
    INFO(code);
    const int status = luaL_dostring(L, code);
    INFO((status == LUA_OK ? "" : luaL_tolstring(L, -1, nullptr)));
    REQUIRE(status == LUA_OK);
}

/// A new empty directory under the system's temporary directory.
inline std::filesystem::path temp_dir() {
    std::string name = (std::filesystem::temp_directory_path() / "loom-test-XXXXXX").string();
    REQUIRE(::mkdtemp(name.data()) != nullptr);
    return name;
}

}  // namespace loom::test
