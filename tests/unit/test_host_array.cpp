// HostArray: construction, element access and conversion, views, random data, comparison and numpy's repr.
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "helpers.h"
#include "backends/host/host_array.h"
#include "support/error.h"

using namespace loom;
using Catch::Contains;
using Catch::StartsWith;
using Shape = HostArray::Shape;

namespace {

// "KIND: message" of the loom::Error that f raises; empty when it raises none.
template <class F>
std::string raised(F&& f) {
    const std::optional<Error> e = test::error_of(f);
    return e ? e->kind() + ": " + e->message() : "";
}

// A 2x3 float64 array holding 10*i + j at (i, j).
HostArray grid() { return HostArray::from_nested({{0.0, 1.0, 2.0}, {10.0, 11.0, 12.0}}, DType::Float64); }

constexpr DType kAllDTypes[] = {DType::Bool,   DType::Int8,    DType::Int16,   DType::Int32,     DType::Int64,
                                DType::UInt8,  DType::UInt16,  DType::UInt32,  DType::UInt64,    DType::Float32,
                                DType::Float64, DType::Complex64, DType::Complex128};

}  // namespace

TEST_CASE("zeros has the shape, C or F strides, and cleared aligned memory", "[host_array]") {
    for (DType dtype : kAllDTypes) {
        const HostArray a = HostArray::zeros({2, 3, 4}, dtype);
        CHECK(a.dtype() == dtype);
        CHECK(a.shape() == Shape{2, 3, 4});
        CHECK(a.strides() == Shape{12, 4, 1});
        CHECK(a.ndim() == 3);
        CHECK(a.size() == 24);
        CHECK(a.nbytes() == 24 * dtype_size(dtype));
        CHECK(a.is_contiguous());
        CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 64 == 0);
        CHECK(a.get_complex({1, 2, 3}) == std::complex<double>(0, 0));
    }
    const HostArray f = HostArray::zeros({2, 3, 4}, DType::Float32, Order::F);
    CHECK(f.strides() == Shape{1, 2, 6});
    CHECK_FALSE(f.is_contiguous());
    CHECK(HostArray::empty({5}, DType::Int32).get({4}) == Scalar(std::int64_t{0}));
}

TEST_CASE("shapes are validated", "[host_array]") {
    CHECK_THAT(raised([] { HostArray::zeros({2, -1}, DType::Float64); }),
               StartsWith("ArgumentError: ") && Contains("negative dimensions") && Contains("(2, -1)"));
    CHECK_THAT(raised([] { HostArray::zeros({1LL << 40, 1LL << 40}, DType::Float64); }), Contains("too large"));
    CHECK_THAT(raised([] { HostArray::zeros(Shape(65, 1), DType::Float64); }), Contains("at most 64 dimensions"));
    CHECK_THAT(raised([] { HostArray::zeros({2}, DType::Unknown); }), StartsWith("ArgumentError: "));
    const HostArray scalar = HostArray::zeros({}, DType::Float64);
    CHECK(scalar.size() == 1);
    CHECK(scalar.get({}) == Scalar(0.0));
    CHECK(HostArray::zeros({3, 0}, DType::Int8).size() == 0);
}

TEST_CASE("from_nested takes the shape from the nesting and rejects ragged lists", "[host_array]") {
    const HostArray a = grid();
    CHECK(a.shape() == Shape{2, 3});
    CHECK(a.get_double({1, 2}) == 12.0);
    CHECK(HostArray::from_nested({1, 2, 3}, DType::Int16).get({2}) == Scalar(std::int64_t{3}));
    CHECK(HostArray::from_nested(2.5, DType::Float64).shape().empty());
    const Nested empty_list(std::vector<Nested>{});
    CHECK(HostArray::from_nested(empty_list, DType::Float64).shape() == Shape{0});
    CHECK(HostArray::from_nested({empty_list, empty_list}, DType::Float64).shape() == Shape{2, 0});
    const HostArray c = HostArray::from_nested({std::complex<double>(1, 2), 3.0}, DType::Complex64);
    CHECK(c.get_complex({0}) == std::complex<double>(1, 2));
    CHECK(c.get_complex({1}) == std::complex<double>(3, 0));
    CHECK_THAT(raised([] { HostArray::from_nested({{1, 2}, {3}}, DType::Float64); }),
               StartsWith("ArgumentError: ") && Contains("ragged") && Contains("(1,)"));
    CHECK_THAT(raised([] { HostArray::from_nested({{1, 2}, 3}, DType::Float64); }), Contains("ragged"));
    CHECK_THAT(raised([] { HostArray::from_nested({1, {2}}, DType::Float64); }), Contains("ragged"));
    CHECK_THAT(raised([] { HostArray::from_nested({1, 300}, DType::UInt8); }), Contains("out of range for uint8"));
}

