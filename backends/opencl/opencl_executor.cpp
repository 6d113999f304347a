#include "backends/opencl/opencl_executor.h"

#include <CL/cl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <map>
#include <mutex>
#include <type_traits>

#include "backends/cache.h"
#include "backends/scalar_arg.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom::backend {

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Errors and handles

const char* error_name(cl_int code) {
    switch (code) {
#define LOOM_CL_ERROR(name) \
    case name: return #name;
        LOOM_CL_ERROR(CL_DEVICE_NOT_FOUND)
        LOOM_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
        LOOM_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
        LOOM_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        LOOM_CL_ERROR(CL_OUT_OF_RESOURCES)
        LOOM_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
        LOOM_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
        LOOM_CL_ERROR(CL_MEM_COPY_OVERLAP)
        LOOM_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
        LOOM_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        LOOM_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
        LOOM_CL_ERROR(CL_MAP_FAILURE)
        LOOM_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        LOOM_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        LOOM_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
        LOOM_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
        LOOM_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
        LOOM_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
        LOOM_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        LOOM_CL_ERROR(CL_INVALID_VALUE)
        LOOM_CL_ERROR(CL_INVALID_DEVICE_TYPE)
        LOOM_CL_ERROR(CL_INVALID_PLATFORM)
        LOOM_CL_ERROR(CL_INVALID_DEVICE)
        LOOM_CL_ERROR(CL_INVALID_CONTEXT)
        LOOM_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
        LOOM_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
        LOOM_CL_ERROR(CL_INVALID_HOST_PTR)
        LOOM_CL_ERROR(CL_INVALID_MEM_OBJECT)
        LOOM_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        LOOM_CL_ERROR(CL_INVALID_IMAGE_SIZE)
        LOOM_CL_ERROR(CL_INVALID_SAMPLER)
        LOOM_CL_ERROR(CL_INVALID_BINARY)
        LOOM_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
        LOOM_CL_ERROR(CL_INVALID_PROGRAM)
        LOOM_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
        LOOM_CL_ERROR(CL_INVALID_KERNEL_NAME)
        LOOM_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
        LOOM_CL_ERROR(CL_INVALID_KERNEL)
        LOOM_CL_ERROR(CL_INVALID_ARG_INDEX)
        LOOM_CL_ERROR(CL_INVALID_ARG_VALUE)
        LOOM_CL_ERROR(CL_INVALID_ARG_SIZE)
        LOOM_CL_ERROR(CL_INVALID_KERNEL_ARGS)
        LOOM_CL_ERROR(CL_INVALID_WORK_DIMENSION)
        LOOM_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
        LOOM_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
        LOOM_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
        LOOM_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
        LOOM_CL_ERROR(CL_INVALID_EVENT)
        LOOM_CL_ERROR(CL_INVALID_OPERATION)
        LOOM_CL_ERROR(CL_INVALID_GL_OBJECT)
        LOOM_CL_ERROR(CL_INVALID_BUFFER_SIZE)
        LOOM_CL_ERROR(CL_INVALID_MIP_LEVEL)
        LOOM_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
        LOOM_CL_ERROR(CL_INVALID_PROPERTY)
        LOOM_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
        LOOM_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
        LOOM_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
        LOOM_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef LOOM_CL_ERROR
        default: return "unknown OpenCL error";
    }
}

std::string describe_error(cl_int code) { return cat(error_name(code), " (", code, ")"); }

void check(cl_int code, std::string_view call) {
    if (code != CL_SUCCESS) user_error(error_kind::RuntimeError, call, " failed: ", describe_error(code));
}

/// check for calls made on every launch: the message, which names what failed, is only made on failure.
template <class... Parts>
void check_named(cl_int code, const Parts&... call) {
    if (code != CL_SUCCESS) user_error(error_kind::RuntimeError, call..., " failed: ", describe_error(code));
}

