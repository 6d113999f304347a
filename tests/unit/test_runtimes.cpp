// The OpenCL and C runtimes on hand-written kernels: building, running, build errors, the caches.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <fstream>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/c/c_executor.h"
#include "backends/cache.h"
#include "backends/opencl/opencl_executor.h"
#include "backends/runtime.h"
#include "support/error.h"

namespace fs = std::filesystem;
using namespace loom;
using namespace loom::backend;

namespace {

const char* const kOpenCLTwice = R"(
__kernel void twice(__global float const *a, int const n, __global float *out)
{
  int i = get_global_id(0);
  if (i < n) out[i] = 2.0f*a[i];
}
)";

const char* const kCTwice = R"(
void twice(float const *restrict a, int const n, float *restrict out)
{
  for (int i = 0; i < n; ++i) out[i] = 2.0f*a[i];
}
)";

const KernelSpec kTwiceSpec{"twice",
                            {{"a", DType::Float32, true}, {"n", DType::Int32, false}, {"out", DType::Float32, true}}};

Arg buffer_arg(std::size_t index) { return Arg{Arg::Kind::Buffer, index, 0, 0}; }
Arg int_arg(std::int64_t value) { return Arg{Arg::Kind::Int, 0, value, 0}; }
Arg float_arg(double value) { return Arg{Arg::Kind::Float, 0, 0, value}; }

/// Sets (or, with nothing, unsets) an environment variable for the scope and restores it afterwards.
class ScopedEnv {
public:
    ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        set(value);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;
    ~ScopedEnv() { set(old_); }

private:
    void set(const std::optional<std::string>& value) {
        if (value)
            ::setenv(name_, value->c_str(), 1);
        else
            ::unsetenv(name_);
    }
    const char* name_;
    std::optional<std::string> old_;
};

/// A fresh, empty LOOM_CACHE_DIR for the scope.
class ScopedCacheDir {
public:
    ScopedCacheDir() : path_(make_dir()), env_("LOOM_CACHE_DIR", path_) {}
    ~ScopedCacheDir() { fs::remove_all(path_); }
    const std::string& path() const { return path_; }

private:
    static std::string make_dir() {
        std::string name = (fs::temp_directory_path() / "loom-test-cache-XXXXXX").string();
        REQUIRE(::mkdtemp(name.data()) != nullptr);
        return name;
    }
    std::string path_;
    ScopedEnv env_;
};

/// Disk caching off for the scope, back on even when a check fails.
struct ScopedNoDiskCache {
    ScopedNoDiskCache() { set_disk_caching(false); }
    ~ScopedNoDiskCache() { set_disk_caching(true); }
};

// The files of `dir` but the seals that accompany cache entries (NAME.seal, checked in the cache tests).
std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> files;
    if (fs::exists(dir))
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() != ".seal") files.push_back(entry.path());
    return files;
}

ino_t inode_of(const fs::path& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return info.st_ino;
}

std::vector<float> run_twice(Program& program, std::size_t n) {
    std::vector<float> a(n), out(n, -1.0f);
    for (std::size_t i = 0; i < n; ++i) a[i] = static_cast<float>(i) + 0.5f;
    std::vector<Buffer> buffers{{a.data(), n * sizeof(float), true, false},
                                {out.data(), n * sizeof(float), false, true}};
    Launch launch{0, {buffer_arg(0), int_arg(static_cast<std::int64_t>(n)), buffer_arg(1)}};
    launch.local = {4, 1, 1};
    launch.groups = {(n + 3) / 4, 1, 1};
    program.run(buffers, {launch});
    return out;
}

void check_twice(Executor& executor) {
    const bool opencl = executor.target() == "opencl";
    const auto program = executor.build(opencl ? kOpenCLTwice : kCTwice, {kTwiceSpec}, {});
    const std::vector<float> out = run_twice(*program, 10);
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == 2.0f * (static_cast<float>(i) + 0.5f));
}

