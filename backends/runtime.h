// What every execution target implements: build generated source once, then run its device kernels on
// host buffers. The engine (src/) never sees these types; backends/invoker.h connects the two.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "expr/dtype.h"

namespace loom::backend {

/// One parameter of a device kernel, in signature order.
struct ParamSpec {
    std::string name;
    DType dtype = DType::Unknown;
    bool is_pointer = false;  // a global/constant array; otherwise a scalar passed by value
};

struct KernelSpec {
    std::string name;
    std::vector<ParamSpec> params;
};

/// An executor's memory for one array that lives across calls (a device array): device memory on OpenCL, host
/// memory on the C target. Releasing it while enqueued kernels still use it is safe: the runtime keeps it until
/// they are done.
class DeviceBuffer {
public:
    virtual ~DeviceBuffer() = default;
    virtual std::size_t bytes() const = 0;
    /// Its host address where the executor's kernels work on host memory (the C target), otherwise null.
    virtual void* host() const { return nullptr; }
};

/// The memory of one array argument of a call: host memory (copied to the device and back as needed), or a
/// device array's buffer, used in place and never transferred.
struct Buffer {
    void* host = nullptr;
    std::size_t bytes = 0;
    bool read = true;      // contents must reach the device before the first launch
    bool written = false;  // contents must come back after the last launch
    DeviceBuffer* device = nullptr;  // kept alive by the caller for the call (and by the runtime after it)
};

/// A kernel argument: an index into the call's buffers, or a scalar of the parameter's dtype.
struct Arg {
    enum class Kind { Buffer, Int, Float, Complex } kind = Kind::Int;
    std::size_t buffer = 0;
    std::int64_t i = 0;
    double f = 0;   // Float, and the real part of a Complex
    double im = 0;  // Complex: the imaginary part
};

/// One device-kernel launch. `groups` and `local` are counts per axis (OpenCL: global = groups * local);
/// targets that run the grid themselves (C) ignore them.
struct Launch {
    std::size_t kernel = 0;  // index into the program's KernelSpecs
    std::vector<Arg> args;   // one per ParamSpec
    std::array<std::size_t, 3> groups{1, 1, 1};
    std::array<std::size_t, 3> local{1, 1, 1};
    unsigned dims = 1;
};

/// A built program: launching is cheap, building happened once. Any thread may run it, one at a time.
class Program {
public:
    virtual ~Program() = default;
    /// Runs the launches in order on the given buffers (copying in what is read, out what is written). When every
    /// buffer is a device buffer it returns once the launches are enqueued (Executor::finish waits for them);
    /// otherwise once they are done. Errors are loom::Error of kind "RuntimeError".
    virtual void run(std::vector<Buffer>& buffers, const std::vector<Launch>& launches) = 0;
    /// Like run, but the launches are repeated: `warmup` times untimed, then `runs` times timed, with the
    /// buffers copied in before the first and out after the last only. Returns the seconds of each timed
    /// repetition (all launches of the call, without transfers).
    virtual std::vector<double> time(std::vector<Buffer>& buffers, const std::vector<Launch>& launches, int warmup,
                                     int runs) = 0;
};

/// Seconds on a steady clock, from an arbitrary start: differences are wall-clock durations.
double wall_seconds();

/// Calls `repetition` `warmup` times, then `runs` times, and returns the wall-clock seconds of each of the
/// latter (steady clock).
std::vector<double> time_repetitions(int warmup, int runs, const std::function<void()>& repetition);

/// The median of `seconds` (not empty): what lp.time reports of its repetitions.
double median(std::vector<double> seconds);

/// How the programs an executor was asked for were obtained: a program found in its memory cache counts nowhere.
struct BuildCounts {
    std::size_t compiled = 0;  // compiled from the generated source
    std::size_t loaded = 0;    // loaded from the disk cache
    std::size_t shared = 0;    // already built for the device by another executor (a queue of the same context)
};

/// How much private memory (private temporaries) one work-item, and the work-items of one group together, may
/// hold on an executor's device: private arrays live on a thread's stack in the host's process on the C target
/// and on CPU OpenCL devices (PoCL keeps a group's copies together), where more is a crash, not an error. Zero:
/// no limit here (a GPU's compiler refuses what does not fit).
struct PrivateMemoryLimits {
    std::size_t per_work_item = 0;
    std::size_t per_work_group = 0;
};

class Executor {
public:
    virtual ~Executor() = default;
    /// "opencl" or "c": which code the engine must generate for this executor.
    virtual std::string target() const = 0;
    /// Human-readable device description.
    virtual std::string description() const = 0;
    /// Executors with the same memory domain use each other's device buffers: OpenCL queues of one context, and
    /// all C executors (host memory).
    virtual const void* memory_domain() const = 0;
    /// Builds (or finds in the memory / on-disk cache) a program. Compile failures raise loom::Error of kind
    /// "BuildError" whose message holds the compiler log and the generated source. Safe to call from several
    /// threads at once (a WorkerPool's builds), and concurrently with running other programs.
    virtual std::shared_ptr<Program> build(const std::string& source, const std::vector<KernelSpec>& kernels,
                                           const std::vector<std::string>& options) = 0;

    /// New zero-filled memory for a device array (its contents are never stale host or device memory).
    virtual std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) = 0;
    /// Copies `bytes` from host memory into `to`, after every command enqueued before; returns when done.
    virtual void write(DeviceBuffer& to, const void* from, std::size_t bytes) = 0;
    /// Copies `bytes` of `from` into host memory, after every command enqueued before; returns when done.
    virtual void read(const DeviceBuffer& from, void* to, std::size_t bytes) = 0;
    /// Enqueues a copy of `from` into `to` (of the same size) after every command enqueued before.
    virtual void copy(const DeviceBuffer& from, DeviceBuffer& to) = 0;
    /// Waits for every command enqueued so far.
    virtual void finish() = 0;
    virtual BuildCounts build_counts() const = 0;
    virtual PrivateMemoryLimits private_memory_limits() const { return {}; }
};

/// The on-disk cache directory: a sandboxed state's own (support/limits.h), else $LOOM_CACHE_DIR, else
/// $XDG_CACHE_HOME/loom, else ~/.cache/loom. Empty when caching is disabled.
std::string cache_dir();
void set_disk_caching(bool enabled);

/// Writes `data` to `path` atomically (temporary file in the same directory, then rename), so that concurrent
/// processes building the same thing both succeed.
void write_file_atomically(const std::string& path, const std::string& data);

}  // namespace loom::backend
