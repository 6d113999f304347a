// lp.auto_test_vs_ref(ref_knl, test_knl, {parameters=, exec=, rtol=, atol=, dtypes=, seed=, warmup_rounds=,
// quiet=, timing_seconds=, op_count=, op_label=}), or in loopy's order (ref_knl, queue, test_knl, {...}): loopy's automatic test. Both kernels run on
// the same random inputs, through the ordinary kernel call (`knl(exec, {...})`), on every executor asked for;
// every output must match the reference within the tolerances, or an AutomaticTestFailure names the first
// element that does not. Then test_knl is timed as loopy times it (through lp.time): `warmup_rounds` untimed
// runs, then max(warmup_rounds, 1) timed ones, four times as many again until they take `timing_seconds`
// (loopy's 0.3 s; Loom's option, which 0 makes one round).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <sstream>

#include "analysis/types.h"
#include "backends/call_arrays.h"
#include "ir/layout.h"
#include "lua/args.h"
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom::lua {

namespace {

constexpr const char* kFname = "auto_test_vs_ref";
constexpr int kOptions = 3;         // stack index of the options table
constexpr int kLoopyExecutor = 4;   // the executor of loopy's argument order, or nil
constexpr int kTime = lua_upvalueindex(1);  // lp.time

/// One set of parameter values: integers (which also size the arrays) and floats.
struct Parameters {
    backend::Values ints;
    std::map<std::string, double> floats;
};

struct Settings {
    std::vector<Parameters> parameter_sets;
    std::vector<int> executors;  // stack indices
    double rtol = 1e-3, atol = 1e-3;  // loopy's default check
    std::map<std::string, DType> dtypes;
    DType default_dtype = DType::Float64;
    std::uint64_t seed = 0;
    int warmup_rounds = 2;  // loopy's default
    bool quiet = false;     // loopy prints the timings unless quiet
    double timing_seconds = 0.3;  // loopy's: timed rounds grow until they take this long
    std::vector<double> op_count;        // operations per run, printed as rates (loopy's op_count, op_label)
    std::vector<std::string> op_label;
};

/// What loopy's auto_test_vs_ref returns, for one parameter set on one executor.
struct Timing {
    std::string target, parameters;
    double elapsed_wall = 0;      // seconds per timed run of test_knl
    int timing_rounds = 0;        // timed runs it is the mean of
    double ref_elapsed_wall = 0;  // seconds of one run of ref_knl
};

Parameters read_parameters(lua_State* L, int idx) {
    Parameters p;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TNUMBER)
            arg_error(L, kOptions, kFname, "option 'parameters': a table of numbers by name (or a list of them) expected");
        const std::string name = lua_tostring(L, -2);
        if (lua_isinteger(L, -1)) p.ints[name] = lua_tointeger(L, -1);
        else p.floats[name] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return p;
}

// `parameters`: one table {n=16}, or a list of them (each is a separate test).
std::vector<Parameters> read_parameter_sets(lua_State* L) {
    if (!lua_istable(L, kOptions) || get_field(L, kOptions, "parameters") == LUA_TNIL) return {Parameters{}};
    const int idx = lua_gettop(L);
    if (!lua_istable(L, idx)) arg_error(L, kOptions, kFname, "option 'parameters': table expected");
    std::vector<Parameters> out;
    const lua_Integer n = length(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (get_index(L, idx, i) != LUA_TTABLE) arg_error(L, kOptions, kFname, "option 'parameters': list of tables expected");
        out.push_back(read_parameters(L, lua_gettop(L)));
        lua_pop(L, 1);
    }
    if (n == 0) out.push_back(read_parameters(L, idx));
    lua_pop(L, 1);
    return out;
}

// `exec`: one executor or a list of them; without it both the OpenCL and the C executor. They stay on the
// stack, so their indices remain valid during the test.
std::vector<int> push_executors(lua_State* L) {
    std::vector<int> out;
    if (!lua_isnil(L, kLoopyExecutor)) {
        if (lua_istable(L, kOptions) && get_field(L, kOptions, "exec") != LUA_TNIL)
            arg_error(L, kOptions, kFname, "option 'exec' given with an executor argument");
        return {kLoopyExecutor};
    }
    if (!lua_istable(L, kOptions) || get_field(L, kOptions, "exec") == LUA_TNIL) {
        for (const char* target : {"opencl", "c"}) {
            push_default_executor(L, target);
            out.push_back(lua_gettop(L));
        }
        return out;
    }
    const int idx = lua_gettop(L);
    if (is_executor(L, idx)) return {idx};
    if (!lua_istable(L, idx) || length(L, idx) == 0)
        arg_error(L, kOptions, kFname, "option 'exec': an executor or a list of executors expected");
    for (lua_Integer i = 1; i <= length(L, idx); ++i) {
        if (!lua_checkstack(L, 1)) arg_error(L, kOptions, kFname, "option 'exec': too many executors");
        get_index(L, idx, i);
        if (!is_executor(L, -1)) arg_error(L, kOptions, kFname, "option 'exec': a list of executors expected");
        out.push_back(lua_gettop(L));
    }
    return out;
}

// `dtypes`: one dtype name for every array whose type is not known, or a table of them by name.
void read_dtypes(lua_State* L, Settings& s) {
    if (!lua_istable(L, kOptions)) return;
    const int type = get_field(L, kOptions, "dtypes");
    const int idx = lua_gettop(L);
    if (type == LUA_TSTRING) {
        s.default_dtype = check_dtype(L, idx, kFname, kOptions, "dtypes");
    } else if (type == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, idx) != 0) {
            if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, kOptions, kFname, "option 'dtypes': keys must be names");
            s.dtypes[lua_tostring(L, -2)] = check_dtype(L, lua_gettop(L), kFname, kOptions, "dtypes");
            lua_pop(L, 1);
        }
    } else if (type != LUA_TNIL) {
        arg_error(L, kOptions, kFname, "option 'dtypes': a dtype name or a table of them expected");
    }
    lua_pop(L, 1);
}

