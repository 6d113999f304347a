// The limits of a sandboxed Lua state (loom.h's loom_sandbox_new) as the engine and the runtimes see them while
// they work for one of its scripts: what Loom allocates counts against the state's memory cap, long steps
// (lowering stages, compilers) stop at its deadline, and builds write only into its cache directory. The Lua
// binding installs a state's limits on the thread for each call it serves; elsewhere nothing is limited.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loom {

/// Bytes held against a cap by everything of one state: Lua's heap, host arrays, device buffers, compiled code.
/// Thread-safe, since memory may be released on any thread.
class MemoryAccount {
public:
    /// `cap` 0: no cap, only counting.
    explicit MemoryAccount(std::size_t cap) : cap_(cap) {}
    /// Takes `bytes` when they fit under `cap() + headroom`; false (nothing taken) otherwise.
    bool try_charge(std::size_t bytes, std::size_t headroom = 0);
    void refund(std::size_t bytes) { used_ -= bytes; }
    std::size_t used() const { return used_; }
    std::size_t cap() const { return cap_; }
    bool over_cap() const { return cap_ > 0 && used_ > cap_; }

private:
    const std::size_t cap_;
    std::atomic<std::size_t> used_{0};
};

struct Limits {
    std::shared_ptr<MemoryAccount> memory;  // never null
    /// When the current run must end, and its length for messages; unset between runs.
    std::optional<std::chrono::steady_clock::time_point> deadline;
    double seconds = 0;
    /// The one directory builds and caches may write (their temporary files too); empty: none.
    std::string cache_dir;
    /// Frees what can be freed (a Lua state's garbage, which holds arrays) before a charge is refused: Lua's
    /// collector sees only the small handles of Loom's memory, so it does not run for it by itself.
    std::function<void()> reclaim;
};

/// The limits in force on this thread, or null.
const Limits* current_limits();

/// How work that checks no limit of its own (one isl computation) is stopped from a watchdog thread, when the
/// deadline passes or the process's memory grows past twice the cap (isl's allocations are not charged), and let
/// go again once the limits are out of force: set once by the layer that owns such work (isl/isl.cpp). `stop`
/// must be safe to call from another thread while the work runs.
struct WorkInterrupt {
    void (*stop)() = nullptr;
    void (*resume)() = nullptr;
};
void set_work_interrupt(WorkInterrupt interrupt);

/// Whether the watchdog stopped the work of the limits in force for memory (not for the deadline).
bool memory_stopped();

/// While one lives (on any thread), the memory the process gains is not the engine's: a compiler's or an OpenCL
/// driver's (LLVM's caches after the first build). The watchdog does not count it, and counts growth from where
/// the last one ends.
class ForeignMemory {
public:
    ForeignMemory();
    ~ForeignMemory();
    ForeignMemory(const ForeignMemory&) = delete;
    ForeignMemory& operator=(const ForeignMemory&) = delete;
};

/// Whether the current deadline has passed (work stopped by the interrupt stays stopped until the limits go).
bool deadline_passed();

/// Puts `limits` (null: none) in force on this thread for its lifetime; the previous ones come back after. With
/// a deadline or a memory cap, a watchdog stops the work in progress (WorkInterrupt) past them.
class LimitsScope {
public:
    explicit LimitsScope(const Limits* limits);
    ~LimitsScope();
    LimitsScope(const LimitsScope&) = delete;
    LimitsScope& operator=(const LimitsScope&) = delete;

private:
    const Limits* saved_;
    bool watched_ = false;
};

/// Memory of Loom's (an array, a buffer, a compiled program) charged to the current limits' account while this
/// object lives; free when no limits are in force. A MemoryError, before anything is allocated, when it does not
/// fit under the cap.
class MemoryCharge {
public:
    MemoryCharge() = default;
    MemoryCharge(std::size_t bytes, const char* what);
    MemoryCharge(MemoryCharge&& other) noexcept;
    MemoryCharge& operator=(MemoryCharge&& other) noexcept;
    ~MemoryCharge();

private:
    std::shared_ptr<MemoryAccount> account_;
    std::size_t bytes_ = 0;
};

/// A LimitError when the current deadline has passed: called between the long steps of a build, naming `step`.
void check_deadline(const char* step);

/// The work of one long stage (the code of one kernel: its unrolled copies and printed statements), charged as it
/// grows to the current limits' account and released when the stage ends: an unrolled loop of 16384 copies of
/// 100 statements grew to 684 MB under a 64 MiB cap before. Nested scopes add to the outermost.
class StageScope {
public:
    explicit StageScope(const char* stage);
    ~StageScope();
    StageScope(const StageScope&) = delete;
    StageScope& operator=(const StageScope&) = delete;

private:
    friend void stage_work(std::size_t bytes);
    const char* stage_;
    std::size_t bytes_ = 0, charged_ = 0;
    std::vector<MemoryCharge> charges_;  // each a step of growth
    StageScope* outer_;
};

/// One unit of a long stage's work, of about `bytes` of memory: the deadline checked (a LimitError past it, inside
/// the stage rather than after it), and the bytes charged to the stage in force (a MemoryError past the cap).
/// Nothing where no limits are in force.
void stage_work(std::size_t bytes);

/// The time left before the current deadline, if there is one (zero once it has passed).
std::optional<std::chrono::steady_clock::duration> time_left();

/// The text of a LimitError about the deadline: "deadline of 0.5 s passed (STEP)".
std::string deadline_message(const Limits& limits, const std::string& step);

/// The CPU time the calling thread has used, in seconds: what the stage timings of code generation report
/// (a share of generate_code that other threads' work does not inflate).
double thread_cpu_seconds();

}  // namespace loom