TEST_CASE("arange counts from zero in any dtype", "[host_array]") {
    const HostArray a = HostArray::arange(5);
    CHECK(a.dtype() == DType::Int64);
    CHECK(a.shape() == Shape{5});
    CHECK(a.get({4}) == Scalar(std::int64_t{4}));
    CHECK(HostArray::arange(4, DType::Float32).get_double({3}) == 3.0);
    CHECK(HostArray::arange(3, DType::Complex128).get_complex({2}) == std::complex<double>(2, 0));
    CHECK(HostArray::arange(-3).size() == 0);
    CHECK_THAT(raised([] { HostArray::arange(300, DType::UInt8); }), Contains("out of range"));
}

TEST_CASE("get and set convert like numpy and reject what does not fit", "[host_array]") {
    HostArray i8 = HostArray::zeros({2}, DType::Int8);
    i8.set({0}, -128);
    CHECK(i8.get({0}) == Scalar(std::int64_t{-128}));
    i8.set({1}, 2.9);  // truncates toward zero
    CHECK(i8.get({1}) == Scalar(std::int64_t{2}));
    i8.set({1}, -2.9);
    CHECK(i8.get({1}) == Scalar(std::int64_t{-2}));
    CHECK_THAT(raised([&] { i8.set({0}, 128); }), StartsWith("ArgumentError: ") && Contains("out of range for int8"));
    CHECK_THAT(raised([&] { i8.set({0}, 1e300); }), Contains("out of range"));
    CHECK_THAT(raised([&] { i8.set({0}, std::nan("")); }), Contains("NaN"));
    CHECK_THAT(raised([&] { i8.set({0}, std::complex<double>(1, 1)); }), Contains("complex"));
    i8.set({0}, std::complex<double>(5, 0));
    CHECK(i8.get({0}) == Scalar(std::int64_t{5}));

    HostArray i64 = HostArray::zeros({1}, DType::Int64);
    const std::int64_t big = (std::int64_t{1} << 62) + 1;  // not a double
    i64.set({0}, big);
    CHECK(i64.get({0}) == Scalar(big));

    HostArray u64 = HostArray::zeros({1}, DType::UInt64);
    u64.set({0}, std::int64_t{-1});  // two's complement: the largest uint64
    CHECK(u64.get({0}) == Scalar(std::int64_t{-1}));
    CHECK(u64.get_double({0}) == 18446744073709551615.0);  // widened from the unsigned value
    CHECK_THAT(raised([] { HostArray::zeros({1}, DType::UInt32).set({0}, -1); }), Contains("out of range for uint32"));

    HostArray b = HostArray::zeros({3}, DType::Bool);
    b.set({0}, true);
    b.set({1}, 7);
    b.set({2}, 0.0);
    CHECK(b.get({0}) == Scalar(true));
    CHECK(b.get({1}) == Scalar(true));
    CHECK(b.get({2}) == Scalar(false));

    HostArray f32 = HostArray::zeros({1}, DType::Float32);
    f32.set({0}, 0.1);
    CHECK(f32.get_double({0}) == static_cast<double>(0.1f));
    HostArray c64 = HostArray::zeros({1}, DType::Complex64);
    c64.set({0}, std::complex<double>(0.5, -2));
    CHECK(c64.get({0}) == Scalar(std::complex<double>(0.5, -2)));
    CHECK_THAT(raised([&] { c64.get_double({0}); }), Contains("get_complex"));
}

TEST_CASE("indices are checked for count and bounds", "[host_array]") {
    HostArray a = grid();
    CHECK_THAT(raised([&] { a.get({1}); }), StartsWith("ArgumentError: get: expected 2 indices") && Contains("got 1"));
    CHECK_THAT(raised([&] { a.set({0, 0, 0}, 1.0); }), Contains("set: expected 2 indices"));
    CHECK_THAT(raised([&] { a.get({0, 3}); }), Contains("index 3 is out of bounds for axis 1 with size 3"));
    CHECK_THAT(raised([&] { a.get({-1, 0}); }), Contains("index -1 is out of bounds for axis 0 with size 2"));
}

