// loom.h's sandbox: loom_sandbox_new, loom_sandbox_pcall, loom_sandbox_close.
//
// Functions here that can raise a Lua error hold no C++ object with a destructor while they do, so that a host's
// C-compiled Lua may longjmp over them.
#include "lua/sandbox.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <utility>

#include "backends/runtime.h"
#include "lua/binding.h"
#include "lua/loom.h"
#include "lua/trampoline.h"
#include "support/big_stack.h"
#include "support/error.h"

namespace loom::lua {

struct Sandbox {
    Limits limits;
    std::uint64_t instructions = 0;  // the budget of a run; 0: none
    std::int64_t instructions_left = 0;
    double seconds = 0;              // the length of a run; 0: no deadline
    int hook_interval = 1000;        // instructions between two calls of the count hook
    bool running = false;            // inside loom_sandbox_pcall: the budget and the deadline apply
    bool exhausted = false;          // the run is past a limit: the count hook raises at every instruction
    int bound_calls = 0;             // Loom functions running now (BoundCall)
    lua_State* thread = nullptr;     // the coroutine the innermost of them runs on, whose garbage reclaim collects
};

namespace {

// Lua's allocator for a sandbox: every byte is charged to the state's account, which Loom's arrays, buffers and
// compiled code share. While a Loom function runs, Lua's allocations may pass the cap by half of it (see
// BoundCall). Shrinking never fails, as Lua requires.
void* sandbox_alloc(void* ud, void* ptr, std::size_t osize, std::size_t nsize) {
    const Sandbox& s = *static_cast<Sandbox*>(ud);
    MemoryAccount& account = *s.limits.memory;
    const std::size_t old = ptr ? osize : 0;  // without a block, osize tells the kind of object, not a size
    if (nsize == 0) {
        std::free(ptr);
        account.refund(old);
        return nullptr;
    }
    if (nsize > old) {
        if (!account.try_charge(nsize - old, s.bound_calls > 0 ? account.cap() / 2 : 0)) return nullptr;
        void* grown = std::realloc(ptr, nsize);
        if (!grown) account.refund(nsize - old);
        return grown;
    }
    account.refund(old - nsize);
    void* shrunk = std::realloc(ptr, nsize);
    return shrunk ? shrunk : ptr;
}

Sandbox* sandbox_of(lua_State* L) {
    void* ud = nullptr;
    return lua_getallocf(L, &ud) == sandbox_alloc ? static_cast<Sandbox*>(ud) : nullptr;
}

int raise_error(lua_State* L, const char* kind, const char* message) {
    push_error(L, kind, message);
    return lua_error(L);
}

// Every hook_interval instructions of a run: spends the budget and looks at the clock. Past either limit it raises
// a LimitError, and from then on fires at every instruction of this coroutine, so that a script that catches the
// error cannot go on; the next run restores the interval.
//
// Lua runs no hook while a hook runs, and leaves hooks off where an error raised in one was not caught by a pcall:
// in the message handler that sees it, and for good in a coroutine that it ends. The safe libraries below keep
// script code out of both places.
void count_hook(lua_State* L, lua_Debug*) {
    Sandbox& s = *sandbox_of(L);
    if (!s.running) return;
    const int count = lua_gethookcount(L);
    char message[128];
    if (s.instructions > 0 && (s.instructions_left -= count) < 0) {
        std::snprintf(message, sizeof message, "instruction limit of %llu exceeded",
                      static_cast<unsigned long long>(s.instructions));
    } else if (s.limits.deadline && std::chrono::steady_clock::now() >= *s.limits.deadline) {
        std::snprintf(message, sizeof message, "deadline of %g s passed (running Lua code)", s.seconds);
    } else {
        if (count != s.hook_interval) lua_sethook(L, count_hook, LUA_MASKCOUNT, s.hook_interval);
        return;
    }
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    s.exhausted = true;
    raise_error(L, error_kind::LimitError, message);
}

// ---- the safe standard libraries

// Calls the function it wraps (upvalue 1) with this call's arguments and returns its results.
int call_wrapped(lua_State* L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

// load with mode "t" whatever the script asks: a crafted binary chunk can crash the VM.
int load_text(lua_State* L) {
    if (lua_gettop(L) < 3) lua_settop(L, 3);  // an `env` argument, if any, stays as given
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    return call_wrapped(L);
}

// setmetatable refusing __gc: finalizers run with hooks off, so one could loop past every limit.
int setmetatable_without_gc(lua_State* L) {
    if (lua_istable(L, 2)) {
        lua_pushliteral(L, "__gc");
        const bool finalizer = lua_rawget(L, 2) != LUA_TNIL;
        lua_pop(L, 1);
        if (finalizer)
            return raise_error(L, error_kind::SandboxError, "setmetatable: __gc metamethods are not available in a sandbox");
    }
    return call_wrapped(L);
}

// getmetatable hiding Loom's metatables (those whose __name is "loom.*"): a script could otherwise replace a
// __gc that frees Loom's memory, or add one that runs script code with hooks off. It gets the name instead.
int getmetatable_hiding_loom(lua_State* L) {
    luaL_checkany(L, 1);
    if (luaL_getmetafield(L, 1, "__name") == LUA_TSTRING && std::strncmp(lua_tostring(L, -1), "loom.", 5) == 0) return 1;
    lua_settop(L, 1);
    return call_wrapped(L);
}

// The message handler xpcall installs for a script's handler (upvalue 1): once the run is past a limit, the error
// goes on untouched, since the script's handler would run with hooks off.
int handle_unless_exhausted(lua_State* L) {
    if (sandbox_of(L)->exhausted) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

int xpcall_guarded(lua_State* L) {
    luaL_checkany(L, 2);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, handle_unless_exhausted, 1);
    lua_replace(L, 2);
    return call_wrapped(L);
}

// What coroutine.wrap returns, for the coroutine in upvalue 1: unlike Lua's own it does not close the coroutine
// when it fails (that would run its __close metamethods, with hooks off if a limit ended it). Lua's
// coroutine.close is absent for the same reason.
int resume_wrapped(lua_State* L) {
    lua_State* co = lua_tothread(L, lua_upvalueindex(1));
    const int nargs = lua_gettop(L);
    if (!lua_checkstack(co, nargs)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, nargs);
    int nresults = 0;
    const int status = lua_resume(co, L, nargs, &nresults);
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_xmove(co, L, 1);
        return lua_error(L);
    }
    if (!lua_checkstack(L, nresults + 1)) return luaL_error(L, "too many results to resume");
    lua_xmove(co, L, nresults);
    return nresults;
}

int wrap_without_close(lua_State* L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State* co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, resume_wrapped, 1);
    return 1;
}

// string.rep making "" at once: Lua's own turns its loop n times even then, which no memory cap bounds.
int rep_bounded(lua_State* L) {
    std::size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    const lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (n > 0 && length + separator == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    return call_wrapped(L);
}

// table.move of at most 2^24 elements: its loop runs in C, out of the count hook's sight, and moving nils
// allocates nothing that the memory cap would stop.
int move_bounded(lua_State* L) {
    const lua_Integer first = luaL_checkinteger(L, 2), last = luaL_checkinteger(L, 3);
    if (last >= first && static_cast<lua_Unsigned>(last) - static_cast<lua_Unsigned>(first) >= (lua_Unsigned{1} << 24))
        return raise_error(L, error_kind::SandboxError, "table.move: at most 16777216 elements at once in a sandbox");
    return call_wrapped(L);
}

// table.insert and table.remove on tables without __len: they shift elements up to the length in C, and a __len
// that lies would keep them going past every limit.
int shift_without_len(lua_State* L) {
    if (luaL_getmetafield(L, 1, "__len") != LUA_TNIL)
        return raise_error(L, error_kind::SandboxError, "table.insert/remove: tables with __len are not available in a sandbox");
    return call_wrapped(L);
}

// Replaces field `name` of the table on top of the stack by `wrapper`, which calls the original.
void wrap(lua_State* L, const char* name, lua_CFunction wrapper) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, wrapper, 1);
    lua_setfield(L, -2, name);
}

