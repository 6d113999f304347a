#include "analysis/delinearize.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "isl/isl.h"

namespace loom {

namespace {

// A flat index as a polynomial in the candidate bases: each monomial (the sorted names of its bases, with
// repetition) with its coefficient, an expression in everything else.
using Monomial = std::vector<std::string>;
using Poly = std::map<Monomial, ExprPtr>;

// a + b and a * b, folded where both are numbers (`a` null: b) and without factors of 1, so that a
// coefficient stays a number and a digit reads as written.
ExprPtr sum(const ExprPtr& a, const ExprPtr& b) {
    if (!a) return b;
    std::int64_t folded = 0;
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit && !__builtin_add_overflow(a->ival, b->ival, &folded))
        return int_lit(folded);
    return binary(BinOp::Add, a, b);
}

ExprPtr times(const ExprPtr& a, const ExprPtr& b) {
    if (a->kind == ExprKind::IntLit && a->ival == 1) return b;
    if (b->kind == ExprKind::IntLit && b->ival == 1) return a;
    std::int64_t folded = 0;
    if (a->kind == ExprKind::IntLit && b->kind == ExprKind::IntLit && !__builtin_mul_overflow(a->ival, b->ival, &folded))
        return int_lit(folded);
    return binary(BinOp::Mul, a, b);
}

void add_term(Poly& p, const Monomial& m, const ExprPtr& c) { p[m] = sum(p.count(m) ? p[m] : nullptr, c); }

bool constant_coefficients(const Poly& p) {
    return std::all_of(p.begin(), p.end(), [](const auto& t) { return t.second->kind == ExprKind::IntLit; });
}

std::optional<Poly> poly_of(const ExprPtr& e, const std::set<std::string>& bases);

std::optional<Poly> product(const Poly& a, const Poly& b) {
    if (!constant_coefficients(a) && !constant_coefficients(b)) return std::nullopt;
    Poly out;
    for (const auto& [ma, ca] : a)
        for (const auto& [mb, cb] : b) {
            Monomial m = ma;
            m.insert(m.end(), mb.begin(), mb.end());
            std::sort(m.begin(), m.end());
            add_term(out, m, times(ca, cb));
        }
    return out;
}

std::optional<Poly> poly_of(const ExprPtr& e, const std::set<std::string>& bases) {
    const std::vector<std::string> names = referenced_names(e);
    const bool mentions_base = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return bases.count(n) != 0; });
    if (!mentions_base) return Poly{{Monomial{}, e}};
    if (e->kind == ExprKind::Var) return Poly{{Monomial{e->name}, int_lit(1)}};
    if (e->kind == ExprKind::Unary && e->unop == "-") {
        std::optional<Poly> p = poly_of(e->args[0], bases);
        if (p)
            for (auto& [m, c] : *p) c = times(int_lit(-1), c);
        return p;
    }
    if (e->kind != ExprKind::Binary || (e->op != BinOp::Add && e->op != BinOp::Sub && e->op != BinOp::Mul))
        return std::nullopt;
    std::optional<Poly> a = poly_of(e->args[0], bases), b = poly_of(e->args[1], bases);
    if (!a || !b) return std::nullopt;
    if (e->op == BinOp::Mul) return product(*a, *b);
    for (const auto& [m, c] : *b) add_term(*a, m, e->op == BinOp::Sub ? times(int_lit(-1), c) : c);
    return a;
}

// Whether `p` is affine: no monomial of two bases, and a base only with a constant coefficient.
bool affine_poly(const Poly& p) {
    return std::all_of(p.begin(), p.end(), [](const auto& t) {
        return t.first.empty() || (t.first.size() == 1 && t.second->kind == ExprKind::IntLit);
    });
}

ExprPtr expr_of(const Poly& p) {
    ExprPtr out;
    for (const auto& [m, c] : p) {
        ExprPtr term = c;
        for (const std::string& b : m) term = times(term, var(b));
        out = sum(out, term);
    }
    return out ? out : int_lit(0);
}

