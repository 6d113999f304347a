#include "analysis/bounds.h"

#include <isl/set.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/layout.h"
#include "ir/eval.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

isl::set meet(const isl::set& a, const isl::set& b) {
    const isl::set b_aligned = isl_util::align_params(b, a.space());
    return isl_util::align_params(a, b_aligned.space()).intersect(b_aligned);
}

// Instances an access is checked over (an instruction's domain with the assumptions, its predicates and the
// `if` conditions around the access), with a text that names exactly these constraints.
struct Region {
    isl::set set;
    std::string key;
};

// Checks each distinct question once: large kernels repeat the same access over the same instances (a[i] in
// every statement of a loop), and each question costs isl an integer program.
class BoundsChecker {
public:
    /// With `unproven`, the accesses it cannot decide are collected there.
    BoundsChecker(const KernelData& k, std::vector<UnprovenAccess>* unproven = nullptr)
        : k_(k), fixed_(fixed_values(k)), assumptions_(assumption_context(k)), unproven_(unproven) {}

    void check(const Instruction& insn) {
        insn_ = &insn;
        known_ = names_in_domain(insn);
        const std::optional<Region> where = instances();
        if (!where) {
            // Which instances run depends on data: every access is unproven.
            if (unproven_) for_each_access(insn, [&](const ExprPtr& a) { undecided(a, all_axes(a)); });
            return;
        }
        for (const ExprPtr& a : insn.assignees) walk(a, *where);
        if (insn.expression) walk(insn.expression, *where);
        for (const ExprPtr& p : insn.predicates) walk(p, *where);
    }

private:
    // What a check may use, as in loopy: the instruction's inames, the parameters of its domain and of the
    // assumptions, and the value arguments it reads that no instruction writes. An index or extent naming anything else is not checked.
    std::set<std::string> names_in_domain(const Instruction& insn) const {
        std::set<std::string> out(insn.within_inames.begin(), insn.within_inames.end());
        const std::vector<std::string> inames(out.begin(), out.end());
        for (const isl::set& s : {domain_of(k_, inames), assumptions_})
            for (const std::string& p : isl_util::param_names(s.space())) out.insert(p);
        for (const std::string& n : read_names(insn))
            if (fixed_.count(n)) out.insert(n);
        return out;
    }

    // The instances of the instruction that run as a parameter set over its inames and the kernel's parameters,
    // with the assumptions; nullopt when its domain depends on data.
    std::optional<Region> instances() {
        const std::vector<std::string> inames(insn_->within_inames.begin(), insn_->within_inames.end());
        std::string key = join(inames, ",");
        for (const ExprPtr& p : insn_->predicates) key += " if " + to_string(p);
        auto it = regions_.find(key);
        if (it == regions_.end()) it = regions_.emplace(key, instance_set(inames)).first;
        if (!it->second) return std::nullopt;
        return Region{*it->second, key};
    }

    std::optional<isl::set> instance_set(const std::vector<std::string>& inames) const {
        const isl::set where = isl_util::dims_to_params(running_instances(k_, *insn_), inames).params();
        for (const std::string& p : isl_util::param_names(where.space()))
            if (const Variable* v = find_variable(k_, p); v && !v->is_arg()) return std::nullopt;
        return meet(where, assumptions_);
    }

    void walk(const ExprPtr& e, const Region& where) {
        if (e->kind == ExprKind::If) {
            walk(e->args[0], where);
            const std::optional<isl::set> c = condition(e->args[0]);
            if (!c) {
                walk(e->args[1], where);
                walk(e->args[2], where);
                return;
            }
            const std::string text = to_string(e->args[0]);
            const isl::set then = meet(where.set, *c);
            walk(e->args[1], {then, where.key + " and " + text});
            walk(e->args[2], {isl_util::align_params(where.set, then.space()).subtract(then),
                              where.key + " and not " + text});
            return;
        }
        if (e->kind == ExprKind::Subscript) check_access(e, where);
        for (const ExprPtr& a : e->args) walk(a, where);
    }

    /// The parameter set where `cond` holds; nullopt when the check cannot decide it.
    std::optional<isl::set> condition(const ExprPtr& cond) const {
        for (const std::string& n : referenced_names(cond))
            if (!known_.count(n)) return std::nullopt;
        return affine::predicate_set(cond);
    }