template <class Body>
Error error_from(Body body) {
    try {
        body();
    } catch (const Error& e) {
        return e;
    }
    FAIL("no loom::Error was raised");
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("content hashes are stable and separate their parts", "[runtime]") {
    CHECK(ContentHash().hex() == "6c62272e07bb014262b821756295c58d");  // the FNV-128 offset basis
    CHECK(ContentHash().add("ab").add("c").hex() != ContentHash().add("a").add("bc").hex());
    CHECK(ContentHash().add("x").hex() == ContentHash().add("x").hex());
}

TEST_CASE("write_file_atomically creates directories and replaces files", "[runtime]") {
    ScopedCacheDir dir;
    const std::string path = dir.path() + "/a/b/file.txt";
    write_file_atomically(path, "first");
    write_file_atomically(path, "second");
    CHECK(read_file(path) == std::optional<std::string>("second"));
    CHECK(files_in(dir.path() + "/a/b").size() == 1);  // no temporary file left behind
}

TEST_CASE("cache_dir follows LOOM_CACHE_DIR and can be disabled", "[runtime]") {
    ScopedEnv env("LOOM_CACHE_DIR", "/some/where");
    CHECK(cache_dir() == "/some/where");
    ScopedNoDiskCache off;
    CHECK(cache_dir().empty());
}

TEST_CASE("OpenCL runs a kernel on PoCL", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const auto executor = make_opencl_executor({});
    CHECK(executor->target() == "opencl");
    CHECK_FALSE(list_opencl_devices().empty());
    check_twice(*executor);
}

TEST_CASE("OpenCL passes scalars of the parameter's type", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const auto executor = make_opencl_executor({});
    const auto program = executor->build(
        "__kernel void f(long a, float b, double c, uchar d, __global double *out)"
        "{ out[0] = (double)a + b + c + d; }",
        {{"f",
          {{"a", DType::Int64, false},
           {"b", DType::Float32, false},
           {"c", DType::Float64, false},
           {"d", DType::UInt8, false},
           {"out", DType::Float64, true}}}},
        {});
    double out = 0;
    std::vector<Buffer> buffers{{&out, sizeof out, false, true}};
    program->run(buffers,
                 {Launch{0, {int_arg(1LL << 40), float_arg(0.5), float_arg(0.25), int_arg(3), buffer_arg(0)}}});
    CHECK(out == static_cast<double>(1LL << 40) + 3.75);
}

TEST_CASE("OpenCL handles empty buffers and empty grids", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const auto executor = make_opencl_executor({});
    const auto program = executor->build(kOpenCLTwice, {kTwiceSpec}, {});
    CHECK(run_twice(*program, 0).empty());
}

TEST_CASE("OpenCL launches beyond the device's work-group limits name the kernel and the limit", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const auto executor = make_opencl_executor({});
    const auto program = executor->build(kOpenCLTwice, {kTwiceSpec}, {});
    std::vector<float> a(4), out(4);
    std::vector<Buffer> buffers{{a.data(), sizeof(float) * 4, true, false},
                                {out.data(), sizeof(float) * 4, false, true}};
    Launch launch{0, {buffer_arg(0), int_arg(4), buffer_arg(1)}};
    launch.local = {1u << 24, 1, 1};
    const Error e = error_from([&] { program->run(buffers, {launch}); });
    CHECK(e.kind() == "RuntimeError");
    CHECK_THAT(e.message(), Catch::Contains("kernel 'twice' needs work-groups of 16777216 work-items along axis 0") &&
                                Catch::Contains("(CL_DEVICE_MAX_WORK_ITEM_SIZES)"));
}

TEST_CASE("OpenCL build errors hold the log and the source", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const auto executor = make_opencl_executor({});
    const std::string source = "__kernel void broken(__global float *a) { a[0] = ; }";
    const Error e = error_from([&] { executor->build(source, {{"broken", {{"a", DType::Float32, true}}}}, {}); });
    CHECK(e.kind() == "BuildError");
    CHECK_THAT(e.message(), Catch::Contains("error") && Catch::Contains(source));
}

TEST_CASE("OpenCL device patterns and LOOM_CL_DEVICE select devices", "[runtime][opencl]") {
    {
        ScopedEnv unset("LOOM_CL_DEVICE", std::nullopt);
        const Error e = error_from([] { make_opencl_executor({"no such platform", ""}); });
        CHECK(e.kind() == "RuntimeError");
        CHECK_THAT(e.message(), Catch::Contains(list_opencl_devices().front()));
        CHECK(make_opencl_executor({"PORTABLE", ""})->description().find("Portable") != std::string::npos);
    }
    ScopedEnv override("LOOM_CL_DEVICE", "no such device");
    CHECK(error_from([] { make_opencl_executor({}); }).kind() == "RuntimeError");
}

TEST_CASE("OpenCL binaries are cached on disk", "[runtime][opencl]") {
    ScopedCacheDir cache;
    const fs::path dir = cache.path() + "/opencl";
    check_twice(*make_opencl_executor({}));
    REQUIRE(files_in(dir).size() == 1);
    const fs::path binary = files_in(dir).front();
    CHECK(binary.extension() == ".bin");
    CHECK(read_sealed(binary.string(), binary.stem().string()) == read_file(binary.string()));
    const ino_t first = inode_of(binary);

    check_twice(*make_opencl_executor({}));  // a new executor has an empty memory cache
    CHECK(inode_of(binary) == first);        // loaded, not rebuilt and rewritten

    write_file_atomically(binary.string(), "not a binary");
    check_twice(*make_opencl_executor({}));  // falls back to the source and repairs the entry
    CHECK(read_file(binary.string()) != std::optional<std::string>("not a binary"));
}

TEST_CASE("C runs a function through libffi", "[runtime][c]") {
    ScopedCacheDir cache;
    const auto executor = make_c_executor({});
    CHECK(executor->target() == "c");
    check_twice(*executor);
}

TEST_CASE("C passes scalars of every parameter type", "[runtime][c]") {
    ScopedCacheDir cache;
    COptions options;
    options.threads = 2;
    const auto executor = make_c_executor(options);
    const auto program = executor->build(
        "void f(signed char a, short b, int c, long long d, unsigned char e, unsigned short f, unsigned g,"
        "       unsigned long long h, float i, double j, double *out)"
        "{ out[0] = (double)a + b + c + d + e + f + g + h + i + j; }",
        {{"f",
          {{"a", DType::Int8, false},
           {"b", DType::Int16, false},
           {"c", DType::Int32, false},
           {"d", DType::Int64, false},
           {"e", DType::UInt8, false},
           {"f", DType::UInt16, false},
           {"g", DType::UInt32, false},
           {"h", DType::UInt64, false},
           {"i", DType::Float32, false},
           {"j", DType::Float64, false},
           {"out", DType::Float64, true}}}},
        {});
    double out = 0;
    std::vector<Buffer> buffers{{&out, sizeof out, false, true}};
    program->run(buffers,
                 {Launch{0,
                         {int_arg(-1), int_arg(-2), int_arg(-3), int_arg(1LL << 40), int_arg(200), int_arg(60000),
                          int_arg(4000000000LL), int_arg(5), float_arg(0.5), float_arg(0.25), buffer_arg(0)}}});
    CHECK(out == -6.0 + static_cast<double>(1LL << 40) + 200 + 60000 + 4000000000.0 + 5 + 0.75);
}

TEST_CASE("C build errors hold the compiler output and the source", "[runtime][c]") {
    ScopedCacheDir cache;
    const auto executor = make_c_executor({});
    const std::string source = "void broken(float *a) { a[0] = ; }";
    const Error e = error_from([&] { executor->build(source, {{"broken", {{"a", DType::Float32, true}}}}, {}); });
    CHECK(e.kind() == "BuildError");
    CHECK_THAT(e.message(), Catch::Contains("error") && Catch::Contains(source));
    CHECK(files_in(cache.path() + "/c").empty());  // the failed build left nothing behind

    COptions missing;
    missing.cc = "no-such-compiler";
    CHECK(error_from([&] { make_c_executor(missing)->build(kCTwice, {kTwiceSpec}, {}); }).kind() == "BuildError");
}

TEST_CASE("C shared objects are cached on disk", "[runtime][c]") {
    ScopedCacheDir cache;
    const fs::path dir = cache.path() + "/c";
    check_twice(*make_c_executor({}));
    REQUIRE(files_in(dir).size() == 1);
    const fs::path library = files_in(dir).front();
    CHECK(library.extension() == ".so");
    CHECK(read_sealed(library.string(), library.stem().string()) == read_file(library.string()));
    const ino_t first = inode_of(library);

    check_twice(*make_c_executor({}));
    CHECK(inode_of(library) == first);

    write_file_atomically(library.string(), "not a library");
    check_twice(*make_c_executor({}));  // rebuilds the damaged entry
    CHECK(read_file(library.string()) != std::optional<std::string>("not a library"));

    COptions variant;
    variant.cflags = {"-DVARIANT"};
    check_twice(*make_c_executor(variant));  // other flags, other entry
    CHECK(files_in(dir).size() == 2);
}

TEST_CASE("C cache entries cannot be forged, and odd files neither hang nor crash the loader", "[runtime][c]") {
    ScopedCacheDir cache;
    const fs::path dir = cache.path() + "/c";
    const std::string thrice = std::string(kCTwice).replace(std::string(kCTwice).find("2.0f"), 4, "3.0f");
    make_c_executor({})->build(thrice, {kTwiceSpec}, {});
    const fs::path other = files_in(dir).front();
    check_twice(*make_c_executor({}));
    REQUIRE(files_in(dir).size() == 2);
    const fs::path entry = files_in(dir)[0] == other ? files_in(dir)[1] : files_in(dir)[0];
    const auto reset = [&] {
        fs::remove(entry);
        fs::remove(entry.string() + ".seal");
    };
    // Another kernel's library with its own seal, in this kernel's place: the seal names another key.
    reset();
    fs::copy_file(other, entry);
    fs::copy_file(other.string() + ".seal", entry.string() + ".seal");
    check_twice(*make_c_executor({}));  // rebuilt: twice, not thrice
    // A FIFO as the entry or its seal is not waited on; a link to /dev/zero is not followed; a sparse 1 GiB file is
    // not read.
    for (const std::string& odd : {std::string("fifo"), std::string("seal-fifo"), std::string("link"), std::string("sparse")}) {
        INFO(odd);
        reset();
        if (odd == "fifo") REQUIRE(::mkfifo(entry.c_str(), 0600) == 0);
        if (odd == "seal-fifo") REQUIRE(::mkfifo((entry.string() + ".seal").c_str(), 0600) == 0);
        if (odd == "link") fs::create_symlink("/dev/zero", entry);
        if (odd == "sparse") fs::resize_file((std::ofstream(entry), entry), std::uintmax_t{1} << 30);
        check_twice(*make_c_executor({}));
    }
    // A library loaded from the cache runs on after its entry is truncated in place (a SIGBUS before: the entry
    // itself was mapped).
    const auto program = make_c_executor({})->build(kCTwice, {kTwiceSpec}, {});
    REQUIRE(::truncate(entry.c_str(), 0) == 0);
    const std::vector<float> out = run_twice(*program, 10);
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == 2.0f * (static_cast<float>(i) + 0.5f));
}