// loopy's op_count (a number or a list) and op_label (as many names).
void read_op_counts(lua_State* L, Settings& s) {
    if (lua_istable(L, kOptions)) {
        const int type = get_field(L, kOptions, "op_count");
        const int idx = lua_gettop(L);
        if (type == LUA_TNUMBER) s.op_count.push_back(lua_tonumber(L, idx));
        for (lua_Integer i = 1; type == LUA_TTABLE && i <= length(L, idx); ++i) {
            if (get_index(L, idx, i) != LUA_TNUMBER) arg_error(L, kOptions, kFname, "option 'op_count': a list of numbers expected");
            s.op_count.push_back(lua_tonumber(L, -1));
            lua_pop(L, 1);
        }
        if (type != LUA_TNIL && type != LUA_TNUMBER && type != LUA_TTABLE)
            arg_error(L, kOptions, kFname, "option 'op_count': a number or a list of numbers expected");
        lua_pop(L, 1);
    }
    s.op_label = opt_string_list(L, kOptions, "op_label", kFname).value_or(std::vector<std::string>{});
    if (s.op_count.size() != s.op_label.size())
        arg_error(L, kOptions, kFname, "options 'op_count' and 'op_label' must have as many entries");
}

Settings read_settings(lua_State* L) {
    check_options(L, kOptions, kFname, {"parameters", "exec", "rtol", "atol", "dtypes", "seed", "warmup_rounds", "quiet",
                                        "timing_seconds", "op_count", "op_label"});
    Settings s;
    const std::int64_t warmup = opt_integer(L, kOptions, "warmup_rounds", kFname).value_or(s.warmup_rounds);
    if (warmup < 0 || warmup > INT32_MAX) arg_error(L, kOptions, kFname, "option 'warmup_rounds': an integer >= 0 expected");
    s.warmup_rounds = static_cast<int>(warmup);
    s.quiet = opt_bool(L, kOptions, "quiet", kFname).value_or(false);
    s.timing_seconds = opt_number(L, kOptions, "timing_seconds", kFname).value_or(s.timing_seconds);
    if (!(s.timing_seconds >= 0 && s.timing_seconds <= 3600))
        arg_error(L, kOptions, kFname, "option 'timing_seconds': a number of seconds from 0 to 3600 expected");
    read_op_counts(L, s);
    s.parameter_sets = read_parameter_sets(L);
    s.rtol = opt_number(L, kOptions, "rtol", kFname).value_or(s.rtol);
    s.atol = opt_number(L, kOptions, "atol", kFname).value_or(s.atol);
    s.seed = static_cast<std::uint64_t>(opt_integer(L, kOptions, "seed", kFname).value_or(0));
    read_dtypes(L, s);
    s.executors = push_executors(L);
    return s;
}