// `p` split at base `b`: the terms without it, and those with it divided by it once.
std::pair<Poly, Poly> split(const Poly& p, const std::string& b) {
    Poly low, high;
    for (const auto& [m, c] : p) {
        const auto at = std::find(m.begin(), m.end(), b);
        if (at == m.end()) {
            low[m] = c;
            continue;
        }
        Monomial rest = m;
        rest.erase(rest.begin() + (at - m.begin()));
        high[rest] = c;
    }
    return {low, high};
}

// The base the non-affine terms of `polys` all share (the first by name), if there is one.
std::optional<std::string> shared_base(const std::vector<Poly>& polys) {
    std::optional<std::set<std::string>> common;
    for (const Poly& p : polys)
        for (const auto& [m, c] : p) {
            if (m.empty() || (m.size() == 1 && c->kind == ExprKind::IntLit)) continue;
            const std::set<std::string> here(m.begin(), m.end());
            if (!common) {
                common = here;
                continue;
            }
            std::set<std::string> both;
            std::set_intersection(common->begin(), common->end(), here.begin(), here.end(), std::inserter(both, both.end()));
            common = both;
        }
    if (!common || common->empty()) return std::nullopt;
    return *common->begin();
}

// The radix of `polys`: bases peeled off while some term is not affine; nullopt where the terms share none.
std::optional<std::vector<std::string>> radix_of(std::vector<Poly> polys) {
    std::vector<std::string> bases;
    while (!std::all_of(polys.begin(), polys.end(), affine_poly)) {
        const std::optional<std::string> b = shared_base(polys);
        if (!b) return std::nullopt;
        for (Poly& p : polys) {
            auto [low, high] = split(p, *b);
            if (!affine_poly(low)) return std::nullopt;
            p = std::move(high);
        }
        bases.push_back(*b);
    }
    return bases;
}

// A base may be a sum of values (a row of `n1 + 2*halfpad` elements): such a factor of a product is taken as one
// name, its text in parentheses, which no variable has.
std::string atom_name(const ExprPtr& e) { return "(" + to_string(e) + ")"; }

bool atom_candidate(const ExprPtr& e, const std::set<std::string>& values) {
    if (e->kind != ExprKind::Binary || (e->op != BinOp::Add && e->op != BinOp::Sub)) return false;
    const std::vector<std::string> names = referenced_names(e);
    return !names.empty() &&
           std::all_of(names.begin(), names.end(), [&](const std::string& n) { return values.count(n) != 0; });
}

// `e` with each factor of a product that is a sum of `values` (and, with `only`, one of those) replaced by its
// atom name, recorded in `atoms`.
ExprPtr with_atoms(const ExprPtr& e, const std::set<std::string>& values, std::map<std::string, ExprPtr>& atoms,
                   const std::set<std::string>* only = nullptr) {
    return rewrite(e, [&](const ExprPtr& node) {
        if (node->kind != ExprKind::Binary || node->op != BinOp::Mul) return node;
        std::vector<ExprPtr> args = node->args;
        bool changed = false;
        for (ExprPtr& a : args) {
            if (!atom_candidate(a, values)) continue;
            const std::string name = atom_name(a);
            if (only && !only->count(name)) continue;
            atoms.emplace(name, a);
            a = var(name);
            changed = true;
        }
        return changed ? with_args(node, std::move(args)) : node;
    });
}

// The digits of `p` in the radix `bases` (names), the least significant first, the last one unbounded.
std::vector<Poly> digit_polys(Poly p, const std::vector<std::string>& bases) {
    std::vector<Poly> digits;
    for (const std::string& b : bases) {
        auto [low, high] = split(p, b);
        digits.push_back(std::move(low));
        p = std::move(high);
    }
    digits.push_back(std::move(p));
    return digits;
}

// A digit's terms in the values alone (`halfpad` in `halfpad + ix`, the offset of a pointer into an array).
Poly shift_terms(const Poly& digit) {
    Poly shift;
    for (const auto& [m, c] : digit)
        if (!m.empty() && c->kind == ExprKind::IntLit) shift[m] = c;
    return shift;
}

