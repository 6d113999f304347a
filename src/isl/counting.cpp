#include "isl/counting.h"

#include <isl/aff.h>
#include <isl/constraint.h>
#include <isl/map.h>
#include <isl/point.h>
#include <isl/polynomial.h>
#include <isl/printer.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/val.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <numeric>

#include "isl/isl.h"
#include "support/error.h"
#include "support/limits.h"

namespace loom::isl_util {

namespace {

template <class T>
T* checked(T* p) {
    if (!p) {
        const char* msg = isl_ctx_last_error_msg(ctx().get());
        internal_error("isl failed while counting: ", msg ? msg : "unknown error");
    }
    return p;
}

template <auto Free>
struct Deleter {
    template <class T>
    void operator()(T* p) const {
        Free(p);
    }
};
using Qp = std::unique_ptr<isl_qpolynomial, Deleter<isl_qpolynomial_free>>;
using Set = std::unique_ptr<isl_set, Deleter<isl_set_free>>;
using Aff = std::unique_ptr<isl_aff, Deleter<isl_aff_free>>;
using MultiAff = std::unique_ptr<isl_multi_aff, Deleter<isl_multi_aff_free>>;
using Space = std::unique_ptr<isl_space, Deleter<isl_space_free>>;
using BasicSet = std::unique_ptr<isl_basic_set, Deleter<isl_basic_set_free>>;
using Term = std::unique_ptr<isl_term, Deleter<isl_term_free>>;

Qp qp(isl_qpolynomial* p) { return Qp(checked(p)); }
Qp add(Qp a, Qp b) { return qp(isl_qpolynomial_add(a.release(), b.release())); }
Qp mul(Qp a, Qp b) { return qp(isl_qpolynomial_mul(a.release(), b.release())); }
Qp constant(const Space& dom, isl_val* v) { return qp(isl_qpolynomial_val_on_domain(isl_space_copy(dom.get()), v)); }
Qp from_aff(isl_aff* a) { return qp(isl_qpolynomial_from_aff(checked(a))); }
Qp pow(Qp base, int e) { return qp(isl_qpolynomial_pow(base.release(), static_cast<unsigned>(e))); }

// --- Power sums: G_k(x) = 1^k + ... + x^k as a polynomial in x (so that the sum of v^k for v from L to U is
// G_k(U) - G_k(L - 1) for all integers L <= U + 1).

struct Rational {
    std::int64_t num = 0, den = 1;
    Rational(std::int64_t n = 0, std::int64_t d = 1) {
        const std::int64_t g = std::gcd(n, d) * (d < 0 ? -1 : 1);
        num = g ? n / g : 0;
        den = g ? d / g : 1;
    }
    Rational operator+(const Rational& o) const { return {num * o.den + o.num * den, den * o.den}; }
    Rational operator*(const Rational& o) const { return {num * o.num, den * o.den}; }
};

std::int64_t binomial(int n, int k) {
    std::int64_t r = 1;
    for (int i = 1; i <= k; ++i) r = r * (n - k + i) / i;
    return r;
}

// Bernoulli numbers with B_1 = +1/2, which gives the power sums from 1 to x.
Rational bernoulli_plus(int j) {
    static std::vector<Rational> b{Rational(1)};
    while (static_cast<int>(b.size()) <= j) {
        const int m = static_cast<int>(b.size());
        Rational s;
        for (int i = 0; i < m; ++i) s = s + Rational(binomial(m + 1, i)) * b[static_cast<std::size_t>(i)];
        b.push_back(s * Rational(-1, m + 1));  // sum_{i<=m} C(m+1, i) B_i = 0 (B_1 = -1/2 convention)
    }
    return j == 1 ? Rational(1, 2) : b[static_cast<std::size_t>(j)];
}

// Coefficients of G_k, lowest power first (degree k + 1).
std::vector<Rational> power_sum(int k) {
    std::vector<Rational> c(static_cast<std::size_t>(k + 2));
    for (int j = 0; j <= k; ++j)
        c[static_cast<std::size_t>(k + 1 - j)] = Rational(binomial(k + 1, j), k + 1) * bernoulli_plus(j);
    return c;
}

isl_val* val(const Rational& r) {
    return isl_val_div(isl_val_int_from_si(ctx().get(), r.num), isl_val_int_from_si(ctx().get(), r.den));
}

// G_k(x) by Horner's rule.
Qp power_sum_at(int k, const Qp& x, const Space& dom) {
    const std::vector<Rational> c = power_sum(k);
    Qp acc = constant(dom, val(c.back()));
    for (std::size_t j = c.size() - 1; j-- > 0;)
        acc = add(mul(std::move(acc), qp(isl_qpolynomial_copy(x.get()))), constant(dom, val(c[j])));
    return acc;
}

// --- Rebuilding a quasi-polynomial term by term: isl_qpolynomial_substitute refuses quasi-polynomials with
// floors, and summation needs both the coefficient of each power of a dimension and substitutions.

struct TermParts {
    const Space* dom;
    int skip = -1;                      // a set dimension left out of the monomial
    isl_multi_aff* ma = nullptr;  // a substitution of the set dimensions (its pullback)
};

Qp rebuild_term(isl_term* t, const TermParts& parts) {
    const Space& dom = *parts.dom;
    Qp out = constant(dom, isl_term_get_coefficient_val(t));
    const isl_size np = isl_term_dim(t, isl_dim_param), nd = isl_term_dim(t, isl_dim_set), ndiv = isl_term_dim(t, isl_dim_div);
    for (int i = 0; i < np; ++i)
        if (const isl_size e = isl_term_get_exp(t, isl_dim_param, static_cast<unsigned>(i)))
            out = mul(std::move(out), pow(qp(isl_qpolynomial_var_on_domain(isl_space_copy(dom.get()), isl_dim_param, static_cast<unsigned>(i))), e));
    for (int i = 0; i < nd; ++i) {
        const isl_size e = isl_term_get_exp(t, isl_dim_set, static_cast<unsigned>(i));
        if (!e || i == parts.skip) continue;
        Qp base = parts.ma ? from_aff(isl_multi_aff_get_aff(parts.ma, i))
                           : qp(isl_qpolynomial_var_on_domain(isl_space_copy(dom.get()), isl_dim_set, static_cast<unsigned>(i)));
        out = mul(std::move(out), pow(std::move(base), e));
    }
    for (int i = 0; i < ndiv; ++i) {
        const isl_size e = isl_term_get_exp(t, isl_dim_div, static_cast<unsigned>(i));
        if (!e) continue;
        isl_aff* inner = checked(isl_term_get_div(t, static_cast<unsigned>(i)));
        if (parts.ma) inner = isl_aff_pullback_multi_aff(inner, isl_multi_aff_copy(parts.ma));
        out = mul(std::move(out), pow(from_aff(isl_aff_floor(checked(inner))), e));
    }
    return out;
}

// The terms of q, owned: iterated in C++ rather than in an isl callback, so that no exception crosses isl's
// C frames.
std::vector<Term> terms(const Qp& q) {
    std::vector<Term> out;
    auto cb = [](isl_term* t, void* user) {
        static_cast<std::vector<Term>*>(user)->emplace_back(t);
        return isl_stat_ok;
    };
    checked(isl_qpolynomial_foreach_term(q.get(), cb, &out) == isl_stat_ok ? q.get() : nullptr);
    return out;
}

// The basic sets of s, owned (as `terms`).
std::vector<BasicSet> basic_sets(const Set& s) {
    isl_basic_set_list* list = checked(isl_set_get_basic_set_list(s.get()));
    std::vector<BasicSet> out;
    for (int i = 0; i < isl_basic_set_list_n_basic_set(list); ++i)
        out.emplace_back(checked(isl_basic_set_list_get_basic_set(list, i)));
    isl_basic_set_list_free(list);
    return out;
}

Space domain_space(const Qp& q) { return Space(checked(isl_qpolynomial_get_domain_space(q.get()))); }

// q as sum_k coefficient[k] * x_pos^k; no floor of q may involve x_pos.
std::vector<Qp> coefficients(const Qp& q, int pos) {
    const Space dom = domain_space(q);
    std::vector<Qp> out;
    for (const Term& t : terms(q)) {
        const auto k = static_cast<std::size_t>(isl_term_get_exp(t.get(), isl_dim_set, static_cast<unsigned>(pos)));
        while (out.size() <= k) out.push_back(qp(isl_qpolynomial_zero_on_domain(isl_space_copy(dom.get()))));
        out[k] = add(std::move(out[k]), rebuild_term(t.get(), {&dom, pos}));
    }
    return out;
}

Qp pullback(const Qp& q, const MultiAff& ma) {
    const Space dom = domain_space(q);
    Qp out = qp(isl_qpolynomial_zero_on_domain(isl_space_copy(dom.get())));
    for (const Term& t : terms(q)) out = add(std::move(out), rebuild_term(t.get(), {&dom, -1, ma.get()}));
    return out;
}

// The sum of q over lo <= x_pos <= hi (affine functions of the other dimensions), as a quasi-polynomial
// that no longer involves x_pos.
Qp sum_over(const Qp& q, int pos, isl_aff* lo, isl_aff* hi) {
    const Space dom = domain_space(q);
    const Qp upper = from_aff(hi);
    const Qp below = from_aff(isl_aff_add_constant_si(lo, -1));
    std::vector<Qp> c = coefficients(q, pos);
    Qp out = qp(isl_qpolynomial_zero_on_domain(isl_space_copy(dom.get())));
    for (std::size_t k = 0; k < c.size(); ++k) {
        const int deg = static_cast<int>(k);
        Qp range = add(power_sum_at(deg, upper, dom), qp(isl_qpolynomial_neg(power_sum_at(deg, below, dom).release())));
        out = add(std::move(out), mul(std::move(c[k]), std::move(range)));
    }
    return out;
}

// The smallest period p such that p * x_pos has integer coefficients in the floor `inner`: splitting x_pos by
// its residues modulo p takes it out of the floor.
long period_in(isl_aff* inner, int pos) {
    isl_val* c = isl_aff_get_coefficient_val(inner, isl_dim_in, pos);
    const long den = isl_val_get_den_si(c);
    isl_val_free(c);
    return den;
}

// The period of x_pos in the floors of q (every term of q shares its floors).
long floor_period(const Qp& q, int pos) {
    const std::vector<Term> all = terms(q);
    long m = 1;
    for (int i = 0; !all.empty() && i < isl_term_dim(all[0].get(), isl_dim_div); ++i) {
        const Aff inner(checked(isl_term_get_div(all[0].get(), static_cast<unsigned>(i))));
        m = std::lcm(m, period_in(inner.get(), pos));
    }
    return m;
}

// The set without names or tuple identifiers, so that the spaces of everything derived from it agree.
Set anonymous(isl_set* s) {
    const isl_size n = isl_set_dim(s, isl_dim_set);
    isl_space* sp = isl_space_set_from_params(isl_space_params(isl_set_get_space(s)));
    sp = isl_space_add_dims(sp, isl_dim_set, static_cast<unsigned>(n));
    return Set(checked(isl_set_reset_space(s, sp)));
}

class Summation {
public:
    explicit Summation(isl_pw_qpolynomial* acc) : acc_(acc) {}
    isl_pw_qpolynomial* result() && { return acc_.release(); }

