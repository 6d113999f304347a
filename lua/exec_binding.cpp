// Executors (lp.cl.queue, lp.c.executor), running kernels (knl(exec, {a=x, ...})) and timing them (lp.time).
#include <algorithm>
#include <complex>
#include <cstdint>
#include <iostream>
#include <new>

#include "analysis/kernel_checks.h"
#include "backends/c/c_executor.h"
#include "backends/compiler_flags.h"
#include "backends/opencl/opencl_executor.h"
#include "ir/eval.h"
#include "ir/layout.h"
#include "lua/args.h"
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/call_arrays.h"
#include "lua/device_binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "preprocess/preprocess.h"
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

struct CallArgs {
    std::map<std::string, HostArray> arrays;
    std::map<std::string, DeviceArray> device_arrays;
    std::map<std::string, std::vector<HostArray>> piece_lists;  // sep arguments given as their separate arrays
    std::map<std::string, std::int64_t> ints;
    std::map<std::string, double> floats;
    std::map<std::string, std::complex<double>> complexes;  // {re, im} tables
    std::map<std::string, DType> value_types;  // Lua numbers' natural types
};

// The extents of the sep axes of `v`: how its separate arrays are nested in lists.
std::vector<std::int64_t> sep_extents(const Variable& v) {
    std::vector<std::int64_t> out;
    for (const std::size_t axis : sep_axes(v)) out.push_back(v.shape[axis]->ival);
    return out;
}

// The separate arrays of sep argument `v` given as the list at the top of the stack (nested, one level per
// sep axis, as loopy indexes what it is passed with the sep indices), in sep_pieces order.
std::vector<HostArray> read_piece_lists(lua_State* L, const Variable& v) {
    const std::vector<std::int64_t> extents = sep_extents(v);
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

CallArgs read_call_args(lua_State* L, const KernelData& k, int idx) {
    CallArgs c;
    if (lua_isnoneornil(L, idx)) return c;
    check_table(L, idx, "kernel call");
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, idx, "kernel call", "arguments must be given by name");
        const std::string name = lua_tostring(L, -2);
        const Variable* v = find_variable(k, name);
        if (!v || !v->is_arg())
            throw Error(error_kind::ArgumentError, cat("kernel '", k.name, "' has no argument named '", name, "'"));
        if (v->kind == VarKind::ValueArg) {
            if (lua_isinteger(L, -1)) {
                c.ints[name] = lua_tointeger(L, -1);
                const lua_Integer x = lua_tointeger(L, -1);
                c.value_types[name] = (x >= INT32_MIN && x <= INT32_MAX) ? DType::Int32 : DType::Int64;
            } else if (lua_type(L, -1) == LUA_TNUMBER) {
                c.floats[name] = lua_tonumber(L, -1);
                c.value_types[name] = DType::Float64;
            } else if (const std::optional<std::complex<double>> z = test_complex(L, -1)) {
                // A typed real argument cannot take it (the imaginary part would be lost).
                if (v->dtype != DType::Unknown && !is_complex(v->dtype))
                    throw Error(error_kind::ArgumentError, cat("argument '", name, "' is a ", dtype_name(v->dtype),
                                                     " value: a complex value {re, im} cannot be passed for it"));
                c.complexes[name] = *z;
                c.value_types[name] = DType::Complex128;
            } else {
                throw Error(error_kind::ArgumentError, cat("argument '", name, "' is a value argument: number ",
                                                 is_complex(v->dtype) ? "or {re, im} table " : "", "expected, got ",
                                                 luaL_typename(L, -1)));
            }
        } else if (HostArray* a = test_array(L, -1)) {
            c.arrays.emplace(name, *a);
        } else if (DeviceArray* d = test_device_array(L, -1)) {
            user_assert(d->buffer != nullptr, error_kind::ArgumentError, "argument '", name, "': the device array has been released");
            c.device_arrays.emplace(name, *d);
        } else if (lua_istable(L, -1) && !sep_axes(*v).empty()) {
            c.piece_lists.emplace(name, read_piece_lists(L, *v));
        } else {
            throw Error(error_kind::ArgumentError, cat("argument '", name,
                                             "' is an array argument: loom.Array or loom.DeviceArray expected, got ",
                                             luaL_typename(L, -1)));
        }
        lua_pop(L, 1);
    }
    return c;
}

// Whether `name` is the offset of an array argument (as lp.auto offsets make): host arrays start at their first
// element, so it is 0 unless passed.
bool is_offset_of_an_array(const KernelData& k, const std::string& name) {
    return std::any_of(k.args.begin(), k.args.end(), [&](const Variable& a) {
        return a.offset && a.offset->kind == ExprKind::Var && a.offset->name == name;
    });
}

