// loom.h's kernel calls from the host: loom_kernel_new, loom_kernel_call, loom_kernel_error, loom_kernel_free. A
// handle is a kernel's own invoker (backends/invoker.h) and an executor; a call reads the host's arguments into
// the invoker's types, runs a plan of an earlier call with the same signature where there is one, and otherwise
// takes the invoker's general path, which leaves such a plan.
#include <lua.hpp>

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/invoker.h"
#include "lua/binding.h"
#include "lua/loom.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "support/limits.h"

struct loom_kernel {
    loom::backend::Invoker invoker;
    std::shared_ptr<loom::backend::Executor> exec;
    std::optional<loom::Limits> limits;  // a sandbox's memory account and cache directory
    std::string error;
};

namespace loom::lua {

namespace {

using backend::CallPlan;
using Slot = CallPlan::Slot;

// The stack of loom_kernel_new's protected call: the kernel, the executor or nil, and where the handle goes.
int new_body(lua_State* L) {
    const KernelHandle& h = check_kernel(L, 1, "loom_kernel_new");
    if (lua_isnil(L, 2)) push_default_executor(L, h.kernel->options.target == "c" ? "c" : "opencl");
    else lua_pushvalue(L, 2);
    std::shared_ptr<backend::Executor> exec = check_executor_ptr(L, -1, "loom_kernel_new");
    auto handle = std::make_unique<loom_kernel>(loom_kernel{backend::Invoker(h.kernel), std::move(exec), {}, {}});
    if (const Limits* limits = sandbox_limits(L)) {
        // The host calls the handle outside every run of the sandbox: no deadline, and no collection of its garbage.
        handle->limits = Limits{limits->memory, std::nullopt, 0, limits->cache_dir, nullptr};
    }
    *static_cast<loom_kernel**>(lua_touserdata(L, 3)) = handle.release();
    return 0;
}

// The host's arrays as the invoker's, in the order of `args` (none for the values).
using Arrays = std::vector<std::optional<HostArray>>;

Arrays host_arrays(const loom_arg* args, int nargs) {
    Arrays out(static_cast<std::size_t>(nargs));
    for (int a = 0; a < nargs; ++a) {
        const loom_arg& arg = args[a];
        user_assert(arg.name != nullptr, error_kind::ArgumentError, "loom_kernel_call: argument ", a, " has no name");
        user_assert(arg.kind == LOOM_ARG_ARRAY || arg.kind == LOOM_ARG_INT || arg.kind == LOOM_ARG_FLOAT,
                    error_kind::ArgumentError, "loom_kernel_call: argument '", arg.name, "' has an unknown kind ",
                    arg.kind);
        for (int b = 0; b < a; ++b)
            user_assert(std::string(args[b].name) != arg.name, error_kind::ArgumentError, "loom_kernel_call: argument '",
                        arg.name, "' is passed twice");
        if (arg.kind != LOOM_ARG_ARRAY) continue;
        const loom_array_view& v = arg.array;
        user_assert(v.ndim >= 0 && (v.shape || v.ndim == 0), error_kind::ArgumentError, "loom_kernel_call: array '",
                    arg.name, "' needs ndim >= 0 and a shape of that many entries");
        const std::optional<DType> dtype = v.dtype ? dtype_from_name(v.dtype) : std::nullopt;
        user_assert(dtype.has_value(), error_kind::ArgumentError, "loom_kernel_call: array '", arg.name,
                    "' has an unknown dtype '", v.dtype ? v.dtype : "(null)", "'");
        const HostArray::Shape shape(v.shape, v.shape + v.ndim);
        const HostArray::Shape strides = v.strides ? HostArray::Shape(v.strides, v.strides + v.ndim) : HostArray::Shape{};
        out[static_cast<std::size_t>(a)] = HostArray::wrap(v.data, *dtype, shape, strides, nullptr);
    }
    return out;
}

Slot::Kind slot_kind(int kind) {
    return kind == LOOM_ARG_ARRAY ? Slot::Kind::Host : kind == LOOM_ARG_INT ? Slot::Kind::Integer : Slot::Kind::Float;
}

// Runs the call through the plan of an earlier call with the same signature: every argument passed is a slot of
// the plan, of the slot's kind. False (nothing done) when no plan fits.
bool call_with_plan(loom_kernel& k, const loom_arg* args, int nargs, const Arrays& arrays) {
    const auto read = [&](const Slot& slot, bool& given) {
        backend::PlanArg value;
        int a = 0;
        while (a < nargs && slot.name != args[a].name) ++a;
        given = a < nargs;
        if (!given) {
            value.of_kind = slot.kind == Slot::Kind::Absent;
            return value;
        }
        value.of_kind = slot.kind == slot_kind(args[a].kind);
        const std::optional<HostArray>& array = arrays[static_cast<std::size_t>(a)];
        value.host = array ? &*array : nullptr;
        value.integer = args[a].integer;
        value.number = args[a].number;
        return value;
    };
    return k.invoker.call_fitting_plan(k.exec.get(), static_cast<std::size_t>(nargs), read).has_value();
}

// The general path: the build for these types first, so that an array the kernel writes and the host did not
// pass is refused before anything runs (a Lua call returns a new one; a host would never see it).
void call_general(loom_kernel& k, const loom_arg* args, int nargs, const Arrays& arrays) {
    backend::CallArgs c;
    for (int a = 0; a < nargs; ++a) {
        const loom_arg& arg = args[a];
        if (arg.kind == LOOM_ARG_ARRAY) c.arrays.emplace(arg.name, *arrays[static_cast<std::size_t>(a)]);
        else if (arg.kind == LOOM_ARG_INT) c.set_integer(arg.name, arg.integer);
        else c.set_float(arg.name, arg.number);
    }
    const std::shared_ptr<backend::CompiledKernel> built = k.invoker.build(k.exec, c);
    for (const Variable& v : built->typed->args)
        user_assert(!v.is_output.value_or(false) || c.arrays.count(v.name), error_kind::ArgumentError,
                    "loom_kernel_call: kernel '", built->typed->name, "' writes '", v.name,
                    "': pass it (a call from the host writes only into the host's arrays)");
    k.invoker.call(k.exec, std::move(c), true);
}

void call(loom_kernel& k, const loom_arg* args, int nargs) {
    user_assert(nargs >= 0 && (args || nargs == 0), error_kind::ArgumentError,
                "loom_kernel_call: nargs must be >= 0, with that many arguments");
    const Arrays arrays = host_arrays(args, nargs);
    if (!call_with_plan(k, args, nargs, arrays)) call_general(k, args, nargs, arrays);
    k.exec->finish();
}

}  // namespace

}  // namespace loom::lua

