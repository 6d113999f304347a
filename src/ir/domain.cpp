#include "ir/domain.h"

#include <algorithm>
#include <list>
#include <memory>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/derived.h"
#include "isl/budget.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

// Makes the parameter lists of a and b identical so that they can be combined.
void unify_params(isl::set& a, isl::set& b) {
    a = isl_util::align_params(a, b.space());
    b = isl_util::align_params(b, a.space());
}

// The loops of the one instruction writing the loop bound `param`, a temporary.
const std::set<std::string>& writer_loops(const KernelData& k, const std::string& param) {
    const Instruction* writer = nullptr;
    for (const Instruction& insn : k.instructions) {
        if (!written_names(insn).count(param)) continue;
        user_assert(writer == nullptr, error_kind::LoopyError, "loop bound '", param, "' may only be written once (by '",
                    writer ? writer->id : "", "' and '", insn.id, "')");
        writer = &insn;
    }
    user_assert(writer != nullptr, error_kind::LoopyError, "loop bound '", param,
                "' is a temporary that no instruction writes");
    return writer->within_inames;
}

// Whether domain `d` is nested in loops over `inames`: its parameters name one of them, or a temporary
// written inside one of them (loopy's is_domain_dependent_on_inames).
bool depends_on_inames(const KernelData& k, const isl::set& d, const std::set<std::string>& inames) {
    for (const std::string& p : isl_util::param_names(d.space())) {
        if (inames.count(p)) return true;
        if (!is_temporary(k, p)) continue;
        const std::set<std::string>& loops = writer_loops(k, p);
        if (std::any_of(loops.begin(), loops.end(), [&](const std::string& i) { return inames.count(i) != 0; }))
            return true;
    }
    return false;
}

// The domains that `inames` need: their home domains and all ancestors, in domain order. Checks that they
// form chains (no domain has two needed children).
std::vector<int> needed_domains(const KernelData& k, const std::vector<std::string>& inames) {
    const std::vector<int> parents = domain_parents(k);
    std::set<int> needed;
    for (const std::string& i : inames) {
        int d = home_domain(k, i);
        while (d >= 0 && needed.insert(d).second) d = parents[static_cast<std::size_t>(d)];
    }
    std::map<int, int> child_of;  // needed parent -> its needed child
    for (int d : needed) {
        const int p = parents[static_cast<std::size_t>(d)];
        if (p < 0) continue;
        const auto [it, fresh] = child_of.emplace(p, d);
        user_assert(fresh, error_kind::LoopyError, "iname set '", join(inames, ", "), "' requires a branch in the domain tree: ",
                    isl_util::to_str(k.domains[static_cast<std::size_t>(it->second)]), " and ",
                    isl_util::to_str(k.domains[static_cast<std::size_t>(d)]), " are both nested in ",
                    isl_util::to_str(k.domains[static_cast<std::size_t>(p)]));
    }
    return {needed.begin(), needed.end()};
}

// The product of two domains (or of their factors), whose pieces multiply: at most kMaxDomainPieces, as
// for one domain (three domains of 46 pieces each did not finish in minutes; found by fuzz/fuzz_domain).
isl::set flat_product(isl::set a, isl::set b) {
    const long pieces = static_cast<long>(a.n_basic_set()) * static_cast<long>(b.n_basic_set());
    user_assert(pieces <= isl_util::kMaxDomainPieces, error_kind::LoopyError, "the domains of inames '",
                join(isl_util::set_dim_names(a), ", "), "' and '", join(isl_util::set_dim_names(b), ", "),
                "' together are a union of ", pieces, " pieces (isl basic sets); at most ", isl_util::kMaxDomainPieces,
                " are taken (each '!=' or 'or' of a domain can double its pieces)");
    unify_params(a, b);
    return isl_util::plain_flat_product(a, b);
}

// A product of domains in independent factors (isl_util::independent_factors), the parameter values each
// factor admits (that it is not empty: found when a projection needs them, as they can cost far more than the
// projections themselves), and the iteration domains of iname sets found from them.
struct DomainProduct {
    std::vector<isl::set> factors;
    std::vector<std::optional<isl::set>> params;
    std::map<std::vector<std::string>, isl::set> domains;
    std::map<std::string, std::optional<long>> lengths, extents;  // by iname: constant_length, extent_bound
};

