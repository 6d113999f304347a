#include "backends/host/host_array.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <new>
#include <numbers>
#include <optional>
#include <type_traits>
#include <utility>

#include "expr/expr.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"

namespace loom {

namespace {

using Shape = HostArray::Shape;
using Index = HostArray::Index;

constexpr std::size_t kAlignment = 64;

template <class... Parts>
void argument_check(bool cond, const Parts&... parts) {
    user_assert(cond, error_kind::ArgumentError, parts...);
}

// ---- Shapes and storage ----

void check_dtype(DType dtype) { argument_check(dtype != DType::Unknown, "arrays need a concrete dtype"); }

// Validates the shape and returns its element count. Empty axes count as 1 in the size check, so that the
// strides of every shape that passes fit in int64 too.
std::int64_t checked_size(const Shape& shape, DType dtype) {
    argument_check(shape.size() <= kMaxArrayAxes, "arrays have at most ", kMaxArrayAxes, " dimensions, got ", shape.size());
    const auto limit = std::numeric_limits<std::int64_t>::max() / static_cast<std::int64_t>(dtype_size(dtype));
    std::int64_t bound = 1, count = 1;
    for (std::int64_t d : shape) {
        argument_check(d >= 0, "negative dimensions are not allowed: shape ", shape_string(shape));
        argument_check(bound <= limit / std::max<std::int64_t>(d, 1), "an array of shape ", shape_string(shape),
                       " and dtype ", dtype_name(dtype), " is too large");
        bound *= std::max<std::int64_t>(d, 1);
        count *= d;
    }
    return count;
}

Shape contiguous_strides(const Shape& shape, Order order) {
    const std::size_t n = shape.size();
    Shape strides(n);
    std::int64_t step = 1;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t axis = order == Order::C ? n - 1 - k : k;
        strides[axis] = step;
        step *= std::max<std::int64_t>(shape[axis], 1);
    }
    return strides;
}

// The memory of new arrays, charged to the memory limit (support/limits.h) until the last view of it is gone.
// calloc, because large blocks then come as fresh zero pages from the system and cost nothing to clear; the extra
// bytes make room for the alignment.
struct Block {
    explicit Block(std::size_t bytes) : charge(bytes, "an array"), raw(std::calloc(bytes, 1)) {
        if (!raw) throw std::bad_alloc();
    }
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;
    ~Block() { std::free(raw); }
    MemoryCharge charge;  // first: nothing is allocated past the limit
    void* raw;
};

std::shared_ptr<std::byte> allocate_cleared(std::size_t bytes) {
    auto block = std::make_shared<Block>(bytes + kAlignment);
    const auto aligned = (reinterpret_cast<std::uintptr_t>(block->raw) + kAlignment - 1) & ~std::uintptr_t{kAlignment - 1};
    return std::shared_ptr<std::byte>(std::move(block), reinterpret_cast<std::byte*>(aligned));
}

// Calls f(offsets) for every multi-index of `shape` in C order, where offsets[a] is the index dotted with the
// a-th of `strides`: one walk serves several arrays of the same shape.
template <class F, class... Strides>
void walk(const Shape& shape, F&& f, const Strides&... strides) {
    constexpr std::size_t N = sizeof...(Strides);
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return;
    const std::array<const Shape*, N> stride{&strides...};
    Index index(shape.size(), 0);
    std::array<std::int64_t, N> offsets{};
    for (;;) {
        f(offsets);
        std::size_t axis = shape.size();
        for (; axis > 0; --axis) {
            const std::size_t k = axis - 1;
            const bool carry = ++index[k] == shape[k];
            for (std::size_t a = 0; a < N; ++a)
                offsets[a] += carry ? -(*stride[a])[k] * (shape[k] - 1) : (*stride[a])[k];
            if (!carry) break;
            index[k] = 0;
        }
        if (axis == 0) return;
    }
}

// ---- Elements: conversion between Scalar and the stored types ----

template <class T>
struct is_complex_type : std::false_type {};
template <class T>
struct is_complex_type<std::complex<T>> : std::true_type {};

// Calls f(std::type_identity<T>{}) with T the C++ type stored for `dtype`.
template <class F>
decltype(auto) with_element_type(DType dtype, F&& f) {
    switch (dtype) {
        case DType::Bool: return f(std::type_identity<bool>{});
        case DType::Int8: return f(std::type_identity<std::int8_t>{});
        case DType::Int16: return f(std::type_identity<std::int16_t>{});
        case DType::Int32: return f(std::type_identity<std::int32_t>{});
        case DType::Int64: return f(std::type_identity<std::int64_t>{});
        case DType::UInt8: return f(std::type_identity<std::uint8_t>{});
        case DType::UInt16: return f(std::type_identity<std::uint16_t>{});
        case DType::UInt32: return f(std::type_identity<std::uint32_t>{});
        case DType::UInt64: return f(std::type_identity<std::uint64_t>{});
        case DType::Float32: return f(std::type_identity<float>{});
        case DType::Float64: return f(std::type_identity<double>{});
        case DType::Complex64: return f(std::type_identity<std::complex<float>>{});
        case DType::Complex128: return f(std::type_identity<std::complex<double>>{});
        case DType::Unknown: break;
    }
    throw Error(error_kind::InternalError, "internal error: host array element of unknown dtype");
}

std::complex<double> as_complex(const Scalar& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? 1.0 : 0.0;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    return std::get<std::complex<double>>(v);
}

std::string scalar_string(const Scalar& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "true" : "false";
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    const std::complex<double> c = as_complex(v);
    if (std::holds_alternative<double>(v)) return cat(c.real());
    return cat("(", c.real(), c.imag() < 0 ? "" : "+", c.imag(), "j)");
}

double real_value(const Scalar& v, DType dtype) {
    const std::complex<double> c = as_complex(v);
    if (c.imag() != 0)  // the message formats the value: only on failure
        user_error(error_kind::ArgumentError, "cannot store the complex value ", scalar_string(v), " in a ", dtype_name(dtype), " array");
    return c.real();
}

template <class T>
T integer_from(const Scalar& v, DType dtype) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
        // uint64 takes negative values as their two's complement, so that what get() returns can be set back.
        argument_check(std::is_same_v<T, std::uint64_t> || std::in_range<T>(*i), "the value ", *i,
                       " is out of range for ", dtype_name(dtype));
        return static_cast<T>(*i);
    }
    const double d = std::trunc(real_value(v, dtype));  // numpy's float-to-int cast truncates toward zero
    argument_check(!std::isnan(d), "cannot convert NaN to ", dtype_name(dtype));
    // max() + 1.0 is exactly 2^digits, also where max() itself rounds up to it.
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    if (!(d >= lo && d < hi)) user_error(error_kind::ArgumentError, "the value ", scalar_string(v), " is out of range for ", dtype_name(dtype));
    return static_cast<T>(d);
}