template <class T, cl_int (*Release)(T)>
struct Releaser {
    void operator()(T handle) const { Release(handle); }
};
template <class T, cl_int (*Release)(T)>
using Handle = std::unique_ptr<std::remove_pointer_t<T>, Releaser<T, Release>>;

using ContextHandle = Handle<cl_context, clReleaseContext>;
using QueueHandle = Handle<cl_command_queue, clReleaseCommandQueue>;
using ProgramHandle = Handle<cl_program, clReleaseProgram>;
using KernelHandle = Handle<cl_kernel, clReleaseKernel>;
using MemHandle = Handle<cl_mem, clReleaseMemObject>;

/// A string-valued clGet*Info query; `get(size, data, size_ret)` forwards to the clGet*Info call.
template <class Get>
std::string info_string(Get get, std::string_view call) {
    std::size_t size = 0;
    check(get(0, nullptr, &size), call);
    std::string text(size, '\0');
    check(get(size, text.data(), nullptr), call);
    text.erase(std::find(text.begin(), text.end(), '\0'), text.end());
    return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
    const auto get = [&](std::size_t size, void* data, std::size_t* size_ret) {
        return clGetPlatformInfo(platform, what, size, data, size_ret);
    };
    return info_string(get, "clGetPlatformInfo");
}

std::string device_string(cl_device_id device, cl_device_info what) {
    const auto get = [&](std::size_t size, void* data, std::size_t* size_ret) {
        return clGetDeviceInfo(device, what, size, data, size_ret);
    };
    return info_string(get, "clGetDeviceInfo");
}

/// What the device allows for one work-group: in all, and per axis.
struct WorkGroupLimits {
    std::size_t max_size = 0;
    std::array<std::size_t, 3> max_items{0, 0, 0};
};

WorkGroupLimits work_group_limits(cl_device_id device) {
    WorkGroupLimits l;
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof l.max_size, &l.max_size, nullptr),
          "clGetDeviceInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    cl_uint dims = 0;
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, sizeof dims, &dims, nullptr),
          "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS)");
    std::vector<std::size_t> items(dims);
    check(clGetDeviceInfo(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(std::size_t), items.data(), nullptr),
          "clGetDeviceInfo(CL_DEVICE_MAX_WORK_ITEM_SIZES)");
    for (std::size_t d = 0; d < 3 && d < items.size(); ++d) l.max_items[d] = items[d];
    return l;
}

std::string build_log(cl_program program, cl_device_id device) {
    const auto get = [&](std::size_t size, void* data, std::size_t* size_ret) {
        return clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, data, size_ret);
    };
    return info_string(get, "clGetProgramBuildInfo");
}

// ---------------------------------------------------------------------------------------------------------------
// Device discovery

struct DeviceEntry {
    cl_platform_id platform;
    cl_device_id device;
    std::string platform_name;
    std::string device_name;
};

std::vector<cl_device_id> platform_devices(cl_platform_id platform) {
    cl_uint count = 0;
    // A platform without devices answers CL_DEVICE_NOT_FOUND: it simply contributes none.
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
    std::vector<cl_device_id> devices(count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), nullptr), "clGetDeviceIDs");
    return devices;
}

std::vector<DeviceEntry> all_devices() {
    cl_uint count = 0;
    // With no ICD installed the loader answers CL_PLATFORM_NOT_FOUND_KHR: there are no devices.
    if (clGetPlatformIDs(0, nullptr, &count) != CL_SUCCESS || count == 0) return {};
    std::vector<cl_platform_id> platforms(count);
    check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    std::vector<DeviceEntry> entries;
    for (cl_platform_id platform : platforms) {
        const std::string platform_name = platform_string(platform, CL_PLATFORM_NAME);
        for (cl_device_id device : platform_devices(platform))
            entries.push_back({platform, device, platform_name, device_string(device, CL_DEVICE_NAME)});
    }
    return entries;
}

