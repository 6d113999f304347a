// Executors (lp.cl.queue, lp.c.executor), running kernels (knl(exec, {a=x, ...})) and timing them (lp.time): the
// arguments read off the Lua stack into backends/invoker.h's types, and what a call returns pushed back.
#include <complex>
#include <cstdint>
#include <new>

#include "backends/c/c_executor.h"
#include "backends/compiler_flags.h"
#include "backends/invoker.h"
#include "backends/opencl/opencl_executor.h"
#include "ir/layout.h"
#include "lua/args.h"
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/device_binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "support/strings.h"

namespace loom::lua {

namespace {

constexpr const char* kExecutorMeta = "loom.Executor";

struct ExecutorHandle {
    std::shared_ptr<backend::Executor> exec;
};

// Also reachable as getmetatable(exec).__gc(x): a foreign `x` is an error, a second call does nothing.
int executor_gc(lua_State* L) {
    static_cast<ExecutorHandle*>(check_udata(L, 1, kExecutorMeta, "__gc"))->exec.reset();
    return 0;
}

void push_executor(lua_State* L, std::shared_ptr<backend::Executor> e) {
    void* mem = lua_newuserdatauv(L, sizeof(ExecutorHandle), 0);
    new (mem) ExecutorHandle{};
    luaL_setmetatable(L, kExecutorMeta);
    static_cast<ExecutorHandle*>(mem)->exec = std::move(e);
}

ExecutorHandle* test_executor(lua_State* L, int idx) {
    return static_cast<ExecutorHandle*>(test_udata(L, idx, kExecutorMeta));
}

// The executor at `idx`, which must not have been finalized (by an explicit __gc call).
const std::shared_ptr<backend::Executor>& live_executor(lua_State* L, ExecutorHandle& h, int idx, const char* fname) {
    if (!h.exec) arg_error(L, idx, fname, "executor has been collected");
    return h.exec;
}

backend::Executor& check_executor(lua_State* L, int idx, const char* fname) { return *check_executor_ptr(L, idx, fname); }

// lp.cl.queue{platform=, device=}: `device` is a name pattern, or the 1-based index of a device among those
// matching (one queue per GPU on a machine with several of one kind).
int cl_queue(lua_State* L) {
    const char* f = "cl.queue";
    check_option_keys(L, 1, f, {"platform", "device"});
    backend::OpenCLOptions o;
    o.platform = opt_string(L, 1, "platform", f).value_or("");
    if (lua_istable(L, 1) && get_field(L, 1, "device") == LUA_TNUMBER) {
        const std::optional<std::int64_t> index = opt_integer(L, 1, "device", f);
        if (*index < 1) arg_error(L, 1, f, cat("option 'device': a device index counts from 1, got ", *index));
        o.index = to_int(L, *index, 1, f, "option 'device': ");
    } else {
        o.device = opt_string(L, 1, "device", f).value_or("");
    }
    if (lua_istable(L, 1)) lua_pop(L, 1);
    push_executor(L, backend::make_opencl_executor(o));
    return 1;
}

// lp.cl.devices(): "platform: device" for every OpenCL device, in the order lp.cl.queue{device = n} counts them
// (when no platform is named).
int cl_devices(lua_State* L) {
    const std::vector<std::string> names = backend::list_opencl_devices();
    lua_createtable(L, static_cast<int>(names.size()), 0);
    for (std::size_t k = 0; k < names.size(); ++k) {
        lua_pushstring(L, names[k].c_str());
        lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
    }
    return 1;
}

int c_executor(lua_State* L) {
    const char* f = "c.executor";
    check_option_keys(L, 1, f, {"cc", "cflags", "threads"});
    backend::COptions o;
    if (auto cc = opt_string(L, 1, "cc", f)) o.cc = *cc;
    if (auto flags = opt_string_list(L, 1, "cflags", f)) o.cflags = *flags;
    if (auto t = opt_integer(L, 1, "threads", f)) o.threads = to_int(L, *t, 1, f, "option 'threads': ");
    check_compiler(L, o.cc, f);
    check_compiler_flags(L, o.cflags, f, "cflags");
    push_executor(L, backend::make_c_executor(o));
    return 1;
}

// Fields first, then the methods table (upvalue 1).
int executor_index(lua_State* L) {
    const backend::Executor& exec = check_executor(L, 1, "__index");
    const std::string key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (key == "target") {
        lua_pushstring(L, exec.target().c_str());
    } else if (key == "device") {
        lua_pushstring(L, exec.description().c_str());
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

int executor_tostring(lua_State* L) {
    const backend::Executor& exec = check_executor(L, 1, "__tostring");
    const std::string s = "loom executor (" + exec.target() + ": " + exec.description() + ")";
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

// exec:build_counts(): {compiled=, loaded=, shared=}, how the programs it was asked for were obtained (a program
// found in its memory cache counts nowhere): what a tuning loop or a test reads to see which builds it paid for.
int executor_build_counts(lua_State* L) {
    const backend::BuildCounts counts = check_executor(L, 1, "build_counts").build_counts();
    lua_createtable(L, 0, 3);
    for (const auto& [name, n] : {std::pair{"compiled", counts.compiled}, std::pair{"loaded", counts.loaded},
                                  std::pair{"shared", counts.shared}}) {
        lua_pushinteger(L, static_cast<lua_Integer>(n));
        lua_setfield(L, -2, name);
    }
    return 1;
}

// Process-wide, so not a sandboxed script's to change: its host decides where it builds.
int set_caching_enabled(lua_State* L) {
    refuse_in_sandbox(L, "set_caching_enabled");
    backend::set_disk_caching(lua_toboolean(L, 1) != 0);
    return 0;
}

// Where the registry keeps the executor that `knl{...}` uses for `target`.
std::string default_executor_key(const std::string& target) { return "loom.default_executor." + target; }

// The executor that `knl{...}` uses: one per target, made on first use.
std::shared_ptr<backend::Executor> default_executor(lua_State* L, const std::string& target) {
    const std::string key = default_executor_key(target);
    lua_getfield(L, LUA_REGISTRYINDEX, key.c_str());
    if (ExecutorHandle* h = test_executor(L, -1); h && h->exec) {
        auto e = h->exec;
        lua_pop(L, 1);
        return e;
    }
    lua_pop(L, 1);
    auto e = target == "c" ? backend::make_c_executor({}) : backend::make_opencl_executor({});
    push_executor(L, e);
    lua_setfield(L, LUA_REGISTRYINDEX, key.c_str());
    return e;
}

// --- one call of a kernel

// The separate arrays of sep argument `v` given as the list at the top of the stack (nested, one level per
// sep axis, as loopy indexes what it is passed with the sep indices), in sep_pieces order.
std::vector<HostArray> read_piece_lists(lua_State* L, const Variable& v) {
    const std::vector<std::int64_t> extents = backend::sep_extents(v);
    std::vector<HostArray> out;
    const auto level = [&](const auto& self, int idx, std::size_t depth) -> void {
        if (depth == extents.size()) {
            HostArray* a = test_array(L, idx);
            if (!a) throw Error(error_kind::ArgumentError, cat("argument '", v.name, "': the list of its separate arrays holds a ",
                                                     luaL_typename(L, idx), ", not a loom.Array"));
            out.push_back(*a);
            return;
        }
        if (!lua_istable(L, idx) || static_cast<std::int64_t>(length(L, idx)) != extents[depth])
            throw Error(error_kind::ArgumentError, cat("argument '", v.name, "': expected a list of ", extents[depth],
                                             " separate arrays along sep axis ", sep_axes(v)[depth]));
        for (std::int64_t i = 1; i <= extents[depth]; ++i) {
            get_index(L, idx, i);
            self(self, lua_absindex(L, -1), depth + 1);
            lua_pop(L, 1);
        }
    };
    level(level, lua_absindex(L, -1), 0);
    return out;
}

// The value at the top of the stack as value argument `v`.
// `integral`: an integer argument, typed so or a parameter of the domains (typed as indices when preprocessed).
void read_value_arg(lua_State* L, const Variable& v, bool integral, backend::CallArgs& c) {
    if (lua_isinteger(L, -1)) {
        c.set_integer(v.name, lua_tointeger(L, -1));
    } else if (lua_type(L, -1) == LUA_TNUMBER && integral) {
        // An integer argument given as a float: 2^2 is 4, 2.5 is no integer.
        lua_Integer value = 0;
        if (!lua_numbertointeger(lua_tonumber(L, -1), &value) || static_cast<double>(value) != lua_tonumber(L, -1))
            throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is an integer value (",
                                                       is_integer(v.dtype) ? dtype_name(v.dtype) : "a parameter of the domains",
                                                       "): ", lua_tonumber(L, -1), " is not an integer"));
        c.set_integer(v.name, value);
    } else if (lua_type(L, -1) == LUA_TNUMBER) {
        c.set_float(v.name, lua_tonumber(L, -1));
    } else if (const std::optional<std::complex<double>> z = test_complex(L, -1)) {
        // A typed real argument cannot take it (the imaginary part would be lost).
        if (v.dtype != DType::Unknown && !is_complex(v.dtype))
            throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is a ", dtype_name(v.dtype),
                                                       " value: a complex value {re, im} cannot be passed for it"));
        c.set_complex(v.name, *z);
    } else {
        throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is a value argument: number ",
                                                   is_complex(v.dtype) ? "or {re, im} table " : "", "expected, got ",
                                                   luaL_typename(L, -1)));
    }
}