    // Adds the sum of q over the points of s (existentials allowed) to the result. With `lift`, existentials
    // become dimensions (each is a function of the others: isl's known divisions), which suits the strides
    // of a domain (i = 3e: summing over i first leaves e alone). Otherwise a dimension that existentials
    // divide is split by its residues until none does: the existentials a summation leaves behind would
    // only come back if lifted.
    void add_sum(Set s, const Qp& q, bool lift) {
        Set pieces(checked(isl_set_make_disjoint(isl_set_compute_divs(s.release()))));
        for (BasicSet& b : basic_sets(pieces)) {
            const auto [dim, period] = divided_dimension(b.get());
            if (period == 1) {
                eliminate(anonymous(isl_set_from_basic_set(b.release())), qp(isl_qpolynomial_copy(q.get())));
            } else if (!lift) {
                split_residues(anonymous(isl_set_from_basic_set(b.release())), q, dim, period, false);
            } else {
                const isl_size before = isl_basic_set_dim(b.get(), isl_dim_set);
                Set lifted = anonymous(isl_set_flatten(isl_set_from_basic_set(isl_basic_set_lift(b.release()))));
                const isl_size extra = isl_set_dim(lifted.get(), isl_dim_set) - before;
                Qp widened = qp(isl_qpolynomial_add_dims(isl_qpolynomial_copy(q.get()), isl_dim_in, static_cast<unsigned>(extra)));
                eliminate(std::move(lifted), std::move(widened));
            }
        }
    }

private:
    // The last set dimension of b that its existentials divide, with its period; period 1 when none does.
    // Existentials on the parameters alone stay: the count is a quasi-polynomial of the parameters.
    static std::pair<int, long> divided_dimension(isl_basic_set* b) {
        const isl_size n = isl_basic_set_dim(b, isl_dim_set);
        std::vector<long> period(static_cast<std::size_t>(n), 1);
        for (int i = 0; i < isl_basic_set_dim(b, isl_dim_div); ++i) {
            const Aff inner(checked(isl_basic_set_get_div(b, i)));
            for (int d = 0; d < n; ++d)
                period[static_cast<std::size_t>(d)] = std::lcm(period[static_cast<std::size_t>(d)], period_in(inner.get(), d));
        }
        for (int d = static_cast<int>(n); d-- > 0;)
            if (period[static_cast<std::size_t>(d)] > 1) return {d, period[static_cast<std::size_t>(d)]};
        return {0, 1};
    }

