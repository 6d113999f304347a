#include "parse/sub_array_refs.h"

#include <algorithm>
#include <set>

#include "ir/names.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

bool is_slice(const ExprPtr& e) { return e->kind == ExprKind::Call && e->name == kSliceCall; }
bool omitted(const ExprPtr& e) { return e->kind == ExprKind::Var && e->name == kSliceCall; }
ExprPtr whole_axis() { return call(kSliceCall, {var(kSliceCall), var(kSliceCall), var(kSliceCall)}); }

class SliceExpander {
public:
    explicit SliceExpander(KernelData& k) : k_(k), names_(k) {
        for (const Instruction& insn : k.instructions) {
            std::vector<ExprPtr> all = insn.assignees;
            if (insn.expression) all.push_back(insn.expression);
            for (const ExprPtr& e : all)
                for (const std::string& n : referenced_names(e)) names_.take(n);
        }
    }

    void run(Instruction& insn) {
        insn_ = &insn;
        std::set<const Expr*> allowed;  // where a sub-array may stand: a call's arguments and left-hand sides
        const ExprPtr& rhs = insn.expression;
        if (rhs && rhs->kind == ExprKind::Call && !is_rule(rhs->name)) {
            for (ExprPtr& a : insn.assignees) allowed.insert((a = sub_array(a, false)).get());
            std::vector<ExprPtr> args;
            for (const ExprPtr& a : rhs->args) allowed.insert(args.emplace_back(sub_array(a, true)).get());
            insn.expression = with_args(rhs, std::move(args));
        }
        std::vector<ExprPtr> all = insn.assignees;
        all.push_back(insn.expression);
        all.insert(all.end(), insn.predicates.begin(), insn.predicates.end());
        for (const ExprPtr& e : all)
            if (e) visit(e, [&](const ExprPtr& n) {
                    const bool stray = is_slice(n) || (n->kind == ExprKind::SubArrayRef && !allowed.count(n.get()));
                    user_assert(!stray, error_kind::LoopyError, "instruction '", insn.id, "': '", to_string(n),
                                "': slices and sub-arrays are only allowed as a call's arguments or left-hand sides");
                });
    }

private:
    // `e` as a sub-array where it is one: a slice subscript, or (as a call's argument) an array named whole.
    ExprPtr sub_array(const ExprPtr& e, bool argument) {
        if (argument && e->kind == ExprKind::Var) {
            const Variable* v = find_variable(k_, e->name);
            if (v && v->is_array && !v->shape_auto && !v->no_shape && !v->shape.empty())
                return sub_array(subscript(e->name, std::vector<ExprPtr>(v->shape.size(), whole_axis())), argument);
            return e;
        }
        // `[i]: y[i, :]` sweeps i and the slice's new iname.
        if ((e->kind != ExprKind::Subscript && e->kind != ExprKind::SubArrayRef) || e->linear) return e;
        if (std::none_of(e->args.begin(), e->args.end(), is_slice)) return e;
        const Variable* v = find_variable(k_, e->name);
        user_assert(v && v->is_array && !v->shape_auto && v->shape.size() == e->args.size(), error_kind::LoopyError,
                    "instruction '", insn_->id, "': slice notation in '", to_string(e),
                    "' needs the shape of '", e->name, "' known when the kernel is made (declare it with a shape)");
        std::vector<ExprPtr> indices;
        std::vector<std::string> swept = e->inames;
        for (std::size_t axis = 0; axis < e->args.size(); ++axis) {
            if (!is_slice(e->args[axis])) {
                indices.push_back(e->args[axis]);
                continue;
            }
            swept.push_back(names_("i"));
            indices.push_back(sweep(swept.back(), e->args[axis], v->shape[axis]));
        }
        return sub_array_ref(e->name, std::move(indices), std::move(swept));
    }

    // The index of one sliced axis of extent `extent` in terms of its new iname, whose domain is added.
    ExprPtr sweep(const std::string& iname, const ExprPtr& slice, const ExprPtr& extent) {
        const ExprPtr& step_part = slice->args[2];
        std::int64_t step = 1;
        if (!omitted(step_part)) {
            user_assert(step_part->kind == ExprKind::IntLit && step_part->ival != 0, error_kind::LoopyError, "instruction '",
                        insn_->id, "': a slice step must be a non-zero integer, got '", to_string(step_part), "'");
            step = step_part->ival;
        }
        // Python's defaults and negative bounds (counted from the end).
        const auto bound = [&](const ExprPtr& part, ExprPtr fallback) {
            if (omitted(part)) return fallback;
            if (part->kind == ExprKind::IntLit && part->ival < 0) return binary(BinOp::Add, extent, part);
            return part;
        };
        const ExprPtr start = bound(slice->args[0], step > 0 ? int_lit(0) : binary(BinOp::Sub, extent, int_lit(1)));
        const ExprPtr stop = bound(slice->args[1], step > 0 ? extent : int_lit(-1));
        // As loopy writes it, without a zero start or a unit step (which would count as operations).
        const ExprPtr stepped = step == 1 ? var(iname) : binary(BinOp::Mul, int_lit(step), var(iname));
        const bool at_zero = start->kind == ExprKind::IntLit && start->ival == 0;
        const ExprPtr index = at_zero ? stepped : binary(BinOp::Add, start, stepped);
        k_.domains.push_back(parse_domain(cat("{ [", iname, "] : ", iname, " >= 0 and ", to_string(index),
                                                        step > 0 ? " < " : " > ", to_string(stop), " }")));
        return index;
    }

    bool is_rule(const std::string& name) const {
        return std::any_of(k_.substitutions.begin(), k_.substitutions.end(),
                           [&](const SubstitutionRule& r) { return r.name == name; });
    }

    KernelData& k_;
    NameGenerator names_;
    Instruction* insn_ = nullptr;
};

}  // namespace

void expand_slices(KernelData& k) {
    SliceExpander expander(k);
    for (Instruction& insn : k.instructions) expander.run(insn);
}

}  // namespace loom
