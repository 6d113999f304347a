// Expression trees are bounded in depth where they are made, so that no recursive walk over them can exhaust
// the stack, and typing them takes time linear in their size.
#include <catch2/catch.hpp>

#include <functional>
#include <string>

#include "helpers.h"
#include "analysis/types.h"
#include "expr/expr.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"
#include "support/error.h"

using namespace loom;

namespace {

// a[i] + a[i] + ... with `operands` operands: a left-deep chain `operands` levels deep.
ExprPtr chain(int operands) {
    ExprPtr e = subscript("a", {var("i")});
    for (int n = 1; n < operands; ++n) e = binary(BinOp::Add, e, subscript("a", {var("i")}));
    return e;
}

std::string raised_kind(const std::function<void()>& f) {
    const std::optional<Error> e = test::error_of(f);
    return e ? e->kind() : "no error";
}

}  // namespace

TEST_CASE("trees up to kMaxExprDepth levels are made, deeper ones are a LoopyError") {
    const ExprPtr deepest = chain(kMaxExprDepth - 1);  // the leftmost subscript's index is one level more
    CHECK(deepest->depth == kMaxExprDepth);
    CHECK(raised_kind([&] { binary(BinOp::Add, deepest, int_lit(1)); }) == "LoopyError");
    CHECK(raised_kind([&] { unary("-", deepest); }) == "LoopyError");
    CHECK(raised_kind([&] { substitute(deepest, {{"i", binary(BinOp::Add, var("i"), int_lit(1))}}); }) == "LoopyError");
    CHECK(binary(BinOp::Add, int_lit(1), var("x"))->depth == 2);
}

TEST_CASE("typing a sum takes each operand once") {
    MakeKernelInput in;
    in.domains = {"{ [i]: 0 <= i < n }"};
    in.instructions = {"out[i] = a[i]"};
    const Kernel k = infer_types(make_kernel(in), {{"a", DType::Float32}}, false);
    // Typing both operands at every level again would take 2^40 steps here.
    CHECK(expr_type(*k, chain(40)).dtype == DType::Float32);
    CHECK(expr_type(*k, chain(kMaxExprDepth - 1)).dtype == DType::Float32);
    ExprTyper typer(*k);
    const ExprPtr e = chain(1000);
    CHECK(typer.type(e).dtype == DType::Float32);
    CHECK(typer.operation_type(e->args) == DType::Float32);
}

TEST_CASE("the parser refuses deep nesting and long chains with a ParseError") {
    CHECK(raised_kind([] { parse_expression(std::string(10000, '(') + "x" + std::string(10000, ')')); }) ==
          "ParseError");
    CHECK(raised_kind([] { parse_expression(std::string(100000, '-') + "x"); }) == "ParseError");
    std::string sum = "x";
    for (int n = 1; n < 20000; ++n) sum += "+x";
    CHECK(raised_kind([&] { parse_expression(sum); }) == "ParseError");
    CHECK(parse_expression(std::string(400, '(') + "x" + std::string(400, ')'))->kind == ExprKind::Var);
}
