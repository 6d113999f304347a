/* A program embedding an installed Loom, built out of tree through find_package(loom) or pkg-config: it opens
 * the module in a Lua state of its own and runs a kernel, on the C target, on a buffer it owns, from Lua and then
 * from C (loom_kernel_call), then makes a sandbox. */
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>

#include <loom.h>

static const char* const script =
    "local lp = require('loom')\n"
    "knl = lp.make_kernel('{ [i]: 0<=i<n }', 'x[i] = 2*x[i] + 1', {lp.GlobalArg('x', 'float32', {shape = 'n'}), '...'})\n"
    "exec = lp.c.executor{}\n"
    "knl(exec, {x = x})\n";

static int fail(lua_State* L, const char* what) {
    fprintf(stderr, "%s: %s\n", what, luaL_tolstring(L, -1, NULL));
    return 1;
}

int main(void) {
    float data[4] = {0, 1, 2, 3};
    const int64_t shape[1] = {4};
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "loom", luaopen_loom, 0);
    lua_pop(L, 1);
    if (!loom_push_array(L, data, "float32", 1, shape, NULL, NULL)) return fail(L, "loom_push_array");
    lua_setglobal(L, "x");
    if (luaL_dostring(L, script) != LUA_OK) return fail(L, "script");
    lua_getglobal(L, "knl");
    lua_getglobal(L, "exec");
    loom_kernel* knl = loom_kernel_new(L, -2, -1);
    if (!knl) return fail(L, "loom_kernel_new");
    lua_close(L);
    loom_arg x = {0};
    x.name = "x";
    x.kind = LOOM_ARG_ARRAY;
    x.array.data = data;
    x.array.dtype = "float32";
    x.array.ndim = 1;
    x.array.shape = shape;
    if (loom_kernel_call(knl, &x, 1) != 0) return fprintf(stderr, "loom_kernel_call: %s\n", loom_kernel_error(knl)), 1;
    loom_kernel_free(knl);
    /* The sandbox's entry points link too; the state has loom and only the safe libraries. */
    lua_State* S = loom_sandbox_new(NULL);
    if (!S) return fprintf(stderr, "loom_sandbox_new failed\n"), 1;
    if (luaL_dostring(S, "assert(io == nil and require('loom').make_kernel)") != LUA_OK) return fail(S, "sandbox");
    if (loom_sandbox_memory(S) == 0) return fprintf(stderr, "the sandbox counts no memory\n"), 1;
    loom_sandbox_close(S);
    for (int i = 0; i < 4; i++)
        if (data[i] != 4 * i + 3) {
            fprintf(stderr, "x[%d] = %g, expected %d\n", i, data[i], 4 * i + 3);
            return 1;
        }
    printf("host: ok\n");
    return 0;
}
