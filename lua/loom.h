/* Loom's public embedding header. A host (a game engine, a tool with its own Lua state) adds the Loom module
 * to its state through luaopen_loom; the same entry point is what require("loom") finds in loom.so from a
 * stock lua5.4. Usable from C and C++, with Lua 5.4 built as C or as C++. */
#ifndef LOOM_H
#define LOOM_H

#include <stdint.h>

/* Forward-declared so that this header does not choose between <lua.h> and <lua.hpp> for the host. */
typedef struct lua_State lua_State;

/* The entry points libloom and loom.so export: the engine is built with hidden symbols, so that nothing else of
 * it can clash with a host's own symbols. */
#define LOOM_API __attribute__((visibility("default")))

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the loom module: pushes its table onto the stack of L and returns 1, like the luaopen_* functions of
 * Lua's standard libraries. Call it through luaL_requiref(L, "loom", luaopen_loom, 0), or store it in
 * package.preload["loom"] so that scripts load it with require("loom"). Every failure inside the module
 * surfaces as a Lua error object ({kind=, message=, line=, column=}) that the host can catch with lua_pcall;
 * no C++ exception ever reaches the host. */
LOOM_API int luaopen_loom(lua_State* L);

/* Restricts, for good, what the scripts of L may hand to compilers, as a state running untrusted scripts needs
 * (a sandboxed state does it): every flag of lp.c.executor's `cflags` and of a kernel's `build_options` must be on
 * Loom's allow-list (-O*, -g*, -w, -W<warning>, -std=, -f<feature>, -m<option>, -cl-<option>; no flag naming a
 * file, a directory or a program, loading a plugin or defining a macro: not -wrapper, -B, -fplugin, @file, -o,
 * -I, -D), and lp.c.executor's `cc` must be cc, gcc or clang. Anything else is an ArgumentError. Scripts can
 * do the same with lp.restrict_compiler_flags(); nothing undoes it. Call it after luaopen_loom. */
LOOM_API void loom_restrict_compiler_flags(lua_State* L);

/* What keeps a host's buffer alive while Lua uses it: the host embeds a loom_owner as the first member of its own
 * struct (or points one at its own data) and frees what it must in `release`, which Loom calls exactly once. */
typedef struct loom_owner loom_owner;
struct loom_owner {
    void (*release)(loom_owner* self);
};

/* Pushes a Loom array (a loom.Array, as lp.zeros makes) over the host's memory, with no copy: `data` is the
 * element at index (0, ..., 0), `dtype` a numpy name ("float32", "int64", "complex128", ...), `shape` has `ndim`
 * entries and `strides` (in elements, not bytes; not negative) too, or is NULL for C order. Kernels, views
 * (a:view) and every array method work on that memory in place. `owner` (or NULL where the memory outlives the
 * state) is released exactly once: when Lua has collected the array and every view of it, or at once when the call
 * fails. Returns 1 with the array on the stack; on a bad argument (unknown dtype, negative extent or stride, NULL
 * data for a non-empty array) returns 0 with a Loom error object (kind "ArgumentError") on the stack instead. */
LOOM_API int loom_push_array(lua_State* L, void* data, const char* dtype, int ndim, const int64_t* shape,
                    const int64_t* strides, loom_owner* owner);

/* The host's view of a Loom array: its memory and layout (strides in elements). The pointers stay valid as long
 * as the array is alive (keep it on the stack or referenced). */
typedef struct loom_array_view {
    void* data;          /* the element at index (0, ..., 0) */
    const char* dtype;   /* numpy name */
    int ndim;
    const int64_t* shape;
    const int64_t* strides;
} loom_array_view;

/* Fills `view` and returns 1 when the value at `idx` is a Loom host array (made by lp.*, a kernel call, a view or
 * loom_push_array); returns 0, leaving `view` alone, for any other value. */
LOOM_API int loom_check_array(lua_State* L, int idx, loom_array_view* view);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_H */
