// A fixed set of threads that run tasks in submission order: what lets tune.search compile variants while
// it generates the next ones and times the built ones. Tasks call only thread-safe backend code (building a
// program, timing one); the engine (src/, isl) stays on the thread that owns the Lua state.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace loom::backend {

class WorkerPool {
public:
    /// Starts `workers` (at least 1) threads.
    explicit WorkerPool(int workers);
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    /// Runs what was submitted to the end, then joins the threads.
    ~WorkerPool();

    /// Queues `task`; the future holds its result or the exception it threw.
    template <class T>
    std::shared_future<T> submit(std::function<T()> task) {
        auto packaged = std::make_shared<std::packaged_task<T()>>(std::move(task));
        std::shared_future<T> result = packaged->get_future().share();
        enqueue([packaged] { (*packaged)(); });
        return result;
    }

private:
    void enqueue(std::function<void()> task);
    void work();

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

}  // namespace loom::backend
