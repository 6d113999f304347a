// Exact counting of the integer points of parametric sets (DESIGN decision 9). isl 0.25 represents, evaluates
// and prints piecewise quasi-polynomials but has no counting of its own (isl_set_card and
// isl_pw_qpolynomial_sum belong to barvinok), so `card` sums over the dimensions one at a time: the points of
// a set without existentials along its last dimension form an interval, whose bounds isl's parametric
// integer programming finds piece by piece, and a polynomial summed over an interval is a polynomial of its
// bounds (Faulhaber). Existentials become dimensions first (isl's lift: each is a function of the others),
// and a dimension that floors of the summand divide is split by its residues, which removes those floors.
#pragma once

#include <isl/cpp.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

struct isl_pw_qpolynomial;

namespace loom::isl_util {

/// An owned isl_pw_qpolynomial over a parameter domain (no set dimensions): a count.
class PwQPolynomial {
public:
    /// Takes ownership of `p` (an isl failure, null, is an InternalError).
    explicit PwQPolynomial(isl_pw_qpolynomial* p);
    PwQPolynomial(const PwQPolynomial& o);
    PwQPolynomial(PwQPolynomial&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    PwQPolynomial& operator=(PwQPolynomial o) noexcept;
    ~PwQPolynomial();

    /// The constant `v` over the parameters `params` (in that order).
    static PwQPolynomial constant(const std::vector<std::string>& params, std::int64_t v);
    /// The parameter `name`, one of `params`, over the parameters `params` (in that order).
    static PwQPolynomial parameter(const std::vector<std::string>& params, const std::string& name);
    /// A piecewise affine function of the parameters (a grid size) as a count.
    static PwQPolynomial from_pw_aff(const isl::pw_aff& a);

    isl_pw_qpolynomial* get() const { return p_; }
    isl_pw_qpolynomial* copy() const;

    PwQPolynomial operator+(const PwQPolynomial& o) const;
    PwQPolynomial operator-(const PwQPolynomial& o) const;
    PwQPolynomial operator*(const PwQPolynomial& o) const;  // also of counts over different parameters
    PwQPolynomial scaled(std::int64_t factor) const;
    /// The same count over the parameters `params` in that order (then any others it has).
    PwQPolynomial aligned(const std::vector<std::string>& params) const;

    /// The value for `values` of the parameters, as numerator and denominator. ArgumentError naming a
    /// parameter without a value; others in `values` are ignored.
    std::pair<std::int64_t, std::int64_t> eval(const std::map<std::string, std::int64_t>& values) const;
    /// isl's text: `[l, m, n] -> { l * m * n : l > 0 and m > 0 and n > 0 }`.
    std::string to_str() const;

private:
    isl_pw_qpolynomial* p_;
};

/// A piecewise affine function (a grid size) as a count.
PwQPolynomial count_of(const isl::pw_aff& size);

/// The number of points of `s` as a function of its parameters (zero where it is empty), exact for every
/// set isl represents: unions, existentials, strides, floors.
PwQPolynomial card(const isl::set& s);

}  // namespace loom::isl_util
