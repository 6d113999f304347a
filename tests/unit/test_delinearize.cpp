// Flat indices in a radix of arguments (analysis/delinearize.h): the digits of an index, and the radix every
// access of a variable shares only where each digit is provably within its base.
#include <catch2/catch.hpp>

#include "analysis/delinearize.h"
#include "ir/access.h"
#include "parse/instructions.h"
#include "tests/unit/helpers.h"

namespace {

using namespace loom;

std::vector<std::string> texts(const std::vector<ExprPtr>& es) {
    std::vector<std::string> out;
    for (const ExprPtr& e : es) out.push_back(to_string(e));
    return out;
}

std::vector<std::string> digits_text(const std::string& index, const std::vector<std::string>& bases) {
    std::vector<ExprPtr> parsed;
    for (const std::string& b : bases) parsed.push_back(parse_expression(b));
    return texts(radix_digits(parse_expression(index), parsed));
}

std::optional<std::vector<std::string>> bases_of(const Kernel& k, const std::string& variable) {
    const auto bases = radix_bases(*k, variable);
    if (!bases) return std::nullopt;
    return texts(*bases);
}

}  // namespace

TEST_CASE("radix_digits reads a flat index digit by digit, the most significant first", "[delinearize]") {
    CHECK(digits_text("iz*n1*n2 + iy*n1 + ix + 3", {"n1", "n2"}) == std::vector<std::string>{"iz", "iy", "ix + 3"});
    CHECK(digits_text("i + n*j - n", {"n"}) == std::vector<std::string>{"j + -1", "i"});
    CHECK(digits_text("i", {"n"}) == std::vector<std::string>{"0", "i"});
    // A base that is a sum of arguments is one factor.
    CHECK(digits_text("h + z*(n1 + 2*h)*n2 + y*(n1 + 2*h) + x", {"n1 + 2*h", "n2"}) ==
          std::vector<std::string>{"z", "y", "h + x"});
}

TEST_CASE("radix_bases holds where every digit is within its base", "[delinearize]") {
    const Kernel inside = test::kernel({"{[i,j]: 0<=i<n and 0<=j<m}"}, {"b[i + n*j] = 2*a[j*n + i]"});
    CHECK(bases_of(inside, "b") == std::vector<std::string>{"n"});
    CHECK(bases_of(inside, "a") == std::vector<std::string>{"n"});
    // i reaches n: element n + n*j is element 0 + n*(j+1).
    const Kernel reaching = test::kernel({"{[i,j]: 0<=i<=n and 0<=j<m}"}, {"b[i + n*j] = 1"});
    CHECK_FALSE(bases_of(reaching, "b").has_value());
    // Affine indices need no radix; two strides that share no argument have none.
    CHECK_FALSE(bases_of(test::kernel({"{[i]: 0<=i<n}"}, {"b[2*i + 1] = 1"}), "b").has_value());
    CHECK_FALSE(bases_of(test::kernel({"{[i,j,k]: 0<=i,j,k<4}"}, {"b[i + n*j + m*k] = 1"}), "b").has_value());
}

TEST_CASE("radix_bases takes sums of arguments as bases, and a shift every access shares", "[delinearize]") {
    // Rows of n + 2*h elements, each access h past the row's start (a pointer &b[h]).
    const char* padded = "b[h + j*(n + 2*h) + i] = 2*b[h + j*(n + 2*h) + i]";
    CHECK(bases_of(test::kernel({"{[i,j]: 0<=i<n and 0<=j<m}"}, {padded}, "h >= 0"), "b") ==
          std::vector<std::string>{"n + 2*h"});
    // Rows shorter than n where h < 0: they overlap.
    CHECK_FALSE(bases_of(test::kernel({"{[i,j]: 0<=i<n and 0<=j<m}"}, {padded}), "b").has_value());
    // Digit i + h is within [h, h + n), not [0, n): the shift both accesses share makes the radix.
    CHECK(bases_of(test::kernel({"{[i,j]: 0<=i<n and 0<=j<m}"}, {"b[h + j*n + i] = 2*b[h + j*n + i]"}, "h >= 0"), "b") ==
          std::vector<std::string>{"n"});
    // Element h + j*n + i of the one is element (j*n + i + h) of the other: no shared shift, no radix.
    CHECK_FALSE(
        bases_of(test::kernel({"{[i,j]: 0<=i<n and 0<=j<m}"}, {"b[h + j*n + i] = 2*b[j*n + i]"}, "h >= 0"), "b").has_value());
}