void clear(lua_State* L, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        lua_pushnil(L);
        lua_setfield(L, -2, name);
    }
}

// require serves package.preload alone (where `loom` is, and what the host adds): no file is read, no C loaded.
void keep_only_preload(lua_State* L) {
    lua_getfield(L, -1, "searchers");
    lua_createtable(L, 1, 0);
    lua_rawgeti(L, -2, 1);
    lua_rawseti(L, -2, 1);
    lua_setfield(L, -3, "searchers");
    lua_pop(L, 1);
    clear(L, {"loadlib", "searchpath", "path", "cpath"});
}

void open_safe_libraries(lua_State* L) {
    static const luaL_Reg libraries[] = {
        {LUA_GNAME, luaopen_base},          {LUA_LOADLIBNAME, luaopen_package}, {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_TABLIBNAME, luaopen_table},    {LUA_OSLIBNAME, luaopen_os},        {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math},    {LUA_UTF8LIBNAME, luaopen_utf8},
    };
    for (const luaL_Reg& library : libraries) {
        luaL_requiref(L, library.name, library.func, 1);
        if (library.func == luaopen_base) {
            clear(L, {"dofile", "loadfile"});
            wrap(L, "load", load_text);
            wrap(L, "setmetatable", setmetatable_without_gc);
            wrap(L, "getmetatable", getmetatable_hiding_loom);
            wrap(L, "xpcall", xpcall_guarded);
        } else if (library.func == luaopen_coroutine) {
            clear(L, {"close"});
            lua_pushcfunction(L, wrap_without_close);
            lua_setfield(L, -2, "wrap");
        } else if (library.func == luaopen_package) {
            keep_only_preload(L);
        } else if (library.func == luaopen_table) {
            wrap(L, "move", move_bounded);
            wrap(L, "insert", shift_without_len);
            wrap(L, "remove", shift_without_len);
        } else if (library.func == luaopen_os) {
            clear(L, {"date", "execute", "exit", "getenv", "remove", "rename", "setlocale", "tmpname", "difftime"});
        } else if (library.func == luaopen_string) {
            clear(L, {"dump"});
            wrap(L, "rep", rep_bounded);
        }
        lua_pop(L, 1);
    }
}