TEST_CASE("C builds without a disk cache", "[runtime][c]") {
    ScopedCacheDir cache;
    {
        ScopedNoDiskCache off;
        check_twice(*make_c_executor({}));
    }
    CHECK(files_in(cache.path()).empty());
}

TEST_CASE("two processes building the same C source both succeed", "[runtime][c]") {
    ScopedCacheDir cache;
    int gate[2];
    REQUIRE(::pipe(gate) == 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 2; ++i) {
        const pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            // Wait until both children exist, then race; never return into the test runner.
            ::close(gate[1]);
            char c;
            while (::read(gate[0], &c, 1) > 0) {
            }
            try {
                const auto program = make_c_executor({})->build(kCTwice, {kTwiceSpec}, {});
                ::_exit(run_twice(*program, 5)[4] == 9.0f ? 0 : 1);
            } catch (...) {
                ::_exit(2);
            }
        }
        children.push_back(pid);
    }
    ::close(gate[0]);
    ::close(gate[1]);  // opens the gate
    for (const pid_t pid : children) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    CHECK(files_in(cache.path() + "/c").size() == 1);  // one library, no leftover build directories
}

TEST_CASE("C sets the OpenMP thread count", "[runtime][c]") {
    ScopedCacheDir cache;
    const std::string source = R"(
#include <omp.h>
void team(int *out)
{
  #pragma omp parallel
  {
    #pragma omp single
    out[0] = omp_get_num_threads();
  }
}
)";
    for (const int threads : {1, 3}) {
        COptions options;
        options.threads = threads;
        const auto program = make_c_executor(options)->build(source, {{"team", {{"out", DType::Int32, true}}}}, {});
        int out = 0;
        std::vector<Buffer> buffers{{&out, sizeof out, false, true}};
        program->run(buffers, {Launch{0, {buffer_arg(0)}}});
        CHECK(out == threads);
    }
}
