#include "lua/trampoline.h"

#include <exception>

namespace loom::lua {

namespace {

int error_tostring(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "kind");
    lua_pushstring(L, ": ");
    lua_getfield(L, 1, "message");
    lua_concat(L, 3);
    return 1;
}

}  // namespace

void push_error(lua_State* L, const std::string& kind, const std::string& message, int line, int column) {
    lua_createtable(L, 0, 4);
    lua_pushlstring(L, kind.data(), kind.size());
    lua_setfield(L, -2, "kind");
    lua_pushlstring(L, message.data(), message.size());
    lua_setfield(L, -2, "message");
    if (line > 0) {
        lua_pushinteger(L, line);
        lua_setfield(L, -2, "line");
        lua_pushinteger(L, column);
        lua_setfield(L, -2, "column");
    }
    if (luaL_newmetatable(L, "loom.Error")) {
        lua_pushcfunction(L, error_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_setmetatable(L, -2);
}

int guarded_call(lua_State* L, lua_CFunction body) {
    // Error details are copied out of the exception so that nothing of the catch scope is alive when the
    // caller raises.
    std::string kind, message;
    int line = 0, column = 0;
    try {
        return body(L);
    } catch (const Error& e) {
        kind = e.kind();
        message = e.message();
        line = e.line();
        column = e.column();
    } catch (const std::bad_alloc&) {
        kind = "MemoryError";
        message = "out of memory";
    } catch (const std::exception& e) {
        kind = "InternalError";
        message = e.what();
    }
    push_error(L, kind, message, line, column);
    return -1;
}

}  // namespace loom::lua
