/* The loom Lua module and libloom export luaopen_loom, defined by the binding in lua/module.cpp. */
typedef struct lua_State lua_State;
int luaopen_loom(lua_State* L);
int (*const loom_module_entry)(lua_State*) = luaopen_loom;