// Products of domains, shared by every kernel whose domains and assumptions are the same isl objects: a
// transformation that retags or relinearizes a kernel keeps them, and the new kernel finds what was derived
// from them. An isl set does not change while it is shared, and the cache holds its keys, so an address
// stands for the content.
class SharedProducts {
public:
    std::shared_ptr<DomainProduct> get(const KernelData& k, const std::vector<int>& domains) {
        std::vector<isl::set> held{k.assumptions};
        for (int i : domains) held.push_back(k.domains[static_cast<std::size_t>(i)]);
        std::vector<const void*> key;
        for (const isl::set& s : held) key.push_back(s.get());
        const auto hit = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.key == key; });
        if (hit != entries_.end()) {
            entries_.splice(entries_.begin(), entries_, hit);
            return hit->product;
        }
        auto product = std::make_shared<DomainProduct>(factored(k, domains));
        entries_.push_front({std::move(key), std::move(held), product});
        if (entries_.size() > kCapacity) entries_.pop_back();
        return product;
    }

    void clear() { entries_.clear(); }

private:
    struct Entry {
        std::vector<const void*> key;
        std::vector<isl::set> held;
        std::shared_ptr<DomainProduct> product;
    };

    // The product of `domains`, each parameter naming an iname of the product identified with it.
    static DomainProduct factored(const KernelData& k, const std::vector<int>& domains) {
        isl::set product(isl_util::ctx(), "{ [] }");
        for (int i : domains) {
            const isl::set& d = k.domains[static_cast<std::size_t>(i)];
            product = i == domains.front() ? d : flat_product(product, d);
        }
        DomainProduct out;
        out.factors = isl_util::independent_factors(isl_util::bind_params_to_dims(product));
        out.params.resize(out.factors.size());
        return out;
    }

    static constexpr std::size_t kCapacity = 64;
    std::list<Entry> entries_;  // the most recently used first
};

SharedProducts& shared_products() {
    static SharedProducts products;
    return products;
}

// The iteration domain of `inames` in `product`, with the assumptions `assumptions`.
isl::set project(DomainProduct& product, const std::vector<std::string>& inames, const isl::set& assumptions) {
    // The factors without any of `inames` only bound the parameters, as the assumptions do.
    std::optional<isl::set> out;
    isl::set params = assumptions;
    for (std::size_t f = 0; f < product.factors.size(); ++f) {
        const isl::set& factor = product.factors[f];
        const std::vector<std::string> dims = isl_util::set_dim_names(factor);
        const bool used = std::any_of(dims.begin(), dims.end(), [&](const std::string& d) {
            return std::find(inames.begin(), inames.end(), d) != inames.end();
        });
        if (used) {
            const isl::set kept = isl_util::project_onto(factor, inames);
            out = out ? flat_product(*out, kept) : kept;
        } else {
            if (!product.params[f]) product.params[f] = factor.params();
            isl::set p = *product.params[f];
            unify_params(params, p);
            params = params.intersect(p);
        }
    }
    isl::set all = out ? *out : isl::set(isl_util::ctx(), "{ [] }");
    unify_params(all, params);
    return isl_util::project_onto(isl_util::plain_intersect_params(all, params), inames);
}

}  // namespace

// The writer's loops decide the nesting, so there must be exactly one; a bound is an integer.
void check_loop_bounds(const KernelData& k) {
    for (const isl::set& d : k.domains)
        for (const std::string& p : isl_util::param_names(d.space())) {
            if (!is_temporary(k, p)) continue;
            writer_loops(k, p);
            const Variable& t = *find_variable(k, p);
            user_assert(!t.is_array && (t.dtype == DType::Unknown || is_integer(t.dtype)), error_kind::LoopyError, "loop bound '",
                        p, "' must be an integer scalar, but is ", t.is_array ? "an array" : dtype_name(t.dtype));
        }
}

namespace {

// Loopy's walk: `stack` holds, for each level of the chain ending at the previous domain, the inames of that
// level and all levels above it. A domain goes under the deepest level whose own inames it uses.
std::vector<int> find_domain_parents(const KernelData& k) {
    check_loop_bounds(k);
    std::vector<std::set<std::string>> stack;
    std::vector<int> parents;
    for (const isl::set& d : k.domains) {
        std::size_t discard = 0;
        while (discard < stack.size()) {
            const std::set<std::string>& level = stack[stack.size() - 1 - discard];
            const std::set<std::string> above =
                discard + 1 < stack.size() ? stack[stack.size() - 2 - discard] : std::set<std::string>{};
            std::set<std::string> own;
            std::set_difference(level.begin(), level.end(), above.begin(), above.end(), std::inserter(own, own.end()));
            if (depends_on_inames(k, d, own)) break;
            ++discard;
        }
        stack.resize(stack.size() - discard);
        int parent = static_cast<int>(parents.size()) - 1;
        for (std::size_t n = 0; n < discard; ++n) parent = parents[static_cast<std::size_t>(parent)];
        parents.push_back(parent);
        std::set<std::string> level = stack.empty() ? std::set<std::string>{} : stack.back();
        for (const std::string& i : isl_util::set_dim_names(d)) level.insert(i);
        stack.push_back(std::move(level));
    }
    return parents;
}

}  // namespace

