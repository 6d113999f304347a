#include "ir/kernel.h"

#include <algorithm>
#include <set>

#include "ir/derived.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

std::string address_space_name(AddressSpace s) {
    switch (s) {
        case AddressSpace::Private: return "private";
        case AddressSpace::Local: return "local";
        case AddressSpace::Global: return "global";
        case AddressSpace::Auto: break;
    }
    return "auto";
}

const Variable* find_variable(const KernelData& k, const std::string& name) {
    for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
        for (const Variable& v : *vars)
            if (v.name == name) return &v;
    return nullptr;
}

bool is_temporary(const KernelData& k, const std::string& name) {
    return std::any_of(k.temporaries.begin(), k.temporaries.end(), [&](const Variable& t) { return t.name == name; });
}

Variable* find_variable(KernelData& k, const std::string& name) {
    return const_cast<Variable*>(find_variable(static_cast<const KernelData&>(k), name));
}

const Instruction* find_instruction(const KernelData& k, const std::string& id) {
    for (const Instruction& i : k.instructions)
        if (i.id == id) return &i;
    return nullptr;
}

bool nosync(const Instruction& sink, const Instruction& source, SyncScope scope) {
    return std::any_of(sink.no_sync_with.begin(), sink.no_sync_with.end(), [&](const NoSync& n) {
        return fnmatch(n.id_pattern, source.id) && (n.scope == scope || n.scope == SyncScope::Any);
    });
}

void DerivedCache::enable() const {
    if (!facts_) facts_ = std::make_shared<DerivedFacts>();
}

InameTag iname_tag(const KernelData& k, const std::string& iname) {
    const auto it = k.iname_tags.find(iname);
    return it == k.iname_tags.end() ? InameTag{} : it->second;
}

std::vector<std::string> all_inames(const KernelData& k) {
    return derived(k, &DerivedFacts::all_inames, [&] {
        std::vector<std::string> out;
        for (const isl::set& d : k.domains)
            for (const std::string& n : isl_util::set_dim_names(d))
                if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
        return out;
    });
}

namespace {

// Whether some loop priority names `outer` before `inner`.
bool prioritized_before(const KernelData& k, const std::string& outer, const std::string& inner) {
    return std::any_of(k.loop_priority.begin(), k.loop_priority.end(), [&](const std::vector<std::string>& prio) {
        const auto o = std::find(prio.begin(), prio.end(), outer);
        return o != prio.end() && std::find(std::next(o), prio.end(), inner) != prio.end();
    });
}

}  // namespace

std::size_t approximate_bytes(const KernelData& k) {
    // Measured on kernels of the tutorial: about 10 KB for a one-instruction kernel once transformed and used.
    constexpr std::size_t kBase = 4096, kPerInstruction = 1024, kPerNode = 192, kPerVariable = 512, kPerDomain = 2048;
    std::size_t nodes = 0;
    const auto count = [&](const ExprPtr& e) {
        if (e) visit(e, [&](const ExprPtr&) { ++nodes; });
    };
    for (const Instruction& insn : k.instructions) {
        count(insn.expression);
        for (const ExprPtr& a : insn.assignees) count(a);
        for (const ExprPtr& p : insn.predicates) count(p);
    }
    for (const SubstitutionRule& r : k.substitutions) count(r.expression);
    return kBase + kPerInstruction * k.instructions.size() + kPerNode * nodes +
           kPerVariable * (k.args.size() + k.temporaries.size()) + kPerDomain * k.domains.size();
}

std::vector<std::string> nesting_order(const KernelData& k, const std::vector<std::string>& inames) {
    std::vector<std::string> rest;
    for (const std::string& i : all_inames(k))
        if (std::find(inames.begin(), inames.end(), i) != inames.end()) rest.push_back(i);
    // Repeatedly the first iname no remaining one must go outside of; contradictory priorities take the first.
    std::vector<std::string> out;
    while (!rest.empty()) {
        auto next = std::find_if(rest.begin(), rest.end(), [&](const std::string& i) {
            return std::none_of(rest.begin(), rest.end(), [&](const std::string& o) { return prioritized_before(k, o, i); });
        });
        if (next == rest.end()) next = rest.begin();
        out.push_back(*next);
        rest.erase(next);
    }
    return out;
}

void check_index_value(const KernelData& k, std::int64_t v, const std::string& where, const std::string& what) {
    const DType t = k.options.index_dtype;
    user_assert(holds(t, v), error_kind::LoopyError, where, ": ", what, " ", v, " does not fit the kernel's index type ",
                dtype_name(t), " (make the kernel with index_dtype = \"int64\")");
}

void check_index_coefficients(const KernelData& k, const isl::set& s, const std::string& what) {
    const DType t = k.options.index_dtype;
    const std::optional<std::string> big = isl_util::coefficient_not_fitting(s, [t](long v) { return holds(t, v); });
    user_assert(!big, error_kind::LoopyError, "generate_code: ", what, " need the coefficient ", big.value_or(""),
                ", which does not fit the kernel's index type ", dtype_name(t), " (make the kernel with index_dtype = \"int64\")");
}

bool is_iname(const KernelData& k, const std::string& name) {
    for (const isl::set& d : k.domains)
        if (isl_util::set_dim_position(d, name) >= 0) return true;
    return false;
}

void rewrite_instruction(Instruction& insn, const std::function<ExprPtr(const ExprPtr&)>& f) {
    for (ExprPtr& a : insn.assignees) a = f(a);
    if (insn.expression) insn.expression = f(insn.expression);
    for (ExprPtr& p : insn.predicates) p = f(p);
}

std::set<std::string> all_dependencies(const KernelData& k, const std::string& id) {
    std::set<std::string> out;
    std::vector<std::string> pending{id};
    while (!pending.empty()) {
        const Instruction* insn = find_instruction(k, pending.back());
        pending.pop_back();
        if (!insn) continue;
        for (const std::string& dep : insn->depends_on)
            if (out.insert(dep).second) pending.push_back(dep);
    }
    return out;
}

std::vector<std::string> all_params(const KernelData& k) {
    const std::vector<std::string> inames = all_inames(k);
    std::vector<std::string> out;
    auto add = [&](const isl::space& sp) {
        for (const std::string& p : isl_util::param_names(sp))
            if (std::find(inames.begin(), inames.end(), p) == inames.end() &&
                std::find(out.begin(), out.end(), p) == out.end())
                out.push_back(p);
    };
    for (const isl::set& d : k.domains) add(d.space());
    add(k.assumptions.space());
    return out;
}

const Variable* Kernel::find_variable(const std::string& name) const { return loom::find_variable(*data_, name); }
const Instruction* Kernel::find_instruction(const std::string& id) const { return loom::find_instruction(*data_, id); }
std::vector<std::string> Kernel::all_inames() const { return loom::all_inames(*data_); }
std::vector<std::string> Kernel::all_params() const { return loom::all_params(*data_); }

InameTag Kernel::iname_tag(const std::string& iname) const { return loom::iname_tag(*data_, iname); }

Kernel unlinearized_kernel(KernelData&& k) {
    k.linearized = false;
    k.linearization.clear();
    return Kernel(std::move(k));
}

}  // namespace loom
