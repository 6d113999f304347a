// The checks of support/error.h: a failing check raises its kind with the message; a passing one does not
// even build the message (its parts may format isl sets).
#include <catch2/catch.hpp>

#include <string>

#include "support/error.h"

using namespace loom;

namespace {

int formatted = 0;

std::string costly_part() {
    ++formatted;
    return "part";
}

}  // namespace

TEST_CASE("user_assert builds its message only when the check fails", "[errors]") {
    formatted = 0;
    user_assert(1 + 1 == 2, "LoopyError", "never ", costly_part());
    internal_assert(true, "never ", costly_part());
    CHECK(formatted == 0);
    try {
        user_assert(1 + 1 == 3, "LoopyError", "a message with a ", costly_part());
        FAIL("no error raised");
    } catch (const Error& e) {
        CHECK(e.kind() == "LoopyError");
        CHECK(e.message() == "a message with a part");
    }
    CHECK(formatted == 1);
    CHECK_THROWS_WITH(internal_error("broken ", 42), "InternalError: internal error: broken 42");
}