template <class T>
T element_from(const Scalar& v, DType dtype) {
    if constexpr (std::is_same_v<T, bool>) {
        return as_complex(v) != 0.0;
    } else if constexpr (is_complex_type<T>::value) {
        const std::complex<double> c = as_complex(v);
        return T(static_cast<typename T::value_type>(c.real()), static_cast<typename T::value_type>(c.imag()));
    } else if constexpr (std::is_floating_point_v<T>) {
        return static_cast<T>(real_value(v, dtype));
    } else {
        return integer_from<T>(v, dtype);
    }
}

template <class T>
T load_as(const std::byte* p) {
    if constexpr (std::is_same_v<T, bool>) {
        return std::to_integer<int>(*p) != 0;  // a kernel may have stored any nonzero byte
    } else {
        T x;
        std::memcpy(&x, p, sizeof x);
        return x;
    }
}

template <class T>
Scalar scalar_from(T x) {
    if constexpr (std::is_same_v<T, bool>) return x;
    else if constexpr (is_complex_type<T>::value) return std::complex<double>(x);
    else if constexpr (std::is_floating_point_v<T>) return static_cast<double>(x);
    else return static_cast<std::int64_t>(x);  // uint64 above INT64_MAX wraps, as documented
}

Scalar load(DType dtype, const std::byte* p) {
    return with_element_type(dtype, [&](auto type) { return scalar_from(load_as<typename decltype(type)::type>(p)); });
}

