// What every execution target implements: build generated source once, then run its device kernels on
// host buffers. The engine (src/) never sees these types; the Lua layer connects the two.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

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

/// Host memory that the kernels of one call read and write.
struct Buffer {
    void* host = nullptr;
    std::size_t bytes = 0;
    bool read = true;      // contents must reach the device before the first launch
    bool written = false;  // contents must come back after the last launch
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

/// A built program: launching is cheap, building happened once.
class Program {
public:
    virtual ~Program() = default;
    /// Runs the launches in order on the given buffers (copying in what is read, out what is written).
    /// Errors are loom::Error of kind "RuntimeError".
    virtual void run(std::vector<Buffer>& buffers, const std::vector<Launch>& launches) = 0;
    /// Like run, but the launches are repeated: `warmup` times untimed, then `runs` times timed, with the
    /// buffers copied in before the first and out after the last only. Returns the seconds of each timed
    /// repetition (all launches of the call, without transfers).
    virtual std::vector<double> time(std::vector<Buffer>& buffers, const std::vector<Launch>& launches, int warmup,
                                     int runs) = 0;
};

/// Calls `repetition` `warmup` times, then `runs` times, and returns the wall-clock seconds of each of the
/// latter (steady clock).
std::vector<double> time_repetitions(int warmup, int runs, const std::function<void()>& repetition);

class Executor {
public:
    virtual ~Executor() = default;
    /// "opencl" or "c": which code the engine must generate for this executor.
    virtual std::string target() const = 0;
    /// Human-readable device description.
    virtual std::string description() const = 0;
    /// Builds (or finds in the memory / on-disk cache) a program. Compile failures raise loom::Error of kind
    /// "BuildError" whose message holds the compiler log and the generated source.
    virtual std::shared_ptr<Program> build(const std::string& source, const std::vector<KernelSpec>& kernels,
                                           const std::vector<std::string>& options) = 0;
};

/// The on-disk cache directory: $LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else ~/.cache/loom.
/// Empty when caching is disabled.
std::string cache_dir();
void set_disk_caching(bool enabled);

/// Writes `data` to `path` atomically (temporary file in the same directory, then rename), so that concurrent
/// processes building the same thing both succeed.
void write_file_atomically(const std::string& path, const std::string& data);

}  // namespace loom::backend
