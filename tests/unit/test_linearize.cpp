// The linearizer: instructions after their dependencies, dependencies acting within the largest common set
// of shared inames, loop priorities where the dependencies leave a choice, and errors when no order exists.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.h"
#include "parse/make_kernel.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

using Items = std::vector<std::string>;

// The linearization as "for i", "end i" and instruction ids.
Items order_of(const Kernel& k) {
    const Kernel linear = linearize(k);
    Items out;
    for (const LinearItem& item : linear->linearization) {
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop: out.push_back("for " + item.name); break;
            case LinearItem::Kind::LeaveLoop: out.push_back("end " + item.name); break;
            default: out.push_back(item.name); break;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("instructions run after their dependencies, whatever the source order", "[linearize]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = 2*tmp[i] {id=second, dep=first}",
                                                "tmp[i] = a[i] {id=first}"});
    CHECK(order_of(k) == Items{"for i", "first", "second", "end i"});
}

TEST_CASE("without dependencies, source order and priorities decide", "[linearize]") {
    CHECK(order_of(test::kernel({"{ [i]: 0<=i<n }"}, {"x[i] = 1 {id=p}", "y[i] = 2 {id=q}"})) ==
          Items{"for i", "p", "q", "end i"});
    CHECK(order_of(test::kernel({"{ [i]: 0<=i<n }"}, {"x[i] = 1 {id=p}", "y[i] = 2 {id=q, priority=5}"})) ==
          Items{"for i", "q", "p", "end i"});
}

TEST_CASE("a dependency acts within the loops both instructions share", "[linearize]") {
    // The tutorial's incorrect transpose-and-double: both run in i and j, so one loop nest holds both.
    const Kernel shared = prioritize_loops(test::kernel({"{ [i,j]: 0<=i,j<n }"}, {"out[j,i] = a[i,j] {id=transpose}",
                                                                        "out[i,j] = 2*out[i,j] {id=dbl, dep=transpose}"}),
                                           {"i", "j"});
    CHECK(order_of(shared) == Items{"for i", "for j", "transpose", "dbl", "end j", "end i"});

    // With ii and jj for the second instruction, the transpose's loops close before it runs.
    Kernel separate = test::kernel({"{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }"}, {"out[j,i] = a[i,j] {id=transpose}",
                                                               "out[ii,jj] = 2*out[ii,jj] {id=dbl, dep=transpose}"});
    separate = prioritize_loops(prioritize_loops(separate, {"i", "j"}), {"ii", "jj"});
    CHECK(order_of(separate) ==
          Items{"for i", "for j", "transpose", "end j", "end i", "for ii", "for jj", "dbl", "end jj", "end ii"});
}

TEST_CASE("a dependency on an inner loop's result closes that loop first", "[linearize]") {
    const Kernel k = test::kernel({"{ [i,k]: 0<=i<n and 0<=k<m }"}, {"acc[i] = 0 {id=init}",
                                                            "acc[i] = acc[i] + a[i,k] {id=update, dep=init}",
                                                            "out[i] = acc[i] {id=store, dep=update}"});
    CHECK(order_of(k) == Items{"for i", "init", "for k", "update", "end k", "store", "end i"});
}

TEST_CASE("loop priorities choose the nesting", "[linearize]") {
    const Kernel fill = test::kernel({"{ [i,j]: 0<=i,j<n }"}, {"a[i,j] = 0 {id=fill}"});
    CHECK(order_of(prioritize_loops(fill, {"j", "i"})) == Items{"for j", "for i", "fill", "end i", "end j"});
    CHECK(order_of(prioritize_loops(fill, {"i", "j"})) == Items{"for i", "for j", "fill", "end j", "end i"});
}

TEST_CASE("domain nesting overrides priorities", "[linearize]") {
    // j's bounds depend on i: i must enclose j even if the priority says otherwise.
    MakeKernelInput in;
    in.domains = {"{ [i]: 0<=i<n }", "{ [j]: 0<=j<i }"};
    in.instructions = {"a[i,j] = 0 {id=fill}"};
    const Kernel k = make_kernel(in);
    CHECK(order_of(k) == Items{"for i", "for j", "fill", "end j", "end i"});
}

