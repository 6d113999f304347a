// Wall-clock timing of repeated launches, shared by the executors.
#include <algorithm>
#include <chrono>

#include "backends/runtime.h"

namespace loom::backend {

std::vector<double> time_repetitions(int warmup, int runs, const std::function<void()>& repetition) {
    for (int i = 0; i < warmup; ++i) repetition();
    std::vector<double> seconds;
    seconds.reserve(static_cast<std::size_t>(std::max(runs, 0)));
    for (int i = 0; i < runs; ++i) {
        const auto start = std::chrono::steady_clock::now();
        repetition();
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
}

}  // namespace loom::backend