std::string lowercase(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool contains_ignoring_case(std::string_view text, std::string_view pattern) {
    return lowercase(text).find(lowercase(pattern)) != std::string::npos;
}

/// LOOM_CL_DEVICE, when set, replaces what the script asked for: it is how a user points existing scripts at
/// another device.
OpenCLOptions effective_options(const OpenCLOptions& requested) {
    const char* env = std::getenv("LOOM_CL_DEVICE");
    if (env == nullptr || *env == '\0') return requested;
    const std::string_view spec = env;
    const std::size_t colon = spec.find(':');
    if (colon == std::string_view::npos) return {"", std::string(spec), requested.index};
    return {std::string(spec.substr(0, colon)), std::string(spec.substr(colon + 1)), requested.index};
}

std::string entry_name(const DeviceEntry& e) { return e.platform_name + ": " + e.device_name; }

DeviceEntry select_device(const OpenCLOptions& options) {
    const std::vector<DeviceEntry> entries = all_devices();
    user_assert(!entries.empty(), error_kind::RuntimeError, "no OpenCL device found (is an ICD such as PoCL installed?)");
    std::vector<DeviceEntry> matches;
    for (const DeviceEntry& e : entries)
        if (contains_ignoring_case(e.platform_name, options.platform) &&
            contains_ignoring_case(e.device_name, options.device))
            matches.push_back(e);
    const std::size_t wanted = options.index > 0 ? static_cast<std::size_t>(options.index) : 1;
    if (matches.size() >= wanted) return matches[wanted - 1];
    std::vector<std::string> names;
    for (const DeviceEntry& e : entries) names.push_back(entry_name(e));
    user_error(error_kind::RuntimeError, "no OpenCL device matches platform '", options.platform, "' and device '",
               options.device, "'", options.index > 0 ? cat(" with index ", options.index) : std::string(),
               "; available: ", join(names, "; "));
}

/// A program built for one device, with the memory its binary is charged against.
struct DeviceProgram {
    ProgramHandle program;
    MemoryCharge charge;
};

/// The programs built for the devices of a context, by device and cache key, while a queue's program uses them:
/// a kernel built once runs on every queue of its device (a cl_program belongs to the context, not to a queue).
class DevicePrograms {
public:
    using Key = std::pair<cl_device_id, std::string>;

    std::shared_ptr<const DeviceProgram> find(const Key& key) const {
        const std::lock_guard lock(mutex_);
        const auto it = built_.find(key);
        return it == built_.end() ? nullptr : it->second.lock();
    }

    /// Keeps `program` under `key`, unless another executor kept one meanwhile (the two built at once): then that.
    std::shared_ptr<const DeviceProgram> keep(const Key& key, std::shared_ptr<const DeviceProgram> program) {
        const std::lock_guard lock(mutex_);
        std::erase_if(built_, [](const auto& entry) { return entry.second.expired(); });
        std::weak_ptr<const DeviceProgram>& slot = built_[key];
        if (std::shared_ptr<const DeviceProgram> earlier = slot.lock()) return earlier;
        slot = program;
        return program;
    }

private:
    mutable std::mutex mutex_;
    std::map<Key, std::weak_ptr<const DeviceProgram>> built_;
};

/// One context per platform holding all its devices, shared by the executors opened on them while any lives: the
/// device arrays made on one queue then work on the others, and their programs too. A platform whose devices
/// cannot share one gets a context per executor.
struct PlatformContext {
    ContextHandle context;
    mutable DevicePrograms programs;
};

std::shared_ptr<const PlatformContext> make_context(cl_platform_id platform, const std::vector<cl_device_id>& devices) {
    const cl_context_properties properties[] = {CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform),
                                                0};
    cl_int err = CL_SUCCESS;
    ContextHandle context(clCreateContext(properties, static_cast<cl_uint>(devices.size()), devices.data(), nullptr,
                                          nullptr, &err));
    if (err != CL_SUCCESS) return nullptr;
    auto shared = std::make_shared<PlatformContext>();
    shared->context = std::move(context);
    return shared;
}

