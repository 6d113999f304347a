// Callable kernels (loopy's transform/callable.py): merging kernels into one program and inlining calls.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/access.h"
#include "ir/affine.h"
#include "ir/names.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

bool is_input(const Variable& v) { return v.kind == VarKind::ValueArg || v.is_input.value_or(true); }
bool is_output(const Variable& v) { return v.kind != VarKind::ValueArg && v.is_output.value_or(false); }

// The callable that instruction `insn` calls, if any.
const KernelData* called(const KernelData& k, const Instruction& insn) {
    if (insn.kind != InsnKind::Assignment || !insn.expression || insn.expression->kind != ExprKind::Call) return nullptr;
    const auto it = k.callables.find(insn.expression->name);
    return it == k.callables.end() ? nullptr : it->second.get();
}

bool calls(const KernelData& k, const std::string& name) {
    return std::any_of(k.instructions.begin(), k.instructions.end(), [&](const Instruction& insn) {
        return insn.kind == InsnKind::Assignment && insn.expression && insn.expression->kind == ExprKind::Call &&
               insn.expression->name == name;
    });
}

// The first index of the axis that swept iname `s` of the caller stands for: its smallest value, given the
// loops around it (a slice's iname starts at 0; `[i]: y[i + 5]` over -5 <= i sweeps from y[0]).
ExprPtr sweep_start(const KernelData& k, const std::string& s) {
    for (const isl::set& d : k.domains) {
        if (!isl_util::has_dim(d, s) || isl_util::is_param(d, s)) continue;
        const isl::set range = isl_util::project_onto(d, {s});
        user_assert(isl_util::has_lower_bound(range, 0), error_kind::LoopyError, "swept iname '", s, "' has no lower bound");
        return affine::pw_aff_to_expr(isl_util::dim_min(range, 0), range.params());
    }
    user_error(error_kind::LoopyError, "swept iname '", s, "' is not an iname of kernel '", k.name, "'");
}

// The number of values swept iname `s` takes, where that is a constant.
std::optional<long> sweep_extent(const KernelData& k, const std::string& s) {
    for (const isl::set& d : k.domains)
        if (isl_util::has_dim(d, s) && !isl_util::is_param(d, s)) {
            const ExprPtr n = affine::pw_aff_to_expr(isl_util::dim_size(isl_util::project_onto(d, {s}), 0), d.params());
            if (n->kind == ExprKind::IntLit) return n->ival;
        }
    return std::nullopt;
}

// One call instruction replaced by the instructions of its callee (loopy's _inline_call_instruction).
class CallInliner {
public:
    CallInliner(const KernelData& caller, const Instruction& call, Kernel callee)
        : caller_(caller), call_(call), callee_(std::move(callee)), names_(caller), where_(cat("call to '", call.expression->name, "' in instruction '", call.id, "'")) {
        // Callee names are taken too: renaming one of them never lands on another.
        const KernelData& c = *callee_;
        for (const Variable& v : c.args) names_.take(v.name);
        for (const Variable& v : c.temporaries) names_.take(v.name);
        for (const std::string& i : all_inames(c)) names_.take(i);
        for (const Instruction& insn : c.instructions) names_.take(insn.id);
        prefix_ = c.name.substr(0, 4) + "_";
    }

