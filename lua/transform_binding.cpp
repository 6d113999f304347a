// The transformations: lp.f(knl, ...) and knl:f(...), each returning a new kernel.
#include "codegen/lower.h"
#include "lua/args.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "schedule/linearize.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom::lua {

namespace {

std::vector<std::string> name_list(lua_State* L, int idx, const char* fname) {
    if (lua_type(L, idx) == LUA_TSTRING) return split_trimmed(lua_tostring(L, idx), ',');
    check_table(L, idx, fname);
    std::vector<std::string> out;
    const lua_Integer n = luaL_len(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (lua_geti(L, idx, i) != LUA_TSTRING) arg_error(L, idx, fname, "list of names expected");
        out.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return out;
}

// A table {name = dtype, ...} as a map.
std::map<std::string, DType> dtype_map(lua_State* L, int idx, const char* fname) {
    check_table(L, idx, fname);
    std::map<std::string, DType> out;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, idx, fname, "keys must be variable names");
        const std::string name = lua_tostring(L, -2);
        out[name] = check_dtype(L, lua_gettop(L), fname);
        lua_pop(L, 1);
    }
    return out;
}

int set_options(lua_State* L) {
    const char* f = "set_options";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    check_table(L, 2, f);
    check_option_keys(L, 2, f,
                      {"write_code", "return_dict", "allow_terminal_colors", "check_dep_resolution", "build_options",
                       "target", "write_wrapper", "no_numpy", "cl_exec_manage_array_events", "trace_assignments"});
    OptionUpdate u;
    u.write_code = opt_bool(L, 2, "write_code", f);
    u.return_dict = opt_bool(L, 2, "return_dict", f);
    u.allow_terminal_colors = opt_bool(L, 2, "allow_terminal_colors", f);
    u.check_dep_resolution = opt_bool(L, 2, "check_dep_resolution", f);
    u.build_options = opt_string_list(L, 2, "build_options", f);
    u.target = opt_string(L, 2, "target", f);
    if (u.target) target_from_name(*u.target);
    push_kernel(L, loom::set_options(k, u));
    return 1;
}

int add_dtypes(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "add_dtypes").kernel;
    push_kernel(L, loom::add_dtypes(k, dtype_map(L, 2, "add_dtypes")));
    return 1;
}

int prioritize_loops(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "prioritize_loops").kernel;
    push_kernel(L, loom::prioritize_loops(k, name_list(L, 2, "prioritize_loops")));
    return 1;
}

int assume(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "assume").kernel;
    push_kernel(L, loom::assume(k, check_string(L, 2, "assume")));
    return 1;
}

int realize_reduction(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "realize_reduction").kernel;
    push_kernel(L, loom::realize_reduction(k));
    return 1;
}

int preprocess_kernel(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "preprocess_kernel").kernel;
    push_kernel(L, loom::preprocess_kernel(k, target_from_name(k->options.target)));
    return 1;
}

int get_one_linearized_kernel(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_one_linearized_kernel").kernel;
    push_kernel(L, loom::preprocess_kernel(k, target_from_name(k->options.target)));
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"set_options", trampoline<set_options>},
    {"add_dtypes", trampoline<add_dtypes>},
    {"prioritize_loops", trampoline<prioritize_loops>},
    {"assume", trampoline<assume>},
    {"realize_reduction", trampoline<realize_reduction>},
    {"preprocess_kernel", trampoline<preprocess_kernel>},
    {"get_one_linearized_kernel", trampoline<get_one_linearized_kernel>},
    {nullptr, nullptr},
};

}  // namespace

void register_transform_api(lua_State* L, int module_table) {
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