// --- types

// The default type for every array argument still untyped (only the inputs with `inputs_only`).
std::map<std::string, DType> untyped_arrays(const KernelData& k, bool inputs_only, DType dtype) {
    std::map<std::string, DType> out;
    for (const Variable& v : k.args)
        if (v.kind != VarKind::ValueArg && v.dtype == DType::Unknown && (!inputs_only || v.is_input.value_or(false)))
            out[v.name] = dtype;
    return out;
}

// Array types the kernel leaves open: those `dtypes` names, then the default for the inputs, all at once
// (typed one by one, a realized reduction's accumulator would be typed from the inputs known so far), then
// for the outputs whose type does not follow from the inputs. Value arguments are typed by the call from the
// parameter values.
Kernel with_array_types(Kernel k, const Settings& s) {
    for (const auto& [name, dtype] : s.dtypes) {
        const Variable* v = k.find_variable(name);
        user_assert(v && v->is_arg(), error_kind::LoopyError, kFname, ": option 'dtypes' names '", name,
                    "', which is not an argument of kernel '", k->name, "'");
    }
    std::map<std::string, DType> given;
    for (const Variable& v : k->args)
        if (v.dtype == DType::Unknown && s.dtypes.count(v.name)) given[v.name] = s.dtypes.at(v.name);
    if (!given.empty()) k = add_and_infer_dtypes(k, given);
    for (const bool inputs_only : {true, false}) {
        const std::map<std::string, DType> open = untyped_arrays(*k, inputs_only, s.default_dtype);
        if (!open.empty()) k = add_and_infer_dtypes(k, open);
    }
    return k;
}

// A value argument left untyped is typed by the call from its value, so it agrees with any type; whether
// with_array_types' inference typed it depends only on which arrays were open.
bool same_dtype(const Variable& r, const Variable& t) {
    if (r.kind == VarKind::ValueArg && (r.dtype == DType::Unknown || t.dtype == DType::Unknown)) return true;
    return r.dtype == t.dtype;
}

// loopy's check: the same arguments, in the same order, of the same types.
void check_same_arguments(const KernelData& ref, const KernelData& test) {
    user_assert(ref.args.size() == test.args.size(), error_kind::LoopyError,
                "ref_knl and test_knl do not have the same number of arguments");
    for (std::size_t i = 0; i < ref.args.size(); ++i) {
        const Variable& r = ref.args[i];
        const Variable& t = test.args[i];
        user_assert(r.name == t.name && same_dtype(r, t), error_kind::LoopyError,
                    "ref_knl and test_knl argument lists disagree at index ", i + 1, " (1-based): '", r.name, "' (",
                    dtype_name(r.dtype), ") vs '", t.name, "' (", dtype_name(t.dtype), ")");
    }
}

// --- arrays

