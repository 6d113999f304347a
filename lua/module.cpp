// luaopen_loom: the `loom` module, for the loom executable, a stock lua5.4 (loom.so) and embedders.
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/loom.h"
#include "lua/trampoline.h"

namespace loom::lua {

namespace {

int open_module(lua_State* L) {
    lua_newtable(L);
    const int module_table = lua_gettop(L);
    lua_pushvalue(L, module_table);
    lua_setfield(L, LUA_REGISTRYINDEX, "loom.module");  // where kernel methods are looked up
    register_kernel_api(L, module_table);
    register_transform_api(L, module_table);
    register_exec_api(L, module_table);
    register_warning_api(L, module_table);
    register_array_api(L, module_table);
    register_instruction_api(L, module_table);
    register_auto_test_api(L, module_table);
    register_statistics_api(L, module_table);
    register_okl_api(L, module_table);
    register_workers_api(L, module_table);
    lua_pushstring(L, LOOM_VERSION);
    lua_setfield(L, module_table, "VERSION");
    return 1;
}

}  // namespace

}  // namespace loom::lua

extern "C" int luaopen_loom(lua_State* L) { return loom::lua::trampoline<loom::lua::open_module>(L); }

extern "C" void loom_restrict_compiler_flags(lua_State* L) { loom::lua::restrict_compiler_flags(L); }