// The value of `name` when it is the stride:auto of an array axis (loopy's `<array>_stride<axis>`): the stride,
// in elements, of the array passed, or the C-contiguous one of an output the call allocates.
std::optional<std::int64_t> auto_stride(const KernelData& k, const std::string& name, const CallArgs& c) {
    for (const Variable& a : k.args)
        for (std::size_t j = 0; j < a.strides.size(); ++j) {
            const ExprPtr& s = a.strides[j];
            if (!s || s->kind != ExprKind::Var || s->name != name) continue;
            if (const auto it = c.arrays.find(a.name); it != c.arrays.end() && j < it->second.ndim())
                return it->second.strides()[j];
            if (const auto it = c.device_arrays.find(a.name); it != c.device_arrays.end() && j < it->second.shape.size())
                return it->second.strides()[j];
            std::int64_t stride = 1;
            for (std::size_t m = j + 1; m < a.shape.size(); ++m) {
                const auto extent = eval_int(a.shape[m], c.ints);
                if (!extent) return std::nullopt;
                stride *= *extent;
            }
            return stride;
        }
    return std::nullopt;
}

// Value arguments not passed are read off the shapes of the arrays that were (n from a of shape (n)), offsets
// default to 0 and auto strides come from the arrays.
// The value of `name` that makes the affine extent `shape` equal `size` (n from `n + 2` = 7), if the other
// variables of `shape` are known and the solution is an integer.
std::optional<std::int64_t> solve_extent(const ExprPtr& shape, const std::string& name, std::int64_t size,
                                         const std::map<std::string, std::int64_t>& known) {
    std::map<std::string, std::int64_t> at = known;
    at[name] = 0;
    const auto c0 = eval_int(shape, at);
    at[name] = 1;
    const auto c1 = eval_int(shape, at);
    at[name] = 2;
    const auto c2 = eval_int(shape, at);
    if (!c0 || !c1 || !c2 || *c1 - *c0 != *c2 - *c1 || *c1 == *c0) return std::nullopt;  // not affine in it
    const std::int64_t slope = *c1 - *c0;
    if ((size - *c0) % slope != 0) return std::nullopt;
    const std::int64_t value = (size - *c0) / slope;
    at[name] = value;
    return eval_int(shape, at) == size ? std::optional(value) : std::nullopt;
}

void find_values_from_shapes(const KernelData& k, CallArgs& c) {
    for (const Variable& v : k.args) {
        if (v.kind != VarKind::ValueArg || c.ints.count(v.name) || c.floats.count(v.name) || c.complexes.count(v.name))
            continue;
        const auto from_shape = [&](const Variable& av, const HostArray::Shape& shape) {
            for (std::size_t j = 0; j < av.shape.size() && j < shape.size() && !c.ints.count(v.name); ++j)
                if (const auto value = solve_extent(av.shape[j], v.name, shape[j], c.ints)) c.ints[v.name] = *value;
        };
        for (const auto& [name, arr] : c.arrays) from_shape(*find_variable(k, name), arr.shape());
        for (const auto& [name, arr] : c.device_arrays) from_shape(*find_variable(k, name), arr.shape);
        for (const auto& [name, list] : c.piece_lists) {
            const Variable& av = *find_variable(k, name);
            if (!list.empty()) from_shape(sep_piece_variable(av, sep_pieces(av)[0]), list[0].shape());
        }
        if (!c.ints.count(v.name) && is_offset_of_an_array(k, v.name)) c.ints[v.name] = 0;
        if (!c.ints.count(v.name))
            if (const auto stride = auto_stride(k, v.name, c)) c.ints[v.name] = *stride;
        if (!c.ints.count(v.name))
            throw Error(error_kind::ArgumentError, cat("value argument '", v.name, "' of kernel '", k.name,
                                             "' was not given and cannot be found from the shapes of the arrays passed"));
    }
}

std::map<std::string, DType> call_dtypes(const KernelData& k, const CallArgs& c) {
    std::map<std::string, DType> out;
    for (const auto& [name, arr] : c.arrays)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = arr.dtype();
    for (const auto& [name, arr] : c.device_arrays)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = arr.dtype;
    for (const auto& [name, list] : c.piece_lists)
        if (!list.empty() && find_variable(k, name)->dtype == DType::Unknown) out[name] = list[0].dtype();
    for (const auto& [name, t] : c.value_types)
        if (find_variable(k, name)->dtype == DType::Unknown) out[name] = t;
    return out;
}

std::string build_key(const backend::Executor& e, const std::map<std::string, DType>& dtypes) {
    std::string key = cat(static_cast<const void*>(&e), "|", e.target());
    for (const auto& [name, t] : dtypes) key += "|" + name + ":" + dtype_name(t);
    return key;
}

// A build already done, as the future a worker's build would give.
std::shared_future<BuiltProgram> built_now(BuiltProgram b) {
    std::promise<BuiltProgram> done;
    done.set_value(std::move(b));
    return done.get_future().share();
}