std::shared_ptr<const PlatformContext> platform_context(const DeviceEntry& e) {
    static std::mutex mutex;
    static std::map<cl_platform_id, std::weak_ptr<const PlatformContext>> shared;
    const std::lock_guard lock(mutex);
    if (std::shared_ptr<const PlatformContext> context = shared[e.platform].lock()) return context;
    if (std::shared_ptr<const PlatformContext> context = make_context(e.platform, platform_devices(e.platform))) {
        shared[e.platform] = context;
        return context;
    }
    std::shared_ptr<const PlatformContext> own = make_context(e.platform, {e.device});
    user_assert(own != nullptr, error_kind::RuntimeError, "clCreateContext failed for ", entry_name(e));
    return own;
}

/// The opened device, shared by the executor and every program built on it so that programs outlive it.
struct Device {
    cl_device_id id;
    std::string description;
    std::string identity;  // what the compiled binaries depend on: part of every cache key
    WorkGroupLimits limits;
    std::shared_ptr<const PlatformContext> shared_context;  // outlives the queue (declared before it)
    QueueHandle queue;

    cl_context context() const { return shared_context->context.get(); }
};

std::shared_ptr<const Device> open_device(const DeviceEntry& e) {
    const std::string identity =
        join({e.platform_name, platform_string(e.platform, CL_PLATFORM_VERSION), e.device_name,
              device_string(e.device, CL_DEVICE_VERSION), device_string(e.device, CL_DRIVER_VERSION)},
             "\n");
    std::shared_ptr<const PlatformContext> context = platform_context(e);
    cl_int err = CL_SUCCESS;
    QueueHandle queue(clCreateCommandQueue(context->context.get(), e.device, 0, &err));
    check(err, "clCreateCommandQueue");
    return std::make_shared<const Device>(
        Device{e.device, cat(e.device_name, " on ", e.platform_name), identity, work_group_limits(e.device),
               std::move(context), std::move(queue)});
}

// ---------------------------------------------------------------------------------------------------------------
// Device memory

/// A cl_mem made from `host` (copied in) or uninitialized when it is null. OpenCL rejects zero-sized buffers, but
/// an empty array is still a valid argument: it gets one byte.
MemHandle create_buffer(const Device& device, std::size_t bytes, const void* host) {
    cl_int err = CL_SUCCESS;
    MemHandle mem(clCreateBuffer(device.context(), CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                                 std::max<std::size_t>(bytes, 1), const_cast<void*>(host), &err));
    check_named(err, "clCreateBuffer(", bytes, " bytes)");
    return mem;
}

class ClBuffer final : public DeviceBuffer {
public:
    ClBuffer(MemHandle mem, std::size_t bytes, MemoryCharge charge)
        : charge_(std::move(charge)), mem_(std::move(mem)), bytes_(bytes) {}
    std::size_t bytes() const override { return bytes_; }
    cl_mem mem() const { return mem_.get(); }

private:
    MemoryCharge charge_;
    MemHandle mem_;
    std::size_t bytes_;
};

cl_mem mem_of(const DeviceBuffer& b) {
    const auto* cl = dynamic_cast<const ClBuffer*>(&b);
    internal_assert(cl != nullptr, "an OpenCL program was given a buffer of another executor");
    return cl->mem();
}

// ---------------------------------------------------------------------------------------------------------------
// Launching

std::string sizes_text(const std::size_t* sizes, unsigned dims) {
    std::vector<std::string> parts;
    for (unsigned d = 0; d < dims; ++d) parts.push_back(std::to_string(sizes[d]));
    return "(" + join(parts, ", ") + ")";
}

class ClProgram final : public Program {
public:
    ClProgram(std::shared_ptr<const Device> device, std::shared_ptr<const DeviceProgram> program,
              std::vector<KernelSpec> specs)
        : device_(std::move(device)), program_(std::move(program)), specs_(std::move(specs)) {
        for (const KernelSpec& spec : specs_) kernels_.push_back(create_kernel(spec));
    }