TEST_CASE("hardware axes are not loops unless the target runs the grid", "[linearize]") {
    const Kernel k = tag_inames(test::kernel({"{ [i,j]: 0<=i,j<n }"}, {"a[i,j] = 0 {id=fill}"}), {{"i", "l.0"}});
    CHECK(order_of(k) == Items{"for j", "fill", "end j"});
    const Kernel grid_loops = linearize(k, true);
    Items grid;
    for (const LinearItem& item : grid_loops->linearization)
        if (item.kind == LinearItem::Kind::EnterLoop) grid.push_back(item.name);
    CHECK(grid == Items{"i", "j"});
}

TEST_CASE("cyclic dependencies are a LoopyError", "[linearize]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"x[i] = y[i] {id=p, dep=q}", "y[i] = x[i] {id=q, dep=p}"});
    try {
        linearize(k);
        FAIL("linearize accepted a cycle");
    } catch (const Error& e) {
        CHECK(e.kind() == "LoopyError");
        CHECK_THAT(e.message(), Catch::Contains("cyclic"));
    }
}

TEST_CASE("the linearized kernel is a new value", "[linearize]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"a[i] = 0"});
    const Kernel l = linearize(k);
    CHECK(l->linearized);
    CHECK_FALSE(k->linearized);
    CHECK(k->linearization.empty());
}

TEST_CASE("a loop stays open while an instruction that needs it has not run", "[linearize]") {
    // The priority asks for j around i, but t's writer and reader must share the iteration of both: loopy's
    // priorities are preferences, the nesting that keeps every instruction in one loop is not.
    const Kernel k = prioritize_loops(test::kernel({"{ [i,j]: 0<=i<3 and 0<=j<4 }"},
                                             {"<> t = 2*a[i,j] {id=f}", "acc[i] = 0 {id=init}",
                                              "acc[i] = acc[i] + t {id=upd, dep=f:init}", "out[i] = acc[i] {id=st, dep=upd}"}),
                                      {"j", "i"});
    CHECK(order_of(k) == Items{"for i", "init", "for j", "f", "upd", "end j", "st", "end i"});
}

TEST_CASE("an iname used by every instruction of another nests around it", "[linearize]") {
    // b is used by all three instructions, x only by two: b goes outside, whatever the source order says.
    const Kernel k = test::kernel({"{ [x,b]: 0<=x,b<4 }"},
                            {"s[b] = 0 {id=init}", "s[b] = s[b] + a[b,x] {id=upd, dep=init}", "o[b] = s[b] {id=st, dep=upd}"});
    CHECK(order_of(k) == Items{"for b", "init", "for x", "upd", "end x", "st", "end b"});
}

TEST_CASE("a loop starts after the dependencies of its instructions that run outside it", "[linearize]") {
    // upd (in b) needs fetch, which runs in no loop: it must run before the b loop opens, not in a second one.
    const Kernel k = test::kernel({"{ [b,c]: 0<=b,c<4 }"}, {"w[c] = a[c] {id=fetch}", "o[b] = o[b] + w[b] {id=upd, dep=fetch}"});
    const Items order = order_of(k);
    CHECK(std::count(order.begin(), order.end(), "for b") == 1);
    CHECK(std::find(order.begin(), order.end(), "end c") < std::find(order.begin(), order.end(), "for b"));
}

TEST_CASE("ILP loops run innermost and may be left and entered again", "[linearize]") {
    const Kernel k = tag_inames(test::kernel({"{ [i,k]: 0<=i<4 and 0<=k<8 }"},
                                       {"acc[i] = 0 {id=init}", "acc[i] = acc[i] + a[i,k] {id=upd, dep=init}",
                                        "out[i] = acc[i] {id=st, dep=upd}"}),
                                {{"i", "ilp"}});
    CHECK(order_of(k) == Items{"for i", "init", "end i", "for k", "for i", "upd", "end i", "end k", "for i", "st", "end i"});
}
