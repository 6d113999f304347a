// The facts a kernel's stages derive from its data, cached on an immutable kernel (DerivedCache in
// ir/kernel.h). Each is computed by the function that defines it (domain_of, domain_parents, ...), which
// looks here first.
#pragma once

#include <isl/cpp.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/kernel.h"

namespace loom {

/// The accesses of one instruction to one variable, as maps from its iteration domain to indices: plain
/// reads and writes, and those of atomic updates (each a read and a write, but not in conflict with another
/// atomic update).
struct AccessRelations {
    std::optional<isl::map> reads, writes, atomic;
};

struct DerivedFacts {
    std::optional<std::vector<int>> domain_parents;
    std::map<std::string, int> home_domains;              // iname -> index of the domain declaring it
    std::map<std::vector<std::string>, isl::set> domains;  // inames -> their iteration domain
    std::optional<isl::set> assumption_context;
    std::optional<std::vector<std::string>> all_inames;
    std::map<std::pair<std::string, std::string>, AccessRelations> access_relations;  // (instruction, variable)
    std::optional<std::set<std::string>> linearly_indexed;  // variables some instruction indexes as a[[e]]
    std::map<std::pair<std::string, std::string>, bool> self_conflicts;  // (instruction, variable), in any iterations
    std::map<std::string, std::optional<std::vector<ExprPtr>>> radixes;  // variable -> the bases of its flat indices
    /// The results of whole stages on this kernel (the preprocessed kernel per argument types, the code per
    /// target: stage_result), by a key their stage makes. Held type-erased: the stages live in layers above.
    std::map<std::string, std::shared_ptr<const void>> stages;
};

/// The value `compute()` gives for the facts of `k` that `field` selects: cached where `k` caches.
template <class T, class F>
T derived(const KernelData& k, std::optional<T> DerivedFacts::*field, F&& compute) {
    DerivedFacts* facts = k.cache.facts();
    if (!facts) return compute();
    std::optional<T>& slot = facts->*field;
    if (!slot) slot = compute();
    return *slot;
}

/// The value `compute()` gives for `key` in the facts of `k` that `field` selects: cached where `k` caches.
template <class K, class V, class F>
V derived(const KernelData& k, std::map<K, V> DerivedFacts::*field, const K& key, F&& compute) {
    DerivedFacts* facts = k.cache.facts();
    if (!facts) return compute();
    std::map<K, V>& cache = facts->*field;
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    V value = compute();  // computed before it is stored: an error leaves no entry
    return cache.emplace(key, std::move(value)).first->second;
}

/// What a whole stage computes for `k` under `key` (naming the stage and everything else it depends on): computed
/// once where `k` caches, and kept with it, as loopy memoizes preprocess_kernel and generate_code on its kernels.
template <class T, class F>
std::shared_ptr<const T> stage_result(const KernelData& k, const std::string& key, F&& compute) {
    DerivedFacts* facts = k.cache.facts();
    if (!facts) return std::make_shared<const T>(compute());
    if (const auto it = facts->stages.find(key); it != facts->stages.end()) return std::static_pointer_cast<const T>(it->second);
    auto value = std::make_shared<const T>(compute());  // computed before it is stored: an error leaves no entry
    facts->stages.emplace(key, value);
    return value;
}

}  // namespace loom