    void run(std::vector<Buffer>& buffers, const std::vector<Launch>& launches) override {
        CallMemory memory = upload(buffers);
        const auto enqueue_all = [&] {
            for (const Launch& launch : launches) enqueue(launch, memory.mems);
        };
        // Only device buffers: nothing on the host to wait for (reading them waits).
        if (memory.owned.empty()) return enqueue_all();
        finish_after([&] {
            enqueue_all();
            download(buffers, memory.mems);
        });
        keep_spares(memory);
    }

    std::vector<double> time(std::vector<Buffer>& buffers, const std::vector<Launch>& launches, int warmup,
                             int runs) override {
        CallMemory memory = upload(buffers);
        std::vector<double> seconds;
        finish_after([&] {
            // Waiting for the queue inside each repetition makes the host clock measure the kernels' execution,
            // not only their enqueueing.
            seconds = time_repetitions(warmup, runs, [&] {
                for (const Launch& launch : launches) enqueue(launch, memory.mems);
                check(clFinish(device_->queue.get()), "clFinish");
            });
            download(buffers, memory.mems);
        });
        keep_spares(memory);
        return seconds;
    }

private:
    /// Runs `enqueue_commands`, then waits for the queue, also when they throw: no command may still touch
    /// host memory once we return.
    template <class F>
    void finish_after(F&& enqueue_commands) const {
        cl_command_queue queue = device_->queue.get();
        try {
            enqueue_commands();
        } catch (...) {
            clFinish(queue);
            throw;
        }
        check(clFinish(queue), "clFinish");
    }