    // Sums q over p, a set without existentials on its dimensions (one basic set), one dimension at a time.
    void eliminate(Set p, Qp q) {
        internal_assert(++steps_ < 20000, "counting: the summation does not end");
        const isl_size n = isl_set_dim(p.get(), isl_dim_set);
        if (n == 0) {
            if (isl_set_is_empty(p.get()) == isl_bool_true) return;
            isl_qpolynomial* value = isl_qpolynomial_project_domain_on_params(q.release());
            isl_pw_qpolynomial* piece = checked(isl_pw_qpolynomial_alloc(isl_set_params(p.release()), value));
            acc_.reset(checked(isl_pw_qpolynomial_add(acc_.release(), piece)));
            return;
        }
        const int v = dimension_to_sum(p);
        if (const long period = floor_period(q, v); period > 1) return split_residues(std::move(p), q, v, period, true);
        // The points along v form an interval for each value of the others: [lexmin, lexmax], by pieces.
        const auto uv = static_cast<unsigned>(v);
        isl_map* m = isl_map_move_dims(isl_map_from_range(p.release()), isl_dim_in, 0, isl_dim_out, 0, uv);
        m = isl_map_move_dims(m, isl_dim_in, uv, isl_dim_out, 1, static_cast<unsigned>(n) - uv - 1);
        isl_pw_multi_aff* lo = checked(isl_map_lexmin_pw_multi_aff(isl_map_copy(m)));
        isl_pw_multi_aff* hi = checked(isl_map_lexmax_pw_multi_aff(m));
        for (auto& [lo_dom, lo_aff] : pieces(lo))
            for (auto& [hi_dom, hi_aff] : pieces(hi)) {
                // Pieces times residues grow with each dimension: (i+j+k) mod 7 over five took minutes.
                check_deadline("statistics: counting instances");
                Set both(checked(isl_set_intersect(isl_set_copy(lo_dom.get()), isl_set_copy(hi_dom.get()))));
                if (isl_set_plain_is_empty(both.get()) == isl_bool_true) continue;
                isl_aff* l = isl_aff_insert_dims(isl_multi_aff_get_aff(lo_aff.get(), 0), isl_dim_in, uv, 1);
                isl_aff* u = isl_aff_insert_dims(isl_multi_aff_get_aff(hi_aff.get(), 0), isl_dim_in, uv, 1);
                Qp summed = sum_over(q, v, checked(l), checked(u));
                add_sum(anonymous(both.release()), qp(isl_qpolynomial_drop_dims(summed.release(), isl_dim_in, uv, 1)), false);
            }
        isl_pw_multi_aff_free(lo);
        isl_pw_multi_aff_free(hi);
    }