std::vector<int> domain_parents(const KernelData& k) {
    return derived(k, &DerivedFacts::domain_parents, [&] { return find_domain_parents(k); });
}

int home_domain(const KernelData& k, const std::string& iname) {
    return derived(k, &DerivedFacts::home_domains, iname, [&] {
        for (std::size_t d = 0; d < k.domains.size(); ++d)
            if (isl_util::has_dim(k.domains[d], iname) && !isl_util::is_param(k.domains[d], iname))
                return static_cast<int>(d);
        return -1;
    });
}

void drop_shared_domain_products() { shared_products().clear(); }

isl::set domain_of(const KernelData& k, const std::vector<std::string>& inames) {
    // Only the domains of `inames` and their ancestors constrain them: an instruction outside the loops of
    // another domain runs whether or not that domain is empty.
    return derived(k, &DerivedFacts::domains, inames, [&] {
        const std::shared_ptr<DomainProduct> product = shared_products().get(k, needed_domains(k, inames));
        const auto known = product->domains.find(inames);
        if (known != product->domains.end()) return known->second;
        const isl::set d = project(*product, inames, k.assumptions);
        product->domains.emplace(inames, d);
        return d;
    });
}

namespace {

// The domain of `insn` where its predicates that isl follows hold, and whether it follows them all.
std::pair<isl::set, bool> instances_under_predicates(const KernelData& k, const Instruction& insn) {
    const std::vector<std::string> inames(insn.within_inames.begin(), insn.within_inames.end());
    const isl::set dom = domain_of(k, inames);
    if (insn.predicates.empty()) return {dom, true};
    std::set<std::string> known = fixed_values(k);
    known.insert(inames.begin(), inames.end());
    std::optional<isl::set> held;
    bool all = true;
    for (const ExprPtr& p : insn.predicates) {
        const std::vector<std::string> names = referenced_names(p);
        const bool readable = std::all_of(names.begin(), names.end(), [&](const std::string& n) { return known.count(n) != 0; });
        const std::optional<isl::set> c = readable ? affine::predicate_set(p) : std::nullopt;
        all = all && c.has_value();
        if (c) held = held ? isl_util::align_params(*held, c->space()).intersect(isl_util::align_params(*c, held->space())) : *c;
    }
    if (!held) return {dom, all};
    const isl::set aligned = isl_util::align_params(dom, held->space());
    return {isl_util::bind_params_to_dims(aligned.intersect_params(isl_util::align_params(*held, aligned.space()))), all};
}

}  // namespace

isl::set running_instances(const KernelData& k, const Instruction& insn) {
    return instances_under_predicates(k, insn).first;
}

std::optional<isl::set> certain_instances(const KernelData& k, const Instruction& insn) {
    auto [set, all] = instances_under_predicates(k, insn);
    if (!all) return std::nullopt;
    return set;
}

isl::set iname_factor(const KernelData& k, const std::vector<std::string>& inames, const std::string& iname) {
    const std::shared_ptr<DomainProduct> product = shared_products().get(k, needed_domains(k, inames));
    for (const isl::set& f : product->factors)
        if (isl_util::has_dim(f, iname) && !isl_util::is_param(f, iname)) return f;
    internal_assert(false, "iname '", iname, "' is not among '", join(inames, ", "), "'");
    return {};
}

namespace {

// A number derived from the domain of `iname` alone, kept with the product of its domains: kernels that share
// those domains (every transformation that leaves them alone) ask isl once.
template <class Compute>
std::optional<long> product_memo(const KernelData& k, const std::string& iname,
                                 std::map<std::string, std::optional<long>> DomainProduct::*memo, Compute compute) {
    const std::shared_ptr<DomainProduct> product = shared_products().get(k, needed_domains(k, {iname}));
    const auto known = ((*product).*memo).find(iname);
    if (known != ((*product).*memo).end()) return known->second;
    const std::optional<long> n = compute(domain_of(k, {iname}));
    ((*product).*memo).emplace(iname, n);
    return n;
}

}  // namespace