    void download(std::vector<Buffer>& buffers, const std::vector<cl_mem>& memory) const {
        for (std::size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i].written && buffers[i].bytes > 0 && !buffers[i].device)
                check(clEnqueueReadBuffer(device_->queue.get(), memory[i], CL_FALSE, 0, buffers[i].bytes,
                                          buffers[i].host, 0, nullptr, nullptr),
                      "clEnqueueReadBuffer");
    }

    KernelHandle create_kernel(const KernelSpec& spec) const {
        cl_int err = CL_SUCCESS;
        KernelHandle kernel(clCreateKernel(program_->program.get(), spec.name.c_str(), &err));
        check(err, cat("clCreateKernel('", spec.name, "')"));
        cl_uint count = 0;
        check(clGetKernelInfo(kernel.get(), CL_KERNEL_NUM_ARGS, sizeof count, &count, nullptr), "clGetKernelInfo");
        internal_assert(count == spec.params.size(), "kernel '", spec.name, "' takes ", count, " arguments, not ",
                        spec.params.size());
        return kernel;
    }

    /// The cl_mem of each buffer of a call: a device array's own, or one the call holds (owned, with its size) for
    /// host memory.
    struct CallMemory {
        std::vector<cl_mem> mems;
        std::vector<std::pair<std::size_t, MemHandle>> owned;
    };

    CallMemory upload(const std::vector<Buffer>& buffers) {
        CallMemory memory;
        memory.mems.reserve(buffers.size());
        for (const Buffer& b : buffers) {
            if (b.device) {
                memory.mems.push_back(mem_of(*b.device));
                continue;
            }
            memory.owned.emplace_back(b.bytes, host_buffer(b));
            memory.mems.push_back(memory.owned.back().second.get());
        }
        return memory;
    }

    /// A cl_mem for host memory `b`, with its contents when it is read: a spare one of its size, else a new one.
    MemHandle host_buffer(const Buffer& b) {
        const bool copy = b.read && b.bytes > 0;
        const auto spare = std::find_if(spare_.begin(), spare_.end(), [&](const auto& s) { return s.first == b.bytes; });
        if (spare == spare_.end()) return create_buffer(*device_, b.bytes, copy ? b.host : nullptr);
        MemHandle mem = std::move(spare->second);
        spare_.erase(spare);
        // Not blocking: the call waits for its commands before the host memory can go away.
        if (copy)
            check(clEnqueueWriteBuffer(device_->queue.get(), mem.get(), CL_FALSE, 0, b.bytes, b.host, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        return mem;
    }

    /// Keeps the small buffers of a finished call for the next one: creating and releasing buffers is most of the
    /// cost of a small call. Large ones are released, so that no large device memory stays held between calls.
    void keep_spares(CallMemory& memory) {
        for (auto& [bytes, mem] : memory.owned)
            if (bytes <= kSpareBytes && spare_.size() < kSpareBuffers) spare_.emplace_back(bytes, std::move(mem));
    }

    static constexpr std::size_t kSpareBytes = std::size_t{1} << 20;
    static constexpr std::size_t kSpareBuffers = 16;

    void set_arg(cl_kernel kernel, cl_uint index, const ParamSpec& param, const Arg& arg,
                 const std::vector<cl_mem>& memory) const {
        internal_assert(param.is_pointer == (arg.kind == Arg::Kind::Buffer), "argument '", param.name,
                        "': buffer/scalar mismatch");
        if (param.is_pointer) {
            internal_assert(arg.buffer < memory.size(), "argument '", param.name, "': no buffer ", arg.buffer);
            const cl_mem mem = memory[arg.buffer];
            check_named(clSetKernelArg(kernel, index, sizeof mem, &mem), "clSetKernelArg('", param.name, "')");
        } else {
            const ScalarBytes s = scalar_bytes(arg, param.dtype);
            check_named(clSetKernelArg(kernel, index, s.size, s.bytes), "clSetKernelArg('", param.name, "')");
        }
    }

    // The work-group size is fixed when the kernel is generated; the device may not offer that many
    // work-items (loopy leaves this to the OpenCL runtime's INVALID_WORK_GROUP_SIZE).
    void check_work_group_size(const std::string& name, const Launch& launch) const {
        const WorkGroupLimits& limits = device_->limits;
        std::size_t total = 1;
        for (unsigned d = 0; d < launch.dims; ++d) {
            total *= launch.local[d];
            user_assert(launch.local[d] <= limits.max_items[d], error_kind::RuntimeError, "kernel '", name,
                        "' needs work-groups of ", launch.local[d], " work-items along axis ", d, " (local size ",
                        sizes_text(launch.local.data(), launch.dims), "), but device '", device_->description,
                        "' allows at most ", limits.max_items[d], " there (CL_DEVICE_MAX_WORK_ITEM_SIZES)");
        }
        user_assert(total <= limits.max_size, error_kind::RuntimeError, "kernel '", name, "' needs work-groups of ", total,
                    " work-items (local size ", sizes_text(launch.local.data(), launch.dims), "), but device '",
                    device_->description, "' allows at most ", limits.max_size, " (CL_DEVICE_MAX_WORK_GROUP_SIZE)");
    }

    void enqueue(const Launch& launch, const std::vector<cl_mem>& memory) const {
        internal_assert(launch.kernel < kernels_.size(), "no kernel ", launch.kernel);
        internal_assert(launch.dims >= 1 && launch.dims <= 3, "launch with ", launch.dims, " dimensions");
        const KernelSpec& spec = specs_[launch.kernel];
        internal_assert(launch.args.size() == spec.params.size(), "kernel '", spec.name, "' launched with ",
                        launch.args.size(), " arguments, not ", spec.params.size());
        cl_kernel kernel = kernels_[launch.kernel].get();
        for (std::size_t i = 0; i < launch.args.size(); ++i)
            set_arg(kernel, static_cast<cl_uint>(i), spec.params[i], launch.args[i], memory);
        check_work_group_size(spec.name, launch);
        std::size_t global[3];
        for (unsigned d = 0; d < launch.dims; ++d) global[d] = launch.groups[d] * launch.local[d];
        // OpenCL 1.2 rejects an empty grid, which simply means there is nothing to do.
        if (std::find(global, global + launch.dims, 0) != global + launch.dims) return;
        const cl_int err = clEnqueueNDRangeKernel(device_->queue.get(), kernel, launch.dims, nullptr, global,
                                                  launch.local.data(), 0, nullptr, nullptr);
        if (err != CL_SUCCESS)
            user_error(error_kind::RuntimeError, "clEnqueueNDRangeKernel('", spec.name, "', global ",
                       sizes_text(global, launch.dims), ", local ", sizes_text(launch.local.data(), launch.dims),
                       ") failed: ", describe_error(err));
    }

    std::shared_ptr<const Device> device_;
    std::shared_ptr<const DeviceProgram> program_;
    std::vector<KernelSpec> specs_;
    std::vector<KernelHandle> kernels_;  // one per spec and queue: a kernel's arguments are its own state
    std::vector<std::pair<std::size_t, MemHandle>> spare_;  // small buffers of earlier calls, by size in bytes
};

// ---------------------------------------------------------------------------------------------------------------
// Building

/// The size of the program's device binary; 0 when the driver does not say.
std::size_t binary_size(cl_program program) {
    std::size_t size = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS) return 0;
    return size;
}

