#include "lua/trampoline.h"

#include <exception>

#include "lua/sandbox.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom::lua {

namespace {

constexpr const char* kRaises = "loom.ErrorRaises";  // registry: error object -> {thread, depth, function}

// The number of levels on the stack, searched as luaL_traceback searches it: lua_getstack walks down to its
// level, so counting one level at a time would cost the square of a deep recursion's depth at every raise.
int stack_depth(lua_State* L) {
    lua_Debug ar;
    int found = 1, past = 1;
    while (lua_getstack(L, past, &ar)) {
        found = past;
        past *= 2;
    }
    while (found < past) {
        const int mid = (found + past) / 2;
        if (lua_getstack(L, mid, &ar))
            found = mid + 1;
        else
            past = mid;
    }
    return past;
}

// The raise of the error object at index 1 if it is running now as the message handler's caller: a handler
// (level 1) called by the bound function that raised it (level 2), at the depth of the raise.
bool in_handler_of_raise(lua_State* L) {
    lua_getfield(L, LUA_REGISTRYINDEX, kRaises);
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushvalue(L, 1);
    const bool recorded = lua_rawget(L, -2) == LUA_TTABLE;
    bool same = false;
    lua_Debug ar;
    if (recorded && lua_getstack(L, 2, &ar)) {
        lua_rawgeti(L, -1, 1);
        lua_rawgeti(L, -2, 2);
        lua_rawgeti(L, -3, 3);
        lua_getinfo(L, "f", &ar);
        same = lua_touserdata(L, -4) == L && lua_tointeger(L, -3) + 2 == stack_depth(L) && lua_rawequal(L, -1, -2);
        lua_pop(L, 4);
    }
    lua_pop(L, 2);
    return same;
}

// `where` first, as Lua's own errors carry their position: "chunk:line: KIND: message". As a stock lua5.4's
// message handler at the raise it adds the traceback, which lua.c adds to string errors alone: an uncaught Loom
// error then prints as in the `loom` executable.
int error_tostring(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "where");
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "");
    }
    lua_getfield(L, 1, "kind");
    lua_pushstring(L, ": ");
    lua_getfield(L, 1, "message");
    int parts = 4;
    if (in_handler_of_raise(L)) {
        lua_pushliteral(L, "\n");
        lua_getfield(L, 1, "traceback");
        if (lua_isstring(L, -1))
            parts += 2;
        else
            lua_pop(L, 2);
    }
    lua_concat(L, parts);
    return 1;
}

// Which thread, at which depth and in which function the error object at the top is raised (weakly kept).
void record_raise(lua_State* L) {
    if (luaL_getsubtable(L, LUA_REGISTRYINDEX, kRaises) == 0) {
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "k");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
    }
    lua_pushvalue(L, -2);
    lua_createtable(L, 3, 0);
    lua_pushlightuserdata(L, L);
    lua_rawseti(L, -2, 1);
    lua_pushinteger(L, stack_depth(L));
    lua_rawseti(L, -2, 2);
    lua_Debug ar;
    if (lua_getstack(L, 0, &ar)) {
        lua_getinfo(L, "f", &ar);
        lua_rawseti(L, -2, 3);
    }
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

// The position and the stack of the raise, recorded while the failing call is still on the stack: a stock
// lua5.4 shows the position of an uncaught error through __tostring, and a host that catches it without a
// message handler still has the traceback. `where` is the Lua function that made the call (level 1; level 0 is
// the bound function), absent when that is no Lua function, as in pcall(lp.make_kernel, ...).
void set_position(lua_State* L) {
    luaL_where(L, 1);
    if (lua_rawlen(L, -1) > 0)
        lua_setfield(L, -2, "where");
    else
        lua_pop(L, 1);
    luaL_traceback(L, L, nullptr, 0);
    lua_setfield(L, -2, "traceback");
    record_raise(L);
}

}  // namespace

void push_error(lua_State* L, std::string_view kind, std::string_view message, int line, int column) {
    lua_createtable(L, 0, 6);
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
    set_position(L);
    if (luaL_newmetatable(L, "loom.Error")) {
        lua_pushcfunction(L, error_tostring);
        lua_setfield(L, -2, "__tostring");
    }
    lua_setmetatable(L, -2);
}

