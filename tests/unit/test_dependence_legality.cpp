// The dependence check (schedule/dependence_legality.h) fed legal and illegal tag sets: an instruction whose
// instances depend on each other is refused where its tags or loop order would run two dependent instances
// unordered or reversed (a DependenceViolationError naming the instruction, the array, the iname and a witness
// pair), and accepted wherever the order holds, the tags of independent instances included.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "helpers.h"
#include "preprocess/preprocess.h"
#include "support/error.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

// The kernel of one instruction, its arrays (a, and b where it reads one) of float64.
Kernel kernel(const std::string& domain, const std::string& insn) {
    std::map<std::string, DType> dtypes{{"a", DType::Float64}};
    if (insn.find("b[") != std::string::npos) dtypes["b"] = DType::Float64;
    return add_dtypes(test::kernel({domain}, {insn}), dtypes);
}

Kernel tagged(const Kernel& k, const std::vector<std::pair<std::string, std::string>>& tags) { return tag_inames(k, tags); }

Kernel fixed(const Kernel& k, const std::string& parameter, long value) {
    return fix_parameters(k, {{parameter, int_lit(value)}});
}

Kernel split(const Kernel& k, const std::string& iname, std::int64_t factor, const std::string& outer_tag,
             const std::string& inner_tag) {
    SplitOptions o;
    o.outer_tag = outer_tag;
    o.inner_tag = inner_tag;
    return split_iname(k, iname, factor, o);
}

// The message of the DependenceViolationError preprocessing raises; fails the test where none is raised.
std::string refusal(const Kernel& k) {
    const std::optional<Error> e = test::error_of([&] { preprocess_kernel(k); });
    REQUIRE(e.has_value());
    CHECK(e->kind() == "DependenceViolationError");
    return e->message();
}

void check_contains(const std::string& text, const std::vector<std::string>& pieces) {
    for (const std::string& p : pieces) {
        INFO(text);
        CHECK(text.find(p) != std::string::npos);
    }
}

// a[i] = a[i-1] + a[i]: each instance reads what the one before wrote.
Kernel scan() { return kernel("{ [i]: 1<=i<n }", "a[i] = a[i-1] + a[i] {id=upd}"); }
// a[i] = a[i+1]: each instance overwrites what the one before read.
Kernel shift() { return kernel("{ [i]: 0<=i<n-1 }", "a[i] = a[i+1] {id=sh}"); }
// Rows of a scan: dependent along j only.
Kernel rows() { return kernel("{ [i,j]: 0<=i<m and 1<=j<n }", "a[i,j] = a[i,j-1] + a[i,j] {id=row}"); }

}  // namespace

TEST_CASE("a flow dependence across work-groups, work-items and lanes is refused", "[legality]") {
    check_contains(refusal(tagged(scan(), {{"i", "g.0"}})),
                   {"instance (i=", "of 'upd' reads a[", "written by its instance", "another work-group (i on g.0)",
                    "sequential order (i)"});
    check_contains(refusal(split(scan(), "i", 64, "g.0", "l.0")),
                   {"another work-group (i_outer on g.0)", "sequential order (i_outer, i_inner)"});
    check_contains(refusal(fixed(tagged(scan(), {{"i", "l.0"}}), "n", 32)),
                   {"another work-item of the group (i on l.0) at the same point of the code"});
    check_contains(refusal(split(scan(), "i", 4, "", "vec")), {"lanes of one vector (i_inner on vec)"});
}

TEST_CASE("an anti dependence is refused across work-items, kept within vector lanes", "[legality]") {
    check_contains(refusal(tagged(shift(), {{"i", "g.0"}})),
                   {"of 'sh' writes a[", "read by its instance", "another work-group (i on g.0)"});
    check_contains(refusal(fixed(tagged(shift(), {{"i", "l.0"}}), "n", 32)), {"(i on l.0)"});
    // All lanes read before any writes: each reads the old value, as in the sequential order.
    CHECK_NOTHROW(preprocess_kernel(split(shift(), "i", 4, "", "vec")));
}

TEST_CASE("tags over independent instances are legal", "[legality]") {
    CHECK_NOTHROW(preprocess_kernel(split(rows(), "i", 8, "g.0", "l.0")));
    CHECK_NOTHROW(preprocess_kernel(split(rows(), "i", 4, "", "vec")));
    CHECK_NOTHROW(preprocess_kernel(split(rows(), "i", 4, "", "ilp")));
    CHECK_NOTHROW(preprocess_kernel(split(rows(), "j", 4, "", "unr")));
    CHECK_NOTHROW(preprocess_kernel(split(scan(), "i", 4, "", "ilp")));  // the copies keep their order
    check_contains(refusal(fixed(tagged(rows(), {{"j", "l.0"}}), "n", 16)), {"(j on l.0)"});
}

