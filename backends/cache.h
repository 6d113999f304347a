// Helpers the runtimes share for their program caches (cache_dir() and write_file_atomically() are declared in
// runtime.h): the memory-cache key, a content hash that names on-disk entries, and where an entry lives.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "backends/runtime.h"

namespace loom::backend {

/// 128-bit FNV-1a over a sequence of parts. Stable across runs, compilers and machines, so it can name files
/// in the on-disk cache. Each part is length-prefixed: ("ab", "c") and ("a", "bc") hash differently.
class ContentHash {
public:
    ContentHash& add(std::string_view part);
    /// The hash as 32 lowercase hex digits.
    std::string hex() const;

private:
    __extension__ typedef unsigned __int128 U128;  // __extension__: keeps -Wpedantic quiet about __int128
    U128 state_ = (U128{0x6c62272e07bb0142} << 64) | 0x62b821756295c58d;  // the FNV-128 offset basis
};

/// The key of a built program in an executor's memory cache: the exact text of everything the program depends
/// on. Comparing text is cheaper than hashing it, so only a memory-cache miss computes a ContentHash.
std::string memory_cache_key(std::string_view source, const std::vector<KernelSpec>& kernels,
                             const std::vector<std::string>& options);

/// How an executor's programs were obtained (Executor::build_counts), counted from builds on several threads.
class BuildCounter {
public:
    void add(std::size_t BuildCounts::*how) {
        const std::lock_guard lock(mutex_);
        ++(counts_.*how);
    }
    BuildCounts counts() const {
        const std::lock_guard lock(mutex_);
        return counts_;
    }

private:
    mutable std::mutex mutex_;
    BuildCounts counts_;
};

/// An executor's memory cache of built programs, for builds on several threads at once (runtime.h): a build
/// runs outside the lock, so that programs build in parallel; two threads building one program both build it
/// and the first to finish is kept.
class ProgramCache {
public:
    /// The program cached under `key`, else the one `build` makes (which is then cached).
    std::shared_ptr<Program> find_or_build(const std::string& key, const std::function<std::shared_ptr<Program>()>& build);

private:
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<Program>> programs_;
};

/// `cache_dir()/<subdir>/<key><extension>`, or nothing when disk caching is disabled.
std::optional<std::string> cache_file(std::string_view subdir, std::string_view key, std::string_view extension);

/// Warns (a CacheWarning, once per cache directory and process) that the disk cache cannot be used for `why`:
/// the build goes on uncached.
void warn_cache_unusable(const std::string& why);

/// The largest cache entry read: a compiled program is far smaller; a sparse or endless file is not read.
inline constexpr std::size_t kMaxCacheEntryBytes = std::size_t{256} << 20;

/// The whole contents of a regular file of at most `max_bytes`, or nothing when it cannot be read, is larger,
/// or is anything but a regular file (a link is not followed, a FIFO not waited on).
std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes = kMaxCacheEntryBytes);

/// Records the key, length and content hash of the cache entry `path` is about to hold in `path.seal`, so that
/// read_sealed can tell a truncated or altered entry, or one of another key. Call before the entry is put in
/// place.
void write_seal(const std::string& path, std::string_view key, std::string_view data);

/// The contents of the cache entry `path` when they match its seal for `key` (key, length and hash); nothing
/// when the entry or its seal is missing, unreadable, not a regular file, too large or does not match: a damaged
/// or forged entry is rebuilt, never loaded.
std::optional<std::string> read_sealed(const std::string& path, std::string_view key);

}  // namespace loom::backend