// Runs protected in the new state: the libraries, then `loom` (in package.loaded) with compilers restricted to the
// host's flags (argument 1, a null-terminated list) or Loom's allow-list.
int open_sandbox(lua_State* L) {
    const auto* flags = static_cast<const char* const*>(lua_touserdata(L, 1));
    open_safe_libraries(L);
    luaL_requiref(L, "loom", luaopen_loom, 0);
    restrict_compiler_flags(L, flags);
    return 0;
}

// The engine recurses once per level of an expression tree and accepts trees 12,000 levels deep; a thread with a
// smaller stack than this could overflow on a script's kernel, so a run refuses to start on one.
constexpr std::size_t kStackNeeded = std::size_t{64} << 20;

int refuse_small_stack(lua_State* L) {
    return raise_error(L, error_kind::LimitError, "loom_sandbox_pcall needs a thread with 64 MiB of stack left");
}

// The hook fires at least every 1000 instructions: a budget is then exceeded by less than that, and the clock is
// read rarely enough not to cost.
void set_budget(Sandbox& s, std::uint64_t instructions, double seconds) {
    s.instructions = instructions;
    s.seconds = seconds;
    s.limits.seconds = seconds;
    s.hook_interval = static_cast<int>(instructions > 0 && instructions < 1000 ? instructions : 1000);
}

std::unique_ptr<Sandbox> make_sandbox(const loom_limits& l) {
    auto s = std::make_unique<Sandbox>();
    s->limits.memory = std::make_shared<MemoryAccount>(l.memory);
    s->limits.reclaim = [sandbox = s.get()] { lua_gc(sandbox->thread, LUA_GCCOLLECT, 0); };
    s->limits.cache_dir = l.cache_dir ? l.cache_dir : backend::cache_dir();
    set_budget(*s, l.instructions, l.seconds);
    return s;
}

}  // namespace