// isl operations allowed to the exact length of one iname: the parametric extremes of a domain that ties an
// iname to a parameter through splits (`j = q`, j split by 17, then by 3) are a parametric integer program that
// took isl minutes (finding 31 of docs/reliability.md). Every length of the suite, the benchmarks and the
// differential cases takes under 20,000 (28 of the suite's take over 2,000; 200,000 take isl seconds). Past them,
// the span of its values over all parameter values bounds the length (an unrolled copy, a work-item or an
// element more, which the domain's guards leave unused).
constexpr unsigned long kLengthOperations = 20000;

std::optional<long> constant_length(const KernelData& k, const std::string& iname) {
    return product_memo(k, iname, &DomainProduct::lengths, [&](const isl::set& d) {
        const auto exact = isl_util::within_operations(kLengthOperations, [&] {
            return isl_util::static_max(isl_util::dim_size(d, 0), assumption_context(k));
        });
        if (exact) return *exact;
        const auto bound = isl_util::within_operations(kLengthOperations, [&] { return isl_util::span_over_params(d); });
        user_assert(bound.has_value(), error_kind::StaticValueFindingError, "the length of iname '", iname,
                    "' takes isl more than ", kLengthOperations, " operations to find from its domain ",
                    isl_util::to_str(d), ": give it a simpler domain");
        return *bound;
    });
}

std::optional<long> extent_bound(const KernelData& k, const std::string& iname) {
    return product_memo(k, iname, &DomainProduct::extents, isl_util::static_extent);
}

long static_extent(const KernelData& k, const std::string& iname) {
    const auto n = extent_bound(k, iname);
    user_assert(n.has_value(), error_kind::StaticValueFindingError, "a static maximum was not found for the extent of iname '",
                iname, "' (work-group sizes must be constants)");
    return *n;
}

isl::set slab_domain(const std::string& iname, const ExprPtr& extent) {
    isl::set d = isl_util::add_named_dims(isl::set(isl_util::ctx(), "{ [] }"), {iname}, false);
    d = affine::add_constraint(d, var(iname), BinOp::Ge, int_lit(0));
    return affine::add_constraint(d, var(iname), BinOp::Lt, extent);
}

isl::set assumption_context(const KernelData& k) {
    return derived(k, &DerivedFacts::assumption_context, [&] {
        isl::set ctx = k.assumptions;
        for (const isl::set& d : k.domains) ctx = isl_util::align_params(ctx, d.space());
        return isl_util::project_out(ctx, all_inames(k));
    });
}

// isl operations allowed to the extent or the start of one hardware iname: its exact maximum or minimum over a
// domain with divisions is a parametric integer program that can take isl minutes (a joined iname over split
// ones, finding 22 of docs/reliability.md; an iname tied to a parameter, 35). The grids of the tests take under
// 10,000.
constexpr unsigned long kHardwareExtentOperations = 100000;

std::optional<ExprPtr> hardware_start(const KernelData& k, const std::string& iname) {
    const isl::set values = domain_of(k, {iname});
    const auto exact = isl_util::within_operations(kHardwareExtentOperations, [&] {
        return affine::single_piece_expr(isl_util::dim_min(values, 0), assumption_context(k));
    });
    if (exact) return *exact;
    // Shifted by a lower bound, the iname starts at zero or above, and the domain's guards leave the values
    // below its start unused.
    const auto range = isl_util::within_operations(kHardwareExtentOperations, [&] { return isl_util::range_over_params(values); });
    user_assert(range && *range, error_kind::StaticValueFindingError, "the start of iname '", iname, "' (tagged ",
                iname_tag(k, iname), ") takes isl more than ", kHardwareExtentOperations,
                " operations to find from its domain ", isl_util::to_str(values), ": give it a simpler domain");
    return int_lit((*range)->first);
}

isl::pw_aff hardware_extent(const KernelData& k, const std::string& iname) {
    const isl::set values = domain_of(k, {iname}), ctx = assumption_context(k);
    const auto extent =
        isl_util::within_operations(kHardwareExtentOperations, [&] { return isl_util::extent(values, 0, ctx); });
    user_assert(extent.has_value(), error_kind::StaticValueFindingError, "the extent of iname '", iname, "' (tagged ",
                iname_tag(k, iname), ") takes isl more than ", kHardwareExtentOperations,
                " operations to find from its domain ", isl_util::to_str(values),
                ": give it a simpler domain or a constant length");
    return *extent;
}

isl::pw_aff group_count(const KernelData& k, const std::vector<std::string>& inames) {
    std::optional<isl::pw_aff> count;
    for (const std::string& i : inames) {
        const isl::pw_aff e = hardware_extent(k, i);
        count = count ? isl_util::union_max(*count, e) : e;
    }
    internal_assert(count.has_value(), "the number of work-groups of no iname");
    return *count;
}

}  // namespace loom
