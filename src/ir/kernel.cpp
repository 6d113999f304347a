#include "ir/kernel.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "ir/derived.h"
#include "ir/domain.h"
#include "ir/layout.h"
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
    user_assert(holds(t, v), "LoopyError", where, ": ", what, " ", v, " does not fit the kernel's index type ",
                dtype_name(t), " (make the kernel with index_dtype = \"int64\")");
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

namespace {

const char* kRule = "---------------------------------------------------------------------------\n";

// loopy's type text; arrays for atomic access have numpy types marked atomic.
std::string type_text(DType t, bool atomic = false) {
    return t == DType::Unknown ? dtype_name(t) : cat(atomic ? "np_atomic" : "np", ":dtype('", dtype_name(t), "')");
}

std::string tuple_text(const std::vector<ExprPtr>& parts) {
    std::vector<std::string> s;
    for (const ExprPtr& p : parts) s.push_back(to_string(p));
    if (s.size() == 1) return "(" + s[0] + ")";
    return "(" + join(s, ", ") + ")";
}

std::string variable_line(const Variable& v) {
    std::ostringstream os;
    os << v.name << ": ";
    if (v.kind == VarKind::ValueArg) {
        os << "ValueArg, type: " << type_text(v.dtype);
        return os.str();
    }
    os << "type: " << type_text(v.dtype, v.for_atomic);
    if (v.is_array) {
        os << ", shape: "
           << (v.no_shape ? std::string("unknown") : v.shape_auto ? std::string("auto") : v.shape.empty() ? "()" : tuple_text(v.shape));
        if (!v.strides.empty()) os << ", dim_tags: " << dim_tags_text(v);
        if (v.offset) os << ", offset: " << to_string(v.offset);
    } else {
        os << ", shape: ()";
    }
    if (v.is_arg()) {
        std::string io;
        if (v.is_input.value_or(false)) io += "in";
        if (v.is_output.value_or(false)) io += io.empty() ? "out" : "/out";
        if (!io.empty()) os << " " << io;
    }
    const std::string space = v.kind == VarKind::ConstantArg ? "constant"
                              : v.is_arg()                   ? "global"
                                                             : address_space_name(v.address_space);
    os << " aspace: " << space;
    return os.str();
}

const char* sync_scope_name(SyncScope s) {
    switch (s) {
        case SyncScope::Local: return "local";
        case SyncScope::Global: return "global";
        case SyncScope::Any: break;
    }
    return "any";
}

std::string attributes_text(const Instruction& insn, bool with_dependencies) {
    std::vector<std::string> attrs{"id=" + insn.id};
    if (with_dependencies && !insn.depends_on.empty())
        attrs.push_back("dep=" + join(std::vector<std::string>(insn.depends_on.begin(), insn.depends_on.end()), ":"));
    if (insn.priority) attrs.push_back(cat("priority=", insn.priority));
    // loopy prints the atomicity with its (default) memory ordering and scope.
    if (insn.atomic)
        attrs.push_back(
            cat("atomic=", insn.atomic_init ? "init" : "update", "[", insn.assignees[0]->name, "]SEQ_CST/auto"));
    if (!insn.tags.empty()) attrs.push_back("tags=" + join({insn.tags.begin(), insn.tags.end()}, ":"));
    if (!insn.groups.empty()) attrs.push_back("groups=" + join({insn.groups.begin(), insn.groups.end()}, ":"));
    if (!insn.conflicts_with_groups.empty())
        attrs.push_back("conflicts=" + join({insn.conflicts_with_groups.begin(), insn.conflicts_with_groups.end()}, ":"));
    if (!insn.no_sync_with.empty()) {
        std::vector<std::string> entries;
        for (const NoSync& n : insn.no_sync_with) entries.push_back(n.id_pattern + "@" + sync_scope_name(n.scope));
        attrs.push_back("no_sync_with=" + join(entries, ":"));
    }
    return "{" + join(attrs, ", ") + "}";
}

std::string instruction_body(const Instruction& insn) {
    switch (insn.kind) {
        case InsnKind::Barrier: return "... " + std::string(insn.barrier_kind == "global" ? "gbarrier" : "lbarrier");
        case InsnKind::Nop: return "... nop";
        case InsnKind::Assignment: break;
    }
    std::vector<std::string> lhs;
    for (const ExprPtr& a : insn.assignees) lhs.push_back(to_string(a));
    std::string out = join(lhs, ", ") + " = " + to_string(insn.expression);
    if (!insn.predicates.empty()) {
        std::vector<std::string> preds;
        for (const ExprPtr& p : insn.predicates) preds.push_back(to_string(p));
        out = "if (" + join(preds, " and ") + ") " + out;
    }
    return out;
}

// Appends `insn` to `order` after the instructions it depends on that are not there yet.
void print_after_dependencies(const KernelData& k, const Instruction& insn, std::set<std::string>& printed,
                              std::vector<const Instruction*>& order) {
    if (!printed.insert(insn.id).second) return;
    for (const std::string& dep : insn.depends_on)
        if (const Instruction* d = find_instruction(k, dep)) print_after_dependencies(k, *d, printed, order);
    order.push_back(&insn);
}

// The instructions in source order, except that each comes after its dependencies (loopy's printed order:
// a barrier added at the end shows where it acts).
std::vector<const Instruction*> printed_order(const KernelData& k) {
    std::set<std::string> printed;
    std::vector<const Instruction*> order;
    for (const Instruction& insn : k.instructions) print_after_dependencies(k, insn, printed, order);
    return order;
}

// Instructions in printed order, wrapped in `for`/`end` as their loop sets change (loopy's listing).
void instructions_section(std::ostringstream& os, const KernelData& k, bool with_dependencies) {
    std::vector<std::string> open;
    auto sorted_inames = [&](const Instruction& insn) {
        return std::vector<std::string>(insn.within_inames.begin(), insn.within_inames.end());
    };
    for (const Instruction* insn_ptr : printed_order(k)) {
        const Instruction& insn = *insn_ptr;
        const std::vector<std::string> want = sorted_inames(insn);
        std::size_t common = 0;
        while (common < open.size() && common < want.size() && open[common] == want[common]) ++common;
        while (open.size() > common) {
            os << std::string(2 * (open.size() - 1), ' ') << "end " << open.back() << "\n";
            open.pop_back();
        }
        for (std::size_t j = common; j < want.size(); ++j) {
            os << std::string(2 * open.size(), ' ') << "for " << want[j] << "\n";
            open.push_back(want[j]);
        }
        os << std::string(2 * open.size(), ' ') << instruction_body(insn) << "  "
           << attributes_text(insn, false) << "\n";
    }
    while (!open.empty()) {
        os << std::string(2 * (open.size() - 1), ' ') << "end " << open.back() << "\n";
        open.pop_back();
    }
    (void)with_dependencies;
}

void linearization_section(std::ostringstream& os, const KernelData& k) {
    os << "LINEARIZATION:\n";
    int depth = 0, n = 0;
    for (const LinearItem& item : k.linearization) {
        std::string text;
        switch (item.kind) {
            case LinearItem::Kind::EnterLoop: text = "for " + item.name; break;
            case LinearItem::Kind::LeaveLoop: --depth; text = "end " + item.name; break;
            case LinearItem::Kind::RunInstruction: {
                const Instruction* insn = find_instruction(k, item.name);
                text = (insn ? instruction_body(*insn) : item.name) + "  {id=" + item.name + "}";
                break;
            }
            case LinearItem::Kind::Barrier: text = "... " + std::string(item.sync_kind == "global" ? "gbarrier" : "lbarrier"); break;
            case LinearItem::Kind::CallKernel: text = "CALL KERNEL " + item.name; break;
            case LinearItem::Kind::ReturnFromKernel: --depth; text = "RETURN FROM KERNEL " + item.name; break;
        }
        os << cat(n++) << ": " << std::string(2 * static_cast<std::size_t>(std::max(depth, 0)), ' ') << text << "\n";
        if (item.kind == LinearItem::Kind::EnterLoop || item.kind == LinearItem::Kind::CallKernel) ++depth;
    }
}

// Nested domains are indented under their parents, as loopy prints the domain forest.
void domains_section(std::ostringstream& os, const KernelData& k) {
    const std::vector<int> parents = domain_parents(k);
    for (std::size_t d = 0; d < k.domains.size(); ++d) {
        std::size_t depth = 0;
        for (int p = parents[d]; p >= 0; p = parents[static_cast<std::size_t>(p)]) ++depth;
        os << std::string(2 * depth, ' ') << isl_util::to_str(k.domains[d]) << "\n";
    }
}

// Sorted by name, each as `f(x, y) := expression`.
void rules_section(std::ostringstream& os, const KernelData& k) {
    std::vector<const SubstitutionRule*> rules;
    for (const SubstitutionRule& r : k.substitutions) rules.push_back(&r);
    std::sort(rules.begin(), rules.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
    for (const SubstitutionRule* r : rules)
        os << r->name << "(" << join(r->arguments, ", ") << ") := " << to_string(r->expression) << "\n";
}

}  // namespace

std::string to_listing(const Kernel& kernel, bool with_dependencies) {
    const KernelData& k = *kernel;
    std::ostringstream os;
    os << kRule << "KERNEL: " << k.name << "\n" << kRule << "ARGUMENTS:\n";
    for (const Variable& v : k.args) os << variable_line(v) << "\n";  // declared order, as loopy 2025.2
    os << kRule << "DOMAINS:\n";
    domains_section(os, k);
    os << kRule << "INAME TAGS:\n";
    std::vector<std::string> inames = kernel.all_inames();
    std::sort(inames.begin(), inames.end());  // loopy lists them by name
    for (const std::string& i : inames) {
        const InameTag tag = kernel.iname_tag(i);
        os << i << ": " << (tag.is_none() ? "None" : to_string(tag)) << "\n";
    }
    if (!k.temporaries.empty()) {
        os << kRule << "TEMPORARIES:\n";
        for (const Variable& t : k.temporaries) os << variable_line(t) << "\n";
    }
    if (!k.substitutions.empty()) {
        os << kRule << "SUBSTITUTION RULES:\n";
        rules_section(os, k);
    }
    os << kRule << "INSTRUCTIONS:\n";
    instructions_section(os, k, with_dependencies);
    if (k.linearized) {
        os << kRule;
        linearization_section(os, k);
    }
    os << kRule;
    if (with_dependencies) {
        os << "DEPENDENCIES: (use loopy.show_dependency_graph to visualize)\n";
        for (const Instruction& insn : k.instructions)
            if (!insn.depends_on.empty())
                os << insn.id << " : " << join({insn.depends_on.begin(), insn.depends_on.end()}, ", ") << "\n";
        os << kRule;
    }
    return os.str();
}

Kernel unlinearized_kernel(KernelData&& k) {
    k.linearized = false;
    k.linearization.clear();
    return Kernel(std::move(k));
}

}  // namespace loom