TEST_CASE("transpose and reshape are views; copy is not", "[host_array]") {
    HostArray a = grid();
    HostArray t = a.transpose();
    CHECK(t.shape() == Shape{3, 2});
    CHECK(t.strides() == Shape{1, 3});
    CHECK_FALSE(t.is_contiguous());
    CHECK(t.get_double({2, 1}) == 12.0);
    t.set({2, 1}, -1.0);
    CHECK(a.get_double({1, 2}) == -1.0);
    CHECK(t.transpose().strides() == a.strides());

    HostArray r = a.reshape({3, -1});
    CHECK(r.shape() == Shape{3, 2});
    CHECK(r.get_double({1, 0}) == 2.0);
    r.set({0, 0}, 42.0);
    CHECK(a.get_double({0, 0}) == 42.0);
    CHECK(a.reshape({6}).reshape({1, 6, 1}).is_contiguous());

    HostArray c = t.copy();
    CHECK(c.is_contiguous());
    CHECK(c.shape() == Shape{3, 2});
    CHECK(c.get_double({1, 1}) == 11.0);
    c.set({1, 1}, 0.0);
    CHECK(a.get_double({1, 1}) == 11.0);
    CHECK(c.reshape({6}).get_double({1}) == 10.0);  // C order of the transposed view

    CHECK_THAT(raised([&] { t.reshape({6}); }), StartsWith("ArgumentError: ") && Contains("not contiguous"));
    CHECK_THAT(raised([&] { a.reshape({4, 2}); }), Contains("(2, 3)") && Contains("(4, 2)"));
    CHECK_THAT(raised([&] { a.reshape({-1, -1}); }), Contains("only one dimension can be -1"));
    CHECK_THAT(raised([&] { a.reshape({4, -1}); }), Contains("cannot reshape"));
    CHECK(HostArray::zeros({4}, DType::Int8, Order::F).reshape({2, 2}).is_contiguous());
}

TEST_CASE("fill sets every element of the view only", "[host_array]") {
    HostArray a = HostArray::zeros({2, 2}, DType::Int32);
    HostArray row = a.reshape({4}).reshape({2, 2});
    row.fill(7);
    CHECK(a.get({1, 1}) == Scalar(std::int64_t{7}));
    HostArray t = a.transpose();
    t.fill(-3.5);
    CHECK(a.get({0, 1}) == Scalar(std::int64_t{-3}));
    CHECK_THAT(raised([&] { a.fill(1e10); }), Contains("out of range"));
    CHECK(a.get({0, 0}) == Scalar(std::int64_t{-3}));  // untouched by the failed fill
}

TEST_CASE("rand and randn are reproducible from a seed", "[host_array]") {
    const HostArray a = HostArray::rand({100, 10}, DType::Float64, std::uint64_t{42});
    const HostArray b = HostArray::rand({100, 10}, DType::Float64, std::uint64_t{42});
    const HostArray c = HostArray::rand({100, 10}, DType::Float64, std::uint64_t{43});
    CHECK(max_abs_diff(a, b) == 0.0);
    CHECK(max_abs_diff(a, c) > 0.0);
    double lo = 1, hi = 0;
    for (std::int64_t i = 0; i < 100; ++i)
        for (std::int64_t j = 0; j < 10; ++j) {
            lo = std::min(lo, a.get_double({i, j}));
            hi = std::max(hi, a.get_double({i, j}));
        }
    CHECK(lo >= 0.0);
    CHECK(hi < 1.0);
    CHECK(hi > 0.9);

    std::mt19937_64 gen(7);
    const HostArray first = HostArray::rand({8}, DType::Float32, gen);
    const HostArray second = HostArray::rand({8}, DType::Float32, gen);
    CHECK(max_abs_diff(first, second) > 0.0);  // the generator advances

    const HostArray z = HostArray::rand({50}, DType::Complex64, std::uint64_t{1});
    const std::complex<double> z0 = z.get_complex({0});
    CHECK(z0.imag() != 0.0);
    CHECK(z0.real() != z0.imag());

    const HostArray n = HostArray::randn({20000}, DType::Float64, std::uint64_t{3});
    double sum = 0, sum_sq = 0;
    for (std::int64_t i = 0; i < n.size(); ++i) {
        sum += n.get_double({i});
        sum_sq += n.get_double({i}) * n.get_double({i});
    }
    const double mean = sum / 20000, var = sum_sq / 20000 - mean * mean;
    CHECK(std::abs(mean) < 0.03);
    CHECK(std::abs(var - 1.0) < 0.05);
    CHECK_THAT(raised([] { HostArray::rand({2}, DType::Int32, std::uint64_t{1}); }),
               StartsWith("ArgumentError: rand: dtype int32"));
    CHECK_THAT(raised([] { HostArray::randn({2}, DType::Bool, std::uint64_t{1}); }), Contains("randn"));
}