class ClExecutor final : public Executor {
public:
    explicit ClExecutor(std::shared_ptr<const Device> device) : device_(std::move(device)) {}

    std::string target() const override { return "opencl"; }
    std::string description() const override { return device_->description; }

    // A CPU device (PoCL) keeps the private copies of a group's work-items on one worker thread's stack: 4 MiB
    // ran, 16 MiB crashed the process.
    PrivateMemoryLimits private_memory_limits() const override {
        cl_device_type type = 0;
        if (clGetDeviceInfo(device_->id, CL_DEVICE_TYPE, sizeof type, &type, nullptr) != CL_SUCCESS || !(type & CL_DEVICE_TYPE_CPU))
            return {};
        return {64 * 1024, 1024 * 1024};
    }
    const void* memory_domain() const override { return device_->context(); }

    std::shared_ptr<Program> build(const std::string& source, const std::vector<KernelSpec>& kernels,
                                   const std::vector<std::string>& options) override {
        return programs_.find_or_build(memory_cache_key(source, kernels, options), [&]() -> std::shared_ptr<Program> {
            return std::make_shared<ClProgram>(device_, built_for_device(source, join(options, " ")), kernels);
        });
    }

    BuildCounts build_counts() const override { return counts_.counts(); }

    std::shared_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
        MemoryCharge charge(bytes, "a device array");  // before the device memory: nothing past the limit
        auto buffer = std::make_shared<ClBuffer>(create_buffer(*device_, bytes, nullptr), bytes, std::move(charge));
        const cl_uchar zero = 0;
        check(clEnqueueFillBuffer(queue(), buffer->mem(), &zero, sizeof zero, 0, std::max<std::size_t>(bytes, 1), 0,
                                  nullptr, nullptr),
              "clEnqueueFillBuffer");
        return buffer;
    }
    void write(DeviceBuffer& to, const void* from, std::size_t bytes) override {
        if (bytes > 0)
            check(clEnqueueWriteBuffer(queue(), mem_of(to), CL_TRUE, 0, bytes, from, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
    }
    void read(const DeviceBuffer& from, void* to, std::size_t bytes) override {
        if (bytes > 0)
            check(clEnqueueReadBuffer(queue(), mem_of(from), CL_TRUE, 0, bytes, to, 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
    }
    void copy(const DeviceBuffer& from, DeviceBuffer& to) override {
        if (from.bytes() > 0)
            check(clEnqueueCopyBuffer(queue(), mem_of(from), mem_of(to), 0, 0, from.bytes(), 0, nullptr, nullptr),
                  "clEnqueueCopyBuffer");
    }
    void finish() override { check(clFinish(queue()), "clFinish"); }

private:
    cl_command_queue queue() const { return device_->queue.get(); }

    /// The program of the context's queues on this device, else one loaded from the disk cache, else built.
    std::shared_ptr<const DeviceProgram> built_for_device(const std::string& source, const std::string& options) {
        const std::string key =
            ContentHash().add("loom-opencl-1").add(device_->identity).add(options).add(source).hex();
        DevicePrograms& shared = device_->shared_context->programs;
        if (std::shared_ptr<const DeviceProgram> program = shared.find({device_->id, key})) {
            counts_.add(&BuildCounts::shared);
            return program;
        }
        ProgramHandle program = load_or_build(source, options, key);
        MemoryCharge charge(binary_size(program.get()), "compiled code");
        return shared.keep({device_->id, key}, std::make_shared<const DeviceProgram>(
                                                   DeviceProgram{std::move(program), std::move(charge)}));
    }

    ProgramHandle load_or_build(const std::string& source, const std::string& options, const std::string& key) {
        const std::optional<std::string> path = cache_file("opencl", key, ".bin");
        if (path)
            if (const std::optional<std::string> binary = read_sealed(*path, key))
                if (ProgramHandle program = from_binary(*binary, options)) {
                    counts_.add(&BuildCounts::loaded);
                    return program;
                }
        ProgramHandle program = from_source(source, options);
        counts_.add(&BuildCounts::compiled);
        if (path) store_binary(program.get(), *path, key);
        return program;
    }

    /// A program from a cached binary, or nothing when the binary does not load (stale or damaged cache entry).
    ProgramHandle from_binary(const std::string& binary, const std::string& options) const {
        const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
        const std::size_t size = binary.size();
        cl_int status = CL_SUCCESS, err = CL_SUCCESS;
        ProgramHandle program(
            clCreateProgramWithBinary(device_->context(), 1, &device_->id, &size, &bytes, &status, &err));
        if (err != CL_SUCCESS || status != CL_SUCCESS) return nullptr;
        if (clBuildProgram(program.get(), 1, &device_->id, options.c_str(), nullptr, nullptr) != CL_SUCCESS)
            return nullptr;
        return program;
    }

    ProgramHandle from_source(const std::string& source, const std::string& options) const {
        const char* text = source.c_str();
        const std::size_t length = source.size();
        cl_int err = CL_SUCCESS;
        ProgramHandle program(clCreateProgramWithSource(device_->context(), 1, &text, &length, &err));
        check(err, "clCreateProgramWithSource");
        err = clBuildProgram(program.get(), 1, &device_->id, options.c_str(), nullptr, nullptr);
        if (err != CL_SUCCESS) {
            const std::string log = build_log(program.get(), device_->id);
            user_error(error_kind::BuildError, "OpenCL build failed on ", device_->description, " with options '", options,
                       "': ", describe_error(err), "\n--- build log ---\n", log, "\n--- source ---\n", source);
        }
        return program;
    }

    /// Saves the device binary for later processes. Best effort: the cache only saves time, so an unwritable
    /// cache directory (a warning) or a driver that withholds binaries must not fail the build.
    static void store_binary(cl_program program, const std::string& path, const std::string& key) {
        const std::size_t size = binary_size(program);
        if (size == 0) return;
        std::string binary(size, '\0');
        auto* bytes = reinterpret_cast<unsigned char*>(binary.data());
        if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof bytes, &bytes, nullptr) != CL_SUCCESS) return;
        try {
            write_seal(path, key, binary);
            write_file_atomically(path, binary);
        } catch (const Error& e) {
            warn_cache_unusable(e.message());
        }
    }

    std::shared_ptr<const Device> device_;
    ProgramCache programs_;
    BuildCounter counts_;
};

}  // namespace

std::shared_ptr<Executor> make_opencl_executor(const OpenCLOptions& options) {
    const ForeignMemory driver;  // the driver's memory is not the engine's
    return std::make_shared<ClExecutor>(open_device(select_device(effective_options(options))));
}

std::vector<std::string> list_opencl_devices() {
    std::vector<std::string> names;
    for (const DeviceEntry& e : all_devices()) names.push_back(entry_name(e));
    return names;
}

}  // namespace loom::backend
