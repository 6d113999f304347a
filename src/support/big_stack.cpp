#include "support/big_stack.h"

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace loom {

namespace {

constexpr std::size_t kStackBytes = std::size_t{512} << 20;

struct Invocation {
    int (*body)(int, char**);
    int argc;
    char** argv;
    int status;
};

void* run_invocation(void* p) {
    auto* inv = static_cast<Invocation*>(p);
    inv->status = inv->body(inv->argc, inv->argv);
    return nullptr;
}

}  // namespace

int run_on_big_stack(int (*body)(int, char**), int argc, char** argv) {
    Invocation inv{body, argc, argv, 1};
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return body(argc, argv);
    pthread_t thread;
    const bool started = pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
                         pthread_create(&thread, &attr, run_invocation, &inv) == 0;
    pthread_attr_destroy(&attr);
    if (!started) return body(argc, argv);
    pthread_join(thread, nullptr);
    return inv.status;
}

std::size_t stack_left() {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return SIZE_MAX;
    void* low = nullptr;
    std::size_t size = 0;
    const bool known = pthread_attr_getstack(&attr, &low, &size) == 0;
    pthread_attr_destroy(&attr);
    const char here = 0;  // stacks grow down on every system Loom builds for
    return known ? static_cast<std::size_t>(&here - static_cast<const char*>(low)) : SIZE_MAX;
}

}  // namespace loom
