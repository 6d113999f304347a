// What the tuning library (stdlib/loom/tune.lua) needs from the engine: worker threads that build and time
// kernels while the script goes on (lp.workers, its jobs), a wall clock (lp.wall_time) and whether a file is a
// terminal (lp.isatty, for the progress bar).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <new>

#include "lua/args.h"
#include "lua/binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"

namespace loom::lua {

namespace {

constexpr const char* kWorkersMeta = "loom.Workers";
constexpr const char* kJobMeta = "loom.Job";
constexpr int kMaxWorkers = 256;  // threads a script may ask for: more only exhausts the host

struct WorkersHandle {
    std::shared_ptr<backend::WorkerPool> pool;
};

// Work under way on a worker: `ready` asks without waiting; `finish` waits, then (on the Lua thread) pushes
// the results and returns their count, or raises the job's error.
struct Job {
    std::function<bool()> ready;
    std::function<int(lua_State*)> finish;
};

template <class T>
bool is_ready(const std::shared_future<T>& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

template <class T>
void push_new(lua_State* L, const char* meta, T value) {
    void* mem = lua_newuserdatauv(L, sizeof(T), 0);
    new (mem) T{};
    luaL_setmetatable(L, meta);
    *static_cast<T*>(mem) = std::move(value);
}

// __gc, also reachable as getmetatable(x).__gc(x): a foreign value is an error, a second call does nothing.
// Collecting the workers waits for the work already given to them.
int workers_gc(lua_State* L) {
    static_cast<WorkersHandle*>(check_udata(L, 1, kWorkersMeta, "__gc"))->pool.reset();
    return 0;
}

int job_gc(lua_State* L) {
    *static_cast<Job*>(check_udata(L, 1, kJobMeta, "__gc")) = Job{};
    return 0;
}

backend::WorkerPool& check_workers(lua_State* L, const char* fname) {
    auto* h = static_cast<WorkersHandle*>(check_udata(L, 1, kWorkersMeta, fname));
    if (!h->pool) arg_error(L, 1, fname, "the workers have been collected");
    return *h->pool;
}

Job& check_job(lua_State* L, const char* fname) {
    auto* job = static_cast<Job*>(check_udata(L, 1, kJobMeta, fname));
    if (!job->finish) arg_error(L, 1, fname, "the job has been collected");
    return *job;
}

// lp.workers(jobs): `jobs` threads. Not in a sandbox: its limits (memory cap, deadline, cache directory)
// hold on the thread of its Lua state, not on the workers'.
int new_workers(lua_State* L) {
    refuse_in_sandbox(L, "workers (builds on other threads escape the sandbox's limits)");
    const std::int64_t jobs = check_integer(L, 1, "workers");
    if (jobs < 1 || jobs > kMaxWorkers) arg_error(L, 1, "workers", cat("jobs must be from 1 to ", kMaxWorkers, ", got ", jobs));
    push_new(L, kWorkersMeta, WorkersHandle{std::make_shared<backend::WorkerPool>(static_cast<int>(jobs))});
    return 1;
}

// workers:build(knl, [exec,] args): generates the code now, compiles on a worker. job:wait() returns the
// seconds the build took.
int workers_build(lua_State* L) {
    backend::WorkerPool& pool = check_workers(L, "build");
    lua_remove(L, 1);  // the stack of a kernel call from here on
    const std::shared_ptr<backend::CompiledKernel> built = build_call(L, check_kernel(L, 1, "build"), &pool);
    const std::shared_future<backend::BuiltProgram> build = built->build;
    push_new(L, kJobMeta, Job{[build] { return is_ready(build); }, [build](lua_State* L) {
                                  lua_pushnumber(L, build.get().seconds);
                                  return 1;
                              }});
    return 1;
}

// workers:time(knl, [exec,] args [, {warmup=, runs=}]): lp.time on a worker. job:wait() returns what lp.time
// returns.
int workers_time(lua_State* L) {
    backend::WorkerPool& pool = check_workers(L, "time");
    lua_remove(L, 1);
    KernelHandle& h = check_kernel(L, 1, "time");
    const backend::TimedCall timed = prepare_timed_call(L, h, is_executor(L, 2) ? 4 : 3);
    const std::shared_future<std::vector<double>> seconds = pool.submit(timed.time);
    push_new(L, kJobMeta, Job{[seconds] { return is_ready(seconds); }, [seconds, finish = timed.finish](lua_State* L) {
                                  const std::vector<double>& s = seconds.get();
                                  finish();
                                  return push_timings(L, s);
                              }});
    return 1;
}

int job_ready(lua_State* L) {
    lua_pushboolean(L, check_job(L, "ready").ready());
    return 1;
}

int job_wait(lua_State* L) {
    Job& job = check_job(L, "wait");
    const std::function<int(lua_State*)> finish = job.finish;  // the job may be collected while it runs
    return finish(L);
}

// lp.isatty(file): whether an io library file is a terminal.
int isatty_file(lua_State* L) {
    auto* stream = static_cast<luaL_Stream*>(luaL_checkudata(L, 1, LUA_FILEHANDLE));
    lua_pushboolean(L, stream->closef != nullptr && stream->f != nullptr && ::isatty(::fileno(stream->f)) == 1);
    return 1;
}

int wall_time(lua_State* L) {
    lua_pushnumber(L, backend::wall_seconds());
    return 1;
}

// A metatable whose __index is the methods table.
void new_type(lua_State* L, const char* meta, const luaL_Reg* methods, lua_CFunction gc) {
    luaL_newmetatable(L, meta);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, gc);
    lua_setfield(L, -2, "__gc");
    lua_pop(L, 1);
}

const luaL_Reg kWorkersMethods[] = {{"build", trampoline<workers_build>}, {"time", trampoline<workers_time>}, {nullptr, nullptr}};
const luaL_Reg kJobMethods[] = {{"ready", trampoline<job_ready>}, {"wait", trampoline<job_wait>}, {nullptr, nullptr}};
const luaL_Reg kFunctions[] = {{"workers", trampoline<new_workers>},
                               {"isatty", trampoline<isatty_file>},
                               {"wall_time", trampoline<wall_time>},
                               {nullptr, nullptr}};

}  // namespace

void register_workers_api(lua_State* L, int module_table) {
    module_table = lua_absindex(L, module_table);
    new_type(L, kWorkersMeta, kWorkersMethods, trampoline<workers_gc>);
    new_type(L, kJobMeta, kJobMethods, trampoline<job_gc>);
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