    // Which dimension of p to sum over first: one that an equality fixes with a unit coefficient, else one
    // with unit coefficients only, else the last. Projecting such a dimension out adds no existential
    // (Fourier-Motzkin is exact on integers there), so the summation does not keep lifting new ones.
    static int dimension_to_sum(const Set& p) {
        const isl_size n = isl_set_dim(p.get(), isl_dim_set);
        std::vector<char> fixed(static_cast<std::size_t>(n), 0), unit(static_cast<std::size_t>(n), 1);
        for (const BasicSet& b : basic_sets(p)) {
            auto cb = [](isl_constraint* c, void* user) {
                auto& [fixed, unit] = *static_cast<std::pair<std::vector<char>*, std::vector<char>*>*>(user);
                const bool eq = isl_constraint_is_equality(c) == isl_bool_true;
                for (std::size_t d = 0; d < fixed->size(); ++d) {
                    isl_val* a = isl_val_abs(isl_constraint_get_coefficient_val(c, isl_dim_set, static_cast<int>(d)));
                    if (isl_val_is_one(a) == isl_bool_true) (*fixed)[d] |= eq;
                    else if (isl_val_is_zero(a) != isl_bool_true) (*unit)[d] = 0;
                    isl_val_free(a);
                }
                isl_constraint_free(c);
                return isl_stat_ok;
            };
            std::pair<std::vector<char>*, std::vector<char>*> both{&fixed, &unit};
            isl_basic_set_foreach_constraint(b.get(), cb, &both);
        }
        for (int d = static_cast<int>(n); d-- > 0;)
            if (fixed[static_cast<std::size_t>(d)]) return d;
        for (int d = static_cast<int>(n); d-- > 0;)
            if (unit[static_cast<std::size_t>(d)]) return d;
        return static_cast<int>(n) - 1;
    }