TEST_CASE("a loop that carries the dependence orders work-items through its barrier", "[legality]") {
    // Each step reads the neighbour's value of the step before: a barrier at the top of t orders them.
    const Kernel k = tagged(kernel("{ [t,i]: 0<=t<4 and 0<=i<16 }", "a[i, t+1] = a[(i+1) % 16, t] {id=p}"), {{"i", "l.0"}});
    CHECK_NOTHROW(preprocess_kernel(k));
    // Across work-groups it takes separate launches: refused without a host loop.
    check_contains(refusal(tagged(kernel("{ [t,i]: 0<=t<4 and 0<=i<16 }", "a[i, t+1] = a[(i+1) % 16, t] {id=p}"),
                                  {{"i", "g.0"}})),
                   {"of 'p' reads a[", "another work-group (i on g.0)"});
}

TEST_CASE("ilp copies moved under an inner loop reverse a dependence", "[legality]") {
    // seidel's order: row i+1 at column j-1 needs row i at column j, which the ilp copies run later.
    const Kernel seidel = kernel("{ [i,j]: 1<=i<n-1 and 1<=j<n-1 }", "a[i,j] = a[i-1,j+1] + a[i,j] {id=sw}");
    check_contains(refusal(split(seidel, "i", 2, "", "ilp")),
                   {"of 'sw' reads a[", "the loop order (i_outer, j, i_inner) now runs after it"});
    CHECK_NOTHROW(preprocess_kernel(split(seidel, "j", 2, "", "ilp")));
}

TEST_CASE("nosync, atomics and accesses isl cannot state are exempt", "[legality]") {
    CHECK_NOTHROW(preprocess_kernel(tagged(kernel("{ [i]: 1<=i<n }", "a[i] = a[i-1] + a[i] {id=upd, nosync=upd}"),
                                           {{"i", "g.0"}})));
    CHECK_NOTHROW(preprocess_kernel(tagged(kernel("{ [i]: 0<=i<n }", "a[0] = a[0] + b[i] {id=acc, atomic}"),
                                           {{"i", "g.0"}})));
    // Through data: which elements collide is not known before the run.
    const Kernel gather = add_dtypes(test::kernel({"{ [i]: 0<=i<n }"}, {"a[idx[i]] = a[idx[i]] + 1 {id=hist}"}),
                                     {{"a", DType::Float64}, {"idx", DType::Int32}});
    CHECK_NOTHROW(preprocess_kernel(tagged(gather, {{"i", "g.0"}})));
}

TEST_CASE("a loop order a transformation changed is checked against the loops the kernel had before", "[legality]") {
    // seidel's nine points: A[i-1, j+1] is read after its update, which an interchange of i and j reverses.
    const Kernel seidel = kernel("{ [i,j]: 1<=i<n-1 and 1<=j<n-1 }", "a[i,j] = a[i-1,j+1] + a[i,j-1] + a[i+1,j] {id=sw}");
    check_contains(refusal(prioritize_loops(seidel, {"j", "i"})),
                   {"of 'sw' reads a[", "sequential order (i, j as before the transformations)",
                    "the loop order (j, i) now runs after it"});
    CHECK_NOTHROW(preprocess_kernel(prioritize_loops(seidel, {"i", "j"})));
    CHECK_NOTHROW(preprocess_kernel(split(seidel, "j", 4, "", "")));
    // Along i and j only: the interchange keeps every dependence.
    CHECK_NOTHROW(preprocess_kernel(prioritize_loops(kernel("{ [i,j]: 1<=i<n and 1<=j<n }", "a[i,j] = a[i-1,j] + a[i,j-1] {id=w}"),
                                                     {"j", "i"})));
}

TEST_CASE("two instructions a dep= orders are checked against each other's instances", "[legality]") {
    // `use` reads what `make` wrote one row up and one column right: an earlier iteration of i, a later one of j.
    const auto fused = [](const std::string& read) {
        return add_dtypes(test::kernel({"{ [i,j]: 1<=i<n and 0<=j<n-1 }"},
                                       {"a[i,j] = 2*c[i,j] {id=make}", "b[i,j] = " + read + " {id=use, dep=make}"}),
                          {{"a", DType::Float64}, {"b", DType::Float64}, {"c", DType::Float64}});
    };
    const Kernel skewed = fused("a[i-1,j+1]");
    check_contains(refusal(prioritize_loops(skewed, {"j", "i"})),
                   {"instance (i=2, j=0) of 'use' reads a[1, 1], written by instance (i=1, j=1) of 'make'",
                    "(i, j as before the transformations)", "the loop order (j, i) now runs after it"});
    CHECK_NOTHROW(preprocess_kernel(prioritize_loops(skewed, {"i", "j"})));
    // One row up only: any order of the two loops keeps it.
    CHECK_NOTHROW(preprocess_kernel(prioritize_loops(fused("a[i-1,j]"), {"j", "i"})));
    // An anti dependence: `use` reads a[i+1, j-1] before `make` of a later row overwrites it.
    check_contains(refusal(prioritize_loops(fused("a[i+1,j-1]"), {"j", "i"})),
                   {"of 'make' writes a[", "read by instance", "of 'use'"});
    // Across work-groups no barrier orders the rows, though both run in the loop over j.
    const std::optional<Error> e = test::error_of([&] { preprocess_kernel(tagged(skewed, {{"i", "g.0"}})); });
    REQUIRE(e.has_value());
    CHECK(e->kind() == "MissingBarrierError");
}
