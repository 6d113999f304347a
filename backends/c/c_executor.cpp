#include "backends/c/c_executor.h"

#include <dlfcn.h>
#include <ffi.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include "backends/cache.h"
#include "backends/scalar_arg.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/process.h"
#include "support/strings.h"

namespace loom::backend {

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------------------------
// Running the compiler

std::string erase_all(std::string text, const std::string& part) {
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at))
        text.erase(at, part.size());
    return text;
}

/// A private directory (mode 0700), removed with everything in it when done.
class TempDir {
public:
    /// A new directory in `parent`, or nothing (with the reason in `why`) when none can be made there.
    static std::unique_ptr<TempDir> create(const fs::path& parent, std::string& why) {
        std::error_code ec;
        fs::create_directories(parent, ec);
        std::string name = (parent / "build-XXXXXX").string();
        if (ec) why = ec.message();
        else if (::mkdtemp(name.data()) == nullptr) why = std::strerror(errno);
        else return std::unique_ptr<TempDir>(new TempDir(name));
        return nullptr;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }

private:
    explicit TempDir(fs::path path) : path_(std::move(path)) {}
    fs::path path_;
};

// ---------------------------------------------------------------------------------------------------------------
// Loading and calling

/// A loaded shared object, its size charged to the memory limit (support/limits.h) while it stays loaded.
struct Library {
    std::shared_ptr<void> handle;
    MemoryCharge charge;
    explicit operator bool() const { return handle != nullptr; }
};

/// The loaded shared object, or nothing (with dlerror()'s reason in `why`).
Library open_library(const std::string& path, std::string* why = nullptr) {
    std::error_code unknown_size;  // then 0: dlopen fails too
    MemoryCharge charge(fs::file_size(path, unknown_size), "compiled code");
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        if (why) *why = ::dlerror();
        return {};
    }
    return {std::shared_ptr<void>(handle, [](void* h) { ::dlclose(h); }), std::move(charge)};
}

ffi_type* ffi_type_for(const ParamSpec& param) {
    if (param.is_pointer) return &ffi_type_pointer;
    switch (param.dtype) {
        case DType::Bool:
        case DType::UInt8: return &ffi_type_uint8;
        case DType::Int8: return &ffi_type_sint8;
        case DType::Int16: return &ffi_type_sint16;
        case DType::Int32: return &ffi_type_sint32;
        case DType::Int64: return &ffi_type_sint64;
        case DType::UInt16: return &ffi_type_uint16;
        case DType::UInt32: return &ffi_type_uint32;
        case DType::UInt64: return &ffi_type_uint64;
        case DType::Float32: return &ffi_type_float;
        case DType::Float64: return &ffi_type_double;
        case DType::Complex64: return &ffi_type_complex_float;
        case DType::Complex128: return &ffi_type_complex_double;
        default:
            user_error(error_kind::RuntimeError, "parameter '", param.name, "': scalar arguments of type ",
                       dtype_name(param.dtype), " are not supported by the C runtime");
    }
}

/// One function of the loaded library with its call interface, prepared once so that a call costs no setup.
struct CKernel {
    void (*function)() = nullptr;
    std::vector<ffi_type*> types;  // the cif points into this: a CKernel never moves once prepared
    ffi_cif cif{};
};

std::unique_ptr<CKernel> prepare_kernel(void* library, const KernelSpec& spec) {
    auto kernel = std::make_unique<CKernel>();
    void* symbol = ::dlsym(library, spec.name.c_str());
    user_assert(symbol != nullptr, error_kind::RuntimeError, "the compiled C code has no function '", spec.name, "'");
    kernel->function = reinterpret_cast<void (*)()>(symbol);
    for (const ParamSpec& p : spec.params) kernel->types.push_back(ffi_type_for(p));
    const ffi_status status = ffi_prep_cif(&kernel->cif, FFI_DEFAULT_ABI, static_cast<unsigned>(kernel->types.size()),
                                           &ffi_type_void, kernel->types.data());
    internal_assert(status == FFI_OK, "ffi_prep_cif failed for '", spec.name, "'");
    return kernel;
}

/// Keeps the library that defines `symbol` loaded until the process ends. Needed for the OpenMP runtime: its
/// worker threads outlive every parallel region, and the last dlclose of a kernel library would otherwise unmap
/// the runtime's code under them.
void pin_library_of(void* symbol) {
    Dl_info info{};
    if (::dladdr(symbol, &info) != 0 && info.dli_fname != nullptr)
        ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);  // never closed, on purpose
}