// The value at the top of the stack as array argument `v`.
void read_array_arg(lua_State* L, const Variable& v, backend::CallArgs& c) {
    if (HostArray* a = test_array(L, -1)) {
        c.arrays.emplace(v.name, *a);
    } else if (DeviceArray* d = test_device_array(L, -1)) {
        c.device_arrays.emplace(v.name, *d);
    } else if (lua_istable(L, -1) && !sep_axes(v).empty()) {
        c.piece_lists.emplace(v.name, read_piece_lists(L, v));
    } else {
        throw Error(error_kind::ArgumentError, cat("argument '", v.name,
                                                   "' is an array argument: loom.Array or loom.DeviceArray expected, got ",
                                                   luaL_typename(L, -1)));
    }
}

backend::CallArgs read_call_args(lua_State* L, const KernelData& k, int idx) {
    backend::CallArgs c;
    if (lua_isnoneornil(L, idx)) return c;
    check_table(L, idx, "kernel call");
    const std::vector<std::string> params = all_params(k);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, idx, "kernel call", "arguments must be given by name");
        const Variable& v = backend::argument_named(k, lua_tostring(L, -2));
        const bool integral = is_integer(v.dtype) || std::find(params.begin(), params.end(), v.name) != params.end();
        if (v.kind == VarKind::ValueArg) read_value_arg(L, v, integral, c);
        else read_array_arg(L, v, c);
        lua_pop(L, 1);
    }
    return c;
}

