/* Loom's public embedding header. A host (a game engine, a tool with its own Lua state) adds the Loom module
 * to its state through luaopen_loom; the same entry point is what require("loom") finds in loom.so from a
 * stock lua5.4. Usable from C and C++, with Lua 5.4 built as C or as C++. */
#ifndef LOOM_H
#define LOOM_H

#include <stddef.h>
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
 * surfaces as a Lua error object ({kind=, message=, line=, column=, where=, traceback=}; tostring gives
 * "where KIND: message") that the host can catch with lua_pcall; no C++ exception ever reaches the host. */
LOOM_API int luaopen_loom(lua_State* L);

/* Restricts, for good, what the scripts of L may hand to compilers, as a state running untrusted scripts needs
 * (a sandboxed state does it): every flag of lp.c.executor's `cflags` and of a kernel's `build_options` must be on
 * Loom's allow-list (-O*, -g*, -w, -W<warning>, -std=, -f<feature>, -m<option>, -cl-<option>; no flag naming a
 * file, a directory or a program, loading a plugin or defining a macro: not -wrapper, -B, -fplugin, @file, -o,
 * -I, -D), and lp.c.executor's `cc` must be cc, gcc or clang. Anything else is an ArgumentError. Scripts can
 * do the same with lp.restrict_compiler_flags(); nothing undoes or widens it (a state restricted already stays as
 * it is). Call it after luaopen_loom. */
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

/* Calling a kernel from the host with no Lua in the call: a frame loop or a simulation step runs a kernel that a
 * script built, on the host's own buffers, through the same argument checks, builds and plans of repeated calls as
 * knl{...} in Lua. */
typedef struct loom_kernel loom_kernel;

typedef enum loom_arg_kind { LOOM_ARG_ARRAY, LOOM_ARG_INT, LOOM_ARG_FLOAT } loom_arg_kind;

/* One argument of a call, by the kernel's name for it: an array over the host's memory (`array`, laid out as
 * loom_push_array takes it: strides in elements, NULL for C order), or an integer or float value. */
typedef struct loom_arg {
    const char* name;
    int kind;              /* a loom_arg_kind */
    loom_array_view array; /* LOOM_ARG_ARRAY */
    int64_t integer;       /* LOOM_ARG_INT */
    double number;         /* LOOM_ARG_FLOAT */
} loom_arg;

/* A handle on the kernel at stack index `idx` of L (as lp.make_kernel returns it) that runs on the executor at
 * `exec_idx` (lp.c.executor(...), lp.cl.queue(...)), or, when `exec_idx` is 0, on the one knl{...} uses for the
 * kernel's target. It holds the kernel, its builds and the executor, so it needs neither the stack nor L
 * afterwards; in a sandbox its builds go to the sandbox's cache directory and the memory Loom allocates for its
 * calls counts against the sandbox's cap (no deadline applies: the host calls it). Returns NULL with a Loom
 * error object on the stack (kind "ArgumentError") when either value is not what it should be. Use a handle
 * from one thread at a time; free it with loom_kernel_free. */
LOOM_API loom_kernel* loom_kernel_new(lua_State* L, int idx, int exec_idx);

/* Runs the kernel on the `nargs` arguments `args`: arrays are read and written in place, values not passed are
 * found from the arrays' shapes (n from an array of shape (n)), as in a Lua call. Every array the kernel writes
 * must be passed. The first call with a combination of dtypes builds the kernel; later calls with the same
 * argument signature reuse everything but the memory. Returns 0 when the kernel ran (and finished: its results
 * are in the host's arrays), or -1 with the reason in loom_kernel_error; errors in the arguments are found before
 * anything runs. */
LOOM_API int loom_kernel_call(loom_kernel* k, const loom_arg* args, int nargs);

/* "KIND: message" of the last call that failed ("ArgumentError: ...", "BuildError: ..."), or "" after a call
 * that succeeded. Valid until the next call on `k`. */