// Random contents: uniform [0, 1) for floats (and each part of a complex), 1..16 for integers (never 0, so
// that divisions stay defined), false/true for bools.
HostArray random_array(const std::vector<std::int64_t>& shape, DType dtype, std::mt19937_64& gen) {
    if (is_float(dtype) || is_complex(dtype)) return HostArray::rand(shape, dtype, gen);
    HostArray a = HostArray::zeros(shape, dtype);
    backend::each_element(shape, contiguous_strides(shape, 'C'), 0, [&](const HostArray::Index& i, std::int64_t) {
        const auto draw = static_cast<std::int64_t>(gen() % 16);
        if (dtype == DType::Bool) a.set(i, draw % 2 == 1);
        else a.set(i, draw + 1);
    });
    return a;
}

std::string parameters_text(const Parameters& p) {
    std::vector<std::string> parts;
    for (const auto& [name, v] : p.ints) parts.push_back(cat(name, "=", v));
    for (const auto& [name, v] : p.floats) parts.push_back(cat(name, "=", v));
    return parts.empty() ? "no parameters" : join(parts, ", ");
}

// The random arguments of one test: an array per array argument (C order), shaped at the parameters.
std::map<std::string, HostArray> random_arguments(const KernelData& k, const Parameters& p, std::mt19937_64& gen) {
    for (const Variable& v : k.args)
        user_assert(v.kind != VarKind::ValueArg || p.ints.count(v.name) || p.floats.count(v.name), error_kind::LoopyError,
                    kFname, ": value argument '", v.name, "' needs a value in 'parameters'");
    for (const Variable& v : k.args)
        user_assert(!v.no_shape, error_kind::LoopyError, kFname, ": argument '", v.name,
                    "' has no shape (lp.none), so no test data can be made for it: declare its shape");
    std::map<std::string, HostArray> out;
    for (const Variable& v : k.args)
        if (v.kind != VarKind::ValueArg) out.emplace(v.name, random_array(backend::eval_shape(v, p.ints), v.dtype, gen));
    return out;
}

// An argument's array inside a larger allocation whose bytes before and after it hold kGuardByte: a kernel
// that writes past its arguments changes them, which comparing the arguments alone would not notice (and on
// the C executor such a write corrupts the host's heap, to show up later, if ever, somewhere else).
// kGuardBytes, a multiple of every element size, keeps the array as aligned as the allocation (64 bytes).
constexpr std::size_t kGuardBytes = 4096;
constexpr unsigned char kGuardByte = 0xA5;

struct GuardedArray {
    HostArray array;  // what the kernel gets
    HostArray whole;  // the allocation: guard, array, guard, each guard kGuardBytes
};

// An array of the layout of `layout` in guard zones; its elements are left for the caller to set.
GuardedArray guarded(const HostArray& layout) {
    const auto guard = static_cast<std::int64_t>(kGuardBytes / dtype_size(layout.dtype()));
    const std::int64_t span = storage_span(layout.shape(), layout.strides());
    GuardedArray g{layout, HostArray::empty({guard + span + guard}, layout.dtype())};
    std::memset(g.whole.data(), kGuardByte, g.whole.nbytes());
    std::byte* const start = static_cast<std::byte*>(g.whole.data()) + kGuardBytes;
    g.array = HostArray::wrap(start, layout.dtype(), layout.shape(), layout.strides(), std::make_shared<HostArray>(g.whole));
    return g;
}

// AutomaticTestFailure when a run changed a guard byte of argument `name`.
void check_guard_zones(const std::string& name, const GuardedArray& g, const std::string& which, const std::string& where) {
    const auto* bytes = static_cast<const unsigned char*>(g.whole.data());
    const std::size_t end = g.whole.nbytes() - kGuardBytes;  // of the array
    for (std::size_t b = 0; b < kGuardBytes; ++b)
        if (bytes[b] != kGuardByte)
            user_error("AutomaticTestFailure", which, " wrote outside argument '", name, "' ", where, ": ", kGuardBytes - b,
                       " bytes before its first element");
    for (std::size_t b = g.whole.nbytes(); b-- > end;)
        if (bytes[b] != kGuardByte)
            user_error("AutomaticTestFailure", which, " wrote outside argument '", name, "' ", where, ": ", b - end + 1,
                       " bytes past its end");
}