// Widened without a detour through Scalar, so that uint64 values above INT64_MAX stay positive.
std::complex<double> load_complex(DType dtype, const std::byte* p) {
    return with_element_type(dtype, [&](auto type) {
        using T = typename decltype(type)::type;
        if constexpr (is_complex_type<T>::value) return std::complex<double>(load_as<T>(p));
        else return std::complex<double>(static_cast<double>(load_as<T>(p)));
    });
}

void store(DType dtype, std::byte* p, const Scalar& v) {
    with_element_type(dtype, [&](auto type) {
        const auto x = element_from<typename decltype(type)::type>(v, dtype);
        std::memcpy(p, &x, sizeof x);
    });
}

}  // namespace

std::int64_t checked_element_count(const Shape& shape, DType dtype) {
    check_dtype(dtype);
    return checked_size(shape, dtype);
}

void store_element(DType dtype, void* p, const Scalar& value) { store(dtype, static_cast<std::byte*>(p), value); }
Scalar load_element(DType dtype, const void* p) { return load(dtype, static_cast<const std::byte*>(p)); }

namespace {

// ---- Random values ----

// As many random bits as the type's mantissa holds: the value converts exactly, so float32 never rounds up to 1.
double uniform01(std::mt19937_64& gen, bool single) {
    const int bits = single ? std::numeric_limits<float>::digits : std::numeric_limits<double>::digits;
    return std::ldexp(static_cast<double>(gen() >> (64 - bits)), -bits);
}

double standard_normal(std::mt19937_64& gen) {
    const double u1 = 1.0 - uniform01(gen, false);  // in (0, 1]: log never sees 0
    const double u2 = uniform01(gen, false);
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// A new array filled in C order with sample(gen, single); a complex element takes two samples (re, then im).
template <class Sample>
HostArray random_array(const Shape& shape, DType dtype, const char* fname, Sample sample) {
    argument_check(is_float(dtype) || is_complex(dtype), fname, ": dtype ", dtype_name(dtype),
                   " is not a floating-point or complex type");
    HostArray a = HostArray::empty(shape, dtype);
    const bool single = real_part_type(dtype) == DType::Float32;
    const std::int64_t reals = a.size() * (is_complex(dtype) ? 2 : 1);
    for (std::int64_t k = 0; k < reals; ++k) {
        const double x = sample(single);
        if (single) static_cast<float*>(a.data())[k] = static_cast<float>(x);
        else static_cast<double*>(a.data())[k] = x;
    }
    return a;
}

void check_same_shape(const HostArray& a, const HostArray& b, const char* fname) {
    argument_check(a.shape() == b.shape(), fname, ": the shapes ", shape_string(a.shape()), " and ",
                   shape_string(b.shape()), " do not match");
}

// Calls f(x, y) for the elements of a and b at each index, widened to complex<double>.
template <class F>
void for_each_pair(const HostArray& a, const HostArray& b, F&& f) {
    const auto* pa = static_cast<const std::byte*>(a.data());
    const auto* pb = static_cast<const std::byte*>(b.data());
    const auto sa = static_cast<std::int64_t>(dtype_size(a.dtype()));
    const auto sb = static_cast<std::int64_t>(dtype_size(b.dtype()));
    walk(
        a.shape(),
        [&](const std::array<std::int64_t, 2>& off) {
            f(load_complex(a.dtype(), pa + off[0] * sa), load_complex(b.dtype(), pb + off[1] * sb));
        },
        a.strides(), b.strides());
}

}  // namespace

std::string shape_string(const Shape& shape) {
    std::string s = "(";
    for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// ---- Construction ----

HostArray::HostArray(DType dtype, Shape shape, Shape strides, std::int64_t offset, std::shared_ptr<std::byte> storage)
    : dtype_(dtype),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      offset_(offset),
      storage_(std::move(storage)) {}

HostArray HostArray::empty(const Shape& shape, DType dtype, Order order) {
    check_dtype(dtype);
    const std::int64_t count = checked_size(shape, dtype);
    return HostArray(dtype, shape, contiguous_strides(shape, order), 0,
                     allocate_cleared(static_cast<std::size_t>(count) * dtype_size(dtype)));
}

HostArray HostArray::zeros(const Shape& shape, DType dtype, Order order) { return empty(shape, dtype, order); }

HostArray HostArray::wrap(void* data, DType dtype, const Shape& shape, Shape strides, std::shared_ptr<void> owner) {
    const std::int64_t count = checked_element_count(shape, dtype);
    if (strides.empty()) strides = contiguous_strides(shape, Order::C);
    argument_check(strides.size() == shape.size(), "wrap: ", strides.size(), " strides for ", shape.size(), " axes");
    for (const std::int64_t s : strides) argument_check(s >= 0, "wrap: negative strides are not supported, got ", s);
    argument_check(data != nullptr || count == 0, "wrap: null data for a non-empty array");
    // The aliasing constructor: the array points at `data` and shares the ownership of `owner`.
    return HostArray(dtype, shape, std::move(strides), 0, std::shared_ptr<std::byte>(std::move(owner), static_cast<std::byte*>(data)));
}

namespace {

// Stores the scalars of `n` in C order at `out`, checking that every list matches the shape inferred from the
// first items.
void store_nested(const Nested& n, const Shape& shape, DType dtype, Index& position, std::byte*& out) {
    const std::size_t axis = position.size();
    if (axis == shape.size()) {
        argument_check(!n.is_list, "array: ragged nested lists: expected a scalar at 0-based position ",
                       shape_string(position), ", got a list");
        store(dtype, out, n.value);
        out += dtype_size(dtype);
        return;
    }
    argument_check(n.is_list && std::ssize(n.items) == shape[axis], "array: ragged nested lists: expected a list of ",
                   shape[axis], " items at 0-based position ", shape_string(position), ", got ",
                   n.is_list ? cat("a list of ", n.items.size()) : std::string("a scalar"));
    for (std::size_t k = 0; k < n.items.size(); ++k) {
        position.push_back(static_cast<std::int64_t>(k));
        store_nested(n.items[k], shape, dtype, position, out);
        position.pop_back();
    }
}

}  // namespace

HostArray HostArray::from_nested(const Nested& values, DType dtype) {
    Shape shape;
    for (const Nested* n = &values; n->is_list; n = &n->items.front()) {
        shape.push_back(std::ssize(n->items));
        if (n->items.empty()) break;
    }
    HostArray a = empty(shape, dtype);
    Index position;
    auto* out = static_cast<std::byte*>(a.data());
    store_nested(values, shape, dtype, position, out);
    return a;
}

HostArray HostArray::arange(std::int64_t n, DType dtype) {
    HostArray a = empty({std::max<std::int64_t>(n, 0)}, dtype);
    auto* out = static_cast<std::byte*>(a.data());
    for (std::int64_t k = 0; k < a.size(); ++k) store(dtype, out + k * dtype_size(dtype), k);
    return a;
}

HostArray HostArray::rand(const Shape& shape, DType dtype, std::mt19937_64& gen) {
    return random_array(shape, dtype, "rand", [&](bool single) { return uniform01(gen, single); });
}

HostArray HostArray::rand(const Shape& shape, DType dtype, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    return rand(shape, dtype, gen);
}

HostArray HostArray::randn(const Shape& shape, DType dtype, std::mt19937_64& gen) {
    return random_array(shape, dtype, "randn", [&](bool) { return standard_normal(gen); });
}

HostArray HostArray::randn(const Shape& shape, DType dtype, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    return randn(shape, dtype, gen);
}

// ---- Properties and elements ----

std::int64_t HostArray::size() const {
    std::int64_t n = 1;
    for (std::int64_t d : shape_) n *= d;
    return n;
}

std::size_t HostArray::nbytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype_); }

