// Host arrays: n-dimensional, strided views of shared, 64-byte-aligned memory holding elements of one DType.
// They are what scripts create, pass to kernels and compare; numpy's ndarray is the model, restricted to what
// kernel arguments need (no broadcasting, no negative strides).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "expr/dtype.h"

namespace loom {

/// One element as it crosses the API: bool for bool arrays, int64_t for integer arrays (exact; uint64 values
/// above INT64_MAX read as negative, as Lua's integers see them), double for float arrays, complex<double>
/// for complex arrays. Writing converts as numpy does (floats to integers truncate) but rejects values the
/// element type cannot hold (out of range, NaN into an integer, a nonzero imaginary part into a real type).
using Scalar = std::variant<bool, std::int64_t, double, std::complex<double>>;

/// numpy.array's argument: a scalar or a list of Nested values, so `{1.0, 2.0}` is a list and `{{1, 2}, {3, 4}}`
/// a list of lists.
struct Nested {
    Nested(bool v) : value(v) {}
    Nested(int v) : value(std::int64_t{v}) {}
    Nested(std::int64_t v) : value(v) {}
    Nested(double v) : value(v) {}
    Nested(std::complex<double> v) : value(v) {}
    Nested(std::initializer_list<Nested> list) : items(list), is_list(true) {}
    explicit Nested(std::vector<Nested> list) : items(std::move(list)), is_list(true) {}

    Scalar value;
    std::vector<Nested> items;
    bool is_list = false;
};

/// Memory layout of a new array: C (last index fastest) or Fortran (first index fastest).
enum class Order { C, F };

/// Copying a HostArray object makes another view of the same memory (like a shared_ptr); copy() copies the
/// elements. Indices are 0-based, like the kernels'. Every misuse raises loom::Error of kind "ArgumentError".
class HostArray {
public:
    using Shape = std::vector<std::int64_t>;
    using Index = std::vector<std::int64_t>;

    /// A new array. Its memory is always cleared (empty is zeros) so that no stale host memory reaches a script.
    static HostArray empty(const Shape& shape, DType dtype, Order order = Order::C);
    static HostArray zeros(const Shape& shape, DType dtype, Order order = Order::C);
    /// Memory the array does not allocate (a host program's buffer, loom_push_array): `data` is the element at
    /// index (0, ..., 0), `strides` are in elements (empty: C order) and must not be negative, and `owner` keeps the
    /// memory alive as long as any view of it lives (null: the caller keeps it alive). No copy is made.
    static HostArray wrap(void* data, DType dtype, const Shape& shape, Shape strides, std::shared_ptr<void> owner);
    /// numpy.array(values, dtype): the shape comes from the nesting; ragged lists are an error.
    static HostArray from_nested(const Nested& values, DType dtype);
    /// 0, 1, ..., n-1 (empty when n <= 0).
    static HostArray arange(std::int64_t n, DType dtype = DType::Int64);
    /// Uniform in [0, 1), real and imaginary parts alike; float and complex dtypes only. Only the generator's
    /// state decides the values, so a seed reproduces them.
    static HostArray rand(const Shape& shape, DType dtype, std::mt19937_64& gen);
    static HostArray rand(const Shape& shape, DType dtype, std::uint64_t seed);
    /// Standard normal (Box-Muller), with the same rules as rand.
    static HostArray randn(const Shape& shape, DType dtype, std::mt19937_64& gen);
    static HostArray randn(const Shape& shape, DType dtype, std::uint64_t seed);

    DType dtype() const { return dtype_; }
    const Shape& shape() const { return shape_; }
    /// Strides in elements, not bytes.
    const Shape& strides() const { return strides_; }
    std::size_t ndim() const { return shape_.size(); }
    /// Number of elements.
    std::int64_t size() const;
    /// size() times the element size.
    std::size_t nbytes() const;
    /// True when the elements lie gap-free in C order (numpy's C_CONTIGUOUS), so data() can be passed as is.
    bool is_contiguous() const;
    /// The element at index (0, ..., 0). Constness is shallow, as for views in general.
    void* data() const;

    Scalar get(const Index& index) const;
    /// The element of a real-typed array as a double.
    double get_double(const Index& index) const;
    /// The element of any array, widened to complex<double>.
    std::complex<double> get_complex(const Index& index) const;
    void set(const Index& index, const Scalar& value);
    /// Sets every element of this view.
    void fill(const Scalar& value);

    /// A new C-contiguous array with the same elements.
    HostArray copy() const;
    /// The view with the axes reversed.
    HostArray transpose() const;
    /// A view with another shape of the same element count; one entry may be -1 (inferred). The array must be
    /// contiguous: copy() it first otherwise.
    HostArray reshape(Shape shape) const;
    /// One entry of a basic slice: an index (which drops its axis) or start:stop:step (numpy's rules: negative
    /// values count from the end, bounds are clipped, step is positive).
    struct Slice {
        bool is_index = false;
        std::int64_t start = 0, stop = 0, step = 1;
    };
    /// numpy's basic slicing a[s0, s1, ...]: a view sharing this memory; axes without an entry are kept whole.
    HostArray view(const std::vector<Slice>& slices) const;

private:
    HostArray(DType dtype, Shape shape, Shape strides, std::int64_t offset, std::shared_ptr<std::byte> storage);
    std::byte* element(const Index& index, const char* op) const;

    DType dtype_;
    Shape shape_;
    Shape strides_;
    std::int64_t offset_;  // in elements, from the start of storage_
    std::shared_ptr<std::byte> storage_;
};

/// Checks a new array's shape and dtype (concrete, dimensions, size) and returns its element count.
std::int64_t checked_element_count(const HostArray::Shape& shape, DType dtype);

/// Stores `value` at `p` as an element of `dtype`, with the conversions and checks of HostArray::set.
void store_element(DType dtype, void* p, const Scalar& value);
/// The element of `dtype` at `p`, as HostArray::get returns it.
Scalar load_element(DType dtype, const void* p);

/// numpy.isclose for one pair of elements: |a - b| <= atol + rtol * |b|; NaN is never close, equal infinities are.
bool isclose(std::complex<double> a, std::complex<double> b, double rtol, double atol);
/// numpy.allclose: |a - b| <= atol + rtol * |b| elementwise; NaN is never close, equal infinities are. The
/// shapes must match (no broadcasting); the dtypes may differ.
bool allclose(const HostArray& a, const HostArray& b, double rtol = 1e-5, double atol = 1e-8);
/// The largest |a - b| (0 for empty arrays; NaN if any difference is NaN). The shapes must match.
double max_abs_diff(const HostArray& a, const HostArray& b);
/// numpy's repr: `array([1. , 2.5], dtype=float32)`, lines wrapped at 75 columns, arrays of more than 1000
/// elements abbreviated to their first and last 3 items per axis (and their shape named, as numpy 2 does).
std::string to_string(const HostArray& a);
/// A shape as a Python tuple: "(2, 3)", "(3,)", "()".
std::string shape_string(const HostArray::Shape& shape);

}  // namespace loom