    void check_access(const ExprPtr& access, const Region& where) {
        const Variable* v = find_variable(k_, access->name);
        if (!v) return;
        // A linear subscript indexes the storage, not the axes (and an array without a shape has none).
        if (v->shape_auto || access->linear || v->shape.size() != access->args.size()) {
            undecided(access, all_axes(access));
            return;
        }
        std::vector<std::size_t> open;
        for (std::size_t axis = 0; axis < v->shape.size(); ++axis) {
            const ExprPtr& index = access->args[axis];
            const ExprPtr& extent = v->shape[axis];
            if (!extent) {
                open.push_back(axis);
                continue;
            }
            if (inside_constant(index, extent)) continue;
            const std::string question = cat(where.key, " | ", to_string(index), " < ", to_string(extent));
            if (checked_.count(question)) continue;
            const std::optional<isl::set> outside =
                condition(binary(BinOp::Or, binary(BinOp::Lt, index, int_lit(0)), binary(BinOp::Ge, index, extent)));
            if (!outside) {
                open.push_back(axis);
                continue;
            }
            checked_.insert(question);
            // Intersected without isl's simplification: finding a point is the one integer program needed.
            const isl::set both = isl_util::plain_intersect_params(where.set, *outside);
            if (const auto point = isl_util::sample_point(both)) report(access, *v, axis, *point);
        }
        if (!open.empty()) undecided(access, open);
    }

    static std::vector<std::size_t> all_axes(const ExprPtr& access) {
        std::vector<std::size_t> out;
        for (std::size_t axis = 0; axis < access->args.size(); ++axis) out.push_back(axis);
        return out;
    }

    void undecided(const ExprPtr& access, std::vector<std::size_t> axes) {
        const Variable* v = find_variable(k_, access->name);
        if (!unproven_ || !v || !v->is_array) return;
        const bool flat = access->linear || v->shape_auto || v->shape.size() != access->args.size();
        unproven_->push_back({insn_->id, access.get(), std::move(axes), flat});
    }

    template <class F>
    static void for_each_access(const Instruction& insn, F f) {
        const auto each = [&](const ExprPtr& e) {
            visit(e, [&](const ExprPtr& n) {
                if (n->kind == ExprKind::Subscript) f(n);
            });
        };
        for (const ExprPtr& a : insn.assignees) each(a);
        if (insn.expression) each(insn.expression);
        for (const ExprPtr& p : insn.predicates) each(p);
    }

    // A constant index within a constant extent needs no integer program.
    static bool inside_constant(const ExprPtr& index, const ExprPtr& extent) {
        const std::optional<std::int64_t> i = eval_int(index, {}), n = eval_int(extent, {});
        return i && n && *i >= 0 && *i < *n;
    }

    [[noreturn]] void report(const ExprPtr& access, const Variable& v, std::size_t axis,
                             const isl_util::PointValues& point) const {
        std::map<std::string, std::int64_t> values;
        for (const auto& [name, value] : point.params) values[name] = value;
        const ExprPtr& index = access->args[axis];
        std::set<std::string> shown;
        for (const ExprPtr& e : {index, v.shape[axis]})
            for (const std::string& n : referenced_names(e)) shown.insert(n);
        std::vector<std::string> at;
        for (const std::string& n : shown)
            if (values.count(n)) at.push_back(cat(n, " = ", values.at(n)));
        const std::optional<std::int64_t> got = eval_int(index, values);
        user_error(error_kind::LoopyError, "instruction '", insn_->id, "' accesses '", to_string(access),
                   "' out of the bounds of array '", v.name, "' (shape ", shape_text(v.shape), "): index ",
                   got ? std::to_string(*got) : to_string(index), " on axis ", axis,
                   at.empty() ? "" : cat(" where ", join(at, ", ")));
    }

    const KernelData& k_;
    const std::set<std::string> fixed_;
    const isl::set assumptions_;
    const Instruction* insn_ = nullptr;
    std::set<std::string> known_;  // names a condition may use (names_in_domain)
    std::map<std::string, std::optional<isl::set>> regions_;  // instances() by key
    std::set<std::string> checked_;                           // questions answered "inside"
    std::vector<UnprovenAccess>* unproven_;
};

}  // namespace

void check_bounds(const KernelData& k) {
    BoundsChecker checker(k);
    for (const Instruction& insn : k.instructions) checker.check(insn);
}

std::vector<UnprovenAccess> unproven_accesses(const KernelData& k) {
    std::vector<UnprovenAccess> out;
    BoundsChecker checker(k, &out);
    for (const Instruction& insn : k.instructions) checker.check(insn);
    return out;
}

}  // namespace loom