// Generates the code here (the engine is not thread-safe) and builds it here, or on `workers` when given.
std::shared_ptr<CompiledKernel> compile(KernelHandle& h, const std::shared_ptr<backend::Executor>& exec,
                                        const std::map<std::string, DType>& dtypes,
                                        backend::WorkerPool* workers = nullptr) {
    const std::string key = build_key(*exec, dtypes);
    if (auto it = h.builds.find(key); it != h.builds.end()) return it->second;
    const TargetKind target = target_from_name(exec->target());
    auto built = std::make_shared<CompiledKernel>(CompiledKernel{preprocess_kernel(h.kernel, dtypes), {}, {}, exec});
    if (target == TargetKind::OpenCL) check_constant_temporary_sizes(*built->typed);
    built->code = emit_code(built->typed, target);
    if (h.kernel->options.write_code) std::cout << built->code.device_code << std::flush;
    if (h.kernel->options.write_wrapper) std::cout << built->code.host_code << std::flush;
    std::vector<backend::KernelSpec> specs;
    for (const DeviceKernel& dk : built->code.kernels) {
        backend::KernelSpec s{dk.name, {}};
        for (const KernelParam& p : dk.params) s.params.push_back({p.name, p.dtype, p.is_pointer});
        specs.push_back(std::move(s));
    }
    // Copies for the worker: nothing it reads may change under it.
    std::function<BuiltProgram()> build = [exec, source = built->code.device_code, specs = std::move(specs),
                                           options = h.kernel->options.build_options] {
        const double start = backend::wall_seconds();
        std::shared_ptr<backend::Program> program = exec->build(source, specs, options);
        return BuiltProgram{std::move(program), backend::wall_seconds() - start};
    };
    built->build = workers ? workers->submit(std::move(build)) : built_now(build());
    h.builds[key] = built;
    return built;
}

void set_launch_grid(const DeviceKernel& dk, const std::map<std::string, std::int64_t>& values, backend::Launch& launch) {
    launch.dims = static_cast<unsigned>(std::max(dk.groups.size(), dk.local.size()));
    for (std::size_t i = 0; i < 3; ++i) {
        const auto g = i < dk.groups.size() ? eval_int(dk.groups[i], values) : std::optional<std::int64_t>(1);
        const auto l = i < dk.local.size() ? eval_int(dk.local[i], values) : std::optional<std::int64_t>(1);
        if (!g || !l) throw Error(error_kind::ArgumentError, cat("cannot evaluate the launch grid of '", dk.name, "'"));
        launch.groups[i] = static_cast<std::size_t>(std::max<std::int64_t>(*g, 0));
        launch.local[i] = static_cast<std::size_t>(*l);
    }
}

// What a call returns for one written argument: an array, or the (nested) list of the separate arrays it was
// given as.
struct Output {
    std::string name;
    std::vector<HostArray> arrays;
    std::vector<std::int64_t> list_extents;  // empty: one array
    std::optional<DeviceArray> device;       // instead of `arrays`: a device array
};

