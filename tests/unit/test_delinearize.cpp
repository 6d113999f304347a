// Flat indices in a radix of arguments (analysis/delinearize.h): the digits of an index, and the radix every
// access of a variable shares only where each digit is provably within its base.
#include <catch2/catch.hpp>

#include "analysis/delinearize.h"
#include "ir/access.h"
#include "parse/instructions.h"
#include "tests/unit/helpers.h"

namespace {

using namespace loom;

std::vector<std::string> digits_text(const std::string& index, const std::vector<std::string>& bases) {
    std::vector<std::string> out;
    for (const ExprPtr& d : radix_digits(parse_expression(index), bases)) out.push_back(to_string(d));
    return out;
}

std::optional<std::vector<std::string>> bases_of(const Kernel& k, const std::string& variable) {
    return radix_bases(*k, variable);
}

}  // namespace

TEST_CASE("radix_digits reads a flat index digit by digit, the most significant first", "[delinearize]") {
    CHECK(digits_text("iz*n1*n2 + iy*n1 + ix + 3", {"n1", "n2"}) == std::vector<std::string>{"iz", "iy", "ix + 3"});
    CHECK(digits_text("i + n*j - n", {"n"}) == std::vector<std::string>{"j + -1", "i"});
    CHECK(digits_text("i", {"n"}) == std::vector<std::string>{"0", "i"});
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