int guarded_call(lua_State* L, lua_CFunction body) {
    // Error details are copied out of the exception so that nothing of the catch scope is alive when the
    // caller raises.
    BoundCall call(L);
    std::string kind, message;
    int line = 0, column = 0;
    try {
        const int results = body(L);
        if (!call.over_cap()) return results;
        kind = error_kind::MemoryError;
        message = call.cap_message();
    } catch (const LuaRaised& raised) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, raised.ref);
        luaL_unref(L, LUA_REGISTRYINDEX, raised.ref);
        return -1;
    } catch (const Error& e) {
        kind = e.kind();
        message = e.message();
        line = e.line();
        column = e.column();
    } catch (const std::bad_alloc&) {
        kind = error_kind::MemoryError;
        message = "out of memory";
    } catch (const std::exception& e) {
        kind = error_kind::InternalError;
        message = e.what();
    }
    // Work the watchdog stopped (an isl computation, "execution aborted": support/limits.h) fails as it can;
    // the deadline, or the memory, is the reason.
    if (kind != error_kind::LimitError && kind != error_kind::MemoryError && (deadline_passed() || memory_stopped())) {
        const Limits& limits = *current_limits();
        message = memory_stopped()
                      ? cat("the process's memory grew past twice the memory limit of ", limits.memory->cap(),
                            " bytes in the engine (stopped: ", message, ")")
                      : deadline_message(limits, cat("stopped in the engine: ", message));
        kind = memory_stopped() ? error_kind::MemoryError : error_kind::LimitError;
        line = column = 0;
    }
    push_error(L, kind, message, line, column);
    return -1;
}

namespace {

// Whether reading from the value at `idx` cannot run a script's code: a table without a metatable.
bool is_plain_table(lua_State* L, int idx) {
    if (!lua_istable(L, idx)) return false;
    if (!lua_getmetatable(L, idx)) return true;
    lua_pop(L, 1);
    return false;
}

// Runs `read` on the value at the absolute index `idx` and, with `key`, the value on top of the stack (popped)
// in a protected call; leaves its one result, or throws LuaRaised.
void protected_read(lua_State* L, int idx, lua_CFunction read, bool key) {
    lua_pushcfunction(L, read);
    lua_pushvalue(L, idx);
    if (key) lua_rotate(L, -3, 2);  // function, value, key
    if (lua_pcall(L, key ? 2 : 1, 1, 0) != LUA_OK) throw LuaRaised{luaL_ref(L, LUA_REGISTRYINDEX)};
}

int read_index(lua_State* L) {
    lua_gettable(L, 1);
    return 1;
}

int read_length(lua_State* L) {
    lua_pushinteger(L, luaL_len(L, 1));
    return 1;
}

int read_display_string(lua_State* L) {
    luaL_tolstring(L, 1, nullptr);
    return 1;
}

}  // namespace

int get_field(lua_State* L, int idx, const char* key) {
    idx = lua_absindex(L, idx);
    lua_pushstring(L, key);
    if (is_plain_table(L, idx)) return lua_rawget(L, idx);
    protected_read(L, idx, read_index, true);
    return lua_type(L, -1);
}

int get_index(lua_State* L, int idx, lua_Integer i) {
    idx = lua_absindex(L, idx);
    if (is_plain_table(L, idx)) return lua_rawgeti(L, idx, i);
    lua_pushinteger(L, i);
    protected_read(L, idx, read_index, true);
    return lua_type(L, -1);
}

lua_Integer length(lua_State* L, int idx) {
    if (is_plain_table(L, idx)) return static_cast<lua_Integer>(lua_rawlen(L, idx));
    protected_read(L, lua_absindex(L, idx), read_length, false);
    const lua_Integer n = lua_tointeger(L, -1);
    lua_pop(L, 1);
    return n;
}

std::string to_display_string(lua_State* L, int idx) {
    protected_read(L, lua_absindex(L, idx), read_display_string, false);
    std::size_t size = 0;
    const char* text = lua_tolstring(L, -1, &size);
    std::string out(text, size);
    lua_pop(L, 1);
    return out;
}

}  // namespace loom::lua