// `args`: the stack index of the call's argument table. The host arrays passed for an output are written in
// place, and the call returns them themselves (as loopy returns the numpy arrays it was given).
void push_output(lua_State* L, const Output& o, int args) {
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

// The memory of one call: a buffer per array argument (passed, or allocated for outputs) and per global
// temporary (allocated, zero-filled).
struct CallMemory {
    std::vector<backend::Buffer> buffers;
    std::map<std::string, std::size_t> buffer_of;
    std::vector<HostArray> keep;  // arrays whose memory the buffers point into
    std::vector<Output> outputs;
    std::vector<ArrayMemory> staged_outputs;  // copied back into the caller's arrays after the run
    std::vector<SepMemory> split_outputs;     // likewise, from their separate arrays

    std::vector<std::shared_ptr<backend::DeviceBuffer>> device_keep;  // the device buffers of `buffers`

    void add(const std::string& name, const HostArray& a, bool read, bool written) {
        buffer_of[name] = buffers.size();
        buffers.push_back({a.data(), span_bytes(a), read, written});
        keep.push_back(a);
    }
    void add_device(const std::string& name, const std::shared_ptr<backend::DeviceBuffer>& b, bool written) {
        buffer_of[name] = buffers.size();
        buffers.push_back({b->host(), b->bytes(), true, written, b.get()});
        device_keep.push_back(b);
    }
};

// A device array passed for `v`, or the output allocated on the device for it when the call's inputs are device
// arrays (device arrays in, device arrays out). Used in place: it must have the declared layout.
void add_device_array(CallMemory& m, const Variable& v, const DeviceArray* passed, const CallArgs& c,
                      const std::shared_ptr<backend::Executor>& exec) {
    user_assert(sep_axes(v).empty(), error_kind::ArgumentError, "argument '", v.name,
                "' has sep axes (separate arrays), which device arrays do not support: pass host arrays for it");
    const bool written = v.is_output.value_or(false);
    if (passed) {
        user_assert(passed->exec->memory_domain() == exec->memory_domain(), error_kind::ArgumentError, "argument '", v.name,
                    "' is a device array of another executor (", passed->exec->description(), ") that does not share "
                    "memory with the one the call runs on (", exec->description(), ")");
        check_device_memory(v, {passed->dtype, passed->shape, passed->strides(), passed->buffer->host()}, c.ints);
    }
    const DeviceArray d = passed ? *passed
                                 : allocate_device_array(exec, eval_shape(v, c.ints), v.dtype, device_order(v, c.ints));
    if (written) m.outputs.push_back({v.name, {}, {}, d});
    m.add_device(v.name, d.buffer, written);
}

// A sep argument given as its separate arrays: each is checked and passed as an argument of its own.
void add_piece_list(CallMemory& m, const Variable& v, const std::vector<HostArray>& list, const CallArgs& c) {
    const bool written = v.is_output.value_or(false);
    const std::vector<SepPiece> pieces = sep_pieces(v);
    Output out{v.name, {}, sep_extents(v), std::nullopt};
    for (std::size_t n = 0; n < pieces.size(); ++n) {
        const ArrayMemory a = array_memory(sep_piece_variable(v, pieces[n]), &list[n], c.ints);
        if (written && a.staged) m.staged_outputs.push_back(a);
        out.arrays.push_back(a.logical);
        m.add(pieces[n].name, a.buffer, true, written);
    }
    if (written) m.outputs.push_back(std::move(out));
}

// A sep argument given as one array (or allocated): a buffer per separate array, under the names the device
// kernels take.
void add_split_array(CallMemory& m, const Variable& v, const HostArray* passed, const CallArgs& c) {
    const bool written = v.is_output.value_or(false);
    const SepMemory split = sep_memory(v, passed, c.ints);
    const std::vector<SepPiece> pieces = sep_pieces(v);
    for (std::size_t n = 0; n < pieces.size(); ++n) m.add(pieces[n].name, split.pieces[n], true, written);
    if (!written) return;
    m.outputs.push_back({v.name, {split.logical}, {}, std::nullopt});
    m.split_outputs.push_back(split);
}

// Array arguments are declared `restrict` on every target: memory one of them writes must be reached through
// no other argument, or the compiler's reordering makes the result depend on it (reads through several are
// fine). Equal or overlapping buffers are refused before anything runs.
void check_no_written_aliases(const std::vector<backend::Buffer>& buffers,
                              const std::map<std::string, std::size_t>& buffer_of) {
    // Device memory without a host address is told apart by its buffer: the same buffer twice overlaps.
    const auto begin = [](const backend::Buffer& u) {
        return reinterpret_cast<std::uintptr_t>(u.host ? u.host : static_cast<void*>(u.device));
    };
    const auto size = [](const backend::Buffer& u) { return u.host ? u.bytes : std::size_t{1}; };
    for (std::size_t a = 0; a < buffers.size(); ++a)
        for (std::size_t b = a + 1; b < buffers.size(); ++b) {
            const backend::Buffer &x = buffers[a], &y = buffers[b];
            if (!(x.written || y.written) || x.bytes == 0 || y.bytes == 0) continue;
            if (begin(x) >= begin(y) + size(y) || begin(y) >= begin(x) + size(x)) continue;
            // Names only for the message: the passing call builds none.
            std::string name_a, name_b;
            for (const auto& [name, index] : buffer_of) {
                if (index == a) name_a = name;
                if (index == b) name_b = name;
            }
            user_error(error_kind::ArgumentError, "arguments '", name_a, "' and '", name_b, "' share memory and the kernel writes '",
                       x.written ? name_a : name_b, "': array arguments must not overlap (pass a copy, or write the "
                       "kernel in place on one argument, as out[i] = out[i] + 1)");
        }
}

// `exec` runs the call. When any array passed is a device array, the outputs not passed and the global
// temporaries are allocated on its device.
CallMemory call_memory(const KernelData& k, const CallArgs& c, const std::shared_ptr<backend::Executor>& exec) {
    CallMemory m;
    const bool on_device = !c.device_arrays.empty();
    for (const Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const auto found = c.arrays.find(v.name);
        const HostArray* passed = found != c.arrays.end() ? &found->second : nullptr;
        if (const auto list = c.piece_lists.find(v.name); list != c.piece_lists.end()) {
            add_piece_list(m, v, list->second, c);
            continue;
        }
        const auto device = c.device_arrays.find(v.name);
        if (device != c.device_arrays.end() || (on_device && !passed && v.is_output.value_or(false))) {
            add_device_array(m, v, device != c.device_arrays.end() ? &device->second : nullptr, c, exec);
            continue;
        }
        // As loopy, written arrays that are not passed are allocated; a missing read-only input would read zeros.
        if (!passed && !v.is_output.value_or(false) && v.is_input.value_or(true))
            throw Error(error_kind::ArgumentError, cat("argument '", v.name, "' is read by the kernel but was not passed"));
        if (!sep_axes(v).empty()) {
            add_split_array(m, v, passed, c);
            continue;
        }
        const bool written = v.is_output.value_or(false);
        const ArrayMemory a = array_memory(v, passed, c.ints);
        if (written) m.outputs.push_back({v.name, {a.logical}, {}, std::nullopt});
        if (written && a.staged) m.staged_outputs.push_back(a);
        // Every array goes to the device, outputs too: elements the kernel does not write keep their values,
        // as on the C target which works in place.
        m.add(v.name, a.buffer, true, written);
    }
    for (const Variable& t : k.temporaries) {
        if (t.address_space != AddressSpace::Global) continue;
        const HostArray buffer = array_memory(t, nullptr, c.ints).buffer;
        if (on_device) m.add_device(t.name, exec->allocate(buffer.nbytes()), false);
        else m.add(t.name, buffer, true, false);
    }
    check_no_written_aliases(m.buffers, m.buffer_of);
    return m;
}

// `ints`: the call's integer values and the inames of the host loops around the launch.
backend::Arg kernel_arg(const KernelParam& p, const CallMemory& m, const CallArgs& c,
                        const std::map<std::string, std::int64_t>& ints) {
    backend::Arg arg;
    if (p.is_pointer) {
        arg.kind = backend::Arg::Kind::Buffer;
        arg.buffer = m.buffer_of.at(p.name);
    } else if (is_complex(p.dtype)) {
        arg.kind = backend::Arg::Kind::Complex;
        if (const auto z = c.complexes.find(p.name); z != c.complexes.end()) {
            arg.f = z->second.real();
            arg.im = z->second.imag();
        } else {
            const auto f = c.floats.find(p.name);
            arg.f = f != c.floats.end() ? f->second : static_cast<double>(ints.at(p.name));
        }
    } else if (is_float(p.dtype)) {
        arg.kind = backend::Arg::Kind::Float;
        const auto f = c.floats.find(p.name);
        arg.f = f != c.floats.end() ? f->second : static_cast<double>(ints.at(p.name));
    } else {
        arg.kind = backend::Arg::Kind::Int;
        const auto i = ints.find(p.name);
        if (i == ints.end()) throw Error(error_kind::ArgumentError, cat("argument '", p.name, "' must be an integer"));
        arg.i = i->second;
    }
    return arg;
}

// Integer values must fit the types of their arguments, and the domain's parameters the index type that the
// loops count in: C would truncate them silently.
void check_value_ranges(const KernelData& typed, const CallArgs& c) {
    const std::vector<std::string> params = all_params(typed);
    for (const Variable& v : typed.args) {
        const auto value = c.ints.find(v.name);
        if (v.kind != VarKind::ValueArg || value == c.ints.end()) continue;
        user_assert(!is_integer(v.dtype) || holds(v.dtype, value->second), error_kind::ArgumentError, "value ", value->second,
                    " of argument '", v.name, "' does not fit its type ", dtype_name(v.dtype));
        const DType index = typed.options.index_dtype;
        user_assert(std::find(params.begin(), params.end(), v.name) == params.end() || holds(index, value->second),
                    error_kind::ArgumentError, "value ", value->second, " of parameter '", v.name,
                    "' does not fit the kernel's index type ", dtype_name(index),
                    " (make the kernel with index_dtype = \"int64\")");
    }
}

// A call ready to run: the program built for the arguments' types, the memory and the launches of its
// device kernels.
struct PreparedCall {
    std::shared_ptr<CompiledKernel> built;
    CallMemory mem;
    std::vector<backend::Launch> launches;
    CallArgs args;  // as passed, with the values found from shapes
};

// Reads the arguments of `knl([exec,] {args})` (the executor at stack index 2 if there is one, the argument
// table after it) and finds the executor that runs the call.
std::pair<CallArgs, std::shared_ptr<backend::Executor>> read_call(lua_State* L, const KernelHandle& h) {
    ExecutorHandle* eh = test_executor(L, 2);
    CallArgs c = read_call_args(L, *h.kernel, eh ? 3 : 2);
    find_values_from_shapes(*h.kernel, c);
    // Without an executor, the one the device arrays passed live on, else the default for the kernel's target.
    std::shared_ptr<backend::Executor> exec =
        eh ? live_executor(L, *eh, 2, "kernel call")
           : !c.device_arrays.empty() ? c.device_arrays.begin()->second.exec
                                      : default_executor(L, h.kernel->options.target == "c" ? "c" : "opencl");
    return {std::move(c), std::move(exec)};
}

// Reads the arguments of `knl([exec,] {args})`, allocates the outputs and builds (or finds) the program.
PreparedCall prepare_call(lua_State* L, KernelHandle& h) {
    auto [c, exec] = read_call(L, h);
    PreparedCall call{compile(h, exec, call_dtypes(*h.kernel, c)), {}, {}, {}};
    check_value_ranges(*call.built->typed, c);
    call.mem = call_memory(*call.built->typed, c, exec);
    // The host program decides the launches: each device kernel once, or once per iteration of its host loops.
    run_host_program(call.built->code.host, c.ints, [&](std::size_t kernel, const HostValues& values) {
        const DeviceKernel& dk = call.built->code.kernels.at(kernel);
        backend::Launch launch;
        launch.kernel = kernel;
        for (const KernelParam& p : dk.params) launch.args.push_back(kernel_arg(p, call.mem, c, values));
        set_launch_grid(dk, values, launch);
        call.launches.push_back(std::move(launch));
    });
    call.args = std::move(c);
    return call;
}

// Copies what the program wrote into the caller's arrays where they could not be passed in place.
void copy_back_outputs(const CallMemory& mem) {
    for (const ArrayMemory& a : mem.staged_outputs) copy_back(a);
    for (const SepMemory& a : mem.split_outputs) copy_back(a);
}

// Pushes a call's outputs: as multiple values in argument order, or one table by name (return_dict).
int push_outputs(lua_State* L, const KernelHandle& h, const std::vector<Output>& outputs, int args) {
    if (h.kernel->options.return_dict) {
        lua_createtable(L, 0, static_cast<int>(outputs.size()));
        for (const Output& o : outputs) {
            push_output(L, o, args);
            lua_setfield(L, -2, o.name.c_str());
        }
        return 1;
    }
    for (const Output& o : outputs) push_output(L, o, args);
    return static_cast<int>(outputs.size());
}

// ---- the fast path of repeated calls

}  // namespace

