// The domain forest: nesting by inames and by temporaries written inside loops, iteration domains that
// identify nested parameters with the inames around them, and branches that no instruction may need.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ir/domain.h"
#include "ir/subst_rule.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "parse/instructions.h"
#include "helpers.h"
#include "parse/make_kernel.h"
#include "support/error.h"

using namespace loom;

namespace {

}  // namespace

TEST_CASE("domain parents follow inames and bound writers", "[domain_forest]") {
    const Kernel k = test::kernel({"{ [l]: 0<=l<n }", "{ [i]: 0<=i<l }", "{ [k]: 0<=k<m }", "{ [j]: lo<=j<hi }"},
                            {"out[l, i] = 1", "for k\n <> lo = p[k]\n <> hi = p[k+1]\n out2[k] = sum(j, 1)\nend"});
    CHECK(domain_parents(*k) == std::vector<int>{-1, 0, -1, 2});
}

TEST_CASE("nested parameters are identified with outer inames", "[domain_forest]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }"}, {"out[i, j] = 1"});
    CHECK(isl_util::to_str(domain_of(*k, {"i", "j"})) == "[n] -> { [i, j] : 0 <= i < n and 0 <= j <= i }");
    // Projected onto j, i's bounds still apply: j < n.
    CHECK(isl_util::to_str(domain_of(*k, {"j"})) == "[n] -> { [j] : 0 <= j < n }");
}

TEST_CASE("temporary bounds stay parameters", "[domain_forest]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }", "{ [j]: lo<=j<hi }"},
                            {"for i\n <> lo = p[i]\n <> hi = p[i+1]\n out[i] = sum(j, 1)\nend"});
    CHECK(isl_util::to_str(domain_of(*k, {"i", "j"})) == "[lo, hi, n] -> { [i, j] : 0 <= i < n and lo <= j < hi }");
}

TEST_CASE("a branch of the forest is an error", "[domain_forest]") {
    const Kernel k = test::kernel({"{ [l]: 0<=l<n }", "{ [i]: 0<=i<l }", "{ [j]: 0<=j<l }"}, {"out[l, i] = 1", "out2[l, j] = 2"});
    CHECK_NOTHROW(domain_of(*k, {"l", "i"}));
    CHECK_THROWS_WITH(domain_of(*k, {"i", "j"}), Catch::Contains("requires a branch in the domain tree"));
}

TEST_CASE("substitution rules expand with their arguments", "[domain_forest]") {
    const ParsedInstructions p = parse_instructions({"f(x, y) := x*y + c\ng(z) := f(z, z + 1)\nc := 2"});
    CHECK(to_string(expand_rules(parse_expression("g(a[i]) - f(1, c)"), p.substitutions)) ==
          "a[i]*(a[i] + 1) + 2 - (1*2 + 2)");
}

TEST_CASE("a kernel caches what it derives; an edited copy of its data does not inherit it", "[domain_forest]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = 1"});
    CHECK(isl_util::to_str(domain_of(*k, {"i"})) == "[n] -> { [i] : 0 <= i < n }");
    CHECK(k->cache.facts() != nullptr);
    KernelData edit = k.copy();
    CHECK(edit.cache.facts() == nullptr);
    edit.domains[0] = parse_domain("{ [i]: 0<=i<5 }");
    CHECK(isl_util::to_str(domain_of(edit, {"i"})) == "{ [i] : 0 <= i <= 4 }");
    const Kernel edited(std::move(edit));
    CHECK(isl_util::to_str(domain_of(*edited, {"i"})) == "{ [i] : 0 <= i <= 4 }");
    CHECK(isl_util::to_str(domain_of(*k, {"i"})) == "[n] -> { [i] : 0 <= i < n }");
}