bool HostArray::is_contiguous() const {
    if (size() == 0) return true;
    std::int64_t expected = 1;
    for (std::size_t k = ndim(); k-- > 0;) {
        if (shape_[k] == 1) continue;  // any stride will do for an axis of one item, as in numpy
        if (strides_[k] != expected) return false;
        expected *= shape_[k];
    }
    return true;
}

void* HostArray::data() const { return storage_.get() + offset_ * static_cast<std::int64_t>(dtype_size(dtype_)); }

std::byte* HostArray::element(const Index& index, const char* op) const {
    argument_check(index.size() == ndim(), op, ": expected ", ndim(), " indices for a ", ndim(), "-d array, got ",
                   index.size());
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < ndim(); ++k) {
        argument_check(index[k] >= 0 && index[k] < shape_[k], op, ": index ", index[k], " is out of bounds for axis ",
                       k, " with size ", shape_[k]);
        offset += index[k] * strides_[k];
    }
    return static_cast<std::byte*>(data()) + offset * static_cast<std::int64_t>(dtype_size(dtype_));
}

Scalar HostArray::get(const Index& index) const { return load(dtype_, element(index, "get")); }

double HostArray::get_double(const Index& index) const {
    argument_check(!is_complex(dtype_), "get_double: the array is ", dtype_name(dtype_), "; use get_complex");
    return get_complex(index).real();
}

