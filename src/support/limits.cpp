#include "support/limits.h"

#include <ctime>

#include <algorithm>
#include <utility>

#include "support/error.h"

namespace loom {

namespace {

thread_local const Limits* t_limits = nullptr;

}  // namespace

bool MemoryAccount::try_charge(std::size_t bytes, std::size_t headroom) {
    const std::size_t before = used_.fetch_add(bytes);
    if (cap_ == 0 || before + bytes <= cap_ + headroom) return true;
    used_ -= bytes;
    return false;
}

const Limits* current_limits() { return t_limits; }

LimitsScope::LimitsScope(const Limits* limits) : saved_(t_limits) { t_limits = limits; }

LimitsScope::~LimitsScope() { t_limits = saved_; }

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