// Whether shift <= digit < shift + base on every instance in `instances` (a set over the instruction's inames).
// Where every access's digits lie in such a window of their base, with the same shifts, equal flat indices
// have equal digits.
bool within_base(const isl::set& instances, const ExprPtr& digit, const ExprPtr& shift, const ExprPtr& base) {
    const ExprPtr h = binary(BinOp::Sub, digit, shift);
    const std::optional<isl::set> held = affine::condition_set(
        binary(BinOp::And, binary(BinOp::Ge, h, int_lit(0)), binary(BinOp::Lt, h, base)));
    if (!held) return false;
    const isl::set where = isl_util::dims_to_params(instances, isl_util::set_dim_names(instances)).params();
    const isl::set need = isl_util::align_params(*held, where.space());
    return isl_util::align_params(where, need.space()).is_subset(need);
}

}  // namespace

std::vector<ExprPtr> radix_digits(const ExprPtr& index, const std::vector<ExprPtr>& bases) {
    std::vector<std::string> names;
    std::set<std::string> atoms_wanted, values;
    for (const ExprPtr& b : bases) {
        names.push_back(b->kind == ExprKind::Var ? b->name : atom_name(b));
        if (b->kind != ExprKind::Var) atoms_wanted.insert(names.back());
        for (const std::string& n : referenced_names(b)) values.insert(n);
    }
    std::map<std::string, ExprPtr> atoms;
    const ExprPtr flat = with_atoms(index, values, atoms, &atoms_wanted);
    std::vector<ExprPtr> digits;
    for (const Poly& d : digit_polys(*poly_of(flat, std::set<std::string>(names.begin(), names.end())), names))
        digits.push_back(substitute(expr_of(d), atoms));
    std::reverse(digits.begin(), digits.end());
    return digits;
}

std::optional<std::vector<ExprPtr>> radix_bases(const KernelData& k, const std::string& variable) {
    const std::set<std::string> values = fixed_values(k);
    std::map<std::string, ExprPtr> atoms;
    std::vector<std::pair<const Instruction*, ExprPtr>> uses;
    for (const Instruction& insn : k.instructions)
        for (const Access& a : accesses_of(insn)) {
            if (a.name != variable) continue;
            const std::vector<ExprPtr> indices = storage_indices(k, a);
            if (indices.size() != 1 || data_dependent(k, a)) return std::nullopt;
            uses.emplace_back(&insn, with_atoms(indices[0], values, atoms));
        }
    std::set<std::string> candidates = values;
    for (const auto& [name, e] : atoms) candidates.insert(name);
    std::vector<Poly> polys;
    for (const auto& [insn, index] : uses) {
        std::optional<Poly> p = poly_of(index, candidates);
        if (!p) return std::nullopt;
        polys.push_back(std::move(*p));
    }
    const std::optional<std::vector<std::string>> names = radix_of(polys);
    if (!names || names->empty()) return std::nullopt;
    std::vector<ExprPtr> bases;
    for (const std::string& n : *names) bases.push_back(atoms.count(n) ? atoms.at(n) : var(n));
    // Each digit's window starts at its shift where all accesses share it, else at 0.
    std::vector<std::vector<Poly>> digits;
    std::vector<isl::set> running;
    for (std::size_t u = 0; u < uses.size(); ++u) {
        digits.push_back(digit_polys(polys[u], *names));
        running.push_back(running_instances(k, *uses[u].first));
    }
    for (std::size_t j = 0; j < names->size(); ++j) {
        const ExprPtr shift = expr_of(shift_terms(digits[0][j]));
        const std::string text = to_string(shift);
        const bool shared = std::all_of(digits.begin(), digits.end(), [&](const std::vector<Poly>& d) {
            return to_string(expr_of(shift_terms(d[j]))) == text;
        });
        const ExprPtr window = shared ? substitute(shift, atoms) : int_lit(0);
        for (std::size_t u = 0; u < uses.size(); ++u)
            if (!within_base(running[u], substitute(expr_of(digits[u][j]), atoms), window, bases[j])) return std::nullopt;
    }
    return bases;
}

}  // namespace loom