std::complex<double> HostArray::get_complex(const Index& index) const {
    return load_complex(dtype_, element(index, "get"));
}

void HostArray::set(const Index& index, const Scalar& value) { store(dtype_, element(index, "set"), value); }

void HostArray::fill(const Scalar& value) {
    // Converted once up front: a value the dtype cannot hold leaves the array untouched.
    std::array<std::byte, 16> bytes{};
    store(dtype_, bytes.data(), value);
    const std::size_t itemsize = dtype_size(dtype_);
    auto* base = static_cast<std::byte*>(data());
    walk(
        shape_,
        [&](const std::array<std::int64_t, 1>& off) {
            std::memcpy(base + off[0] * static_cast<std::int64_t>(itemsize), bytes.data(), itemsize);
        },
        strides_);
}

// ---- Copies and views ----

HostArray HostArray::copy() const {
    HostArray out = empty(shape_, dtype_);
    const auto itemsize = static_cast<std::int64_t>(dtype_size(dtype_));
    const auto* src = static_cast<const std::byte*>(data());
    auto* dst = static_cast<std::byte*>(out.data());
    walk(
        shape_,
        [&](const std::array<std::int64_t, 1>& off) {
            std::memcpy(dst, src + off[0] * itemsize, static_cast<std::size_t>(itemsize));
            dst += itemsize;
        },
        strides_);
    return out;
}

HostArray HostArray::transpose() const {
    return HostArray(dtype_, Shape(shape_.rbegin(), shape_.rend()), Shape(strides_.rbegin(), strides_.rend()), offset_,
                     storage_);
}

HostArray HostArray::view(const std::vector<Slice>& slices) const {
    argument_check(slices.size() <= ndim(), "view: ", slices.size(), " entries for an array of ", ndim(), " dimensions");
    Shape shape, strides;
    std::int64_t offset = offset_;
    for (std::size_t axis = 0; axis < ndim(); ++axis) {
        const std::int64_t n = shape_[axis];
        const auto from_end = [n](std::int64_t i) { return i < 0 ? i + n : i; };
        if (axis >= slices.size()) {
            shape.push_back(n);
            strides.push_back(strides_[axis]);
            continue;
        }
        const Slice& s = slices[axis];
        if (s.is_index) {
            const std::int64_t i = from_end(s.start);
            argument_check(i >= 0 && i < n, "view: index ", s.start, " is out of bounds for axis ", axis, " of size ", n);
            offset += i * strides_[axis];
            continue;
        }
        argument_check(s.step > 0, "view: the step of axis ", axis, " must be positive, got ", s.step);
        const std::int64_t start = std::clamp<std::int64_t>(from_end(s.start), 0, n);
        const std::int64_t stop = std::clamp<std::int64_t>(from_end(s.stop), start, n);
        offset += start * strides_[axis];
        shape.push_back((stop - start + s.step - 1) / s.step);
        strides.push_back(strides_[axis] * s.step);
    }
    return HostArray(dtype_, std::move(shape), std::move(strides), offset, storage_);
}

HostArray HostArray::reshape(Shape shape) const {
    const std::string mismatch = cat("reshape: cannot reshape an array of shape ", shape_string(shape_), " into shape ",
                                     shape_string(shape));
    const auto inferred = std::find(shape.begin(), shape.end(), -1);
    if (inferred != shape.end()) {
        argument_check(std::count(shape.begin(), shape.end(), -1) == 1, "reshape: only one dimension can be -1, got ",
                       shape_string(shape));
        *inferred = 1;
        const std::int64_t known = std::max<std::int64_t>(checked_size(shape, dtype_), 1);
        argument_check(size() % known == 0, mismatch);
        *inferred = size() / known;
    }
    argument_check(checked_size(shape, dtype_) == size(), mismatch);
    argument_check(is_contiguous(), "reshape: the array of shape ", shape_string(shape_),
                   " is not contiguous (a transposed view?); reshape a copy() of it");
    return HostArray(dtype_, shape, contiguous_strides(shape, Order::C), offset_, storage_);
}

