#include "backends/cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <set>

#include "backends/runtime.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/warnings.h"

namespace loom::backend {

namespace {

std::atomic<bool> g_disk_caching{true};

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

[[noreturn]] void io_error(const std::string& what, const std::string& path, int err) {
    user_error(error_kind::RuntimeError, "cannot ", what, " '", path, "': ", std::strerror(err));
}

/// Writes all of `data` to a new file; the name must not exist yet (it is ours alone).
void write_new_file(const std::string& path, const std::string& data) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) io_error("create", path, errno);
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            io_error("write", path, err);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) io_error("write", path, errno);
}

}  // namespace

ContentHash& ContentHash::add(std::string_view part) {
    constexpr U128 prime = (U128{1} << 88) | 0x13b;  // the FNV-128 prime
    const auto mix = [&](unsigned char byte) { state_ = (state_ ^ byte) * prime; };
    for (std::size_t n = part.size(), i = 0; i < 8; ++i, n >>= 8) mix(static_cast<unsigned char>(n & 0xff));
    for (char c : part) mix(static_cast<unsigned char>(c));
    return *this;
}

std::string ContentHash::hex() const {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(32, '0');
    U128 v = state_;
    for (std::size_t i = out.size(); i-- > 0; v >>= 4) out[i] = digits[static_cast<unsigned>(v & 0xf)];
    return out;
}

std::string memory_cache_key(std::string_view source, const std::vector<KernelSpec>& kernels,
                             const std::vector<std::string>& options) {
    std::string key;
    const auto add = [&](std::string_view part) { key.append(std::to_string(part.size())).append(":").append(part); };
    for (const std::string& option : options) add(option);
    for (const KernelSpec& kernel : kernels) {
        add(kernel.name);
        for (const ParamSpec& p : kernel.params) {
            add(p.name);
            add(dtype_name(p.dtype));
            add(p.is_pointer ? "*" : "");
        }
    }
    add(source);
    return key;
}

std::string cache_dir() {
    if (const Limits* limits = current_limits()) return limits->cache_dir;  // the sandbox's, whatever else says
    if (!g_disk_caching) return "";
    if (std::string dir = env("LOOM_CACHE_DIR"); !dir.empty()) return dir;
    if (std::string dir = env("XDG_CACHE_HOME"); !dir.empty()) return dir + "/loom";
    if (std::string dir = env("HOME"); !dir.empty()) return dir + "/.cache/loom";
    return "";  // nowhere sensible to keep a cache: behave as if caching were disabled
}

void set_disk_caching(bool enabled) { g_disk_caching = enabled; }

std::optional<std::string> cache_file(std::string_view subdir, std::string_view key, std::string_view extension) {
    const std::string dir = cache_dir();
    if (dir.empty()) return std::nullopt;
    return cat(dir, "/", subdir, "/", key, extension);
}

void warn_cache_unusable(const std::string& why) {
    // Once per directory, whatever the reason and the executor: every build would repeat it.
    const std::string dir = cache_dir();
    static std::mutex mutex;
    static std::set<std::string> warned;
    const std::unique_lock lock(mutex);
    if (!warned.insert(dir).second) return;
    warn(error_kind::CacheWarning, cat("the cache directory '", dir, "' cannot be used (", why,
                             "): building without the disk cache; set LOOM_CACHE_DIR to a writable directory"));
}

std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) {
    // O_NONBLOCK: opening a FIFO put in its place returns at once (and fstat tells it apart) instead of waiting
    // for a writer; O_NOFOLLOW: a link to /dev/zero or anywhere else is not followed.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::optional<std::string> out;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) <= max_bytes) {
        std::string data(static_cast<std::size_t>(st.st_size), '\0');
        std::size_t done = 0;
        while (done < data.size()) {
            const ssize_t n = ::read(fd, data.data() + done, data.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;  // an error, or the file shrank under us
            done += static_cast<std::size_t>(n);
        }
        if (done == data.size()) out = std::move(data);
    }
    ::close(fd);
    return out;
}

namespace {

// A seal names the entry's key, its length and the hash of both: an entry of another key, with that entry's own
// seal put beside it, does not match.
std::string seal_of(std::string_view key, std::string_view data) {
    return cat("loom-seal ", key, " ", data.size(), " ", ContentHash().add(key).add(data).hex(), "\n");
}

constexpr std::size_t kMaxSealBytes = 4096;

}  // namespace

void write_seal(const std::string& path, std::string_view key, std::string_view data) {
    write_file_atomically(path + ".seal", seal_of(key, data));
}

std::optional<std::string> read_sealed(const std::string& path, std::string_view key) {
    const std::optional<std::string> seal = read_file(path + ".seal", kMaxSealBytes);
    if (!seal) return std::nullopt;
    std::optional<std::string> data = read_file(path, kMaxCacheEntryBytes);
    if (!data || seal_of(key, *data) != *seal) return std::nullopt;
    return data;
}

void write_file_atomically(const std::string& path, const std::string& data) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) io_error("create directory", parent.string(), ec.value());
    // Unique per process and per call, and in the target's directory so that rename() cannot cross filesystems.
    const std::string temp = cat(path, ".tmp.", ::getpid(), ".", std::hex, std::random_device{}());
    try {
        write_new_file(temp, data);
    } catch (...) {
        ::unlink(temp.c_str());
        throw;
    }
    // rename() replaces atomically: readers see the old file or the new one, never a partial one, and when two
    // processes race the last rename wins with identical contents.
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp.c_str());
        io_error("rename a temporary file to", path, err);
    }
}

std::shared_ptr<Program> ProgramCache::find_or_build(const std::string& key,
                                                     const std::function<std::shared_ptr<Program>()>& build) {
    {
        const std::lock_guard lock(mutex_);
        if (const auto it = programs_.find(key); it != programs_.end()) return it->second;
    }
    std::shared_ptr<Program> built = build();
    const std::lock_guard lock(mutex_);
    return programs_.try_emplace(key, std::move(built)).first->second;
}

}  // namespace loom::backend