// What a call of a kernel with the same argument signature as an earlier one reuses: the build, the checks, the
// buffers' sizes and flags, and the launches. Only the memory (passed, or allocated anew) and the values of float
// arguments differ between such calls. Calls with staged or split arrays, complex values or declared alignments
// take the general path every time.
struct CallPlan {
    // One argument of the kernel as the call that made the plan had it.
    struct Slot {
        enum class Kind { Absent, Host, Device, Integer, Float } kind = Kind::Absent;
        std::string name;
        DType dtype = DType::Unknown;
        HostArray::Shape shape, strides;  // arrays
        std::int64_t integer = 0;          // Integer: its value (it may decide shapes and the grid)
    };
    // Where a buffer's memory comes from on each call.
    struct Source {
        enum class Kind { Passed, HostOutput, DeviceOutput, HostTemporary, DeviceTemporary } kind;
        std::size_t slot = 0;  // Passed
        HostArray::Shape shape;  // outputs
        DType dtype = DType::Unknown;
        Order order = Order::C;
        std::size_t bytes = 0;  // temporaries
    };
    struct FloatPatch {
        std::size_t launch, arg, slot;
    };

    const backend::Executor* exec = nullptr;
    std::vector<Slot> slots;
    std::shared_ptr<CompiledKernel> built;
    std::vector<backend::Buffer> buffers;  // sizes and flags; the addresses are each call's
    std::map<std::string, std::size_t> buffer_of;
    std::vector<Source> sources;
    std::vector<backend::Launch> launches;
    std::vector<FloatPatch> floats;
    std::vector<std::pair<std::string, std::size_t>> outputs;  // name and buffer, in return order
};