// `args`: the stack index of the call's argument table. The host arrays passed for an output are written in
// place, and the call returns them themselves (as loopy returns the numpy arrays it was given).
void push_output(lua_State* L, const backend::Output& o, int args) {
    if (lua_istable(L, args)) {
        const int passed = get_field(L, args, o.name.c_str());
        const bool array = test_array(L, -1) != nullptr || test_device_array(L, -1) != nullptr;
        if (o.list_extents.empty() ? array : passed == LUA_TTABLE) return;
        lua_pop(L, 1);
    }
    if (o.device) return push_device_array(L, *o.device);
    std::size_t next = 0;
    const auto level = [&](const auto& self, std::size_t depth) -> void {
        if (depth == o.list_extents.size()) return push_array(L, o.arrays[next++]);
        lua_createtable(L, static_cast<int>(o.list_extents[depth]), 0);
        for (std::int64_t i = 1; i <= o.list_extents[depth]; ++i) {
            self(self, depth + 1);
            lua_seti(L, -2, i);
        }
    };
    level(level, 0);
}

// Pushes a call's outputs: as multiple values in argument order, or one table by name (return_dict).
int push_outputs(lua_State* L, const KernelHandle& h, const std::vector<backend::Output>& outputs, int args) {
    if (h.kernel->options.return_dict) {
        lua_createtable(L, 0, static_cast<int>(outputs.size()));
        for (const backend::Output& o : outputs) {
            push_output(L, o, args);
            lua_setfield(L, -2, o.name.c_str());
        }
        return 1;
    }
    for (const backend::Output& o : outputs) push_output(L, o, args);
    return static_cast<int>(outputs.size());
}

