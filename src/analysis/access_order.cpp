#include "analysis/access_order.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"
#include "support/warnings.h"

namespace loom {

namespace {

// Whether one instruction reaches the other through dependencies, in either direction. The ancestors of each
// instruction are a bitset over the instructions, found once from those of its dependencies: asking
// all_dependencies for every pair would walk the same chains again for each (a chain of n updates of one
// array has n^2 pairs).
class DependencyOrder {
public:
    explicit DependencyOrder(const KernelData& k) : k_(k) {
        for (std::size_t n = 0; n < k.instructions.size(); ++n) index_[k.instructions[n].id] = n;
    }

    bool ordered(const Instruction& a, const Instruction& b) {
        const std::size_t ia = index_.at(a.id), ib = index_.at(b.id);
        return has(ancestors(ia), ib) || has(ancestors(ib), ia);
    }

private:
    using Bits = std::vector<std::uint64_t>;

    static bool has(const Bits& bits, std::size_t n) { return (bits[n / 64] >> (n % 64)) & 1U; }

    // Iterative, so that a long chain of dependencies does not recurse once per link.
    const Bits& ancestors(std::size_t root) {
        if (const auto known = done_.find(root); known != done_.end()) return known->second;
        std::vector<std::size_t> stack = {root};
        std::set<std::size_t> entered;
        while (!stack.empty()) {
            const std::size_t n = stack.back();
            if (done_.count(n)) {
                stack.pop_back();
                continue;
            }
            const std::vector<std::size_t> deps = dependencies(n);
            if (entered.insert(n).second) {
                for (std::size_t d : deps)
                    if (!done_.count(d) && !entered.count(d)) stack.push_back(d);
                continue;
            }
            Bits bits((k_.instructions.size() + 63) / 64, 0);
            for (std::size_t d : deps) {
                bits[d / 64] |= std::uint64_t{1} << (d % 64);
                if (const auto known = done_.find(d); known != done_.end())  // absent only on a cycle
                    for (std::size_t w = 0; w < bits.size(); ++w) bits[w] |= known->second[w];
            }
            done_.emplace(n, std::move(bits));
            stack.pop_back();
        }
        return done_.at(root);
    }

    std::vector<std::size_t> dependencies(std::size_t n) const {
        std::vector<std::size_t> out;
        for (const std::string& d : k_.instructions[n].depends_on)
            if (const auto it = index_.find(d); it != index_.end()) out.push_back(it->second);
        return out;
    }

    const KernelData& k_;
    std::map<std::string, std::size_t> index_;
    std::map<std::size_t, Bits> done_;
};

// The accesses of one instruction to one variable. `constants`: per axis, the integer every access puts
// there, if they all put the same one (empty when some access has no subscripts of its own).
struct Uses {
    const Instruction* insn;
    std::vector<Access> accesses;
    bool writes = false;
    std::vector<std::optional<long>> constants;
};

std::vector<std::optional<long>> common_constants(const std::vector<Access>& accesses) {
    std::vector<std::optional<long>> out;
    for (std::size_t i = 0; i < accesses.size(); ++i) {
        const Access& a = accesses[i];
        if (!a.subscripted || a.linear || (i > 0 && a.indices.size() != out.size())) return {};
        if (i == 0) out.resize(a.indices.size());
        for (std::size_t n = 0; n < out.size(); ++n) {
            const ExprPtr& e = a.indices[n];
            const std::optional<long> value = e->kind == ExprKind::IntLit ? std::optional<long>(e->ival) : std::nullopt;
            if (i == 0 || out[n] != value) out[n] = i == 0 ? value : std::nullopt;
        }
    }
    return out;
}

// Accesses that put different integer constants on one axis never meet (out[i, 3] and out[i, 5]): decided
// without isl, which keeps kernels of many such statements fast.
bool constants_apart(const std::vector<std::optional<long>>& a, const std::vector<std::optional<long>>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t n = 0; n < a.size(); ++n)
        if (a[n] && b[n] && *a[n] != *b[n]) return true;
    return false;
}

class OverlapChecker {
public:
    explicit OverlapChecker(const KernelData& k) : k_(k) {}

