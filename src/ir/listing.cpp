#include "ir/listing.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "ir/domain.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "support/strings.h"

namespace loom {

namespace {

const char* kRule = "---------------------------------------------------------------------------\n";

// loopy's type text; arrays for atomic access have numpy types marked atomic.
std::string type_text(DType t, bool atomic = false) {
    return t == DType::Unknown ? dtype_name(t) : cat(atomic ? "np_atomic" : "np", ":dtype('", dtype_name(t), "')");
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
           << (v.no_shape ? std::string("unknown") : v.shape_auto ? std::string("auto") : shape_text(v.shape));
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

std::string attributes_text(const Instruction& insn) {
    std::vector<std::string> attrs{"id=" + insn.id};
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
void instructions_section(std::ostringstream& os, const KernelData& k) {
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
           << attributes_text(insn) << "\n";
    }
    while (!open.empty()) {
        os << std::string(2 * (open.size() - 1), ' ') << "end " << open.back() << "\n";
        open.pop_back();
    }
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

// Each scalar function's signature, `name(x: float32, ...) -> float32`: its body is in the generated code.
void functions_section(std::ostringstream& os, const KernelData& k) {
    for (const auto& f : k.functions) {
        std::vector<std::string> params;
        for (const FunctionVariable& p : f->params) params.push_back(p.name + ": " + dtype_name(p.dtype));
        os << f->name << "(" << join(params, ", ") << ") -> " << dtype_name(f->result) << "\n";
    }
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
    if (!k.functions.empty()) {
        os << kRule << "FUNCTIONS:\n";
        functions_section(os, k);
    }
    os << kRule << "INSTRUCTIONS:\n";
    instructions_section(os, k);
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

}  // namespace loom
