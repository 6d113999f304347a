#include "ir/subst_rule.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/access.h"
#include "ir/kernel.h"
#include "ir/names.h"
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

// The checks of every use of rule `r` with `args`: its arity, and no use of itself (`outer`: the rules being
// expanded around it).
void check_use(const SubstitutionRule& r, const std::vector<ExprPtr>& args, const std::vector<std::string>& outer) {
    user_assert(args.size() == r.arguments.size(), error_kind::LoopyError, "substitution rule '", r.name, "' takes ",
                r.arguments.size(), " argument(s) but is used with ", args.size());
    user_assert(std::find(outer.begin(), outer.end(), r.name) == outer.end(), error_kind::LoopyError,
                "substitution rule '", r.name, "' uses itself (through ", join(outer, " -> "), ")");
}

// No argument of a use of `r` may be captured by a reduction of the expression `body` it expands to.
void check_capture(const SubstitutionRule& r, const std::vector<ExprPtr>& args, const ExprPtr& body) {
    const std::set<std::string> bound = reduction_inames(body);
    for (const ExprPtr& a : args)
        for (const std::string& name : referenced_names(a))
            user_assert(!bound.count(name), error_kind::LoopyError, "argument '", to_string(a), "' of substitution rule '",
                        r.name, "' would be captured by the reduction over '", name, "' in the rule");
}

std::map<std::string, ExprPtr> bind(const SubstitutionRule& r, const std::vector<ExprPtr>& args) {
    std::map<std::string, ExprPtr> bound;
    for (std::size_t j = 0; j < args.size(); ++j) bound[r.arguments[j]] = args[j];
    return bound;
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
        check_use(r, args, stack_);
        check_capture(r, args, r.expression);
        const ExprPtr body = substitute(r.expression, bind(r, args));
        stack_.push_back(r.name);
        ExprPtr out = expand(body);
        stack_.pop_back();
        return out;
    }

    const std::vector<SubstitutionRule>& rules_;
    std::vector<std::string> stack_;
};

// expand_rule_uses: walks each instruction's expressions top-down with the stack of rule uses around each
// node, expanding the uses the filter accepts and recording, for the others, the expression their rule has
// there (its variants).
class StackExpander {
public:
    StackExpander(KernelData& k, const RuleUseFilter& expand) : k_(k), expand_(expand), rules_(k.substitutions), names_(k) {
        for (const SubstitutionRule& r : rules_) variants_[r.name].push_back({r.expression, to_string(r.expression), r.name});
    }

    bool run() {
        for (Instruction& insn : k_.instructions) {
            const Instruction as_written = insn;
            insn_ = &as_written;
            insn.expression = map(insn.expression);
            for (ExprPtr& a : insn.assignees) a = map(a);
            for (ExprPtr& p : insn.predicates) p = map(p);
        }
        if (!expanded_) return false;
        k_.substitutions = used_variants();
        drop_unused_rules(k_);
        return true;
    }

private:
    struct Variant {
        ExprPtr expression;
        std::string text;  // compared: one variant per distinct expression
        std::string name;
        bool used = false;
    };

    ExprPtr map(const ExprPtr& e) {
        if (!e) return e;
        std::vector<ExprPtr> args;
        for (const ExprPtr& a : e->args) args.push_back(map(a));
        const SubstitutionRule* r = use_of(e, rules_);
        if (!r) return args == e->args ? e : with_args(e, std::move(args));
        std::vector<std::string> outer;
        for (const RuleUse& u : stack_) outer.push_back(u.name);
        check_use(*r, args, outer);
        stack_.push_back({r->name, e->tag});
        ExprPtr out = expand_(*insn_, stack_) ? expansion(*r, args) : kept_use(*r, e, std::move(args));
        stack_.pop_back();
        return out;
    }

    // The rule's expression mapped in the use's place, with `args` put in for its parameters afterwards (through
    // placeholders that no name can equal, so that names free in the rules it uses are not captured).
    ExprPtr expansion(const SubstitutionRule& r, const std::vector<ExprPtr>& args) {
        ++expanded_;
        std::map<std::string, ExprPtr> placeholders, values;
        for (std::size_t j = 0; j < args.size(); ++j) {
            const std::string p = cat("$", stack_.size(), ".", j);
            placeholders[r.arguments[j]] = var(p);
            values[p] = args[j];
        }
        const ExprPtr body = map(substitute(r.expression, placeholders));
        check_capture(r, args, body);
        return substitute(body, values);
    }

    // A use that stays: of the rule's variant whose expression is the rule's mapped in this place.
    ExprPtr kept_use(const SubstitutionRule& r, const ExprPtr& use, std::vector<ExprPtr> args) {
        const ExprPtr body = map(r.expression);
        std::vector<Variant>& variants = variants_.at(r.name);
        const std::string text = to_string(body);
        auto v = std::find_if(variants.begin(), variants.end(), [&](const Variant& x) { return x.text == text; });
        if (v == variants.end()) v = variants.insert(variants.end(), {body, text, names_(r.name)});
        v->used = true;
        return with_name(with_args(use, std::move(args)), v->name);
    }

    // The rules after expansion, in the order of the originals. As in loopy, where no use keeps a rule's own
    // expression, its first variant takes its name.
    std::vector<SubstitutionRule> used_variants() {
        std::vector<SubstitutionRule> out;
        std::map<std::string, std::string> renames;
        for (const SubstitutionRule& r : rules_) {
            bool named = variants_.at(r.name).front().used;
            for (Variant& v : variants_.at(r.name)) {
                if (!v.used) continue;
                if (!named) {
                    renames[v.name] = r.name;
                    v.name = r.name;
                    named = true;
                }
                out.push_back({v.name, r.arguments, v.expression});
            }
        }
        const auto rename = [&](const ExprPtr& e) {
            if (!e) return e;
            return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
                const auto it = renames.find(n->name);
                const bool use = n->kind == ExprKind::Call || n->kind == ExprKind::Var;
                return use && it != renames.end() ? with_name(n, it->second) : n;
            });
        };
        for (Instruction& insn : k_.instructions) {
            insn.expression = rename(insn.expression);
            for (ExprPtr& a : insn.assignees) a = rename(a);
            for (ExprPtr& p : insn.predicates) p = rename(p);
        }
        for (SubstitutionRule& r : out) r.expression = rename(r.expression);
        return out;
    }

    KernelData& k_;
    const RuleUseFilter& expand_;
    const std::vector<SubstitutionRule> rules_;
    NameGenerator names_;
    std::map<std::string, std::vector<Variant>> variants_;
    const Instruction* insn_ = nullptr;
    std::vector<RuleUse> stack_;
    int expanded_ = 0;
};

}  // namespace

bool expand_rule_uses(KernelData& k, const RuleUseFilter& expand) {
    if (k.substitutions.empty()) return false;
    return StackExpander(k, expand).run();
}

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