    /// Whether what `writer` writes may be what `other` reads or writes.
    bool may_overlap(const Uses& writer, const Uses& other) {
        for (const Access& x : writer.accesses)
            if (x.is_write)
                for (const Access& y : other.accesses)
                    if (access_may_overlap(*writer.insn, x, *other.insn, y)) return true;
        return false;
    }

private:
    // As in loopy, an access without subscripts (a scalar) has no access range, so it overlaps nothing: two
    // unordered `s = s + ...` updates of a scalar are accepted.
    bool access_may_overlap(const Instruction& ia, const Access& a, const Instruction& ib, const Access& b) {
        if (!a.subscripted || !b.subscripted) return false;
        if (a.linear || b.linear) return true;
        if (constants_apart(common_constants({a}), common_constants({b}))) return false;
        isl::set ra = range(ia, a), rb = range(ib, b);
        rb = isl_util::align_params(rb, ra.space());
        ra = isl_util::align_params(ra, rb.space());
        isl::set both = ra.intersect(rb);
        const isl::set ctx = isl_util::align_params(assumption_context(k_), both.space());
        both = isl_util::align_params(both, ctx.space()).intersect_params(ctx);
        return !both.is_empty();
    }

    isl::set range(const Instruction& insn, const Access& a) const {
        return affine::access_map(domain_of(k_, access_loops(insn, a)), a.indices).range();
    }

    const KernelData& k_;
};

// loopy's declares_nosync_with: both instructions waive the order, in a scope that covers the variable.
bool waived(const Instruction& a, const Instruction& b, AddressSpace space) {
    const auto names = [&](const Instruction& from, const Instruction& to) {
        for (const NoSync& n : from.no_sync_with) {
            const bool scope_covers = n.scope == SyncScope::Any ||
                                      (n.scope == SyncScope::Global && space == AddressSpace::Global) ||
                                      (n.scope == SyncScope::Local && space == AddressSpace::Local);
            if (scope_covers && fnmatch(n.id_pattern, to.id)) return true;
        }
        return false;
    };
    return names(a, b) && names(b, a);
}

// Per variable, the instructions that access it (in kernel order) and how.
std::map<std::string, std::vector<Uses>> uses_by_variable(const KernelData& k) {
    std::map<std::string, std::vector<Uses>> out;
    std::set<std::string> variables;
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars) variables.insert(v.name);
    for (const Instruction& insn : k.instructions) {
        std::map<std::string, Uses> mine;
        for (Access& a : accesses_of(insn)) {
            if (!variables.count(a.name)) continue;
            Uses& u = mine.try_emplace(a.name, Uses{&insn, {}, false, {}}).first->second;
            u.writes = u.writes || a.is_write;
            u.accesses.push_back(std::move(a));
        }
        for (auto& [name, u] : mine) {
            u.constants = common_constants(u.accesses);
            out[name].push_back(std::move(u));
        }
    }
    return out;
}

AddressSpace space_of(const Variable& v) { return v.is_arg() ? AddressSpace::Global : v.address_space; }

}  // namespace

void check_variable_access_ordered(const KernelData& k) {
    if (k.options.access_ordering == AccessOrdering::NoCheck) return;
    DependencyOrder order(k);
    OverlapChecker overlap(k);
    for (const auto& [name, uses] : uses_by_variable(k)) {
        if (uses.size() < 2) continue;
        const AddressSpace space = space_of(*find_variable(k, name));
        for (const Uses& w : uses) {
            if (!w.writes) continue;
            for (const Uses& o : uses) {
                const Instruction &writer = *w.insn, &other = *o.insn;
                if (&o == &w || constants_apart(w.constants, o.constants)) continue;
                if (waived(writer, other, space) || order.ordered(writer, other)) continue;
                if (!overlap.may_overlap(w, o)) continue;
                const std::string message =
                    cat("No dependency relationship found between '", writer.id, "' which writes the variable '",
                        name, "' and '", other.id, "' which also accesses the variable '", name,
                        "'. Either add a (possibly indirect) dependency between the two, or add them to each "
                        "others' nosync set to indicate that no ordering is intended, or turn off this check by "
                        "setting the 'enforce_variable_access_ordered' option (more issues of this type may "
                        "exist--only reporting the first one)");
                if (k.options.access_ordering == AccessOrdering::Warn) {
                    warn(error_kind::VariableAccessNotOrdered, cat("in kernel ", k.name, ": ", message));
                    return;
                }
                user_error(error_kind::VariableAccessNotOrdered, message);
            }
        }
    }
}

}  // namespace loom