    // The instructions and declarations the call becomes, merged into `out` (a copy of the caller).
    void inline_into(KernelData& out) {
        user_assert(callee_->options.index_dtype == caller_.options.index_dtype, error_kind::LoopyError, where_,
                    ": the callee's index type ", dtype_name(callee_->options.index_dtype), " differs from the caller's ",
                    dtype_name(caller_.options.index_dtype));
        bind_arguments();
        substitute_value_args();
        rename_inames();
        const KernelData& c = *callee_;
        std::map<std::string, std::string> temps;
        for (const Variable& t : c.temporaries) temps[t.name] = names_(prefix_ + t.name);
        for (Variable t : c.temporaries) {
            t.name = temps[t.name];
            for (std::vector<ExprPtr>* exprs : {&t.shape, &t.strides})
                for (ExprPtr& e : *exprs) e = substitute(e, values_);
            out.temporaries.push_back(std::move(t));
        }
        out.domains.insert(out.domains.end(), c.domains.begin(), c.domains.end());
        for (const auto& [iname, tag] : c.iname_tags) out.iname_tags[iname] = tag;
        for (const auto& [iname, slabs] : c.iname_slabs) out.iname_slabs[iname] = slabs;
        out.loop_priority.insert(out.loop_priority.end(), c.loop_priority.begin(), c.loop_priority.end());
        splice_instructions(out, temps);
    }

private:
    // Callee argument -> what the call passes: inputs in order take the parameters, outputs the left-hand sides
    // (an argument both read and written takes its left-hand side), as loopy's get_kw_pos_association.
    void bind_arguments() {
        std::vector<const Variable*> inputs, outputs;
        for (const Variable& v : callee_->args) {
            if (is_input(v)) inputs.push_back(&v);
            if (is_output(v)) outputs.push_back(&v);
        }
        const std::vector<ExprPtr>& params = call_.expression->args;
        user_assert(params.size() == inputs.size(), error_kind::LoopyError, where_, ": '", callee_->name, "' takes ",
                    inputs.size(), " argument(s), got ", params.size());
        user_assert(call_.assignees.size() == outputs.size(), error_kind::LoopyError, where_, ": '", callee_->name,
                    "' returns ", outputs.size(), " result(s), assigned to ", call_.assignees.size());
        for (std::size_t n = 0; n < params.size(); ++n) bound_[inputs[n]->name] = params[n];
        for (std::size_t n = 0; n < outputs.size(); ++n) bound_[outputs[n]->name] = call_.assignees[n];
        for (const Variable& v : callee_->args) check_binding(v);
    }

    void check_binding(const Variable& v) {
        const auto it = bound_.find(v.name);
        if (it == bound_.end()) return;
        const ExprPtr& e = it->second;
        const std::size_t axes = v.is_array ? v.shape.size() : 0;
        if (v.kind == VarKind::ValueArg || axes == 0) {
            user_assert(e->kind != ExprKind::SubArrayRef || e->inames.empty(), error_kind::LoopyError, where_, ": argument '",
                        v.name, "' is a scalar, got the sub-array '", to_string(e), "'");
            user_assert(!is_output(v) || e->kind != ExprKind::Call, error_kind::LoopyError, where_, ": result '", v.name,
                        "' must be assigned to a variable or subscript");
            return;
        }
        user_assert(e->kind == ExprKind::SubArrayRef, error_kind::LoopyError, where_, ": argument '", v.name, "' is an array of ",
                    axes, " axes; pass a sub-array ('[i]: a[i]' or a slice 'a[:]'), got '", to_string(e), "'");
        user_assert(e->inames.size() == axes, error_kind::LoopyError, where_, ": shape mismatch: argument '", v.name, "' has ",
                    axes, " axes, the sub-array '", to_string(e), "' sweeps ", e->inames.size());
        for (std::size_t a = 0; a < axes; ++a) {
            const std::optional<long> n = sweep_extent(caller_, e->inames[a]);
            const ExprPtr want = substitute(v.shape[a], bound_scalars());
            user_assert(!n || want->kind != ExprKind::IntLit || *n == want->ival, error_kind::LoopyError, where_,
                        ": shape mismatch: axis ", a, " of argument '", v.name, "' has extent ", to_string(want),
                        ", the sub-array '", to_string(e), "' sweeps ", *n, " values");
        }
    }

    std::map<std::string, ExprPtr> bound_scalars() const {
        std::map<std::string, ExprPtr> out;
        for (const Variable& v : callee_->args)
            if (v.kind == VarKind::ValueArg && bound_.count(v.name)) out[v.name] = bound_.at(v.name);
        return out;
    }