// A fresh copy of `values` laid out as `v` declares it, so that the call takes it as is and writes into it, in
// guard zones.
GuardedArray argument_copy(const Variable& v, const HostArray& values, const Parameters& p) {
    const std::vector<std::int64_t> shape = backend::eval_shape(v, p.ints);
    user_assert(shape == values.shape(), error_kind::LoopyError, kFname, ": argument '", v.name, "' has shape ",
                shape_string(shape), " in test_knl but ", shape_string(values.shape()), " in ref_knl");
    GuardedArray out = guarded(backend::array_memory(v, nullptr, p.ints).logical);
    backend::each_element(shape, contiguous_strides(shape, 'C'), 0,
                 [&](const HostArray::Index& i, std::int64_t) { out.array.set(i, values.get(i)); });
    return out;
}

// --- running

// The kind and message of the error object at `idx` (a Loom error keeps its kind).
std::pair<std::string, std::string> error_of(lua_State* L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_istable(L, idx)) {
        get_field(L, idx, "kind");
        get_field(L, idx, "message");
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TSTRING) {
            std::pair<std::string, std::string> out{lua_tostring(L, -2), lua_tostring(L, -1)};
            lua_pop(L, 2);
            return out;
        }
        lua_pop(L, 2);
    }
    return {error_kind::LoopyError, to_display_string(L, idx)};
}

std::string executor_target(lua_State* L, int exec) {
    get_field(L, exec, "target");
    std::string out = lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
}

using Arguments = std::map<std::string, GuardedArray>;

// Pushes the argument table of a call of `k` with copies of `inputs` in its layout (kept in `arrays`).
void push_arguments(lua_State* L, const KernelData& k, const std::map<std::string, HostArray>& inputs,
                    const Parameters& p, Arguments& arrays) {
    lua_newtable(L);
    for (const Variable& v : k.args) {
        if (v.kind == VarKind::ValueArg) {
            if (p.ints.count(v.name)) lua_pushinteger(L, p.ints.at(v.name));
            else lua_pushnumber(L, p.floats.at(v.name));
        } else {
            push_array(L, arrays.emplace(v.name, argument_copy(v, inputs.at(v.name), p)).first->second.array);
        }
        lua_setfield(L, -2, v.name.c_str());
    }
}

void check_guards(lua_State* L, const Arguments& arrays, int exec, const Parameters& p, const char* which) {
    const std::string where = cat("on the ", executor_target(L, exec), " executor (", parameters_text(p), ")");
    for (const auto& [name, g] : arrays) check_guard_zones(name, g, which, where);
}

// A protected call of the function and `nargs` arguments on the stack: an error of the kernel call must not
// unwind through this function, and is reported naming `which` kernel, the executor and the parameters.
void call_protected(lua_State* L, int nargs, int nresults, int exec, const Parameters& p, const char* which) {
    if (lua_pcall(L, nargs, nresults, 0) == LUA_OK) return;
    const auto [kind, message] = error_of(L, -1);
    lua_pop(L, 1);
    throw Error(kind, cat(kFname, ": running ", which, " on the ", executor_target(L, exec), " executor (",
                          parameters_text(p), "): ", message));
}

// Runs the kernel at stack index `knl` on the executor at `exec` through its __call, with copies of
// `inputs` in its layout; returns the arrays it ran on (its outputs written in place).
Arguments run(lua_State* L, int knl, int exec, const std::map<std::string, HostArray>& inputs, const Parameters& p,
              const char* which) {
    Arguments arrays;
    lua_pushvalue(L, knl);
    lua_pushvalue(L, exec);
    push_arguments(L, *check_kernel(L, knl, kFname).kernel, inputs, p, arrays);
    call_protected(L, 2, 0, exec, p, which);
    check_guards(L, arrays, exec, p, which);
    return arrays;
}

