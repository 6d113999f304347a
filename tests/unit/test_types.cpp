// Type inference: numpy's promotion as loopy applies it, literal typing, and the errors it raises.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "helpers.h"
#include "analysis/types.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"
#include "transform/transforms.h"
#include "support/error.h"

using namespace loom;

namespace {

// A kernel over i with arrays typed as given: the context the expressions below are typed in.
Kernel typed_kernel(const std::map<std::string, DType>& dtypes) {
    MakeKernelInput in;
    in.domains = {"{ [i]: 0 <= i < n }"};
    std::string reads = "0";
    for (const auto& [name, t] : dtypes) reads += " + " + name + "[i]";
    in.instructions = {"out[i] = " + reads};
    return infer_types(make_kernel(in), dtypes, false);
}

const std::map<std::string, DType> kArrays = {
    {"i8", DType::Int8},       {"i16", DType::Int16},     {"i32", DType::Int32},     {"i64", DType::Int64},
    {"u8", DType::UInt8},      {"u32", DType::UInt32},    {"u64", DType::UInt64},    {"f32", DType::Float32},
    {"f64", DType::Float64},   {"c64", DType::Complex64}, {"c128", DType::Complex128}, {"b", DType::Bool},
};

DType type_of(const std::string& text) {
    static const Kernel k = typed_kernel(kArrays);
    return expr_type(*k, parse_expression(text)).dtype;
}

std::string raised_error(const std::string& text) {
    const std::optional<Error> e = test::error_of([&] { type_of(text); });
    return e ? e->kind() + ": " + e->message() : "";
}

}  // namespace

TEST_CASE("combine_types is numpy's result_type except int32 with float32") {
    CHECK(combine_types(DType::Int32, DType::Float32) == DType::Float32);
    CHECK(combine_types(DType::Float32, DType::Int32) == DType::Float32);
    CHECK(combine_types(DType::Int64, DType::Float32) == DType::Float64);
    CHECK(combine_types(DType::UInt32, DType::Float32) == DType::Float64);
    CHECK(combine_types(DType::Int16, DType::Float32) == DType::Float32);
    CHECK(combine_types(DType::Int8, DType::UInt8) == DType::Int16);
    CHECK(combine_types(DType::Int32, DType::UInt32) == DType::Int64);
    CHECK(combine_types(DType::Int64, DType::UInt64) == DType::Float64);
    CHECK(combine_types(DType::Bool, DType::Int8) == DType::Int8);
    CHECK(combine_types(DType::Complex64, DType::Float64) == DType::Complex128);
    CHECK(combine_types(DType::Complex64, DType::Float32) == DType::Complex64);
    CHECK(combine_types(DType::Complex64, DType::Int32) == DType::Complex128);
    CHECK(combine_types(DType::Complex64, DType::Int16) == DType::Complex64);
    CHECK(combine_types(DType::Unknown, DType::Int32) == DType::Unknown);
}

TEST_CASE("literals are typed by value, suffixes fix the type") {
    CHECK(int_literal_type(5) == DType::Int32);
    CHECK(int_literal_type(3000000000) == DType::Int64);
    CHECK(int_literal_type(-2147483648LL) == DType::Int32);
    CHECK(float_literal_type(2.5) == DType::Float32);
    CHECK(float_literal_type(0.1) == DType::Float64);
    CHECK(float_literal_type(1e300) == DType::Float64);
    CHECK(imag_literal_type(2) == DType::Complex64);
    CHECK(imag_literal_type(0.1) == DType::Complex128);
    CHECK(type_of("2.5f") == DType::Float32);
    CHECK(type_of("2.5d") == DType::Float64);
    CHECK(type_of("1.5jf") == DType::Complex64);
    CHECK(type_of("2j") == DType::Complex64);
    CHECK(type_of("0.1") == DType::Float64);
    CHECK(type_of("1 + 2") == DType::Int32);
}