    // A value argument's parameter in the callee's domains becomes the expression passed (as loopy's
    // substitute_into_domain), renamed first so that it cannot meet a caller name of the same spelling.
    void substitute_value_args() {
        for (const Variable& v : callee_->args) {
            if (v.kind != VarKind::ValueArg) continue;
            const std::string fresh = names_(prefix_ + v.name);
            callee_ = rename_argument(callee_, v.name, fresh);
            const ExprPtr& e = bound_.at(v.name);
            KernelData c = callee_.copy();
            for (isl::set& d : c.domains) {
                if (!isl_util::is_param(d, fresh)) continue;
                const std::optional<isl::set> fixed = affine::try_add_constraint(d, var(fresh), BinOp::Eq, e);
                user_assert(fixed.has_value(), error_kind::LoopyError, where_, ": value argument '", v.name,
                            "' bounds a domain, so it must be affine in the caller's parameters and inames, got '",
                            to_string(e), "'");
                d = isl_util::project_out(*fixed, {fresh});
            }
            callee_ = Kernel(std::move(c));
            values_[fresh] = e;
        }
    }

    void rename_inames() {
        for (const std::string& i : all_inames(*callee_)) {
            const std::string fresh = names_(prefix_ + i);
            callee_ = rename_iname(callee_, i, fresh);
        }
    }

    // A callee expression in the caller's names: temporaries renamed, value arguments replaced, array
    // arguments accessed through what the call binds them to.
    ExprPtr translate(const ExprPtr& e, const std::map<std::string, std::string>& temps) const {
        if (!e) return e;
        return rewrite(e, [&](const ExprPtr& n) -> ExprPtr {
            const bool named = n->kind == ExprKind::Var || n->kind == ExprKind::Subscript || n->kind == ExprKind::SubArrayRef;
            if (!named) return n;
            if (const auto t = temps.find(n->name); t != temps.end()) return with_name(n, t->second);
            if (n->kind == ExprKind::Var)
                if (const auto v = values_.find(n->name); v != values_.end()) return v->second;
            const Variable* arg = callee_.find_variable(n->name);
            if (!arg || !arg->is_arg()) return n;
            const auto b = bound_.find(n->name);
            user_assert(b != bound_.end(), error_kind::LoopyError, where_, ": argument '", n->name,
                        "' is neither an input nor an output of '", callee_->name, "'");
            return through(n, b->second);
        });
    }

    // Callee access `n` of an argument bound to `e`.
    ExprPtr through(const ExprPtr& n, const ExprPtr& e) const {
        user_assert(!n->linear, error_kind::LoopyError, where_, ": '", to_string(n), "': linear subscripts of arguments cannot be inlined");
        if (e->kind != ExprKind::SubArrayRef) {
            user_assert(n->args.empty(), error_kind::LoopyError, where_, ": '", to_string(n), "' indexes a scalar argument");
            return e;
        }
        std::map<std::string, ExprPtr> at;
        const std::vector<ExprPtr> none;
        const std::vector<ExprPtr>& idx = n->kind == ExprKind::Var ? none : n->args;
        user_assert(idx.size() == e->inames.size(), error_kind::LoopyError, where_, ": '", to_string(n), "' has ", idx.size(),
                    " indices, the sub-array '", to_string(e), "' sweeps ", e->inames.size(), " inames");
        for (std::size_t a = 0; a < idx.size(); ++a) {
            const ExprPtr start = sweep_start(caller_, e->inames[a]);
            const bool zero = start->kind == ExprKind::IntLit && start->ival == 0;
            at[e->inames[a]] = zero ? idx[a] : binary(BinOp::Add, start, idx[a]);
        }
        std::vector<ExprPtr> indices;
        for (const ExprPtr& i : e->args) indices.push_back(substitute(i, at));
        if (indices.empty()) return var(e->name);
        std::vector<std::string> swept;  // a nested call's own sweep stays one
        if (n->kind == ExprKind::SubArrayRef) swept = n->inames;
        return n->kind == ExprKind::SubArrayRef ? sub_array_ref(e->name, std::move(indices), std::move(swept))
                                                : subscript(e->name, std::move(indices));
    }