    // v = period * t + r for each residue r: the floors that involved v become floors without t. With
    // `summing`, p has no existentials and the summation goes on; otherwise p's are split again.
    void split_residues(Set p, const Qp& q, int v, long period, bool summing) {
        const Space dom = domain_space(q);
        for (long r = 0; r < period; ++r) {
            check_deadline("statistics: counting instances");
            isl_multi_aff* id = isl_multi_aff_identity_on_domain_space(isl_space_copy(dom.get()));
            isl_aff* t = isl_multi_aff_get_aff(id, v);
            t = isl_aff_add_constant_si(isl_aff_scale_val(t, isl_val_int_from_si(ctx().get(), period)), static_cast<int>(r));
            const MultiAff ma(checked(isl_multi_aff_set_aff(id, v, checked(t))));
            Set shifted(checked(isl_set_preimage_multi_aff(isl_set_copy(p.get()), isl_multi_aff_copy(ma.get()))));
            if (summing) eliminate(std::move(shifted), pullback(q, ma));
            else add_sum(std::move(shifted), pullback(q, ma), false);
        }
    }

    using Piece = std::pair<Set, MultiAff>;
    static std::vector<Piece> pieces(isl_pw_multi_aff* pma) {
        std::vector<Piece> out;
        auto cb = [](isl_set* s, isl_multi_aff* ma, void* user) {
            static_cast<std::vector<Piece>*>(user)->emplace_back(Set(s), MultiAff(ma));
            return isl_stat_ok;
        };
        isl_pw_multi_aff_foreach_piece(pma, cb, &out);
        return out;
    }