class CProgram final : public Program {
public:
    CProgram(Library library, std::vector<KernelSpec> specs, int threads)
        : library_(std::move(library)), specs_(std::move(specs)), threads_(threads) {
        for (const KernelSpec& spec : specs_) kernels_.push_back(prepare_kernel(library_.handle.get(), spec));
        // -fopenmp links the OpenMP runtime into the library, so dlsym on its handle finds OpenMP's API.
        void* set_num_threads = ::dlsym(library_.handle.get(), "omp_set_num_threads");
        if (set_num_threads == nullptr) return;
        pin_library_of(set_num_threads);
        if (threads_ > 0) set_num_threads_ = reinterpret_cast<void (*)(int)>(set_num_threads);
    }

    void run(std::vector<Buffer>& buffers, const std::vector<Launch>& launches) override {
        // OpenMP's thread count belongs to the calling thread, so it is set on every call, not once.
        if (set_num_threads_) set_num_threads_(threads_);
        for (const Launch& launch : launches) call(launch, buffers);
    }

    /// The C code works in place on host memory: there are no transfers to leave out.
    std::vector<double> time(std::vector<Buffer>& buffers, const std::vector<Launch>& launches, int warmup,
                             int runs) override {
        if (set_num_threads_) set_num_threads_(threads_);
        return time_repetitions(warmup, runs, [&] {
            for (const Launch& launch : launches) call(launch, buffers);
        });
    }

private:
    void call(const Launch& launch, const std::vector<Buffer>& buffers) const {
        internal_assert(launch.kernel < kernels_.size(), "no kernel ", launch.kernel);
        const KernelSpec& spec = specs_[launch.kernel];
        internal_assert(launch.args.size() == spec.params.size(), "kernel '", spec.name, "' called with ",
                        launch.args.size(), " arguments, not ", spec.params.size());
        std::vector<ScalarBytes> slots;
        std::vector<void*> values;
        slots.reserve(launch.args.size());  // `values` points into `slots`: no reallocation allowed
        for (std::size_t i = 0; i < launch.args.size(); ++i) {
            slots.push_back(argument(spec.params[i], launch.args[i], buffers));
            values.push_back(slots.back().bytes);
        }
        const CKernel& kernel = *kernels_[launch.kernel];
        ffi_call(const_cast<ffi_cif*>(&kernel.cif), kernel.function, nullptr, values.data());
    }

    /// Arrays are passed as the host pointer itself: the C code works in place.
    static ScalarBytes argument(const ParamSpec& param, const Arg& arg, const std::vector<Buffer>& buffers) {
        internal_assert(param.is_pointer == (arg.kind == Arg::Kind::Buffer), "argument '", param.name,
                        "': buffer/scalar mismatch");
        if (!param.is_pointer) return scalar_bytes(arg, param.dtype);
        internal_assert(arg.buffer < buffers.size(), "argument '", param.name, "': no buffer ", arg.buffer);
        return scalar_bytes_of(buffers[arg.buffer].host);
    }

    Library library_;  // first member: released last, after nothing can call into it
    std::vector<KernelSpec> specs_;
    std::vector<std::unique_ptr<CKernel>> kernels_;
    int threads_;
    void (*set_num_threads_)(int) = nullptr;
};

// ---------------------------------------------------------------------------------------------------------------
// Device arrays: the C code works on host memory, so they are host memory