    void splice_instructions(KernelData& out, const std::map<std::string, std::string>& temps) {
        std::map<std::string, std::string> ids;
        for (const Instruction& insn : callee_->instructions) ids[insn.id] = names_(prefix_ + insn.id);
        Instruction start;
        start.kind = InsnKind::Nop;
        start.id = names_(prefix_ + "_start");
        start.within_inames = call_.within_inames;
        start.depends_on = call_.depends_on;
        start.predicates = call_.predicates;
        Instruction end = start;
        end.id = call_.id;
        end.depends_on.clear();
        end.depends_on_is_final = true;
        std::vector<Instruction> body{start};
        for (Instruction insn : callee_->instructions) {
            for (ExprPtr& a : insn.assignees) a = translate(a, temps);
            insn.expression = translate(insn.expression, temps);
            for (ExprPtr& p : insn.predicates) p = translate(p, temps);
            insn.predicates.insert(insn.predicates.end(), call_.predicates.begin(), call_.predicates.end());
            std::set<std::string> deps{start.id};
            for (const std::string& d : insn.depends_on) deps.insert(ids.count(d) ? ids[d] : d);
            insn.depends_on = deps;
            insn.depends_on_is_final = true;
            for (NoSync& ns : insn.no_sync_with)
                if (ids.count(ns.id_pattern)) ns.id_pattern = ids[ns.id_pattern];
            insn.id = ids[insn.id];
            insn.within_inames.insert(call_.within_inames.begin(), call_.within_inames.end());
            insn.tags.insert(call_.tags.begin(), call_.tags.end());
            end.depends_on.insert(insn.id);
            body.push_back(std::move(insn));
        }
        body.push_back(std::move(end));
        const auto at = std::find_if(out.instructions.begin(), out.instructions.end(),
                                     [&](const Instruction& i) { return i.id == call_.id; });
        internal_assert(at != out.instructions.end(), "inlined call '", call_.id, "' not in the caller");
        const auto pos = out.instructions.erase(at);
        out.instructions.insert(pos, body.begin(), body.end());
    }

    const KernelData& caller_;
    const Instruction& call_;
    Kernel callee_;
    NameGenerator names_;
    std::string where_, prefix_;
    std::map<std::string, ExprPtr> bound_;   // callee argument -> the call's parameter or left-hand side
    std::map<std::string, ExprPtr> values_;  // renamed value argument -> its expression
};

// The swept inames of the sub-arrays `insn` passes or returns.
std::vector<std::string> swept_inames(const Instruction& insn) {
    std::vector<std::string> out;
    std::vector<ExprPtr> all = insn.assignees;
    if (insn.expression) all.insert(all.end(), insn.expression->args.begin(), insn.expression->args.end());
    for (const ExprPtr& e : all)
        if (e->kind == ExprKind::SubArrayRef) out.insert(out.end(), e->inames.begin(), e->inames.end());
    return out;
}

bool passes_sub_arrays(const Instruction& insn) {
    std::vector<ExprPtr> all = insn.assignees;
    if (insn.expression) all.insert(all.end(), insn.expression->args.begin(), insn.expression->args.end());
    return std::any_of(all.begin(), all.end(), [](const ExprPtr& e) { return e->kind == ExprKind::SubArrayRef; });
}

// `k` with the calls of `name` in it inlined (its callables' own calls untouched).
Kernel inline_calls(const Kernel& k, const std::string& name, const Kernel& callee) {
    Kernel current = k;
    for (const Instruction& insn : k->instructions) {
        if (!insn.expression || insn.expression->kind != ExprKind::Call || insn.expression->name != name ||
            insn.kind != InsnKind::Assignment)
            continue;
        KernelData out = current.copy();
        CallInliner(*current, *current.find_instruction(insn.id), callee).inline_into(out);
        add_functions(out.functions, callee->functions);
        const std::vector<std::string> swept = swept_inames(insn);
        current = remove_unused_inames(unlinearized_kernel(std::move(out)), swept);
    }
    return current;
}

Kernel callee_of(const KernelData& k, const std::string& name) {
    const auto it = k.callables.find(name);
    user_assert(it != k.callables.end(), error_kind::LoopyError, "inline_callable_kernel: kernel '", k.name,
                "' has no callable named '", name, "'");
    return expand_subst(Kernel(it->second));
}