TEST_CASE("small integer literals do not widen sums and products of non-integers") {
    CHECK(type_of("2*f32[i]") == DType::Float32);
    CHECK(type_of("f32[i] - 1") == DType::Float32);
    CHECK(type_of("i8[i] + 1") == DType::Int32);  // all integers: the literal counts
    CHECK(type_of("i8[i] + i8[i]") == DType::Int8);
    CHECK(type_of("f32[i] * 2048") == DType::Float32);  // int32 with float32
    CHECK(type_of("f32[i] * 3000000000") == DType::Float64);
    CHECK(type_of("f32[i] * 2.5") == DType::Float32);
    CHECK(type_of("f32[i] * 0.1") == DType::Float64);
    CHECK(type_of("f64[i] * 2.5f") == DType::Float64);
    CHECK(type_of("c64[i] * 2") == DType::Complex64);
    CHECK(type_of("c64[i] * f64[i]") == DType::Complex128);
    CHECK(type_of("i + 0.5") == DType::Float32);  // inames are int32
}

TEST_CASE("division, floor division, powers and comparisons") {
    CHECK(type_of("i32[i] / i32[i]") == DType::Float64);
    CHECK(type_of("i8[i] / 2") == DType::Float64);
    CHECK(type_of("f32[i] / 2") == DType::Float32);
    CHECK(type_of("i8[i] // 2") == DType::Int8);
    CHECK(type_of("i8[i] % i32[i]") == DType::Int32);
    CHECK(type_of("u64[i] // i64[i]") == DType::Float64);
    CHECK(type_of("f32[i] // 2") == DType::Float32);
    CHECK(type_of("7 // 2") == DType::Int32);
    CHECK(type_of("i32[i] ** 2") == DType::Int32);
    CHECK(type_of("i8[i] ** 2") == DType::Int32);
    CHECK(type_of("f32[i] ** 2") == DType::Float32);
    CHECK(type_of("f32[i] ** f64[i]") == DType::Float64);
    CHECK(type_of("f32[i] < 1") == DType::Bool);
    CHECK(type_of("f32[i] < 1 and not b[i]") == DType::Bool);
    CHECK(type_of("u8[i] & 15") == DType::Int32);
    CHECK(type_of("u32[i] << i32[i]") == DType::Int64);
    CHECK(type_of("~i16[i]") == DType::Int16);
    CHECK(type_of("if(b[i], i8[i], f32[i])") == DType::Float32);
    CHECK(type_of("cast(int16, f64[i])") == DType::Int16);
}

TEST_CASE("math functions compute integers in float64 and take complex parts") {
    CHECK(type_of("sin(i32[i])") == DType::Float64);
    CHECK(type_of("sin(f32[i])") == DType::Float32);
    CHECK(type_of("sqrt(i)") == DType::Float64);
    CHECK(type_of("atan2(f32[i], i32[i])") == DType::Float32);
    CHECK(type_of("pow(f32[i], 2)") == DType::Float32);
    CHECK(type_of("fmin(i32[i], i32[i])") == DType::Float64);
    CHECK(type_of("abs(i16[i])") == DType::Int16);
    CHECK(type_of("abs(c64[i])") == DType::Float32);
    CHECK(type_of("abs(c128[i])") == DType::Float64);
    CHECK(type_of("real(c64[i])") == DType::Float32);
    CHECK(type_of("imag(f64[i])") == DType::Float64);
    CHECK(type_of("conj(c64[i])") == DType::Complex64);
    CHECK(type_of("exp(c128[i])") == DType::Complex128);
    CHECK(type_of("min(i64[i], 2)") == DType::Int64);
    CHECK(type_of("max(f32[i], 0)") == DType::Float32);
    const CallTypes ct = ExprTyper(*typed_kernel(kArrays)).call_types(parse_expression("sin(i32[i])"));
    CHECK(ct.args == DType::Float64);
    CHECK(ct.result == DType::Float64);
}