// The kernel's invoker, made on its first call (most kernels a script makes are only transformed).
backend::Invoker& invoker_of(KernelHandle& h) {
    if (!h.invoker) h.invoker = std::make_unique<backend::Invoker>(h.kernel);
    return *h.invoker;
}

// Reads the arguments of `knl([exec,] {args})` (the executor at stack index 2 if there is one, the argument
// table after it) and finds the executor that runs the call.
std::pair<backend::CallArgs, std::shared_ptr<backend::Executor>> read_call(lua_State* L, const KernelHandle& h) {
    ExecutorHandle* eh = test_executor(L, 2);
    backend::CallArgs c = read_call_args(L, *h.kernel, eh ? 3 : 2);
    // Without an executor, the one the device arrays passed live on, else the default for the kernel's target.
    std::shared_ptr<backend::Executor> exec =
        eh ? live_executor(L, *eh, 2, "kernel call")
           : !c.device_arrays.empty() ? c.device_arrays.begin()->second.exec
                                      : default_executor(L, h.kernel->options.target == "c" ? "c" : "opencl");
    return {std::move(c), std::move(exec)};
}

// ---- the fast path of repeated calls

using Slot = backend::CallPlan::Slot;

// The value on top of the stack as `slot`'s kind reads it.
backend::PlanArg read_plan_arg(lua_State* L, Slot::Kind kind) {
    backend::PlanArg a;
    switch (kind) {
        case Slot::Kind::Absent: a.of_kind = lua_isnil(L, -1); break;
        case Slot::Kind::Integer:
            a.of_kind = lua_isinteger(L, -1);
            a.integer = lua_tointeger(L, -1);
            break;
        case Slot::Kind::Float:
            a.of_kind = lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1);
            a.number = lua_tonumber(L, -1);
            break;
        case Slot::Kind::Host:
            a.host = test_array(L, -1);
            a.of_kind = a.host != nullptr;
            break;
        case Slot::Kind::Device:
            a.device = test_device_array(L, -1);
            a.of_kind = a.device != nullptr;
            break;
    }
    return a;
}

// Runs the call through a plan made by an earlier call with the same argument signature; returns the number of
// results, or -1 (nothing done) when there is no such plan.
int call_with_plan(lua_State* L, KernelHandle& h, int args) {
    ExecutorHandle* eh = test_executor(L, 2);
    if (!eh || !eh->exec || !lua_istable(L, args) || !h.invoker || h.invoker->plans().empty()) return -1;
    // Every key of the table must be an argument a plan reads (else the general path names the stray one).
    std::size_t keys = 0;
    for (lua_pushnil(L); lua_next(L, args) != 0; lua_pop(L, 1)) ++keys;
    // The arrays read stay alive in the argument table for the call.
    const std::optional<std::vector<backend::Output>> outputs =
        h.invoker->call_fitting_plan(eh->exec.get(), keys, [&](const Slot& slot, bool& given) {
            get_field(L, args, slot.name.c_str());
            const backend::PlanArg a = read_plan_arg(L, slot.kind);
            given = !lua_isnil(L, -1);
            lua_pop(L, 1);
            return a;
        });
    return outputs ? push_outputs(L, h, *outputs, args) : -1;
}

