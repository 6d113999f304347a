// Calling a kernel from C++: the arguments by name, the values not passed found from the arrays' shapes, the
// build for the arguments' types (cached per executor and types), the memory and launches of the call, and a
// plan per argument signature that repeated calls run without redoing any of it. The Lua binding only reads
// its arguments into these types and pushes what a call returns (loopy's invoker, without Python).
#pragma once

#include <complex>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/device_array.h"
#include "backends/host/host_array.h"
#include "backends/runtime.h"
#include "backends/worker_pool.h"
#include "codegen/lower.h"
#include "ir/kernel.h"

namespace loom::backend {

/// The arguments of one call, by name. Value arguments not passed are found from the shapes of the arrays
/// that are (n from `a` of shape (n)); outputs not passed are allocated.
struct CallArgs {
    std::map<std::string, HostArray> arrays;
    std::map<std::string, DeviceArray> device_arrays;
    std::map<std::string, std::vector<HostArray>> piece_lists;  // sep arguments given as their separate arrays
    std::map<std::string, std::int64_t> ints;
    std::map<std::string, double> floats;
    std::map<std::string, std::complex<double>> complexes;
    std::map<std::string, DType> value_types;  // the natural types of the values passed (of untyped arguments)

    /// An integer value: int32 where it fits, else int64 (as Lua's integers and numpy's scalars type).
    void set_integer(const std::string& name, std::int64_t value);
    /// A float value (float64).
    void set_float(const std::string& name, double value);
    /// A complex value (complex128).
    void set_complex(const std::string& name, std::complex<double> value);
};

/// What a call returns for one written argument: an array, or the (nested) list of the separate arrays it was
/// given as. Host arrays passed for an output are written in place and returned themselves.
struct Output {
    std::string name;
    std::vector<HostArray> arrays;
    std::vector<std::int64_t> list_extents;  // empty: one array
    std::optional<DeviceArray> device;       // instead of `arrays`: a device array
};

/// What a build gives: the program, and the seconds the build took (compiling, or finding it in a cache).
struct BuiltProgram {
    std::shared_ptr<Program> program;
    double seconds = 0;
};

/// A kernel built for one executor and one combination of argument types.
struct CompiledKernel {
    Kernel typed;  // the kernel with every type known
    GeneratedCode code;
    /// The program: built already, or being built by a worker (lp.workers). A failed build keeps its error.
    std::shared_future<BuiltProgram> build;
    std::shared_ptr<Executor> executor;  // kept alive: the build cache is keyed by its address

    /// The program once built; raises the build's error.
    Program& program() const { return *build.get().program; }
};

/// A timed call in two parts, so that the first may run on another thread: `time` runs the launches (warm-up,
/// then timed repetitions) and returns the seconds of each repetition; `finish`, on the caller's thread
/// afterwards, copies staged outputs back into the caller's arrays. Neither holds engine objects, which only the
/// thread that owns the kernel may release.
struct TimedCall {
    std::function<std::vector<double>()> time;
    std::function<void()> finish;
};

/// What a call with the same argument signature as an earlier one reuses: the build, the checks, the buffers'
/// sizes and flags, and the launches. Only the memory (passed, or allocated anew) and the values of float
/// arguments differ between such calls. Calls with staged or split arrays, complex values or declared alignments
/// take the general path every time.
struct CallPlan {
    /// One argument of the kernel as the call that made the plan had it.
    struct Slot {
        enum class Kind { Absent, Host, Device, Integer, Float } kind = Kind::Absent;
        std::string name;
        DType dtype = DType::Unknown;
        HostArray::Shape shape, strides;  // arrays
        std::int64_t integer = 0;          // Integer: its value (it may decide shapes and the grid)
    };
    /// Where a buffer's memory comes from on each call.
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

    const Executor* exec = nullptr;
    std::vector<Slot> slots;  // one per argument of the kernel, in order
    std::shared_ptr<CompiledKernel> built;
    std::vector<Buffer> buffers;  // sizes and flags; the addresses are each call's
    std::map<std::string, std::size_t> buffer_of;
    std::vector<Source> sources;
    std::vector<Launch> launches;
    std::vector<FloatPatch> floats;
    std::vector<std::pair<std::string, std::size_t>> outputs;  // name and buffer, in return order
};

/// One argument of a planned call as its slot's kind reads it, borrowed from the caller for the call.
struct PlanArg {
    bool of_kind = false;  // the value is of the slot's kind (Absent: none was passed; arrays: the pointer is set)
    const HostArray* host = nullptr;
    const DeviceArray* device = nullptr;
    std::int64_t integer = 0;
    double number = 0;
};

struct PreparedCall;

/// A kernel's invoker: one per kernel, holding its builds and the plans of the argument signatures it was
/// called with. Not thread-safe: its kernel's engine objects must be used and released on one thread.
class Invoker {
public:
    explicit Invoker(Kernel kernel) : kernel_(std::move(kernel)) {}

    const Kernel& kernel() const { return kernel_; }

    /// Runs the kernel on `exec` and returns its outputs in argument order. With `keep_plan`, a call whose
    /// arguments allow it leaves a plan that call_planned runs. ArgumentError for arguments that do not fit the
    /// kernel (unknown names, wrong dtypes or shapes, values that cannot be found).
    std::vector<Output> call(const std::shared_ptr<Executor>& exec, CallArgs args, bool keep_plan = false);

    /// The plans of earlier calls, most recent last.
    const std::vector<std::shared_ptr<CallPlan>>& plans() const { return plans_; }

    /// Runs `plan` with `args` (one per slot) when they match its signature; nothing (and nothing done) when
    /// they do not.
    std::optional<std::vector<Output>> call_planned(CallPlan& plan, const std::vector<PlanArg>& args);

    /// Runs the first plan made on `exec` that fits a call of `passed` arguments: `read(slot, given)` gives the
    /// call's value for each of its slots (and whether the call passed one), each must be of its slot's kind,
    /// and every argument passed must be a slot's. Nothing (and nothing done) when no plan fits.
    std::optional<std::vector<Output>> call_fitting_plan(
        const Executor* exec, std::size_t passed, const std::function<PlanArg(const CallPlan::Slot&, bool& given)>& read);

    /// The build for a call of `args` on `exec`: found in the build cache, or the code generated now and built
    /// here, or by `workers` when given (then the build is under way when this returns).
    std::shared_ptr<CompiledKernel> build(const std::shared_ptr<Executor>& exec, CallArgs args,
                                          WorkerPool* workers = nullptr);

    /// Prepares a call to be timed (its build is waited for): `warmup` untimed repetitions, then `runs` timed.
    TimedCall prepare_timed(const std::shared_ptr<Executor>& exec, CallArgs args, int warmup, int runs);

private:
    PreparedCall prepare(const std::shared_ptr<Executor>& exec, CallArgs args);
    std::shared_ptr<CompiledKernel> compile(const std::shared_ptr<Executor>& exec,
                                            const std::map<std::string, DType>& dtypes, WorkerPool* workers);
    void remember(std::shared_ptr<CallPlan> plan);

    Kernel kernel_;
    std::map<std::string, std::shared_ptr<CompiledKernel>> builds_;
    std::vector<std::shared_ptr<CallPlan>> plans_;
};

/// The argument `name` of `k`; ArgumentError naming the kernel when it has none.
const Variable& argument_named(const KernelData& k, const std::string& name);

/// The extents of the sep axes of `v`: how its separate arrays are nested in lists.
std::vector<std::int64_t> sep_extents(const Variable& v);

}  // namespace loom::backend
