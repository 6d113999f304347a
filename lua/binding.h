// Shared pieces of the Lua binding: the Kernel userdata and the registration functions of each part of the
// `loom` module.
#pragma once

#include <lua.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/invoker.h"
#include "backends/runtime.h"
#include "backends/worker_pool.h"
#include "ir/kernel.h"
#include "support/limits.h"

namespace loom::lua {

/// What a "loom.Kernel" userdata holds: the immutable kernel, and its invoker (its builds and call plans) once
/// it has been called.
struct KernelHandle {
    Kernel kernel;
    std::unique_ptr<backend::Invoker> invoker;
    /// What the kernel object holds, charged to the state's memory cap while Lua keeps it (10,000 kernels were
    /// 100 MB of RSS with 1.1 MB charged).
    MemoryCharge charge;
};

KernelHandle& check_kernel(lua_State* L, int idx, const char* fname);
void push_kernel(lua_State* L, Kernel k);

/// Reads a dtype name (or nil: Unknown) at stack index `idx`. A value taken out of a table names in its
/// errors the argument `arg` that holds the table and, if given, the option `option`; otherwise the argument
/// is `idx`.
DType check_dtype(lua_State* L, int idx, const char* fname, int arg = 0, const char* option = nullptr);

/// Reads the table `{name = number, ...}` at stack index `idx` (argument `arg` in errors): parameter values,
/// as fix_parameters and make_kernel's `fixed_parameters` take them.
std::map<std::string, ExprPtr> parameter_values(lua_State* L, int idx, int arg, const char* fname);

void register_kernel_api(lua_State* L, int module_table);
void register_transform_api(lua_State* L, int module_table);
void register_exec_api(lua_State* L, int module_table);
/// set_instruction_priority, add_dependency, add_nosync, add_barrier (lua/instruction_binding.cpp).
void register_instruction_api(lua_State* L, int module_table);
/// get_op_map, get_mem_access_map, get_synchronization_map and their keys (lua/statistics_binding.cpp).
void register_statistics_api(lua_State* L, int module_table);
/// auto_test_vs_ref (lua/auto_test.cpp).
void register_auto_test_api(lua_State* L, int module_table);
/// parse_okl, load_okl (lua/okl_binding.cpp).
void register_okl_api(lua_State* L, int module_table);
/// workers, isatty, wall_time: what stdlib/loom/tune.lua needs (lua/workers_binding.cpp).
void register_workers_api(lua_State* L, int module_table);

/// Restricts, for good, the compilers and compiler flags scripts of L may choose: the flags to `allowed` (a
/// null-terminated list, a host's choice) or, when it is null, to Loom's allow-list (backends/compiler_flags.h),
/// the compiler to cc, gcc or clang. The first restriction stays: nothing widens or lifts it.
void restrict_compiler_flags(lua_State* L, const char* const* allowed = nullptr);
/// An ArgumentError naming `function` and its `option` when L restricts compiler flags and `flags` has one that
/// the restriction does not allow.
void check_compiler_flags(lua_State* L, const std::vector<std::string>& flags, const char* function,
                          const char* option);
/// An ArgumentError naming `function` when L restricts compilers and `cc` is not cc, gcc or clang.
void check_compiler(lua_State* L, const std::string& cc, const char* function);

/// The executor at `idx` (lp.cl.queue, lp.c.executor); otherwise an ArgumentError.
std::shared_ptr<backend::Executor> check_executor_ptr(lua_State* L, int idx, const char* fname);

/// Whether the value at `idx` is an executor (lp.cl.queue, lp.c.executor).
bool is_executor(lua_State* L, int idx);
/// Pushes the executor that `knl{...}` uses for `target` ("opencl" or "c"), made on first use.
void push_default_executor(lua_State* L, const std::string& target);
/// lp.set_warnings, and the stderr sink for the engine's warnings.
void register_warning_api(lua_State* L, int module_table);

/// The Kernel call `knl(exec, {args})` / `knl{args}` (the "__call" metamethod).
int call_kernel(lua_State* L);

/// The build of `h` for the call whose executor and arguments are on the stack as a kernel call has them
/// (`knl([exec,] {args})`): found in the kernel's build cache, or the code generated now and built here, or
/// by `workers` when given (then the build is under way when this returns).
std::shared_ptr<backend::CompiledKernel> build_call(lua_State* L, KernelHandle& h, backend::WorkerPool* workers = nullptr);

/// Prepares the call on the stack (`knl([exec,] {args})`; its build is waited for) to be timed with the
/// options `{warmup=, runs=}` at stack index `options`.
backend::TimedCall prepare_timed_call(lua_State* L, KernelHandle& h, int options);

/// Pushes what lp.time returns for `seconds`: the median, then the list.
int push_timings(lua_State* L, const std::vector<double>& seconds);

}  // namespace loom::lua