// ---- Comparison ----

bool isclose(std::complex<double> a, std::complex<double> b, double rtol, double atol) {
    // Written so that NaN compares false; a == b lets equal infinities through.
    return a == b || std::abs(a - b) <= atol + rtol * std::abs(b);
}

bool allclose(const HostArray& a, const HostArray& b, double rtol, double atol) {
    check_same_shape(a, b, "allclose");
    bool close = true;
    for_each_pair(a, b, [&](std::complex<double> x, std::complex<double> y) { close = close && isclose(x, y, rtol, atol); });
    return close;
}

double max_abs_diff(const HostArray& a, const HostArray& b) {
    check_same_shape(a, b, "max_abs_diff");
    double m = 0;
    for_each_pair(a, b, [&](std::complex<double> x, std::complex<double> y) {
        const double d = x == y ? 0.0 : std::abs(x - y);
        m = std::isnan(m) || std::isnan(d) ? std::numeric_limits<double>::quiet_NaN() : std::max(m, d);
    });
    return m;
}

// ---- Printing, after numpy's arrayprint ----

namespace {

constexpr std::int64_t kPrintThreshold = 1000;
constexpr std::int64_t kEdgeItems = 3;
constexpr std::size_t kLineWidth = 75;
constexpr int kPrecision = 8;

// The shortest digits that read back as the float32 or float64 value, or the given number of digits.
std::string to_chars_string(double v, bool single, std::chars_format fmt, std::optional<int> precision) {
    std::array<char, 512> buf;  // fixed notation of the largest double needs 310 characters
    char* const first = buf.data();
    char* const last = buf.data() + buf.size();
    std::to_chars_result r;
    if (single) {
        const auto f = static_cast<float>(v);
        r = precision ? std::to_chars(first, last, f, fmt, *precision) : std::to_chars(first, last, f, fmt);
    } else {
        r = precision ? std::to_chars(first, last, v, fmt, *precision) : std::to_chars(first, last, v, fmt);
    }
    internal_assert(r.ec == std::errc(), "to_chars failed");
    return std::string(first, r.ptr);
}

// numpy's rule for switching to scientific notation; float32 switches at 1e6 as it holds only about 7 digits.
bool needs_scientific(const std::vector<double>& values, bool single) {
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (double v : values) {
        if (!std::isfinite(v) || v == 0) continue;
        lo = std::min(lo, std::abs(v));
        hi = std::max(hi, std::abs(v));
    }
    return hi >= (single ? 1e6 : 1e8) || (hi > 0 && (lo < 1e-4 || hi / lo > 1e3));
}

// numpy's default float format (floatmode "maxprec", precision 8), every element padded to one width.
// Positional: each value's shortest digits that read back, at most 8 after the point, padded with spaces so
// that the points line up. Scientific: every mantissa with as many digits as the longest needs, taken from
// the exact value, and exponents of one width.
class FloatFormat {
public:
    FloatFormat(const std::vector<double>& values, bool single, bool plus_sign)
        : single_(single), plus_(plus_sign), sci_(needs_scientific(values, single)) {
        bool non_finite = false, negative_inf = false;
        for (double v : values) {
            if (!std::isfinite(v)) {
                non_finite = true;
                negative_inf = negative_inf || v < 0;
                continue;
            }
            const std::string s = unique_digits(v);
            const std::size_t dot = s.find('.'), end = fraction_end(s);
            left_ = std::max(left_, dot);
            precision_ = std::max(precision_, end - dot - 1);
            if (sci_) exp_digits_ = std::max(exp_digits_, s.size() - end - 2);
        }
        right_ = sci_ ? precision_ + 2 + exp_digits_ : precision_;
        if (non_finite) {  // room for "nan", "inf" and "-inf" or "+inf"
            const std::size_t widest = plus_ || negative_inf ? 4 : 3;
            left_ = std::max(left_, std::max(widest, right_ + 1) - (right_ + 1));
        }
    }

