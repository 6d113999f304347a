// The Catch2 runner of the unit tests. Like the loom executable, it runs them on a thread with a large stack:
// the engine's walks over expressions recurse once per level of a tree (up to kMaxExprDepth).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <pthread.h>

#include <cstddef>

namespace {

constexpr std::size_t kStackBytes = std::size_t{512} << 20;

struct Invocation {
    int argc;
    char** argv;
    int status;
};

void* run_session(void* p) {
    auto* inv = static_cast<Invocation*>(p);
    inv->status = Catch::Session().run(inv->argc, inv->argv);
    return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
    Invocation inv{argc, argv, 1};
    pthread_attr_t attr;
    pthread_t thread;
    if (pthread_attr_init(&attr) != 0 || pthread_attr_setstacksize(&attr, kStackBytes) != 0 ||
        pthread_create(&thread, &attr, run_session, &inv) != 0)
        return Catch::Session().run(argc, argv);
    pthread_attr_destroy(&attr);
    pthread_join(thread, nullptr);
    return inv.status;
}