LOOM_API const char* loom_kernel_error(const loom_kernel* k);

/* Frees a handle of loom_kernel_new (NULL is allowed). */
LOOM_API void loom_kernel_free(loom_kernel* k);

/* What a sandboxed state may use. A zero field means no limit (NULL: Loom's default). */
typedef struct loom_limits {
    /* Bytes the state may hold: Lua's heap plus what Loom allocates for it (host arrays, device buffers, compiled
     * kernels). Lua's own allocations fail past it as out of memory (LUA_ERRMEM); a Loom function fails with a
     * MemoryError (the values it returns may take the state up to half the cap past it before it does). */
    size_t memory;
    /* Lua VM instructions per loom_sandbox_pcall; past it, a LimitError. */
    uint64_t instructions;
    /* Wall-clock seconds per loom_sandbox_pcall, building kernels included (the compiler is stopped); past it, a
     * LimitError. Code running in C (a kernel, a pattern match) is not interrupted: the deadline takes effect when
     * it returns. */
    double seconds;
    /* The directory kernels are built and cached in: the only one a sandboxed state writes to. NULL: Loom's default
     * cache directory (LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else ~/.cache/loom) as it is now. */
    const char* cache_dir;
    /* A NULL-terminated list of the compiler flags scripts may pass (lp.c.executor's cflags, a kernel's
     * build_options), exactly. NULL: Loom's allow-list (see loom_restrict_compiler_flags). */
    const char* const* compiler_flags;
} loom_limits;

/* A new Lua state for untrusted scripts, under `limits` (NULL: none but the restrictions below). It has only the
 * safe standard libraries: base without dofile and loadfile, load of text chunks only, setmetatable without __gc
 * (finalizers run outside every limit), getmetatable that hides Loom's metatables, require of package.preload
 * alone (no file, no C module), coroutine without close (wrap does not close either: __close metamethods could
 * run outside the limits), string without dump, table, math, utf8, and os.clock and os.time; `loom` is loaded
 * (require("loom")), with its compilers restricted as `compiler_flags` says, and what would reach outside the
 * state refused with a
 * SandboxError: writing files (show_dependency_graph with a path), reading them (load_okl), and process-wide
 * settings (set_caching_enabled, set_warnings). Returns NULL when out of memory or when `memory` is too small to
 * open the libraries. Close it with loom_sandbox_close. */
LOOM_API lua_State* loom_sandbox_new(const loom_limits* limits);

/* lua_pcall under the sandbox's instruction budget and deadline, which start anew with each call (a call made
 * while another runs shares that one's). Exceeding a limit is an error like any other: a Loom error object
 * {kind = "LimitError", message = ...} (or LUA_ERRMEM for Lua's memory), after which the state is usable again.
 * Run untrusted code only through it: plain lua_pcall applies the memory cap alone. The calling thread needs 64
 * MiB of stack left (Loom's expression trees are deep), otherwise the call fails with a LimitError. A message
 * handler `msgh` should be a C function: after a LimitError it runs with Lua's hooks off. On a state that is no
 * sandbox it is lua_pcall. */
LOOM_API int loom_sandbox_pcall(lua_State* L, int nargs, int nresults, int msgh);

/* Sets the instruction budget and the deadline of the next runs, as loom_limits' `instructions` and `seconds` do
 * (a host may give loading a script more than each frame's call). Ignored on a state that is no sandbox. */
LOOM_API void loom_sandbox_set_budget(lua_State* L, uint64_t instructions, double seconds);

/* The bytes a sandboxed state holds now against its memory cap: Lua's heap and what Loom allocated for it. 0 for a
 * state that is no sandbox. */
LOOM_API size_t loom_sandbox_memory(lua_State* L);

/* Closes a state made by loom_sandbox_new (lua_close, then what the sandbox itself holds): call it instead of
 * lua_close. */
LOOM_API void loom_sandbox_close(lua_State* L);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_H */