    std::string operator()(double v) const {
        const std::size_t width = left_ + 1 + right_;
        if (!std::isfinite(v)) {
            const std::string s = non_finite(v);
            return std::string(width - std::min(width, s.size()), ' ') + s;
        }
        std::string s = sci_ ? scientific(v) : unique_digits(v);
        s.insert(0, left_ - s.find('.'), ' ');
        return s + std::string(width - s.size(), ' ');
    }

private:
    std::size_t fraction_end(const std::string& s) const { return sci_ ? s.find('e') : s.size(); }

    std::string signed_text(std::string s, double v) const { return plus_ && !std::signbit(v) ? "+" + s : s; }

    std::string non_finite(double v) const {
        if (std::isnan(v)) return plus_ ? "+nan" : "nan";
        return std::signbit(v) ? "-inf" : signed_text("inf", v);
    }

    // The shortest digits that read back, rounded to at most 8 after the point, always with a point ("1.").
    std::string unique_digits(double v) const {
        const auto fmt = sci_ ? std::chars_format::scientific : std::chars_format::fixed;
        std::string s = to_chars_string(v, single_, fmt, std::nullopt);
        const std::size_t dot = s.find('.');
        if (dot != std::string::npos && fraction_end(s) - dot - 1 > static_cast<std::size_t>(kPrecision)) {
            s = to_chars_string(v, single_, fmt, kPrecision);
            const std::size_t end = fraction_end(s);
            const std::size_t keep = s.find_last_not_of('0', end - 1) + 1;
            s.erase(keep, end - keep);
        }
        if (s.find('.') == std::string::npos) s.insert(fraction_end(s), ".");
        return signed_text(s, v);
    }

    std::string scientific(double v) const {
        std::string s = to_chars_string(v, single_, std::chars_format::scientific, static_cast<int>(precision_));
        std::size_t e = s.find('e');
        if (precision_ == 0) s.insert(e++, ".");
        s.insert(e + 2, exp_digits_ - (s.size() - e - 2), '0');
        return signed_text(s, v);
    }

    bool single_, plus_, sci_;
    std::size_t left_ = 0, right_ = 0;  // padded widths before and after the point
    std::size_t precision_ = 0;         // digits after the point (scientific: of every mantissa)
    std::size_t exp_digits_ = 0;        // scientific only
};

template <class T>
std::vector<std::string> format_words(const std::vector<T>& values, bool zero_d) {
    std::vector<std::string> words;
    if constexpr (std::is_same_v<T, bool>) {
        // " True" lines up with "False", except alone.
        for (bool v : values) words.emplace_back(v ? (zero_d ? "True" : " True") : "False");
    } else if constexpr (is_complex_type<T>::value) {
        std::vector<double> re, im;
        for (const T& v : values) re.push_back(v.real()), im.push_back(v.imag());
        const bool single = std::is_same_v<T, std::complex<float>>;
        const FloatFormat re_format(re, single, false), im_format(im, single, true);
        for (const T& v : values) {
            const std::string i = im_format(v.imag());
            const std::size_t end = i.find_last_not_of(' ') + 1;  // the padding goes after the "j"
            words.push_back(re_format(v.real()) + i.substr(0, end) + "j" + i.substr(end));
        }
    } else if constexpr (std::is_floating_point_v<T>) {
        const FloatFormat format(std::vector<double>(values.begin(), values.end()), std::is_same_v<T, float>, false);
        for (T v : values) words.push_back(format(v));
    } else {
        for (T v : values) words.push_back(std::to_string(+v));
    }
    return words;
}

// Lays out the formatted elements as numpy's _formatArray does: rows wrapped at the line width, one line per
// row of a matrix, blank lines between blocks of higher dimensions, "..." for summarized items.
class Layout {
public:
    Layout(const std::vector<Index>& shown, const std::vector<std::string>& words) : shown_(shown), words_(words) {}