    std::unique_ptr<isl_pw_qpolynomial, Deleter<isl_pw_qpolynomial_free>> acc_;
    long steps_ = 0;
};

isl_space* param_domain(isl_space* params) {
    return isl_space_add_dims(isl_space_from_domain(params), isl_dim_out, 1);
}

}  // namespace

PwQPolynomial::PwQPolynomial(isl_pw_qpolynomial* p) : p_(checked(p)) {}
PwQPolynomial::PwQPolynomial(const PwQPolynomial& o) : p_(o.copy()) {}
PwQPolynomial& PwQPolynomial::operator=(PwQPolynomial o) noexcept {
    std::swap(p_, o.p_);
    return *this;
}
PwQPolynomial::~PwQPolynomial() { isl_pw_qpolynomial_free(p_); }
isl_pw_qpolynomial* PwQPolynomial::copy() const { return isl_pw_qpolynomial_copy(p_); }

namespace {

// The parameter space over `params`, in that order.
isl_space* params_space(const std::vector<std::string>& params) {
    isl_space* sp = isl_space_params_alloc(ctx().get(), static_cast<unsigned>(params.size()));
    for (std::size_t i = 0; i < params.size(); ++i)
        sp = isl_space_set_dim_name(sp, isl_dim_param, static_cast<unsigned>(i), params[i].c_str());
    return sp;
}

}  // namespace

PwQPolynomial PwQPolynomial::constant(const std::vector<std::string>& params, std::int64_t v) {
    isl_space* sp = params_space(params);
    // Zero is no piece at all, so that it prints as `{ 0 }` and adds without splitting the other's pieces.
    if (v == 0) return PwQPolynomial(isl_pw_qpolynomial_zero(param_domain(sp)));
    isl_qpolynomial* c = isl_qpolynomial_val_on_domain(sp, isl_val_int_from_si(ctx().get(), v));
    return PwQPolynomial(isl_pw_qpolynomial_from_qpolynomial(c));
}

PwQPolynomial PwQPolynomial::parameter(const std::vector<std::string>& params, const std::string& name) {
    isl_space* sp = params_space(params);
    const int pos = isl_space_find_dim_by_name(sp, isl_dim_param, name.c_str());
    internal_assert(pos >= 0, "parameter: '", name, "' is not one of the parameters");
    isl_qpolynomial* v = isl_qpolynomial_var_on_domain(sp, isl_dim_param, static_cast<unsigned>(pos));
    return PwQPolynomial(isl_pw_qpolynomial_from_qpolynomial(v));
}

PwQPolynomial PwQPolynomial::from_pw_aff(const isl::pw_aff& a) {
    return PwQPolynomial(isl_pw_qpolynomial_from_pw_aff(a.copy()));
}

PwQPolynomial PwQPolynomial::operator+(const PwQPolynomial& o) const {
    return PwQPolynomial(isl_pw_qpolynomial_add(copy(), o.copy()));
}
PwQPolynomial PwQPolynomial::operator-(const PwQPolynomial& o) const {
    return PwQPolynomial(isl_pw_qpolynomial_sub(copy(), o.copy()));
}
PwQPolynomial PwQPolynomial::operator*(const PwQPolynomial& o) const {
    isl_space* mine = isl_pw_qpolynomial_get_space(p_);
    isl_space* theirs = isl_pw_qpolynomial_get_space(o.p_);
    const bool same = isl_space_is_equal(mine, theirs) == isl_bool_true;
    isl_space_free(mine);
    isl_space_free(theirs);
    // isl multiplies only counts over the same parameters; its addition aligns them (adding zero changes no value).
    if (same) return PwQPolynomial(isl_pw_qpolynomial_mul(copy(), o.copy()));
    const PwQPolynomial a = *this + o.scaled(0);  // the parameters of both, o's first
    const PwQPolynomial b = o + a.scaled(0);      // those of a, in a's order
    return PwQPolynomial(isl_pw_qpolynomial_mul(a.copy(), b.copy()));
}
PwQPolynomial PwQPolynomial::scaled(std::int64_t factor) const {
    return PwQPolynomial(isl_pw_qpolynomial_scale_val(copy(), isl_val_int_from_si(ctx().get(), factor)));
}

PwQPolynomial PwQPolynomial::aligned(const std::vector<std::string>& params) const {
    // isl's binary operations take the parameters of the second operand first.
    return PwQPolynomial(isl_pw_qpolynomial_add(copy(), constant(params, 0).copy()));
}

std::pair<std::int64_t, std::int64_t> PwQPolynomial::eval(const std::map<std::string, std::int64_t>& values) const {
    isl_space* dom = isl_space_domain(isl_pw_qpolynomial_get_space(p_));
    isl_point* pt = isl_point_zero(isl_space_copy(dom));
    const isl_size np = isl_space_dim(dom, isl_dim_param);
    for (int i = 0; i < np; ++i) {
        const std::string name = isl_space_get_dim_name(dom, isl_dim_param, static_cast<unsigned>(i));
        const auto it = values.find(name);
        if (it == values.end()) {
            isl_point_free(pt);
            isl_space_free(dom);
            user_error(error_kind::ArgumentError, "eval: no value for the parameter '", name, "'");
        }
        pt = isl_point_set_coordinate_val(pt, isl_dim_param, i, isl_val_int_from_si(ctx().get(), it->second));
    }
    isl_space_free(dom);
    // A count past 64 bits (large parameter values) is a LoopyError naming it, not a wrapped number.
    const isl::val count = isl::manage(checked(isl_pw_qpolynomial_eval(copy(), pt)));
    const isl::val den = isl::manage(isl_val_get_den_val(count.get()));
    const isl::val num = isl::manage(isl_val_mul(count.copy(), den.copy()));
    return {*long_value(num.get()), *long_value(den.get())};
}

std::string PwQPolynomial::to_str() const {
    char* s = isl_pw_qpolynomial_to_str(p_);
    std::string out = s ? s : "";
    free(s);
    return out;
}

PwQPolynomial count_of(const isl::pw_aff& size) { return PwQPolynomial(isl_pw_qpolynomial_from_pw_aff(size.copy())); }

namespace {

// The count of one basic set. Groups of dimensions that no constraint relates count separately: the count is
// their product, and each group's summation is much smaller.
PwQPolynomial card_of_piece(Set piece) {
    const isl::set s = isl::manage(piece.release());
    const std::vector<isl::set> factors = independent_factors(s);
    if (factors.size() > 1) {
        PwQPolynomial product = PwQPolynomial::constant(param_names(s.get_space()), 1);
        for (const isl::set& f : factors) product = product * card_of_piece(anonymous(f.copy()));
        return product;
    }
    Summation sum(checked(isl_pw_qpolynomial_zero(param_domain(isl_space_params(s.get_space().release())))));
    isl_space* dom = isl_set_get_space(s.get());
    sum.add_sum(anonymous(s.copy()), qp(isl_qpolynomial_one_on_domain(dom)), true);
    return PwQPolynomial(std::move(sum).result());
}

// The coefficients of one constraint of a basic set: per set dimension, and whether it is an equality.
struct Row {
    std::vector<long> coef;
    long constant = 0;
    bool eq = false;
    bool has_divs = false;
    bool too_large = false;  // a number that a long does not hold
};

std::vector<Row> rows_of(isl_basic_set* b) {
    std::vector<Row> rows;
    auto cb = [](isl_constraint* c, void* user) {
        auto* rows = static_cast<std::vector<Row>*>(user);
        Row r;
        r.eq = isl_constraint_is_equality(c) == isl_bool_true;
        const isl_size n = isl_constraint_dim(c, isl_dim_set);
        for (int d = 0; d < n; ++d) {
            isl_val* v = isl_constraint_get_coefficient_val(c, isl_dim_set, d);
            r.too_large = r.too_large || !isl_util::fits_long(v);
            r.coef.push_back(isl_val_get_num_si(v));
            isl_val_free(v);
        }
        for (int d = 0; d < isl_constraint_dim(c, isl_dim_div); ++d) {
            isl_val* v = isl_constraint_get_coefficient_val(c, isl_dim_div, d);
            r.has_divs = r.has_divs || isl_val_is_zero(v) != isl_bool_true;
            isl_val_free(v);
        }
        isl_val* k = isl_constraint_get_constant_val(c);
        r.too_large = r.too_large || !isl_util::fits_long(k);
        r.constant = isl_val_get_num_si(k);
        isl_val_free(k);
        isl_size np = isl_constraint_dim(c, isl_dim_param);
        for (int d = 0; d < np && !r.has_divs; ++d) {
            isl_val* v = isl_constraint_get_coefficient_val(c, isl_dim_param, d);
            if (isl_val_is_zero(v) != isl_bool_true) r.constant = LONG_MIN;  // not a constant bound
            isl_val_free(v);
        }
        rows->push_back(std::move(r));
        isl_constraint_free(c);
        return isl_stat_ok;
    };
    isl_basic_set_foreach_constraint(b, cb, &rows);
    // A number beyond a long: no split is recognised, which costs time, never exactness.
    if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.too_large; })) return {};
    return rows;
}