/// Zero-filled host memory, 64-byte aligned as host arrays are (so that kernels declaring an alignment take it).
class HostBuffer final : public DeviceBuffer {
public:
    explicit HostBuffer(std::size_t bytes)
        : charge_(bytes, "a device array"),
          memory_(std::aligned_alloc(64, (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64)),
          bytes_(bytes) {
        if (!memory_) throw std::bad_alloc();
        std::memset(memory_.get(), 0, bytes_);
    }
    std::size_t bytes() const override { return bytes_; }
    void* host() const override { return memory_.get(); }

private:
    struct Free {
        void operator()(void* p) const { std::free(p); }
    };
    MemoryCharge charge_;  // first: nothing is allocated past the memory limit
    std::unique_ptr<void, Free> memory_;
    std::size_t bytes_;
};

void* host_of(const DeviceBuffer& b) {
    internal_assert(b.host() != nullptr, "the C executor was given a buffer of another executor");
    return b.host();
}

// ---------------------------------------------------------------------------------------------------------------
// Building

/// What -march=native depends on: a cache shared between machines (an NFS home) must not hand one CPU code built
/// for another.
const std::string& host_cpu() {
    static const std::string cpu = [] {
        std::ifstream in("/proc/cpuinfo");
        std::string line, features;
        while (std::getline(in, line) && !line.empty())  // the first processor's block
            if (line.starts_with("model name") || line.starts_with("flags")) features += line + "\n";
        return features;
    }();
    return cpu;
}

class CExecutor final : public Executor {
public:
    explicit CExecutor(const COptions& options) : threads_(options.threads) {
        command_ = {options.cc, "-O3", "-march=native", "-shared", "-fPIC", "-fopenmp"};
        command_.insert(command_.end(), options.cflags.begin(), options.cflags.end());
    }

    std::string target() const override { return "c"; }
    // One work-item at a time per thread (OpenMP's worker threads' stacks: 512 KiB crashed on Debian's libgomp).
    PrivateMemoryLimits private_memory_limits() const override { return {64 * 1024, 0}; }

    std::string description() const override {
        return cat("C (", join(command_, " "), ", ", threads_ > 0 ? std::to_string(threads_) : "default", " threads)");
    }

    const void* memory_domain() const override {
        static const char host_memory = 0;
        return &host_memory;
    }

    std::shared_ptr<Program> build(const std::string& source, const std::vector<KernelSpec>& kernels,
                                   const std::vector<std::string>& options) override {
        return programs_.find_or_build(memory_cache_key(source, kernels, options), [&]() -> std::shared_ptr<Program> {
            std::vector<std::string> command = command_;
            command.insert(command.end(), options.begin(), options.end());
            return std::make_shared<CProgram>(load_or_compile(source, command), kernels, threads_);
        });
    }

    std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) override { return std::make_shared<HostBuffer>(bytes); }
    void write(DeviceBuffer& to, const void* from, std::size_t bytes) override {
        if (bytes > 0) std::memcpy(host_of(to), from, bytes);
    }
    void read(const DeviceBuffer& from, void* to, std::size_t bytes) override {
        if (bytes > 0) std::memcpy(to, host_of(from), bytes);
    }
    void copy(const DeviceBuffer& from, DeviceBuffer& to) override {
        if (from.bytes() > 0) std::memcpy(host_of(to), host_of(from), from.bytes());
    }
    /// Calls run to completion: there is nothing to wait for.
    void finish() override {}

    BuildCounts build_counts() const override { return counts_.counts(); }

private:
    Library load_or_compile(const std::string& source, const std::vector<std::string>& command) {
        ContentHash hash;
        hash.add("loom-c-1").add(host_cpu());
        for (const std::string& word : command) hash.add(word);
        const std::string key = hash.add(source).hex();
        const std::optional<std::string> cached = cache_file("c", key, ".so");
        // Only an entry that matches its seal for this key is loaded (dlopen of a truncated or altered library can
        // crash, another kernel's computes something else), and from a copy of the bytes verified.
        if (cached)
            if (const std::optional<std::string> data = read_sealed(*cached, key))
                if (Library library = load_copy(*data, fs::path(*cached).parent_path(), key)) {  // else rebuilt
                    counts_.add(&BuildCounts::loaded);
                    return library;
                }
        counts_.add(&BuildCounts::compiled);
        if (cached)
            if (Library library = compile_into_cache(source, command, key, *cached)) return library;
        // A sandboxed state writes nothing outside its cache directory, not even a temporary build.
        user_assert(!current_limits(), error_kind::RuntimeError, "the cache directory '", cache_dir(),
                    "' cannot be used (see the CacheWarning), and a sandboxed state builds nowhere else");
        std::string why;
        const std::unique_ptr<TempDir> work = TempDir::create(fs::temp_directory_path(), why);
        user_assert(work != nullptr, error_kind::RuntimeError, "cannot create a build directory in '",
                    fs::temp_directory_path().string(), "': ", why, " (set TMPDIR to a writable directory)");
        // Opened before `work` is removed: an uncached library lives on, unlinked, as long as it is loaded.
        return load(compile(source, command, work->path(), key));
    }