// lp.time(knl, exec, {...}, {warmup=, runs=}) on copies of `inputs`: the total seconds of the timed runs.
double time_runs(lua_State* L, int knl, int exec, const std::map<std::string, HostArray>& inputs, const Parameters& p,
                 int warmup, int runs, const char* which) {
    Arguments arrays;
    lua_pushvalue(L, kTime);
    lua_pushvalue(L, knl);
    lua_pushvalue(L, exec);
    push_arguments(L, *check_kernel(L, knl, kFname).kernel, inputs, p, arrays);
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, warmup);
    lua_setfield(L, -2, "warmup");
    lua_pushinteger(L, runs);
    lua_setfield(L, -2, "runs");
    call_protected(L, 4, 2, exec, p, which);
    check_guards(L, arrays, exec, p, which);
    double total = 0;
    for (lua_Integer i = 1; i <= runs; ++i) {
        lua_rawgeti(L, -1, i);
        total += lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 2);
    return total;
}

// loopy's rates: " 1.5e+09 flop/s" for each operation count done in `seconds`.
std::string rates(const Settings& s, double seconds) {
    std::string out;
    char rate[64];
    for (std::size_t i = 0; i < s.op_count.size(); ++i) {
        std::snprintf(rate, sizeof rate, " %g ", s.op_count[i] / seconds);
        out += rate + s.op_label[i] + "/s";
    }
    return out;
}

// loopy's timing of test_knl: warm-up runs, then rounds that grow fourfold until they take s.timing_seconds.
Timing time_test(lua_State* L, int ref, int test, int exec, const std::map<std::string, HostArray>& inputs,
                 const Parameters& p, const Settings& s) {
    Timing t{executor_target(L, exec), parameters_text(p)};
    t.ref_elapsed_wall = time_runs(L, ref, exec, inputs, p, 0, 1, "ref_knl");
    t.timing_rounds = std::max(s.warmup_rounds, 1);
    double total = time_runs(L, test, exec, inputs, p, s.warmup_rounds, t.timing_rounds, "test_knl");
    while (total < s.timing_seconds && t.timing_rounds <= INT32_MAX / 4) {
        t.timing_rounds *= 4;
        total = time_runs(L, test, exec, inputs, p, 0, t.timing_rounds, "test_knl");
    }
    t.elapsed_wall = total / t.timing_rounds;
    if (!s.quiet)
        std::printf("elapsed: %g s wall (%d rounds)%s on the %s executor (%s)\nref: elapsed: %g s wall%s\n",
                    t.elapsed_wall, t.timing_rounds, rates(s, t.elapsed_wall).c_str(), t.target.c_str(),
                    t.parameters.c_str(), t.ref_elapsed_wall, rates(s, t.ref_elapsed_wall).c_str());
    return t;
}

void set_timing_fields(lua_State* L, const Timing& t) {
    lua_pushnumber(L, t.elapsed_wall);
    lua_setfield(L, -2, "elapsed_wall");
    lua_pushinteger(L, t.timing_rounds);
    lua_setfield(L, -2, "timing_rounds");
    lua_pushnumber(L, t.ref_elapsed_wall);
    lua_setfield(L, -2, "ref_elapsed_wall");
}

