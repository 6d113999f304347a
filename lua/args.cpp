#include "lua/args.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "lua/trampoline.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom::lua {

void arg_error(lua_State*, int arg, const std::string& fname, const std::string& what) {
    throw Error(error_kind::ArgumentError, cat("bad argument #", arg, " to '", fname, "' (", what, ")"));
}

namespace {

std::string expected(lua_State* L, int arg, const char* tname) {
    return cat(tname, " expected, got ", luaL_typename(L, arg));
}

}  // namespace

std::string check_string(lua_State* L, int arg, const char* fname) {
    if (lua_type(L, arg) != LUA_TSTRING) arg_error(L, arg, fname, expected(L, arg, "string"));
    std::size_t len = 0;
    const char* s = lua_tolstring(L, arg, &len);
    return std::string(s, len);
}

std::int64_t check_integer(lua_State* L, int arg, const char* fname) {
    int isnum = 0;
    const lua_Integer v = lua_tointegerx(L, arg, &isnum);
    if (!isnum) {
        if (lua_type(L, arg) == LUA_TNUMBER) arg_error(L, arg, fname, "number has no integer representation");
        arg_error(L, arg, fname, expected(L, arg, "number"));
    }
    return v;
}

int to_int(lua_State* L, std::int64_t v, int arg, const char* fname, const std::string& what) {
    if (v < INT_MIN || v > INT_MAX) arg_error(L, arg, fname, cat(what, "integer ", v, " out of range"));
    return static_cast<int>(v);
}

void check_table(lua_State* L, int arg, const char* fname) {
    if (!lua_istable(L, arg)) arg_error(L, arg, fname, expected(L, arg, "table"));
}

void* test_udata(lua_State* L, int arg, const char* tname) {
    void* p = lua_touserdata(L, arg);
    if (!p || !lua_getmetatable(L, arg)) return nullptr;
    luaL_getmetatable(L, tname);
    const bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same ? p : nullptr;
}

void* check_udata(lua_State* L, int arg, const char* tname, const char* fname) {
    void* p = test_udata(L, arg, tname);
    if (!p) arg_error(L, arg, fname, expected(L, arg, tname));
    return p;
}

void check_option_keys(lua_State* L, int arg, const char* fname, std::initializer_list<const char*> allowed) {
    if (!lua_istable(L, arg)) return;
    lua_pushnil(L);
    while (lua_next(L, arg) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) {
            lua_pop(L, 1);
            arg_error(L, arg, fname, "options must be a table with string keys");
        }
        const char* key = lua_tostring(L, -1);
        const bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return std::strcmp(a, key) == 0; });
        if (!ok) {
            const std::string k = key;
            lua_pop(L, 1);
            arg_error(L, arg, fname, cat("unknown option '", k, "'"));
        }
    }
}

void check_options(lua_State* L, int arg, const char* fname, std::initializer_list<const char*> allowed) {
    if (!lua_isnoneornil(L, arg)) check_table(L, arg, fname);
    check_option_keys(L, arg, fname, allowed);
}

namespace {

// Pushes field `key` of the table at `arg`; returns false (nothing pushed) when absent or nil.
bool push_field(lua_State* L, int arg, const char* key) {
    if (!lua_istable(L, arg)) return false;
    if (get_field(L, arg, key) == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    return true;
}

[[noreturn]] void field_error(lua_State* L, int arg, const char* key, const char* fname, const char* tname) {
    const std::string got = luaL_typename(L, -1);
    lua_pop(L, 1);
    arg_error(L, arg, fname, cat("option '", key, "': ", tname, " expected, got ", got));
}

}  // namespace

std::optional<std::string> opt_string(lua_State* L, int arg, const char* key, const char* fname) {
    if (!push_field(L, arg, key)) return std::nullopt;
    if (lua_type(L, -1) != LUA_TSTRING) field_error(L, arg, key, fname, "string");
    std::string s = lua_tostring(L, -1);
    lua_pop(L, 1);
    return s;
}

std::optional<std::int64_t> opt_integer(lua_State* L, int arg, const char* key, const char* fname) {
    if (!push_field(L, arg, key)) return std::nullopt;
    int isnum = 0;
    const lua_Integer v = lua_tointegerx(L, -1, &isnum);
    if (!isnum) field_error(L, arg, key, fname, "integer");
    lua_pop(L, 1);
    return v;
}

std::optional<double> opt_number(lua_State* L, int arg, const char* key, const char* fname) {
    if (!push_field(L, arg, key)) return std::nullopt;
    int isnum = 0;
    const lua_Number v = lua_tonumberx(L, -1, &isnum);
    if (!isnum) field_error(L, arg, key, fname, "number");
    lua_pop(L, 1);
    return v;
}

std::optional<bool> opt_bool(lua_State* L, int arg, const char* key, const char* fname) {
    if (!push_field(L, arg, key)) return std::nullopt;
    if (!lua_isboolean(L, -1)) field_error(L, arg, key, fname, "boolean");
    const bool v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

std::optional<std::vector<std::string>> opt_string_list(lua_State* L, int arg, const char* key, const char* fname) {
    if (!push_field(L, arg, key)) return std::nullopt;
    std::vector<std::string> out;
    if (lua_type(L, -1) == LUA_TSTRING) {
        out = split_trimmed(lua_tostring(L, -1), ',');
    } else if (lua_istable(L, -1)) {
        const lua_Integer n = length(L, -1);
        for (lua_Integer i = 1; i <= n; ++i) {
            get_index(L, -1, i);
            if (lua_type(L, -1) != LUA_TSTRING) {
                lua_pop(L, 2);
                arg_error(L, arg, fname, cat("option '", key, "': list of strings expected"));
            }
            out.emplace_back(lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    } else {
        field_error(L, arg, key, fname, "string or list");
    }
    lua_pop(L, 1);
    return out;
}

}  // namespace loom::lua
