// Lua errors raised by a script's code inside a Loom call, with Lua built as C (lua5.4, as a stock interpreter
// loads loom.so): lua_error longjmps, and would skip the destructors of the call's C++ frames (a leak, or
// worse). Checks that a bound body's C++ objects are destroyed and the script's own error value arrives, then
// runs the script named on the command line (every entry point given erroring metamethods; LeakSanitizer
// checks the sanitizer build).
#include <lua.hpp>

#include <cstdio>
#include <string>

#include "lua/loom.h"
#include "lua/trampoline.h"

namespace {

int alive = 0;

struct Counted {
    Counted() { ++alive; }
    Counted(const Counted&) = delete;
    Counted& operator=(const Counted&) = delete;
    ~Counted() { --alive; }
};

// A body with a C++ object alive while it reads through each protected read.
int read_while_alive(lua_State* L) {
    const Counted counted;
    const std::string what = lua_tostring(L, 2);
    if (what == "field") loom::lua::get_field(L, 1, "key");
    else if (what == "index") loom::lua::get_index(L, 1, 1);
    else if (what == "length") loom::lua::length(L, 1);
    else loom::lua::to_display_string(L, 1);
    return 0;
}

bool check(bool ok, const char* what) {
    if (!ok) std::fprintf(stderr, "unwind_test: %s\n", what);
    return ok;
}

// Every protected read, on a value whose metamethod raises a table: the destructor ran, the table arrived.
bool protected_reads_unwind(lua_State* L) {
    lua_pushcfunction(L, loom::lua::trampoline<read_while_alive>);
    lua_setglobal(L, "read_while_alive");
    const char* script = R"(
        local raised = {}
        local function raise() error(raised) end
        local hostile = setmetatable({}, { __index = raise, __len = raise, __tostring = raise })
        for _, what in ipairs({ "field", "index", "length", "string" }) do
          local ok, err = pcall(read_while_alive, hostile, what)
          assert(not ok and err == raised, what .. ": the script's error value did not arrive")
        end
    )";
    if (luaL_dostring(L, script) != LUA_OK) return check(false, lua_tostring(L, -1));
    return check(alive == 0, "a C++ object of the body was not destroyed");
}

}  // namespace

int main(int argc, char** argv) {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "loom", luaopen_loom, 0);
    lua_pop(L, 1);
    bool ok = protected_reads_unwind(L);
    if (ok && argc > 1 && luaL_dofile(L, argv[1]) != LUA_OK) ok = check(false, luaL_tolstring(L, -1, nullptr));
    lua_close(L);
    return ok ? 0 : 1;
}