int call_kernel_body(lua_State* L) {
    KernelHandle& h = check_kernel(L, 1, "kernel call");
    const int args = test_executor(L, 2) ? 3 : 2;
    if (const int results = call_with_plan(L, h, args); results >= 0) return results;
    auto [c, exec] = read_call(L, h);
    // Plans serve calls that name their executor, as repeated calls in a loop do.
    const std::vector<backend::Output> outputs = invoker_of(h).call(exec, std::move(c), test_executor(L, 2) != nullptr);
    return push_outputs(L, h, outputs, args);
}

struct TimingOptions {
    int warmup = 2;
    int runs = 10;
};

TimingOptions read_timing_options(lua_State* L, int idx) {
    const char* f = "time";
    check_options(L, idx, f, {"warmup", "runs"});
    TimingOptions o;
    const auto count = [&](const char* key, std::int64_t fallback, std::int64_t least) {
        const std::int64_t n = opt_integer(L, idx, key, f).value_or(fallback);
        if (n < least || n > INT32_MAX)
            throw Error(error_kind::ArgumentError, cat("time: option '", key, "' must be an integer >= ", least, ", got ", n));
        return static_cast<int>(n);
    };
    o.warmup = count("warmup", o.warmup, 0);
    o.runs = count("runs", o.runs, 1);
    return o;
}

// lp.time(knl, [exec,] args [, {warmup=, runs=}]): the median seconds of the kernel's launches alone, and the
// list of every timed run. The outputs hold the result of the last run.
int time_kernel(lua_State* L) {
    KernelHandle& h = check_kernel(L, 1, "time");
    backend::TimedCall timed = prepare_timed_call(L, h, test_executor(L, 2) ? 4 : 3);
    const std::vector<double> seconds = timed.time();
    timed.finish();
    return push_timings(L, seconds);
}

const luaL_Reg kClFunctions[] = {{"queue", trampoline<cl_queue>}, {"devices", trampoline<cl_devices>}, {nullptr, nullptr}};
const luaL_Reg kCFunctions[] = {{"executor", trampoline<c_executor>}, {nullptr, nullptr}};

}  // namespace

int call_kernel(lua_State* L) { return call_kernel_body(L); }

std::shared_ptr<backend::CompiledKernel> build_call(lua_State* L, KernelHandle& h, backend::WorkerPool* workers) {
    auto [c, exec] = read_call(L, h);
    return invoker_of(h).build(exec, std::move(c), workers);
}

backend::TimedCall prepare_timed_call(lua_State* L, KernelHandle& h, int options) {
    const TimingOptions o = read_timing_options(L, options);
    auto [c, exec] = read_call(L, h);
    return invoker_of(h).prepare_timed(exec, std::move(c), o.warmup, o.runs);
}