BoundCall::BoundCall(lua_State* L) : sandbox_(sandbox_of(L)), scope_(sandbox_ ? &sandbox_->limits : nullptr) {
    if (!sandbox_) return;
    ++sandbox_->bound_calls;
    saved_thread_ = std::exchange(sandbox_->thread, L);
}

BoundCall::~BoundCall() {
    if (!sandbox_) return;
    --sandbox_->bound_calls;
    sandbox_->thread = saved_thread_;
}

bool BoundCall::over_cap() {
    if (!sandbox_ || !sandbox_->limits.memory->over_cap()) return false;
    sandbox_->limits.reclaim();  // what the call returns is on the stack: only garbage goes
    return sandbox_->limits.memory->over_cap();
}

std::string BoundCall::cap_message() const {
    const MemoryAccount& account = *sandbox_->limits.memory;
    return cat("memory limit of ", account.cap(), " bytes exceeded (", account.used(), " in use)");
}

const Limits* sandbox_limits(lua_State* L) {
    const Sandbox* s = sandbox_of(L);
    return s ? &s->limits : nullptr;
}

bool is_sandboxed(lua_State* L) { return sandbox_of(L) != nullptr; }

void refuse_in_sandbox(lua_State* L, const std::string& what) {
    user_assert(!sandbox_of(L), error_kind::SandboxError, what, " is not available in a sandbox");
}

}  // namespace loom::lua

using loom::lua::Sandbox;

extern "C" lua_State* loom_sandbox_new(const loom_limits* limits) {
    const loom_limits defaults{};
    std::unique_ptr<Sandbox> s;
    try {
        s = loom::lua::make_sandbox(limits ? *limits : defaults);
    } catch (const std::exception&) {
        return nullptr;
    }
    lua_State* L = lua_newstate(loom::lua::sandbox_alloc, s.get());
    if (!L) return nullptr;
    lua_pushcfunction(L, loom::lua::open_sandbox);
    lua_pushlightuserdata(L, const_cast<char**>(limits ? limits->compiler_flags : nullptr));
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        lua_close(L);
        return nullptr;
    }
    // Always: coroutines take their hook from the thread that makes them, and a budget may be set later.
    lua_sethook(L, loom::lua::count_hook, LUA_MASKCOUNT, s->hook_interval);
    s.release();  // loom_sandbox_close deletes it, after the state
    return L;
}

extern "C" int loom_sandbox_pcall(lua_State* L, int nargs, int nresults, int msgh) {
    Sandbox* s = loom::lua::sandbox_of(L);
    if (!s || s->running) return lua_pcall(L, nargs, nresults, msgh);  // nested: the outer run's limits go on
    // Swapped for a function that raises the error, so that it allocates in protected mode and reaches msgh.
    if (loom::stack_left() < loom::lua::kStackNeeded) {
        lua_pushcfunction(L, loom::lua::refuse_small_stack);
        lua_replace(L, -nargs - 2);
    }
    s->running = true;
    s->exhausted = false;
    lua_sethook(L, loom::lua::count_hook, LUA_MASKCOUNT, s->hook_interval);  // the last run may have left 1
    s->instructions_left = static_cast<std::int64_t>(s->instructions);
    if (s->seconds > 0)
        s->limits.deadline = std::chrono::steady_clock::now() +
                             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                 std::chrono::duration<double>(s->seconds));
    const int status = lua_pcall(L, nargs, nresults, msgh);
    s->running = false;
    s->limits.deadline.reset();
    return status;
}

extern "C" void loom_sandbox_set_budget(lua_State* L, uint64_t instructions, double seconds) {
    if (Sandbox* s = loom::lua::sandbox_of(L)) {
        loom::lua::set_budget(*s, instructions, seconds);
        lua_sethook(L, loom::lua::count_hook, LUA_MASKCOUNT, s->hook_interval);
    }
}

extern "C" size_t loom_sandbox_memory(lua_State* L) {
    const Sandbox* s = loom::lua::sandbox_of(L);
    return s ? s->limits.memory->used() : 0;
}

extern "C" void loom_sandbox_close(lua_State* L) {
    Sandbox* s = loom::lua::sandbox_of(L);
    lua_close(L);
    delete s;
}