namespace {

using Slot = CallPlan::Slot;
using Source = CallPlan::Source;

// The slot of the argument `v` as `c` holds it, or nothing when the plan cannot take it.
std::optional<Slot> slot_of(const Variable& v, const CallArgs& c) {
    Slot s{Slot::Kind::Absent, v.name, DType::Unknown, {}, {}, 0};
    if (const auto a = c.arrays.find(v.name); a != c.arrays.end())
        s = {Slot::Kind::Host, v.name, a->second.dtype(), a->second.shape(), a->second.strides(), 0};
    else if (const auto d = c.device_arrays.find(v.name); d != c.device_arrays.end())
        s = {Slot::Kind::Device, v.name, d->second.dtype, d->second.shape, d->second.strides(), 0};
    else if (const auto f = c.floats.find(v.name); f != c.floats.end())
        s.kind = Slot::Kind::Float;
    else if (c.value_types.count(v.name) && c.ints.count(v.name))  // passed, not found from shapes
        s = {Slot::Kind::Integer, v.name, DType::Unknown, {}, {}, c.ints.at(v.name)};
    else if (c.value_types.count(v.name) || c.piece_lists.count(v.name))
        return std::nullopt;
    return s;
}

// Where the memory of array argument `v` (buffer `index`) came from in `call`.
std::optional<Source> source_of(const Variable& v, std::size_t index, const PreparedCall& call,
                                const std::vector<Slot>& slots) {
    const backend::Buffer& b = call.mem.buffers[index];
    for (std::size_t k = 0; k < slots.size(); ++k) {
        if (slots[k].name != v.name) continue;
        const Source passed{Source::Kind::Passed, k, {}, DType::Unknown, Order::C, 0};
        if (slots[k].kind == Slot::Kind::Device) return passed;
        // In place, not staged: the buffer is the array's own memory.
        if (slots[k].kind == Slot::Kind::Host)
            return call.args.arrays.at(v.name).data() == b.host ? std::optional(passed) : std::nullopt;
    }
    for (const Output& o : call.mem.outputs) {
        if (o.name != v.name) continue;
        if (o.device) return Source{Source::Kind::DeviceOutput, 0, o.device->shape, o.device->dtype, o.device->order, 0};
        const HostArray& a = o.arrays.at(0);
        if (a.data() != b.host) return std::nullopt;
        return Source{Source::Kind::HostOutput, 0, a.shape(), a.dtype(), a.is_contiguous() ? Order::C : Order::F, 0};
    }
    return std::nullopt;
}

// The plan of a call that just ran, or null when its arguments need the general path.
std::shared_ptr<CallPlan> make_plan(const PreparedCall& call, const backend::Executor* exec) {
    const KernelData& k = *call.built->typed;
    const CallArgs& c = call.args;
    if (!c.piece_lists.empty() || !c.complexes.empty() || !call.mem.staged_outputs.empty() ||
        !call.mem.split_outputs.empty())
        return nullptr;
    auto plan = std::make_shared<CallPlan>();
    plan->exec = exec;
    plan->built = call.built;
    plan->buffers = call.mem.buffers;
    plan->buffer_of = call.mem.buffer_of;
    plan->launches = call.launches;
    plan->sources.resize(plan->buffers.size());
    for (const Variable& v : k.args) {
        const std::optional<Slot> slot = slot_of(v, c);
        if (!slot || v.alignment > 0 || !sep_axes(v).empty()) return nullptr;
        plan->slots.push_back(*slot);
    }
    for (const Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) continue;
        const std::size_t index = call.mem.buffer_of.at(v.name);
        const std::optional<Source> source = source_of(v, index, call, plan->slots);
        if (!source) return nullptr;
        plan->sources[index] = *source;
    }
    for (const Variable& t : k.temporaries) {
        const auto index = call.mem.buffer_of.find(t.name);
        if (index == call.mem.buffer_of.end()) continue;
        const backend::Buffer& b = call.mem.buffers[index->second];
        const auto kind = b.device ? Source::Kind::DeviceTemporary : Source::Kind::HostTemporary;
        plan->sources[index->second] = Source{kind, 0, {}, DType::Unknown, Order::C, b.bytes};
    }
    for (std::size_t l = 0; l < plan->launches.size(); ++l) {
        const DeviceKernel& dk = call.built->code.kernels.at(plan->launches[l].kernel);
        for (std::size_t a = 0; a < dk.params.size(); ++a)
            for (std::size_t k2 = 0; k2 < plan->slots.size(); ++k2)
                if (plan->slots[k2].kind == Slot::Kind::Float && plan->slots[k2].name == dk.params[a].name)
                    plan->floats.push_back({l, a, k2});
    }
    for (const Output& o : call.mem.outputs) plan->outputs.emplace_back(o.name, call.mem.buffer_of.at(o.name));
    return plan;
}