// The factor f when dimensions x and y of a basic set are a split (split_iname's outer and inner iname):
// 0 <= y < f, and every other constraint holds x and y only as f*x + y. 0 otherwise.
long split_factor(const std::vector<Row>& rows, std::size_t x, std::size_t y) {
    long f = 0;
    bool lower = false;
    std::vector<const Row*> joint;
    for (const Row& r : rows) {
        if (r.coef[x] == 0 && r.coef[y] == 0) continue;
        const bool only_y = r.coef[x] == 0 && !r.eq && !r.has_divs && r.constant != LONG_MIN &&
                            std::count(r.coef.begin(), r.coef.end(), 0L) + 1 == static_cast<long>(r.coef.size());
        if (only_y && r.coef[y] == 1 && r.constant == 0) {
            lower = true;
        } else if (only_y && r.coef[y] == -1 && r.constant > 0 && !f) {
            f = r.constant + 1;
        } else if (r.coef[y] == 0) {
            return 0;
        } else {
            joint.push_back(&r);
        }
    }
    if (!lower || f < 2) return 0;
    for (const Row* r : joint)
        if (r->coef[x] != f * r->coef[y]) return 0;
    return f;
}

// Whether an existential of b depends on set dimension d.
bool divides(isl_basic_set* b, std::size_t d) {
    for (int i = 0; i < isl_basic_set_dim(b, isl_dim_div); ++i) {
        const Aff inner(checked(isl_basic_set_get_div(b, i)));
        if (isl_aff_involves_dims(inner.get(), isl_dim_in, static_cast<unsigned>(d), 1) != isl_bool_false) return true;
    }
    return false;
}

