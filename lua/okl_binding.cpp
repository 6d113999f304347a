// lp.parse_okl and lp.load_okl: OKL source to a table of Kernels, by name and in file order (SPEC "OKL").
#include <cstdio>
#include <fstream>
#include <sstream>

#include "lua/args.h"
#include "lua/binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "parse/okl_lower.h"
#include "support/error.h"

namespace loom::lua {

namespace {

// A define's value as the text `#define NAME VALUE` would hold: numbers, strings and booleans.
std::string define_text(lua_State* L, int arg, const char* fname, const std::string& name) {
    switch (lua_type(L, -1)) {
        case LUA_TNUMBER: {
            if (lua_isinteger(L, -1)) return std::to_string(lua_tointeger(L, -1));
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.17g", lua_tonumber(L, -1));
            return buf;
        }
        case LUA_TSTRING: return lua_tostring(L, -1);
        case LUA_TBOOLEAN: return lua_toboolean(L, -1) ? "1" : "0";
        default: arg_error(L, arg, fname, cat("option 'defines': the value of '", name, "' is not a number, string or boolean"));
    }
}

OklOptions read_options(lua_State* L, int arg, const char* fname) {
    check_options(L, arg, fname, {"defines", "include_paths", "auto_shapes", "parameters"});
    OklOptions o;
    o.read_files = !is_sandboxed(L);
    if (lua_istable(L, arg)) {
        lua_getfield(L, arg, "defines");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1)) arg_error(L, arg, fname, "option 'defines' must be a table {NAME=value}");
            const int t = lua_gettop(L);
            lua_pushnil(L);
            while (lua_next(L, t)) {
                if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, arg, fname, "option 'defines' has a key that is not a name");
                const std::string name = lua_tostring(L, -2);
                o.defines[name] = define_text(L, arg, fname, name);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        if (auto paths = opt_string_list(L, arg, "include_paths", fname)) o.include_paths = *paths;
        o.auto_shapes = opt_bool(L, arg, "auto_shapes", fname).value_or(false);
        lua_getfield(L, arg, "parameters");
        if (!lua_isnil(L, -1)) {
            if (!lua_istable(L, -1)) arg_error(L, arg, fname, "option 'parameters' must be a table {name=integer}");
            for (const auto& [name, value] : parameter_values(L, lua_gettop(L), arg, fname)) {
                auto v = value->kind == ExprKind::IntLit ? std::optional<long>(value->ival) : std::nullopt;
                if (!v) arg_error(L, arg, fname, cat("option 'parameters': '", name, "' is not an integer"));
                o.parameters[name] = *v;
            }
        }
        lua_pop(L, 1);
    }
    return o;
}

void push_kernels(lua_State* L, const std::vector<Kernel>& kernels) {
    lua_createtable(L, static_cast<int>(kernels.size()), static_cast<int>(kernels.size()));
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        push_kernel(L, kernels[k]);
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, static_cast<lua_Integer>(k + 1));
        lua_setfield(L, -2, kernels[k]->name.c_str());
    }
}

int parse_okl(lua_State* L) {
    const char* f = "parse_okl";
    const std::string source = check_string(L, 1, f);
    const OklOptions options = read_options(L, 2, f);
    push_kernels(L, okl_kernels(source, "<okl>", options));
    return 1;
}

int load_okl(lua_State* L) {
    const char* f = "load_okl";
    const std::string path = check_string(L, 1, f);
    refuse_in_sandbox(L, "load_okl (reading a file; parse_okl takes the source)");
    const OklOptions options = read_options(L, 2, f);
    std::ifstream in(path, std::ios::binary);
    if (!in) user_error(error_kind::OKLError, "cannot open OKL file '", path, "'");
    std::stringstream text;
    text << in.rdbuf();
    push_kernels(L, okl_kernels(text.str(), path, options));
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"parse_okl", trampoline<parse_okl>},
    {"load_okl", trampoline<load_okl>},
    {nullptr, nullptr},
};

}  // namespace

void register_okl_api(lua_State* L, int module_table) {
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