// The result: a list of the timings, one per parameter set and executor, which also carries the first one's
// fields, so that a call in loopy's form (one executor, one parameter set) reads as loopy's result dict.
void push_timings(lua_State* L, const std::vector<Timing>& timings) {
    lua_createtable(L, static_cast<int>(timings.size()), 3);
    for (std::size_t i = 0; i < timings.size(); ++i) {
        lua_createtable(L, 0, 5);
        set_timing_fields(L, timings[i]);
        lua_pushstring(L, timings[i].target.c_str());
        lua_setfield(L, -2, "target");
        lua_pushstring(L, timings[i].parameters.c_str());
        lua_setfield(L, -2, "parameters");
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    if (!timings.empty()) set_timing_fields(L, timings.front());
}

std::string element_text(const HostArray& a, const HostArray::Index& i) {
    const std::complex<double> z = a.get_complex(i);
    std::ostringstream os;
    os.precision(9);
    if (is_complex(a.dtype())) os << "(" << z.real() << (z.imag() < 0 ? "" : "+") << z.imag() << "j)";
    else os << z.real();
    return os.str();
}

// Raises AutomaticTestFailure at the first element (in C order) of `got` not close to `expected`.
void compare(const std::string& name, const HostArray& expected, const HostArray& got, const Settings& s,
             const std::string& where) {
    std::optional<HostArray::Index> first;
    std::int64_t differing = 0;
    backend::each_element(expected.shape(), contiguous_strides(expected.shape(), 'C'), 0,
                 [&](const HostArray::Index& i, std::int64_t) {
                     if (isclose(got.get_complex(i), expected.get_complex(i), s.rtol, s.atol)) return;
                     ++differing;
                     if (!first) first = i;
                 });
    if (!first) return;
    std::vector<std::string> index;
    for (const std::int64_t x : *first) index.push_back(std::to_string(x));
    user_error("AutomaticTestFailure", "results do not match for '", name, "' ", where, ": at ", name, "[",
               join(index, ", "), "] expected ", element_text(expected, *first), " (ref_knl), got ",
               element_text(got, *first), " (test_knl); ", differing, " of ", expected.size(),
               " elements differ (rtol=", s.rtol, ", atol=", s.atol, ")");
}

// Loopy's argument order, (ref_knl, queue, test_knl, {...}), tests on that executor only: it moves to
// kLoopyExecutor, so the stack reads (ref_knl, test_knl, options, executor or nil) in both orders.
void normalize_arguments(lua_State* L) {
    lua_settop(L, kLoopyExecutor);
    if (is_executor(L, 2)) {
        lua_rotate(L, 2, -1);
    } else {
        lua_pushnil(L);
        lua_replace(L, kLoopyExecutor);
    }
}

int auto_test_vs_ref(lua_State* L) {
    normalize_arguments(L);
    const Kernel ref_in = check_kernel(L, 1, kFname).kernel;
    const Kernel test_in = lua_isnoneornil(L, 2) ? ref_in : check_kernel(L, 2, kFname).kernel;
    const Settings s = read_settings(L);
    const Kernel ref = with_array_types(ref_in, s);
    const Kernel test = with_array_types(test_in, s);
    check_same_arguments(*ref, *test);
    push_kernel(L, ref);
    const int ref_idx = lua_gettop(L);
    push_kernel(L, test);
    const int test_idx = lua_gettop(L);

    std::mt19937_64 gen(s.seed);
    std::vector<Timing> timings;
    for (const Parameters& p : s.parameter_sets) {
        const std::map<std::string, HostArray> inputs = random_arguments(*ref, p, gen);
        for (const int exec : s.executors) {
            const auto expected = run(L, ref_idx, exec, inputs, p, "ref_knl");
            const auto got = run(L, test_idx, exec, inputs, p, "test_knl");
            const std::string where = cat("on the ", executor_target(L, exec), " executor (", parameters_text(p), ")");
            for (const Variable& v : ref->args)
                if (v.kind != VarKind::ValueArg && v.is_output.value_or(false))
                    compare(v.name, expected.at(v.name).array, got.at(v.name).array, s, where);
            timings.push_back(time_test(L, ref_idx, test_idx, exec, inputs, p, s));
        }
    }
    push_timings(L, timings);
    return 1;
}

const luaL_Reg kFunctions[] = {{"auto_test_vs_ref", trampoline<auto_test_vs_ref>}, {nullptr, nullptr}};

}  // namespace

void register_auto_test_api(lua_State* L, int module_table) {
    lua_pushvalue(L, module_table);
    lua_getfield(L, -1, "time");  // the upvalue kTime
    luaL_setfuncs(L, kFunctions, 1);
    lua_pop(L, 1);
}

}  // namespace loom::lua
