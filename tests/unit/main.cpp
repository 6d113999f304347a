// The Catch2 runner of the unit tests. Like the loom executable, it runs them on a thread with a large stack
// (support/big_stack.h).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "support/big_stack.h"

namespace {

int run_session(int argc, char** argv) { return Catch::Session().run(argc, argv); }

}  // namespace

int main(int argc, char** argv) { return loom::run_on_big_stack(run_session, argc, argv); }
