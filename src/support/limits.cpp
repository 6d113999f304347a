#include "support/limits.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>

#include "support/error.h"

namespace loom {

namespace {

thread_local const Limits* t_limits = nullptr;
std::atomic<bool> g_memory_stopped{false};

}  // namespace

bool MemoryAccount::try_charge(std::size_t bytes, std::size_t headroom) {
    const std::size_t before = used_.fetch_add(bytes);
    if (cap_ == 0 || before + bytes <= cap_ + headroom) return true;
    used_ -= bytes;
    return false;
}

const Limits* current_limits() { return t_limits; }

namespace {

WorkInterrupt g_interrupt;

std::size_t resident_bytes() {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return static_cast<std::size_t>(resident) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

// One thread for the process, started with the first watched scope: it stops the work in progress when the
// scope's deadline passes, or when the process's resident memory grows past twice the scope's memory cap (what
// the account does not see: isl's allocations, polled every 10 ms). The engine runs on one thread at a time,
// so one scope is watched at a time (the outermost; nested scopes of the same run share its limits).
class Watchdog {
public:
    static Watchdog& instance() {
        static Watchdog* w = started = new Watchdog();  // never destroyed: its thread runs until the process ends
        return *w;
    }
    /// The watchdog where one was started (a process without limits never starts one), else null.
    static inline std::atomic<Watchdog*> started{nullptr};

    void arm(std::optional<std::chrono::steady_clock::time_point> deadline, std::size_t cap) {
        const std::lock_guard lock(mutex_);
        deadline_ = deadline;
        growth_cap_ = 2 * cap;
        baseline_ = cap > 0 ? resident_bytes() : 0;
        armed_ = true;
        fired_ = false;
        g_memory_stopped = false;
        wake_.notify_one();
    }

    void pause() {
        const std::lock_guard lock(mutex_);
        ++paused_;
    }

    void unpause() {
        const std::lock_guard lock(mutex_);
        if (paused_ > 0) --paused_;  // begun before the watchdog started: not counted
        if (armed_ && growth_cap_ > 0) baseline_ = std::max(baseline_, resident_bytes());
    }

    void disarm() {
        std::unique_lock lock(mutex_);
        armed_ = false;
        if (fired_ && g_interrupt.resume) g_interrupt.resume();
        fired_ = false;
        g_memory_stopped = false;
        wake_.notify_one();
    }

private:
    Watchdog() { std::thread([this] { run(); }).detach(); }

    void run() {
        using clock = std::chrono::steady_clock;
        std::unique_lock lock(mutex_);
        for (;;) {
            if (!armed_ || fired_) {
                wake_.wait(lock);
                continue;
            }
            clock::time_point until = growth_cap_ > 0 ? clock::now() + std::chrono::milliseconds(10) : clock::time_point::max();
            if (deadline_) until = std::min(until, *deadline_);
            wake_.wait_until(lock, until);
            if (!armed_ || fired_) continue;
            const bool late = deadline_ && clock::now() >= *deadline_;
            const bool grown = growth_cap_ > 0 && paused_ == 0 && resident_bytes() > baseline_ + growth_cap_;
            if (!late && !grown) continue;
            fired_ = true;
            g_memory_stopped = grown && !late;
            if (g_interrupt.stop) g_interrupt.stop();
        }
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<std::chrono::steady_clock::time_point> deadline_;
    std::size_t growth_cap_ = 0, baseline_ = 0;
    int paused_ = 0;  // ForeignMemory objects alive
    bool armed_ = false, fired_ = false;
};

}  // namespace

void set_work_interrupt(WorkInterrupt interrupt) { g_interrupt = interrupt; }

bool memory_stopped() { return g_memory_stopped; }

ForeignMemory::ForeignMemory() {
    if (Watchdog* w = Watchdog::started) w->pause();
}

ForeignMemory::~ForeignMemory() {
    if (Watchdog* w = Watchdog::started) w->unpause();
}

LimitsScope::LimitsScope(const Limits* limits) : saved_(t_limits) {
    t_limits = limits;
    // Watched where the limits come into force, not inside a scope of the same limits.
    const std::size_t cap = limits ? limits->memory->cap() : 0;
    if (limits && limits != saved_ && (limits->deadline || cap > 0) && g_interrupt.stop) {
        Watchdog::instance().arm(limits->deadline, cap);
        watched_ = true;
    }
}

LimitsScope::~LimitsScope() {
    if (watched_) Watchdog::instance().disarm();
    t_limits = saved_;
}

MemoryCharge::MemoryCharge(std::size_t bytes, const char* what) {
    if (!t_limits) return;
    MemoryAccount& account = *t_limits->memory;
    const bool fits = account.try_charge(bytes) || (t_limits->reclaim && (t_limits->reclaim(), account.try_charge(bytes)));
    user_assert(fits, error_kind::MemoryError, what, " of ", bytes, " bytes does not fit the memory limit of ",
                account.cap(), " bytes (", account.used(), " in use)");
    account_ = t_limits->memory;
    bytes_ = bytes;
}

MemoryCharge::MemoryCharge(MemoryCharge&& other) noexcept
    : account_(std::move(other.account_)), bytes_(std::exchange(other.bytes_, 0)) {}

MemoryCharge& MemoryCharge::operator=(MemoryCharge&& other) noexcept {
    std::swap(account_, other.account_);
    std::swap(bytes_, other.bytes_);
    return *this;
}

MemoryCharge::~MemoryCharge() {
    if (account_) account_->refund(bytes_);
}

std::optional<std::chrono::steady_clock::duration> time_left() {
    if (!t_limits || !t_limits->deadline) return std::nullopt;
    const auto left = *t_limits->deadline - std::chrono::steady_clock::now();
    return std::max(left, std::chrono::steady_clock::duration::zero());
}

std::string deadline_message(const Limits& limits, const std::string& step) {
    return cat("deadline of ", limits.seconds, " s passed (", step, ")");
}

namespace {
thread_local StageScope* t_stage = nullptr;
}  // namespace

StageScope::StageScope(const char* stage) : stage_(stage), outer_(t_stage) {
    if (!outer_) t_stage = this;
}

StageScope::~StageScope() {
    if (!outer_) t_stage = nullptr;
}

void stage_work(std::size_t bytes) {
    if (!t_limits) return;
    StageScope* stage = t_stage;
    check_deadline(stage ? stage->stage_ : "a long engine stage");
    if (!stage) return;
    stage->bytes_ += bytes;
    // The growth is charged in steps of a quarter of what is charged (at least 64 KiB): few charges, none far
    // behind.
    const std::size_t step = std::max<std::size_t>(64 * 1024, stage->charged_ / 4);
    if (stage->bytes_ < stage->charged_ + step) return;
    stage->charges_.emplace_back(stage->bytes_ - stage->charged_, stage->stage_);
    stage->charged_ = stage->bytes_;
}

bool deadline_passed() {
    const auto left = time_left();
    return left && *left == std::chrono::steady_clock::duration::zero();
}

void check_deadline(const char* step) {
    if (const auto left = time_left(); left && *left == std::chrono::steady_clock::duration::zero())
        throw Error(error_kind::LimitError, deadline_message(*t_limits, step));
}

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace loom