    std::string format(std::size_t axis, const std::string& indent, std::size_t width) {
        if (axis == shown_.size()) return words_[next_++];
        const std::vector<std::int64_t>& items = shown_[axis];
        const std::string next_indent = indent + " ";
        std::string s, line = indent;
        for (std::size_t k = 0; k < items.size(); ++k) {
            const std::string item = items[k] < 0 ? "..." : format(axis + 1, next_indent, width - 1);
            const bool last = k + 1 == items.size();
            if (axis + 1 == shown_.size()) {
                extend_line(s, line, item, width - 1, indent);
                if (!last) line += ", ";
            } else {
                s += indent + item;
                if (!last) s += "," + std::string(shown_.size() - axis - 1, '\n');
            }
        }
        if (axis + 1 == shown_.size()) s += line;
        return "[" + s.substr(indent.size()) + "]";
    }

private:
    static void extend_line(std::string& s, std::string& line, const std::string& word, std::size_t width,
                            const std::string& indent) {
        if (line.size() + word.size() > width && line.size() > indent.size()) {
            s += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
            line = indent;
        }
        line += word;
    }

    const std::vector<Index>& shown_;
    const std::vector<std::string>& words_;
    std::size_t next_ = 0;
};

// The indices printed along each axis; -1 marks the "..." of a summarized axis.
std::vector<Index> shown_indices(const Shape& shape, bool summarize) {
    std::vector<Index> shown;
    for (std::int64_t n : shape) {
        Index items;
        for (std::int64_t i = 0; i < n; ++i) {
            if (summarize && n > 2 * kEdgeItems && i == kEdgeItems) {
                items.push_back(-1);
                i = n - kEdgeItems;
            }
            items.push_back(i);
        }
        shown.push_back(std::move(items));
    }
    return shown;
}

// Element offsets (in elements from data()) of the shown items, in printing order.
void shown_offsets(const HostArray& a, const std::vector<Index>& shown, std::size_t axis, std::int64_t offset,
                   std::vector<std::int64_t>& out) {
    if (axis == shown.size()) {
        out.push_back(offset);
        return;
    }
    for (std::int64_t i : shown[axis])
        if (i >= 0) shown_offsets(a, shown, axis + 1, offset + i * a.strides()[axis], out);
}

std::string format_body(const HostArray& a) {
    const std::vector<Index> shown = shown_indices(a.shape(), a.size() > kPrintThreshold);
    std::vector<std::int64_t> offsets;
    shown_offsets(a, shown, 0, 0, offsets);
    std::vector<std::string> words = with_element_type(a.dtype(), [&](auto type) {
        using T = typename decltype(type)::type;
        const auto* base = static_cast<const std::byte*>(a.data());
        std::vector<T> values;
        for (std::int64_t off : offsets)
            values.push_back(load_as<T>(base + off * static_cast<std::int64_t>(sizeof(T))));
        return format_words(values, a.ndim() == 0);
    });
    std::size_t width = 0;
    for (const std::string& w : words) width = std::max(width, w.size());
    for (std::string& w : words) w.insert(0, width - w.size(), ' ');
    // "array(" and the "[" of the outermost list are 7 columns; the closing ")" or "," takes one.
    return Layout(shown, words).format(0, std::string(7, ' '), kLineWidth - 1);
}

bool has_default_dtype(DType dtype) {
    return dtype == DType::Float64 || dtype == DType::Int64 || dtype == DType::Bool || dtype == DType::Complex128;
}

}  // namespace

std::string to_string(const HostArray& a) {
    // numpy 2 names the shape where the text does not show it: empty arrays other than (0,), summarized ones.
    std::vector<std::string> extras;
    if ((a.size() == 0 && a.shape() != Shape{0}) || a.size() > kPrintThreshold)
        extras.push_back("shape=" + shape_string(a.shape()));
    if (a.size() == 0 || !has_default_dtype(a.dtype())) extras.push_back("dtype=" + dtype_name(a.dtype()));
    std::string out = "array(" + (a.size() > 0 ? format_body(a) : std::string("[]"));
    if (extras.empty()) return out + ")";
    out += ",";
    const std::string extra = join(extras, ", ") + ")";
    const std::size_t last_line = out.size() - (out.rfind('\n') + 1);
    return out + (last_line + extra.size() + 1 > kLineWidth ? "\n      " : " ") + extra;
}

}  // namespace loom