// Whether the value on top of the stack fits `slot`; reads its memory into `b` (arrays) or its value into
// `number` (floats).
bool matches(lua_State* L, const Slot& slot, const backend::Executor* exec, backend::Buffer* b, double& number,
             std::shared_ptr<backend::DeviceBuffer>* device) {
    switch (slot.kind) {
        case Slot::Kind::Absent: return lua_isnil(L, -1);
        case Slot::Kind::Integer: return lua_isinteger(L, -1) && lua_tointeger(L, -1) == slot.integer;
        case Slot::Kind::Float:
            number = lua_tonumber(L, -1);
            return lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1);
        case Slot::Kind::Host: {
            const HostArray* a = test_array(L, -1);
            if (!a || a->dtype() != slot.dtype || a->shape() != slot.shape || a->strides() != slot.strides) return false;
            if (b) b->host = a->data();
            return true;
        }
        case Slot::Kind::Device: {
            const DeviceArray* d = test_device_array(L, -1);
            if (!d || !d->buffer || d->exec->memory_domain() != exec->memory_domain() || d->dtype != slot.dtype ||
                d->shape != slot.shape || d->strides() != slot.strides)
                return false;
            *device = d->buffer;
            return true;
        }
    }
    return false;
}

constexpr std::size_t kMaxPlans = 8;  // per kernel: the argument signatures a script alternates between

void remember_plan(KernelHandle& h, std::shared_ptr<CallPlan> plan) {
    if (h.plans.size() == kMaxPlans) h.plans.erase(h.plans.begin());
    h.plans.push_back(std::move(plan));
}

// The memory of one call through a plan: what the sources give, allocated anew where they allocate.
struct PlanMemory {
    std::vector<std::optional<HostArray>> hosts;           // by buffer: allocated host outputs and temporaries
    std::vector<std::optional<DeviceArray>> device_outputs;  // by buffer
    std::vector<std::shared_ptr<backend::DeviceBuffer>> device_temporaries;
};

PlanMemory plan_memory(const CallPlan& plan, std::vector<backend::Buffer>& buffers,
                       const std::vector<std::shared_ptr<backend::DeviceBuffer>>& passed_devices) {
    const std::shared_ptr<backend::Executor>& exec = plan.built->executor;
    PlanMemory m{std::vector<std::optional<HostArray>>(buffers.size()),
                 std::vector<std::optional<DeviceArray>>(buffers.size()), {}};
    const auto use_device = [](backend::Buffer& b, const std::shared_ptr<backend::DeviceBuffer>& d) {
        b.device = d.get();
        b.host = d->host();
    };
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        const Source& s = plan.sources[i];
        switch (s.kind) {
            case Source::Kind::Passed:  // host arrays: their address was read while matching
                if (passed_devices[s.slot]) use_device(buffers[i], passed_devices[s.slot]);
                break;
            case Source::Kind::HostOutput:
                m.hosts[i] = HostArray::zeros(s.shape, s.dtype, s.order);
                buffers[i].host = m.hosts[i]->data();
                break;
            case Source::Kind::HostTemporary:
                m.hosts[i] = HostArray::zeros({static_cast<std::int64_t>(s.bytes)}, DType::UInt8);
                buffers[i].host = m.hosts[i]->data();
                break;
            case Source::Kind::DeviceOutput:
                m.device_outputs[i] = allocate_device_array(exec, s.shape, s.dtype, s.order);
                use_device(buffers[i], m.device_outputs[i]->buffer);
                break;
            case Source::Kind::DeviceTemporary:
                m.device_temporaries.push_back(exec->allocate(s.bytes));
                use_device(buffers[i], m.device_temporaries.back());
                break;
        }
    }
    return m;
}

