/* Loom's public embedding header. A host (a game engine, a tool with its own Lua state) adds the Loom module
 * to its state through luaopen_loom; the same entry point is what require("loom") finds in loom.so from a
 * stock lua5.4. Usable from C and C++, with Lua 5.4 built as C or as C++. */
#ifndef LOOM_H
#define LOOM_H

/* Forward-declared so that this header does not choose between <lua.h> and <lua.hpp> for the host. */
typedef struct lua_State lua_State;

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the loom module: pushes its table onto the stack of L and returns 1, like the luaopen_* functions of
 * Lua's standard libraries. Call it through luaL_requiref(L, "loom", luaopen_loom, 0), or store it in
 * package.preload["loom"] so that scripts load it with require("loom"). Every failure inside the module
 * surfaces as a Lua error object ({kind=, message=, line=, column=}) that the host can catch with lua_pcall;
 * no C++ exception ever reaches the host. */
int luaopen_loom(lua_State* L);

/* Restricts, for good, what the scripts of L may hand to compilers, as a state running untrusted scripts needs
 * (a sandboxed state does it): every flag of lp.c.executor's `cflags` and of a kernel's `build_options` must be on
 * Loom's allow-list (-O*, -g*, -w, -W<warning>, -std=, -f<feature>, -m<option>, -cl-<option>; no flag naming a
 * file, a directory or a program, loading a plugin or defining a macro: not -wrapper, -B, -fplugin, @file, -o,
 * -I, -D), and lp.c.executor's `cc` must be cc, gcc or clang. Anything else is an ArgumentError. Scripts can
 * do the same with lp.restrict_compiler_flags(); nothing undoes it. Call it after luaopen_loom. */
void loom_restrict_compiler_flags(lua_State* L);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_H */
