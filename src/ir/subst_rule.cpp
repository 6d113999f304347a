#include "ir/subst_rule.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/kernel.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

const SubstitutionRule* find_rule(const std::vector<SubstitutionRule>& rules, const std::string& name) {
    for (const SubstitutionRule& r : rules)
        if (r.name == name) return &r;
    return nullptr;
}

namespace {

// The rule that node `n` uses: a call of a rule, or the bare name of one.
const SubstitutionRule* use_of(const ExprPtr& n, const std::vector<SubstitutionRule>& rules) {
    if (n->kind != ExprKind::Call && n->kind != ExprKind::Var) return nullptr;
    return find_rule(rules, n->name);
}

class Expander {
public:
    explicit Expander(const std::vector<SubstitutionRule>& rules) : rules_(rules) {}

    ExprPtr expand(const ExprPtr& e) {
        if (!e || rules_.empty()) return e;
        return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
            const SubstitutionRule* r = use_of(n, rules_);
            return r ? instantiate(*r, n->args) : n;
        });
    }

private:
    // The rule's expression with `args` (already expanded) put in for its parameters, then expanded itself.
    // Substituting before expanding keeps a name free in a rule the body calls from being captured by this
    // rule's parameters.
    ExprPtr instantiate(const SubstitutionRule& r, const std::vector<ExprPtr>& args) {
        user_assert(args.size() == r.arguments.size(), "LoopyError", "substitution rule '", r.name, "' takes ",
                    r.arguments.size(), " argument(s) but is used with ", args.size());
        user_assert(std::find(stack_.begin(), stack_.end(), r.name) == stack_.end(), "LoopyError",
                    "substitution rule '", r.name, "' uses itself (through ", join(stack_, " -> "), ")");
        check_capture(r, args);
        std::map<std::string, ExprPtr> bound;
        for (std::size_t j = 0; j < args.size(); ++j) bound[r.arguments[j]] = args[j];
        const ExprPtr body = substitute(r.expression, bound);
        stack_.push_back(r.name);
        ExprPtr out = expand(body);
        stack_.pop_back();
        return out;
    }

    static void check_capture(const SubstitutionRule& r, const std::vector<ExprPtr>& args) {
        const std::set<std::string> bound = reduction_inames(r.expression);
        for (const ExprPtr& a : args)
            for (const std::string& name : referenced_names(a))
                user_assert(!bound.count(name), "LoopyError", "argument '", to_string(a), "' of substitution rule '",
                            r.name, "' would be captured by the reduction over '", name, "' in the rule");
    }

    const std::vector<SubstitutionRule>& rules_;
    std::vector<std::string> stack_;
};

}  // namespace

ExprPtr expand_rules(const ExprPtr& e, const std::vector<SubstitutionRule>& rules) {
    return Expander(rules).expand(e);
}

Instruction expand_rules(Instruction insn, const std::vector<SubstitutionRule>& rules) {
    if (rules.empty()) return insn;
    Expander x(rules);
    insn.expression = x.expand(insn.expression);
    for (ExprPtr& a : insn.assignees) a = x.expand(a);
    for (ExprPtr& p : insn.predicates) p = x.expand(p);
    return insn;
}

std::vector<std::string> rules_used(const ExprPtr& e, const std::vector<SubstitutionRule>& rules) {
    std::vector<std::string> out;
    if (!e) return out;
    visit(e, [&](const ExprPtr& n) {
        const SubstitutionRule* r = use_of(n, rules);
        if (r && std::find(out.begin(), out.end(), r->name) == out.end()) out.push_back(r->name);
    });
    return out;
}

void drop_unused_rules(KernelData& k) {
    std::set<std::string> used;
    std::vector<std::string> work;
    auto note = [&](const ExprPtr& e) {
        for (const std::string& r : rules_used(e, k.substitutions))
            if (used.insert(r).second) work.push_back(r);
    };
    for (const Instruction& insn : k.instructions) {
        note(insn.expression);
        for (const ExprPtr& a : insn.assignees) note(a);
        for (const ExprPtr& p : insn.predicates) note(p);
    }
    while (!work.empty()) {
        const std::string r = work.back();
        work.pop_back();
        note(find_rule(k.substitutions, r)->expression);
    }
    std::erase_if(k.substitutions, [&](const SubstitutionRule& r) { return !used.count(r.name); });
}

}  // namespace loom