int run_plan(lua_State* L, const KernelHandle& h, CallPlan& plan, std::vector<backend::Buffer> buffers,
             const std::vector<double>& numbers, const std::vector<std::shared_ptr<backend::DeviceBuffer>>& devices,
             int args) {
    const PlanMemory m = plan_memory(plan, buffers, devices);
    check_no_written_aliases(buffers, plan.buffer_of);
    for (const CallPlan::FloatPatch& f : plan.floats) plan.launches[f.launch].args[f.arg].f = numbers[f.slot];
    plan.built->program().run(buffers, plan.launches);
    std::vector<Output> outputs;  // those passed are pushed from the argument table
    for (const auto& [name, index] : plan.outputs) {
        outputs.push_back({name, {}, {}, m.device_outputs[index]});
        if (m.hosts[index]) outputs.back().arrays.push_back(*m.hosts[index]);
    }
    return push_outputs(L, h, outputs, args);
}

// Runs the call through a plan made by an earlier call with the same argument signature; returns the number of
// results, or -1 (nothing done) when there is no such plan.
int call_with_plan(lua_State* L, KernelHandle& h, int args) {
    ExecutorHandle* eh = test_executor(L, 2);
    if (!eh || !eh->exec || !lua_istable(L, args)) return -1;
    for (const std::shared_ptr<CallPlan>& plan_ptr : h.plans) {
        CallPlan& plan = *plan_ptr;
        if (plan.exec != eh->exec.get()) continue;
        std::vector<backend::Buffer> buffers = plan.buffers;
        std::vector<double> numbers(plan.slots.size());
        std::vector<std::shared_ptr<backend::DeviceBuffer>> devices(plan.slots.size());
        std::size_t given = 0;
        bool match = true;
        for (std::size_t k = 0; k < plan.slots.size() && match; ++k) {
            const Slot& slot = plan.slots[k];
            get_field(L, args, slot.name.c_str());
            const auto index = plan.buffer_of.find(slot.name);
            backend::Buffer* b = index != plan.buffer_of.end() ? &buffers[index->second] : nullptr;
            match = matches(L, slot, plan.exec, b, numbers[k], &devices[k]);
            given += !lua_isnil(L, -1);
            lua_pop(L, 1);
        }
        if (!match) continue;
        // Every key of the table must be an argument the plan read (else the general path names the stray one).
        std::size_t keys = 0;
        for (lua_pushnil(L); lua_next(L, args) != 0; lua_pop(L, 1)) ++keys;
        if (keys != given) continue;
        return run_plan(L, h, plan, std::move(buffers), numbers, devices, args);
    }
    return -1;
}

int call_kernel_body(lua_State* L) {
    KernelHandle& h = check_kernel(L, 1, "kernel call");
    const int args = test_executor(L, 2) ? 3 : 2;
    if (const int results = call_with_plan(L, h, args); results >= 0) return results;
    PreparedCall call = prepare_call(L, h);
    call.built->program().run(call.mem.buffers, call.launches);
    copy_back_outputs(call.mem);
    if (ExecutorHandle* eh = test_executor(L, 2))
        if (std::shared_ptr<CallPlan> plan = make_plan(call, eh->exec.get())) remember_plan(h, std::move(plan));
    return push_outputs(L, h, call.mem.outputs, args);
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

double median(std::vector<double> xs) {
    std::sort(xs.begin(), xs.end());
    const std::size_t mid = xs.size() / 2;
    return xs.size() % 2 == 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

// lp.time(knl, [exec,] args [, {warmup=, runs=}]): the median seconds of the kernel's launches alone, and the
// list of every timed run. The outputs hold the result of the last run.
int time_kernel(lua_State* L) {
    KernelHandle& h = check_kernel(L, 1, "time");
    TimedCall timed = prepare_timed_call(L, h, test_executor(L, 2) ? 4 : 3);
    const std::vector<double> seconds = timed.time();
    timed.finish();
    return push_timings(L, seconds);
}

const luaL_Reg kClFunctions[] = {{"queue", trampoline<cl_queue>}, {"devices", trampoline<cl_devices>}, {nullptr, nullptr}};
const luaL_Reg kCFunctions[] = {{"executor", trampoline<c_executor>}, {nullptr, nullptr}};

}  // namespace

int call_kernel(lua_State* L) { return call_kernel_body(L); }

std::shared_ptr<CompiledKernel> build_call(lua_State* L, KernelHandle& h, backend::WorkerPool* workers) {
    auto [c, exec] = read_call(L, h);
    return compile(h, exec, call_dtypes(*h.kernel, c), workers);
}

TimedCall prepare_timed_call(lua_State* L, KernelHandle& h, int options) {
    const TimingOptions o = read_timing_options(L, options);
    PreparedCall call = prepare_call(L, h);
    // The part that may run on a worker holds no kernel: the engine's (isl's) objects must be released on the
    // Lua thread. It holds the call's memory, which it may be the last to release.
    auto mem = std::make_shared<CallMemory>(std::move(call.mem));
    return {[mem, build = call.built->build, launches = std::move(call.launches), o] {
                return build.get().program->time(mem->buffers, launches, o.warmup, o.runs);
            },
            [mem] { copy_back_outputs(*mem); }};
}

int push_timings(lua_State* L, const std::vector<double>& seconds) {
    lua_pushnumber(L, median(seconds));
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
    lua_newtable(L);  // the methods, filled by register_device_api
    const int methods = lua_gettop(L);
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
