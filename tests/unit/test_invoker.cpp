// Calling kernels through the C++ invoker (backends/invoker.h) on the C executor, without Lua: the general path,
// the plan of repeated calls, and a user error for arguments that do not fit.
#include <catch2/catch.hpp>

#include "backends/c/c_executor.h"
#include "backends/invoker.h"
#include "helpers.h"

using namespace loom;
using namespace loom::backend;

namespace {

Kernel scaled_sum() { return test::kernel({"{[i]: 0<=i<n}"}, {"out[i] = 2*a[i] + b[i]"}); }

// out[i] = 2*a[i] + b[i], as a plain loop.
void check_scaled_sum(const HostArray& out, const HostArray& a, const HostArray& b) {
    REQUIRE(out.shape() == a.shape());
    for (std::int64_t i = 0; i < a.shape()[0]; ++i)
        CHECK(out.get_double({i}) == 2 * a.get_double({i}) + b.get_double({i}));
}

}  // namespace

TEST_CASE("a kernel called through the invoker matches a plain loop", "[invoker]") {
    Invoker invoker(scaled_sum());
    const std::shared_ptr<Executor> exec = make_c_executor({});
    const HostArray a = HostArray::rand({37}, DType::Float64, 1), b = HostArray::rand({37}, DType::Float64, 2);
    CallArgs args;
    args.arrays.emplace("a", a);
    args.arrays.emplace("b", b);
    const std::vector<Output> outputs = invoker.call(exec, args, true);  // n from the shapes, out allocated
    REQUIRE(outputs.size() == 1);
    CHECK(outputs[0].name == "out");
    REQUIRE(outputs[0].arrays.size() == 1);
    check_scaled_sum(outputs[0].arrays[0], a, b);

    SECTION("a repeated call runs through the plan the first one left") {
        REQUIRE(invoker.plans().size() == 1);
        CallPlan& plan = *invoker.plans()[0];
        const HostArray a2 = HostArray::rand({37}, DType::Float64, 3), b2 = HostArray::rand({37}, DType::Float64, 4);
        std::vector<PlanArg> values(plan.slots.size());
        for (std::size_t k = 0; k < plan.slots.size(); ++k) {
            values[k].of_kind = true;  // arrays as passed, the rest absent
            if (plan.slots[k].name == "a") values[k].host = &a2;
            if (plan.slots[k].name == "b") values[k].host = &b2;
        }
        const std::optional<std::vector<Output>> again = invoker.call_planned(plan, values);
        REQUIRE(again);
        check_scaled_sum(again->at(0).arrays.at(0), a2, b2);

        const HostArray shorter = HostArray::rand({5}, DType::Float64, 5);
        for (std::size_t k = 0; k < plan.slots.size(); ++k)
            if (plan.slots[k].name == "a") values[k].host = &shorter;
        CHECK_FALSE(invoker.call_planned(plan, values));  // another signature: the general path's
    }
}

TEST_CASE("the invoker raises ArgumentError for an array of the wrong shape", "[invoker]") {
    Invoker invoker(scaled_sum());
    CallArgs args;
    args.arrays.emplace("a", HostArray::zeros({8}, DType::Float64));
    args.arrays.emplace("b", HostArray::zeros({5}, DType::Float64));
    const std::optional<Error> e = test::error_of([&] { invoker.call(make_c_executor({}), args); });
    REQUIRE(e);
    CHECK(e->kind() == error_kind::ArgumentError);
    CHECK(e->message() == "argument 'b': expected shape (8,), got (5,)");
}

TEST_CASE("the invoker names an argument the kernel does not have", "[invoker]") {
    Invoker invoker(scaled_sum());
    CallArgs args;
    args.set_integer("m", 3);
    const std::optional<Error> e = test::error_of([&] { invoker.call(make_c_executor({}), args); });
    REQUIRE(e);
    CHECK(e->kind() == error_kind::ArgumentError);
    CHECK(e->message() == "kernel 'loopy_kernel' has no argument named 'm'");
}

TEST_CASE("the invoker solves a value argument from a shape affine in it", "[invoker]") {
    Invoker invoker(test::kernel({"{[i]: 0<=i<n}"}, {"out[i] = a[2*i + 3]"}));  // a has 2*n + 2 elements
    const HostArray a = HostArray::arange(12, DType::Float64);
    CallArgs args;
    args.arrays.emplace("a", a);
    const std::vector<Output> outputs = invoker.call(make_c_executor({}), args);
    const HostArray& out = outputs.at(0).arrays.at(0);
    REQUIRE(out.shape() == HostArray::Shape{5});
    for (std::int64_t i = 0; i < 5; ++i) CHECK(out.get_double({i}) == a.get_double({2 * i + 3}));
}