TEST_CASE("bad operands, unknown functions and argument counts name the culprit") {
    CHECK(raised_error("nosuchfn(f32[i])").rfind("TypeInferenceError: unknown function 'nosuchfn'", 0) == 0);
    CHECK(raised_error("sin(f32[i], f32[i])").rfind("LoopyError: function 'sin' takes 1 argument", 0) == 0);
    CHECK(raised_error("f32[i] & 1").rfind("TypeInferenceError: operator '&' does not accept float32", 0) == 0);
    CHECK(raised_error("~f64[i]").rfind("TypeInferenceError: operator '~' does not accept float64", 0) == 0);
    CHECK(raised_error("floor(c64[i])").rfind("TypeInferenceError: function 'floor' does not accept complex64", 0) == 0);
    CHECK(raised_error("c64[i] < c64[i]").rfind("TypeInferenceError: comparison '<' does not accept complex64", 0) == 0);
    CHECK(raised_error("c128[i] % 2").rfind("TypeInferenceError: operator '%' does not accept complex128", 0) == 0);
    CHECK(raised_error("cast(float32, c64[i])").rfind("TypeInferenceError: cannot cast a complex64 value", 0) == 0);
    CHECK(raised_error("c64[i] == c64[i]").empty());
}

TEST_CASE("infer_types types temporaries and outputs from their writes") {
    MakeKernelInput in;
    in.domains = {"{ [i]: 0 <= i < n }"};
    in.instructions = {"<> t = a[i] * 0.5", "out[i] = t + i", "cnt[i] = i // 2"};
    const Kernel k = infer_types(make_kernel(in), {{"a", DType::Float32}}, true);
    CHECK(k.find_variable("t")->dtype == DType::Float32);
    CHECK(k.find_variable("out")->dtype == DType::Float32);
    CHECK(k.find_variable("cnt")->dtype == DType::Int32);
    CHECK(k.find_variable("n")->dtype == DType::Int32);

    MakeKernelInput untyped = in;
    try {
        infer_types(make_kernel(untyped), {}, true);
        FAIL("no error for an untyped argument");
    } catch (const Error& e) {
        CHECK(e.kind() == "TypeInferenceError");
        CHECK(e.message().find("'a'") != std::string::npos);
    }

    MakeKernelInput complex_to_real;
    complex_to_real.domains = in.domains;
    complex_to_real.instructions = {"out[i] = z[i]"};
    try {
        infer_types(make_kernel(complex_to_real), {{"z", DType::Complex64}, {"out", DType::Float32}}, true);
        FAIL("no error for a complex value assigned to a float32 array");
    } catch (const Error& e) {
        CHECK(e.kind() == "TypeInferenceError");
        CHECK(e.message().find("'out'") != std::string::npos);
    }
}

TEST_CASE("add_and_infer_dtypes infers what follows and leaves the rest unknown") {
    MakeKernelInput in;
    in.domains = {"{ [i]: 0 <= i < n }"};
    in.instructions = {"c[i] = a[i]*b[i]/3.0 + a[i]", "e[i] = g[i]*(2 + h[i])", "f[i] = x[i]"};
    const Kernel k = add_and_infer_dtypes(
        make_kernel(in), {{"a", DType::Float32}, {"b", DType::Float32}, {"g", DType::Float64}, {"h", DType::Float64}});
    CHECK(k.find_variable("c")->dtype == DType::Float32);
    CHECK(k.find_variable("e")->dtype == DType::Float64);
    CHECK(k.find_variable("f")->dtype == DType::Unknown);
}

TEST_CASE("a temporary is typed by all its writes: a self-update waits for the other variables it reads") {
    MakeKernelInput in;
    in.domains = {"{ [i,j]: 0 <= i < n and 0 <= j < m }"};
    in.instructions = {"<> acc = 0  {id=init}", "acc = acc + a[j]*x[j]  {id=upd, dep=init}", "out[i] = acc  {dep=upd}"};
    const Kernel partial = add_and_infer_dtypes(make_kernel(in), {{"a", DType::Float64}, {"x", DType::Float64}});
    CHECK(partial.find_variable("acc")->dtype == DType::Float64);
    CHECK(partial.find_variable("out")->dtype == DType::Float64);

    // Two temporaries written from each other: the known write (t = 0) decides, then u follows.
    MakeKernelInput cycle;
    cycle.domains = {"{ [i]: 0 <= i < n }"};
    cycle.instructions = {"<> t = 0  {id=a}", "<> u = t  {id=b, dep=a}", "t = u + 1  {id=c, dep=b}", "out[i] = t  {dep=c}"};
    const Kernel k = infer_types(make_kernel(cycle), {}, true);
    CHECK(k.find_variable("t")->dtype == DType::Int32);
    CHECK(k.find_variable("u")->dtype == DType::Int32);
}
