// The boundary between Lua and C++. Every bound function is `int f(lua_State*)` wrapped by `trampoline<f>`:
// the body runs inside try/catch; a caught exception is turned into a Lua error object only after the catch
// scope (and every C++ frame of the body) has been left, so no C++ exception crosses Lua and no lua_error
// skips a destructor. This holds with Lua built as C (longjmp) or as C++ (exceptions).
#pragma once

#include <lua.hpp>

#include <string>
#include <string_view>

#include "support/error.h"

namespace loom::lua {

/// Pushes a Loom error object: a table with kind, message, line and column where known, where (the position of
/// the Lua call that raised it) and traceback, and a __tostring metamethod giving "where KIND: message".
void push_error(lua_State* L, std::string_view kind, std::string_view message, int line = 0, int column = 0);

/// Runs `body`; returns its result count, or -1 after leaving an error object on the stack.
int guarded_call(lua_State* L, lua_CFunction body);

template <lua_CFunction Body>
int trampoline(lua_State* L) {
    const int n = guarded_call(L, Body);
    if (n < 0) return lua_error(L);
    return n;
}

/// Raises a Loom error of `kind` from inside a bound body (throws; the trampoline converts it).
[[noreturn]] inline void raise(const std::string& kind, const std::string& message) { throw Error(kind, message); }

/// A Lua error raised by a script's code that a body ran (a metamethod of a value it read): thrown instead of
/// longjmp-ing over the body's C++ frames; the trampoline raises the original error value again once they are
/// left. The value waits in the registry under `ref`.
struct LuaRaised {
    int ref;
};

/// Lua's reads that can run a script's metamethods (__index, __len, __tostring), for bodies: each behaves as its
/// Lua API namesake but, where the value has a metatable, runs in a protected call and throws LuaRaised on error.
/// A plain table is read raw, as fast as the API call.
int get_field(lua_State* L, int idx, const char* key);
int get_index(lua_State* L, int idx, lua_Integer i);
lua_Integer length(lua_State* L, int idx);
/// luaL_tolstring's text, without leaving it on the stack.
std::string to_display_string(lua_State* L, int idx);

}  // namespace loom::lua