// Drops callable `name` once nothing calls it any more (loopy's filter_reachable_callables).
void forget_if_unused(KernelData& k, const std::string& name) {
    if (calls(k, name)) return;
    for (const auto& [other, c] : k.callables)
        if (other != name && calls(*c, name)) return;
    k.callables.erase(name);
}

}  // namespace

Kernel merge(const std::vector<Kernel>& kernels) {
    std::vector<Kernel> entrypoints;
    std::map<std::string, std::shared_ptr<const KernelData>> callables;
    const auto add = [&](const std::string& name, const std::shared_ptr<const KernelData>& c) {
        const auto [it, fresh] = callables.emplace(name, c);
        user_assert(fresh || it->second == c, error_kind::LoopyError, "merge: two different kernels are named '", name, "'");
    };
    for (const Kernel& k : kernels) {
        user_assert(k->options.target == kernels.front()->options.target, error_kind::LoopyError,
                    "merge: kernels to be merged must have the same target ('", kernels.front()->name, "' has ",
                    kernels.front()->options.target, ", '", k->name, "' has ", k->options.target, ")");
        if (k->is_entrypoint) entrypoints.push_back(k);
        else add(k->name, k.shared());
        for (const auto& [name, c] : k->callables) add(name, c);
    }
    user_assert(entrypoints.size() == 1, error_kind::LoopyError, "merge: expected exactly one entrypoint (a kernel made by "
                "make_kernel; callees are made by make_function), got ", entrypoints.size());
    KernelData out = entrypoints.front().copy();
    out.callables = std::move(callables);
    return Kernel(std::move(out));
}

Kernel register_callable(const Kernel& caller, const std::string& name, const Kernel& callee) {
    check_name(name, "function name", "register_callable");
    // The callee as it is where nothing needs to change, so that registering it again is no redefinition.
    std::shared_ptr<const KernelData> stored = callee.shared();
    if (callee->name != name || callee->is_entrypoint || !callee->callables.empty()) {
        KernelData c = callee.copy();
        c.name = name;
        c.is_entrypoint = false;
        c.callables.clear();
        stored = std::make_shared<const KernelData>(std::move(c));
    }
    const auto it = caller->callables.find(name);
    user_assert(it == caller->callables.end() || it->second == stored, error_kind::LoopyError,
                "register_callable: redefining function identifier '", name, "' is not allowed");
    KernelData out = caller.copy();
    out.callables.insert(callee->callables.begin(), callee->callables.end());
    out.callables[name] = std::move(stored);
    return Kernel(std::move(out));
}

Kernel inline_callable_kernel(const Kernel& k, const std::string& name) {
    const Kernel callee = callee_of(*k, name);
    user_assert(!calls(*callee, name), error_kind::LoopyError, "inline_callable_kernel: '", name, "' calls itself");
    KernelData out = inline_calls(k, name, callee).copy();
    for (auto& [other, c] : out.callables)
        if (other != name && calls(*c, name)) c = std::make_shared<const KernelData>(inline_calls(Kernel(c), name, callee).copy());
    forget_if_unused(out, name);
    return unlinearized_kernel(std::move(out));
}

Kernel inline_callables(const Kernel& k) {
    Kernel current = k;
    // Each round inlines one level of calls; a kernel calling itself, directly or not, never runs out of them.
    for (std::size_t round = 0;; ++round) {
        const auto next = std::find_if(current->instructions.begin(), current->instructions.end(),
                                       [&](const Instruction& insn) { return called(*current, insn) != nullptr; });
        if (next == current->instructions.end()) break;
        user_assert(round <= 64 * (k->callables.size() + 1), error_kind::LoopyError, "kernel '", k->name,
                    "': calls of callable kernels nest too deep (a kernel that calls itself?)");
        current = inline_callable_kernel(current, next->expression->name);
    }
    for (const Instruction& insn : current->instructions)
        user_assert(!passes_sub_arrays(insn), error_kind::LoopyError, "instruction '", insn.id,
                    "' passes sub-arrays to unknown function '", insn.expression->name,
                    "' (register the callee with lp.merge or lp.register_callable)");
    return current;
}

}  // namespace loom