TEST_CASE("allclose and max_abs_diff compare elementwise like numpy", "[host_array]") {
    const HostArray a = grid();
    HostArray b = a.copy();
    CHECK(allclose(a, b));
    b.set({1, 2}, 12.0 + 1e-5);
    CHECK(allclose(a, b));  // within rtol * |b|
    CHECK(max_abs_diff(a, b) == Approx(1e-5));
    b.set({1, 2}, 12.1);
    CHECK_FALSE(allclose(a, b));
    CHECK(allclose(a, b, 0.0, 0.2));
    CHECK(allclose(a, b, 0.01, 0.0));

    const HostArray ints = HostArray::from_nested({{0, 1, 2}, {10, 11, 12}}, DType::Int32);
    CHECK(allclose(a, ints));
    CHECK(allclose(a.transpose(), ints.transpose()));

    const double inf = std::numeric_limits<double>::infinity();
    const HostArray x = HostArray::from_nested({inf, std::nan("")}, DType::Float64);
    CHECK_FALSE(allclose(x, x));  // NaN is never close
    CHECK(std::isnan(max_abs_diff(x, x)));
    const HostArray infs = HostArray::from_nested({inf, -inf}, DType::Float64);
    CHECK(allclose(infs, infs));
    CHECK(max_abs_diff(infs, infs) == 0.0);

    const HostArray c1 = HostArray::from_nested({std::complex<double>(0, 3)}, DType::Complex128);
    const HostArray c2 = HostArray::from_nested({std::complex<double>(4, 0)}, DType::Complex64);
    CHECK(max_abs_diff(c1, c2) == Approx(5.0));
    CHECK(max_abs_diff(HostArray::zeros({0}, DType::Float32), HostArray::zeros({0}, DType::Int8)) == 0.0);

    CHECK_THAT(raised([&] { allclose(a, a.transpose()); }),
               StartsWith("ArgumentError: allclose: the shapes (2, 3) and (3, 2) do not match"));
    CHECK_THAT(raised([&] { max_abs_diff(a, ints.reshape({6})); }), Contains("(2, 3) and (6,)"));
}

TEST_CASE("to_string prints like numpy's repr", "[host_array]") {
    CHECK(to_string(HostArray::from_nested({1.0, 2.5}, DType::Float64)) == "array([1. , 2.5])");
    CHECK(to_string(HostArray::from_nested({1.0, 2.0}, DType::Float32)) == "array([1., 2.], dtype=float32)");
    CHECK(to_string(HostArray::arange(4, DType::Int32).reshape({2, 2})) ==
          "array([[0, 1],\n       [2, 3]], dtype=int32)");
    CHECK(to_string(HostArray::arange(3)) == "array([0, 1, 2])");
    CHECK(to_string(HostArray::from_nested({true, false}, DType::Bool)) == "array([ True, False])");
    CHECK(to_string(HostArray::from_nested({std::complex<double>(1, 2), std::complex<double>(3, -4.5)},
                                           DType::Complex128)) == "array([1.+2.j , 3.-4.5j])");
    CHECK(to_string(HostArray::from_nested({1e-5, 1.5}, DType::Float64)) == "array([1.0e-05, 1.5e+00])");
    CHECK(to_string(HostArray::from_nested({std::nan(""), 1.25}, DType::Float64)) == "array([ nan, 1.25])");
    CHECK(to_string(HostArray::from_nested(5.0, DType::Float64)) == "array(5.)");
    CHECK(to_string(HostArray::from_nested(3, DType::UInt8)) == "array(3, dtype=uint8)");
    CHECK(to_string(HostArray::zeros({0}, DType::Float64)) == "array([], dtype=float64)");
    CHECK(to_string(HostArray::zeros({2, 0}, DType::Int32)) == "array([], shape=(2, 0), dtype=int32)");
    CHECK(to_string(HostArray::arange(2000)) == "array([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,))");
    CHECK(to_string(HostArray::arange(30, DType::Float64)) ==
          "array([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12.,\n"
          "       13., 14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25.,\n"
          "       26., 27., 28., 29.])");
    CHECK(to_string(HostArray::arange(8, DType::Int16).reshape({2, 2, 2})) ==
          "array([[[0, 1],\n        [2, 3]],\n\n       [[4, 5],\n        [6, 7]]], dtype=int16)");
}

TEST_CASE("shape_string writes Python tuples", "[host_array]") {
    CHECK(shape_string({}) == "()");
    CHECK(shape_string({3}) == "(3,)");
    CHECK(shape_string({2, 3}) == "(2, 3)");
}
