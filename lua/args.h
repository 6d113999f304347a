// Argument checks for bound functions. They throw loom::Error ("ArgumentError") with Lua's standard
// "bad argument #n to 'f' (...)" wording instead of longjmp-ing, so they are safe anywhere in a body.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace loom::lua {

[[noreturn]] void arg_error(lua_State* L, int arg, const std::string& fname, const std::string& what);

std::string check_string(lua_State* L, int arg, const char* fname);
std::int64_t check_integer(lua_State* L, int arg, const char* fname);
/// `v` as an int; an ArgumentError on argument `arg` naming `what` ("option 'slabs': ") when it does not fit.
int to_int(lua_State* L, std::int64_t v, int arg, const char* fname, const std::string& what = "");
void check_table(lua_State* L, int arg, const char* fname);
/// Returns the userdata at `arg` if it has metatable `tname`, else nullptr.
void* test_udata(lua_State* L, int arg, const char* tname);
void* check_udata(lua_State* L, int arg, const char* tname, const char* fname);

/// Rejects keys of the options table at `arg` (if it is a table) that are not in `allowed`.
void check_option_keys(lua_State* L, int arg, const char* fname, std::initializer_list<const char*> allowed);
/// An optional options table: absent, nil, or a table with only `allowed` keys.
void check_options(lua_State* L, int arg, const char* fname, std::initializer_list<const char*> allowed);

/// Option readers: field `key` of the table at `arg` (absent table or nil field gives nullopt).
std::optional<std::string> opt_string(lua_State* L, int arg, const char* key, const char* fname);
std::optional<std::int64_t> opt_integer(lua_State* L, int arg, const char* key, const char* fname);
std::optional<double> opt_number(lua_State* L, int arg, const char* key, const char* fname);
std::optional<bool> opt_bool(lua_State* L, int arg, const char* key, const char* fname);
/// A list of strings, or one string split at commas.
std::optional<std::vector<std::string>> opt_string_list(lua_State* L, int arg, const char* key, const char* fname);

}  // namespace loom::lua