// The image of b with dimensions x and y replaced by the one dimension f*x + y.
isl_set* join(isl_basic_set* b, std::size_t x, std::size_t y, long f) {
    isl_multi_aff* ma = isl_multi_aff_identity_on_domain_space(isl_basic_set_get_space(b));
    isl_aff* t = isl_aff_scale_val(isl_multi_aff_get_aff(ma, static_cast<int>(x)), isl_val_int_from_si(ctx().get(), f));
    ma = isl_multi_aff_set_aff(ma, static_cast<int>(x), isl_aff_add(t, isl_multi_aff_get_aff(ma, static_cast<int>(y))));
    ma = isl_multi_aff_drop_dims(ma, isl_dim_out, static_cast<unsigned>(y), 1);
    return checked(isl_set_apply(isl_set_from_basic_set(b), isl_map_from_multi_aff(ma)));
}

// b with every split pair (x, y) replaced by the one dimension f*x + y: a bijection of its points, so the
// count is the same, and the summation works on the unsplit domain (a split triangle needs no residues).
Set unsplit(isl_basic_set* b) {
    for (;;) {
        const std::vector<Row> rows = rows_of(b);
        const auto n = static_cast<std::size_t>(isl_basic_set_dim(b, isl_dim_set));
        long f = 0;
        std::size_t x = 0, y = 0;
        for (std::size_t i = 0; i < n && !f; ++i)
            for (std::size_t j = 0; j < n && !f; ++j)
                if (i != j && !divides(b, i) && !divides(b, j) && (f = split_factor(rows, i, j))) x = i, y = j;
        if (!f) return anonymous(isl_set_from_basic_set(b));
        Set image(isl_set_make_disjoint(isl_set_compute_divs(join(b, x, y, f))));
        if (isl_set_n_basic_set(image.get()) != 1) return anonymous(image.release());
        isl_basic_set_list* list = isl_set_get_basic_set_list(image.get());
        b = checked(isl_basic_set_list_get_basic_set(list, 0));
        isl_basic_set_list_free(list);
    }
}

}  // namespace

PwQPolynomial card(const isl::set& s) {
    PwQPolynomial total(isl_pw_qpolynomial_zero(param_domain(isl_space_params(s.get_space().release()))));
    Set pieces(checked(isl_set_make_disjoint(isl_set_compute_divs(s.copy()))));
    for (BasicSet& b : basic_sets(pieces)) {
        Set joined(checked(isl_set_make_disjoint(isl_set_compute_divs(unsplit(b.release()).release()))));
        for (BasicSet& piece : basic_sets(joined)) total = total + card_of_piece(Set(isl_set_from_basic_set(piece.release())));
    }
    return total;
}

}  // namespace loom::isl_util