int push_timings(lua_State* L, const std::vector<double>& seconds) {
    lua_pushnumber(L, backend::median(seconds));
    lua_createtable(L, static_cast<int>(seconds.size()), 0);
    for (std::size_t i = 0; i < seconds.size(); ++i) {
        lua_pushnumber(L, seconds[i]);
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    return 2;
}

std::shared_ptr<backend::Executor> check_executor_ptr(lua_State* L, int idx, const char* fname) {
    return live_executor(L, *static_cast<ExecutorHandle*>(check_udata(L, idx, kExecutorMeta, fname)), idx, fname);
}

bool is_executor(lua_State* L, int idx) { return test_executor(L, idx) != nullptr; }

void push_default_executor(lua_State* L, const std::string& target) {
    default_executor(L, target);
    lua_getfield(L, LUA_REGISTRYINDEX, default_executor_key(target).c_str());
}

namespace {

constexpr const char* kRestrictedFlagsKey = "loom.restricted_compiler_flags";

int restrict_compiler_flags_binding(lua_State* L) {
    restrict_compiler_flags(L);
    return 0;
}

}  // namespace

// The registry holds true (Loom's allow-list) or the set of the host's flags, {flag = true, ...}.
void restrict_compiler_flags(lua_State* L, const char* const* allowed) {
    if (lua_getfield(L, LUA_REGISTRYINDEX, kRestrictedFlagsKey) != LUA_TNIL) return lua_pop(L, 1);  // never widened
    lua_pop(L, 1);
    if (!allowed) {
        lua_pushboolean(L, 1);
    } else {
        lua_newtable(L);
        for (const char* const* flag = allowed; *flag; ++flag) {
            lua_pushboolean(L, 1);
            lua_setfield(L, -2, *flag);
        }
    }
    lua_setfield(L, LUA_REGISTRYINDEX, kRestrictedFlagsKey);
}

void check_compiler_flags(lua_State* L, const std::vector<std::string>& flags, const char* function,
                          const char* option) {
    const int restriction = lua_getfield(L, LUA_REGISTRYINDEX, kRestrictedFlagsKey);
    if (restriction == LUA_TBOOLEAN) backend::check_allowed_flags(flags, function, option);
    for (const std::string& flag : restriction == LUA_TTABLE ? flags : std::vector<std::string>{}) {
        const bool allowed = lua_getfield(L, -1, flag.c_str()) != LUA_TNIL;
        lua_pop(L, 1);
        user_assert(allowed, error_kind::ArgumentError, "bad argument to '", function, "' (option '", option, "': flag '", flag,
                    "' is not among the compiler flags the host allows)");
    }
    lua_pop(L, 1);
}

void check_compiler(lua_State* L, const std::string& cc, const char* function) {
    const bool restricted = lua_getfield(L, LUA_REGISTRYINDEX, kRestrictedFlagsKey) != LUA_TNIL;
    lua_pop(L, 1);
    user_assert(!restricted || backend::is_allowed_compiler(cc), error_kind::ArgumentError, "bad argument #1 to '", function,
                "' (option 'cc': '", cc, "' is not allowed in a restricted state; name cc, gcc or clang)");
}

void register_exec_api(lua_State* L, int module_table) {
    module_table = lua_absindex(L, module_table);
    luaL_newmetatable(L, kExecutorMeta);
    const int meta = lua_gettop(L);
    lua_newtable(L);  // the methods, filled here and by register_device_api
    const int methods = lua_gettop(L);
    lua_pushcfunction(L, trampoline<executor_build_counts>);
    lua_setfield(L, methods, "build_counts");
    lua_pushvalue(L, methods);
    lua_pushcclosure(L, trampoline<executor_index>, 1);
    lua_setfield(L, meta, "__index");
    lua_pushcfunction(L, trampoline<executor_tostring>);
    lua_setfield(L, meta, "__tostring");
    lua_pushcfunction(L, trampoline<executor_gc>);
    lua_setfield(L, meta, "__gc");
    luaL_newlib(L, kClFunctions);
    register_device_api(L, -1, methods);
    lua_setfield(L, module_table, "cl");
    lua_pop(L, 2);
    luaL_newlib(L, kCFunctions);
    lua_setfield(L, module_table, "c");
    lua_pushcfunction(L, trampoline<set_caching_enabled>);
    lua_setfield(L, module_table, "set_caching_enabled");
    lua_pushcfunction(L, trampoline<time_kernel>);
    lua_setfield(L, module_table, "time");
    lua_pushcfunction(L, trampoline<restrict_compiler_flags_binding>);
    lua_setfield(L, module_table, "restrict_compiler_flags");
}

}  // namespace loom::lua