extern "C" loom_kernel* loom_kernel_new(lua_State* L, int idx, int exec_idx) {
    idx = lua_absindex(L, idx);
    if (exec_idx != 0) exec_idx = lua_absindex(L, exec_idx);
    loom_kernel* out = nullptr;
    lua_pushcfunction(L, loom::lua::trampoline<loom::lua::new_body>);
    lua_pushvalue(L, idx);
    if (exec_idx != 0) lua_pushvalue(L, exec_idx);
    else lua_pushnil(L);
    lua_pushlightuserdata(L, &out);
    if (lua_pcall(L, 3, 0, 0) == LUA_OK) return out;
    return nullptr;
}

extern "C" int loom_kernel_call(loom_kernel* k, const loom_arg* args, int nargs) {
    try {
        k->error.clear();
        const loom::LimitsScope scope(k->limits ? &*k->limits : nullptr);
        loom::lua::call(*k, args, nargs);
        return 0;
    } catch (const loom::Error& e) {
        k->error = e.what();
    } catch (const std::bad_alloc&) {
        k->error = "MemoryError: out of memory";
    } catch (const std::exception& e) {
        k->error = std::string("InternalError: ") + e.what();
    }
    return -1;
}

extern "C" const char* loom_kernel_error(const loom_kernel* k) { return k->error.c_str(); }

extern "C" void loom_kernel_free(loom_kernel* k) { delete k; }
