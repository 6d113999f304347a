// The C-family expression printer in loopy's style: index sums with the constant first, flat subscripts from
// strides, literals in the type of their operation, casts where types differ, helpers for floor division.
// The expected texts are those of the loopy tutorial.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "analysis/types.h"
#include "codegen/c_expr.h"
#include "codegen/lower.h"
#include "parse/instructions.h"
#include "helpers.h"
#include "parse/make_kernel.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

using DTypes = std::map<std::string, DType>;

std::string device_code(const Kernel& k, const DTypes& dtypes, TargetKind target = TargetKind::OpenCL) {
    return generate_code(k, target, dtypes).device_code;
}

// Prints `text` as an expression of a typed kernel over { [i,j]: 0<=i,j<n } with float32 a and int32 b.
class Printer {
public:
    Printer() : k_(infer_types(test::kernel({"{ [i,j]: 0<=i,j<n }"}, {"a[i,j] = b[i,j]"}), {{"a", DType::Float32}, {"b", DType::Int32}}, true)),
                printer_(*k_, target_of(TargetKind::OpenCL)) {}
    std::string operator()(const std::string& text, DType want = DType::Unknown) {
        return printer_.print(parse_expression(text), want);
    }
    std::string print(const ExprPtr& e) { return printer_.print(e); }
    std::string helpers() const { return printer_.helper_definitions(); }

private:
    Kernel k_;
    CExprPrinter printer_;
};

}  // namespace

TEST_CASE("index sums print with the constant first", "[c_printer]") {
    Printer p;
    CHECK(p("n - 1") == "-1 + n");
    CHECK(p("2*(n - 1) + i") == "-2 + 2 * n + i");
    CHECK(p("i - j") == "i + -1 * j");
    CHECK(p("1 + i + 2") == "3 + i");
    CHECK(p("1 - 1") == "0");
    CHECK(p("n*j + i") == "n * j + i");
    CHECK(p("-(i + 1)") == "-1 + -1 * i");
}

TEST_CASE("loop bounds and subscripts read as in the tutorial", "[c_printer]") {
    Kernel k = test::kernel({"{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }"}, {"out[j,i] = a[i,j] {id=transpose}",
                                                         "out[ii,jj] = 2*out[ii,jj] {dep=transpose}"});
    k = prioritize_loops(prioritize_loops(k, {"i", "j"}), {"ii", "jj"});
    const std::string code = device_code(k, {{"a", DType::Float32}});
    CHECK_THAT(code, Catch::Contains("for (int i = 0; i <= -1 + n; ++i)"));
    CHECK_THAT(code, Catch::Contains("out[n * j + i] = a[n * i + j];"));
    CHECK_THAT(code, Catch::Contains("out[n * ii + jj] = 2.0f * out[n * ii + jj];"));
    // Guessed arguments come in alphabetical order, written ones without const.
    CHECK_THAT(code, Catch::Contains("(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)"));
}

TEST_CASE("literals take the type of their operation", "[c_printer]") {
    const Kernel dbl = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = 2*a[i] + 0.5*a[i]"});
    CHECK_THAT(device_code(dbl, {{"a", DType::Float32}}), Catch::Contains("out[i] = 2.0f * a[i] + 0.5f * a[i];"));
    CHECK_THAT(device_code(dbl, {{"a", DType::Float64}}), Catch::Contains("out[i] = 2.0 * a[i] + 0.5 * a[i];"));

    Printer p;
    CHECK(p("2", DType::Float32) == "2.0f");
    CHECK(p("2", DType::Float64) == "2.0");
    CHECK(p("2") == "2");
    CHECK(p("a[i,j] < 1") == "a[n * i + j] < 1.0f");
}

TEST_CASE("float literals are shortest round-trip C literals", "[c_printer]") {
    CHECK(float_literal(0.1, DType::Float32) == "0.1f");
    CHECK(float_literal(0.1, DType::Float64) == "0.1");
    CHECK(float_literal(3.0, DType::Float64) == "3.0");
    CHECK(float_literal(1e30, DType::Float32) == "1e+30f");
    CHECK(float_literal(-2.5, DType::Float32) == "-2.5f");
    CHECK(float_literal(1.0 / 0.0, DType::Float64) == "INFINITY");
}

TEST_CASE("assignments cast where the types differ", "[c_printer]") {
    // The tutorial's zero fill, with its loop priority.
    const Kernel fill = prioritize_loops(test::kernel({"{ [i,j]: 0<=i,j<n }"}, {"a[i,j] = 0"}), {"j", "i"});
    const std::string code = device_code(fill, {{"a", DType::Float32}});
    CHECK_THAT(code, Catch::Contains("  for (int j = 0; j <= -1 + n; ++j)\n    for (int i = 0; i <= -1 + n; ++i)\n"
                                     "      a[n * i + j] = (float) (0.0f);"));

    const Kernel narrow = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[i]"});
    const Kernel typed = add_dtypes(narrow, {{"out", DType::Int32}});
    CHECK_THAT(device_code(typed, {{"a", DType::Float64}}), Catch::Contains("out[i] = (int) (a[i]);"));

    Printer p;
    CHECK(p.print(cast(DType::Float32, parse_expression("i + 1"))) == "(float) (1 + i)");
}

TEST_CASE("integer division and remainder go through helpers", "[c_printer]") {
    Printer p;
    CHECK(p("i // 4") == "loopy_floor_div_pos_b_int32(i, 4)");
    CHECK(p("(i - 5) % 3") == "loopy_mod_pos_b_int32(-5 + i, 3)");
    CHECK(p("i // n") == "loopy_floor_div_int32(i, n)");
    // True division of integers is floating, as in numpy.
    CHECK(p("i / 2") == "(double) i / (double) 2");

    const std::string helpers = p.helpers();
    CHECK_THAT(helpers, Catch::Contains("static inline int loopy_floor_div_pos_b_int32(int a, int b)"));
    CHECK_THAT(helpers, Catch::Contains("static inline int loopy_mod_pos_b_int32(int a, int b)"));
    CHECK_THAT(helpers, Catch::Contains("static inline int loopy_floor_div_int32(int a, int b)"));

    // In a kernel, C's division serves where isl proves the operands non-negative over the loop domain.
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[(i + 1) // 2] + a[(i - 1) // 2 + 1]"});
    const std::string code = device_code(k, {{"a", DType::Float32}});
    CHECK_THAT(code, Catch::Contains("out[i] = a[(1 + i) / 2] + a[1 + loopy_floor_div_pos_b_int32(-1 + i, 2)];"));
    CHECK_THAT(code, Catch::Contains("static inline int loopy_floor_div_pos_b_int32(int a, int b)"));
}

TEST_CASE("calls follow the target's math library", "[c_printer]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = sqrt(a[i]) + fabs(a[i])"});
    CHECK_THAT(device_code(k, {{"a", DType::Float32}}), Catch::Contains("out[i] = sqrt(a[i]) + fabs(a[i]);"));
    CHECK_THAT(device_code(k, {{"a", DType::Float32}}, TargetKind::C),
               Catch::Contains("out[i] = sqrtf(a[i]) + fabsf(a[i]);"));
}
