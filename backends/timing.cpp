// Wall-clock timing of repeated launches, shared by the executors.
#include <algorithm>
#include <chrono>

#include "backends/runtime.h"

namespace loom::backend {

double wall_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<double> time_repetitions(int warmup, int runs, const std::function<void()>& repetition) {
    for (int i = 0; i < warmup; ++i) repetition();
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(std::max(runs, 0)));
    for (int i = 0; i < runs; ++i) {
        const double start = wall_seconds();
        repetition();
        seconds.push_back(wall_seconds() - start);
    }
    return seconds;
}

double median(std::vector<double> seconds) {
    std::sort(seconds.begin(), seconds.end());
    const std::size_t mid = seconds.size() / 2;
    return seconds.size() % 2 == 1 ? seconds[mid] : (seconds[mid - 1] + seconds[mid]) / 2;
}

}  // namespace loom::backend