    /// Compiles in a private directory inside the cache, so that the final rename stays on one filesystem and is
    /// atomic (two processes building the same kernel both succeed, the last rename wins). A cache directory that
    /// cannot be written only costs the caching: nothing (after a warning) when no build directory can be made
    /// there, the library built but not stored when it cannot be stored.
    static Library compile_into_cache(const std::string& source, const std::vector<std::string>& command,
                                      const std::string& key, const std::string& cached) {
        const fs::path dir = fs::path(cached).parent_path();
        std::string why;
        const std::unique_ptr<TempDir> work = TempDir::create(dir, why);
        if (!work) {
            warn_cache_unusable(cat("no build directory can be made in '", dir.string(), "': ", why));
            return {};
        }
        const std::string built = compile(source, command, work->path(), key);
        const std::optional<std::string> data = read_file(built);
        try {
            user_assert(data.has_value(), error_kind::RuntimeError, "cannot read the build '", built, "'");
            write_seal(cached, key, *data);
            if (::rename(built.c_str(), cached.c_str()) != 0)
                user_error(error_kind::RuntimeError, "cannot move the build to '", cached, "': ", std::strerror(errno));
        } catch (const Error& e) {
            warn_cache_unusable(e.message());
            return load(built);
        }
        Library library = load_copy(*data, dir, key);
        user_assert(library.handle != nullptr, error_kind::RuntimeError, "cannot load the compiled C code from '", dir.string(), "'");
        return library;
    }

    /// Loads the library whose bytes are `data` from a private copy in `dir`, unlinked once loaded: what is
    /// mapped is what the seal verified, and no later change to the cache entry reaches it (a truncation in place
    /// was a SIGBUS in every process that had mapped the entry). Each copy has a new name, since dlopen returns an
    /// already loaded library of the same name. Nothing where no copy can be made there.
    static Library load_copy(const std::string& data, const fs::path& dir, const std::string& key) {
        std::string why;
        const std::unique_ptr<TempDir> work = TempDir::create(dir, why);
        if (!work) return {};
        const std::string copy = (work->path() / (key + ".so")).string();
        try {
            write_file_atomically(copy, data);
        } catch (const Error&) {
            return {};
        }
        return open_library(copy);
    }

    static Library load(const std::string& path) {
        std::string why;
        Library library = open_library(path, &why);
        user_assert(library.handle != nullptr, error_kind::RuntimeError, "cannot load the compiled C code: ", why);
        return library;
    }

    /// Compiles `source` in `dir` and returns the path of the shared object. It is named after the content hash
    /// even when uncached, because dlopen returns an already loaded library of the same path instead of reading
    /// the file.
    static std::string compile(const std::string& source, std::vector<std::string> command, const fs::path& dir,
                               const std::string& key) {
        const std::string source_path = (dir / "kernel.c").string();
        const std::string library_path = (dir / (key + ".so")).string();
        write_file_atomically(source_path, source);
        // -lm after the source: the generated code may call libm functions that -O3 does not inline.
        command.insert(command.end(), {"-o", library_path, source_path, "-lm"});
        // The compiler's own temporary files go into the build directory too: a sandbox writes nowhere else.
        const ProcessResult result = run_process(command, "", true, "compiling C", {"TMPDIR=" + dir.string()});
        user_assert(result.spawn_error == 0, error_kind::BuildError, "cannot run the C compiler '", command[0], "': ",
                    std::strerror(result.spawn_error));
        if (!result.succeeded) {
            // The build directory is gone by the time anyone reads this: messages say just "kernel.c:3:5".
            const std::string dir_prefix = dir.string() + "/";
            user_error(error_kind::BuildError, "C compilation failed: ", erase_all(join(command, " "), dir_prefix),
                       "\n--- compiler output ---\n", erase_all(result.output, dir_prefix), "\n--- source ---\n",
                       source);
        }
        return library_path;
    }

    std::vector<std::string> command_;  // compiler and flags, without per-build options and files
    int threads_;
    ProgramCache programs_;
    BuildCounter counts_;
};

}  // namespace

std::shared_ptr<Executor> make_c_executor(const COptions& options) { return std::make_shared<CExecutor>(options); }

}  // namespace loom::backend
