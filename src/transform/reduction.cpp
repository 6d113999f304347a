// Sequential realization of reductions, as loopy's realize_reduction does it for loops that are not
// parallel: every reduction becomes a private accumulator, an instruction that sets it to the operation's
// neutral element outside the reduction loops, and one that folds the body into it inside them.
#include <cmath>
#include <deque>
#include <cstdint>
#include <map>
#include <set>

#include "analysis/types.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

bool is_arg_extremum(const std::string& op) { return op == "argmax" || op == "argmin"; }

// Hardware axes, and `vec` inames, whose lanes run at once.
bool is_parallel_tag(const std::string& tag) {
    return tag.rfind("g.", 0) == 0 || tag.rfind("l.", 0) == 0 || tag == "vec";
}

// The smallest (`lowest`) or largest value of an integer type, as an expression.
ExprPtr integer_extreme(DType t, bool lowest) {
    switch (t) {
        case DType::Int8: return int_lit(lowest ? INT8_MIN : INT8_MAX);
        case DType::Int16: return int_lit(lowest ? INT16_MIN : INT16_MAX);
        case DType::Int32: return int_lit(lowest ? INT32_MIN : INT32_MAX);
        case DType::Int64: return int_lit(lowest ? INT64_MIN : INT64_MAX);
        case DType::UInt8: return int_lit(lowest ? 0 : UINT8_MAX);
        case DType::UInt16: return int_lit(lowest ? 0 : UINT16_MAX);
        case DType::UInt32: return int_lit(lowest ? 0 : UINT32_MAX);
        // UINT64_MAX does not fit an integer literal; it is -1 converted.
        case DType::UInt64: return lowest ? int_lit(0) : cast(DType::UInt64, int_lit(-1));
        default: break;
    }
    internal_assert(false, "integer_extreme on ", dtype_name(t));
    return nullptr;
}

// The value every element compares above (`lowest`) or below: infinities for floats, as loopy uses.
ExprPtr extreme(DType t, bool lowest, const ExprPtr& red) {
    if (is_float(t)) return float_lit(lowest ? -INFINITY : INFINITY);
    user_assert(is_integer(t), "TypeInferenceError", "realize_reduction: cannot find the neutral element of '",
                to_string(red), "': its body has type ", dtype_name(t),
                t == DType::Unknown ? " (give the argument types with lp.add_dtypes)" : "");
    return integer_extreme(t, lowest);
}

ExprPtr neutral_element(const ExprPtr& red, DType t) {
    const std::string& op = red->name;
    // Floating sums and products start from a floating literal, as in loopy.
    if (op == "sum" || op == "product") {
        const int v = op == "sum" ? 0 : 1;
        return is_float(t) ? float_lit(v) : int_lit(v);
    }
    if (op == "any" || op == "all") return int_lit(op == "all");
    return extreme(t, op == "max" || op == "argmax", red);
}

// `acc (op) value`: the step of the loop that folds one more element into the accumulator.
ExprPtr fold(const std::string& op, const ExprPtr& acc, const ExprPtr& value) {
    if (op == "sum") return binary(BinOp::Add, acc, value);
    if (op == "product") return binary(BinOp::Mul, acc, value);
    if (op == "any") return binary(BinOp::Or, acc, value);
    if (op == "all") return binary(BinOp::And, acc, value);
    if (op == "max" || op == "argmax") return call("max", {acc, value});
    return call("min", {acc, value});
}

// Names not yet taken by variables, inames, parameters or instructions: `base`, then `base_0`, `base_1`...
// as loopy's UniqueNameGenerator.
class NameGenerator {
public:
    explicit NameGenerator(const KernelData& k) {
        for (const std::vector<Variable>* vars : {&k.args, &k.temporaries})
            for (const Variable& v : *vars) taken_.insert(v.name);
        for (const std::string& n : all_inames(k)) taken_.insert(n);
        for (const std::string& n : all_params(k)) taken_.insert(n);
        for (const Instruction& insn : k.instructions) taken_.insert(insn.id);
    }

    std::string operator()(const std::string& base) {
        std::string name = base;
        for (int n = 0; taken_.count(name); ++n) name = cat(base, "_", n);
        taken_.insert(name);
        return name;
    }

private:
    std::set<std::string> taken_;
};

// The outermost, leftmost reduction of `e`, or null.
ExprPtr first_reduction(const ExprPtr& e) {
    if (e->kind == ExprKind::Reduction) return e;
    for (const ExprPtr& a : e->args)
        if (ExprPtr r = first_reduction(a)) return r;
    return nullptr;
}

ExprPtr replace_node(const ExprPtr& e, const ExprPtr& from, const ExprPtr& to) {
    return rewrite(e, [&](const ExprPtr& n) { return n == from ? to : n; });
}

// An instruction of the realization: a plain assignment in the given loops, under `like`'s predicates.
Instruction assignment_like(const Instruction& like, std::string id, ExprPtr lhs, ExprPtr rhs,
                            std::set<std::string> within, std::set<std::string> deps) {
    Instruction insn;
    insn.id = std::move(id);
    insn.assignees = {std::move(lhs)};
    insn.expression = std::move(rhs);
    insn.within_inames = std::move(within);
    insn.within_inames_is_final = true;
    insn.depends_on = std::move(deps);
    insn.predicates = like.predicates;
    insn.priority = like.priority;
    insn.line = like.line;
    return insn;
}

// Where one reduction is realized: its names and the loops of its init (`outer`) and update (`inner`).
struct Site {
    std::string acc_base;  // "acc_k"
    std::string id_base;   // "insn_k"
    std::set<std::string> outer, inner;
};

class Realizer {
public:
    Realizer(const Kernel& kernel, KernelData& out)
        : kernel_(kernel), out_(out), typed_(*infer_types(kernel, {}, false)), names_(out) {}

    void run() {
        std::deque<Instruction> queue(out_.instructions.begin(), out_.instructions.end());
        out_.instructions.clear();
        while (!queue.empty()) {
            Instruction insn = std::move(queue.front());
            queue.pop_front();
            const ExprPtr red = insn.kind == InsnKind::Assignment ? first_reduction(insn.expression) : nullptr;
            if (!red) {
                out_.instructions.push_back(std::move(insn));
                continue;
            }
            // The new instructions may hold further reductions (nested ones in the update, siblings in the
            // rewritten instruction): they go back to the front of the queue, in execution order.
            std::vector<Instruction> made = realize(insn, red);
            for (auto it = made.rbegin(); it != made.rend(); ++it) queue.push_front(std::move(*it));
        }
    }

private:
    void check_sequential(const Instruction& insn, const ExprPtr& red) const {
        for (const std::string& i : red->inames)
            user_assert(!is_parallel_tag(kernel_.iname_tag(i)), "LoopyError", "realize_reduction: reduction '",
                        to_string(red), "' in instruction '", insn.id, "' is over iname '", i, "' tagged '",
                        kernel_.iname_tag(i), "'; only sequential reductions are supported");
    }

    // A private scalar accumulator; its type is the body's where known, else found later from its writes.
    ExprPtr accumulator(const std::string& base, DType t) {
        Variable acc;
        acc.name = names_(base);
        acc.kind = VarKind::Temporary;
        acc.dtype = t;
        acc.is_array = false;
        acc.address_space = AddressSpace::Private;
        out_.temporaries.push_back(acc);
        return var(acc.name);
    }

    // Reductions nested in an update are named after the instruction that held the outer one, as loopy does.
    std::string origin_of(const std::string& id) const {
        const auto it = origin_.find(id);
        return it == origin_.end() ? id : it->second;
    }

    DType body_type(const ExprPtr& red, std::size_t arg) const {
        if (red->name == "any" || red->name == "all") return DType::Bool;
        return expr_type(typed_, red->args[arg]).dtype;
    }

    Site site_of(const Instruction& insn, const ExprPtr& red) const {
        const std::string tag = "_" + join(red->inames, "_");
        Site s{"acc" + tag, origin_of(insn.id) + tag, insn.within_inames, insn.within_inames};
        for (const std::string& i : red->inames) {
            s.outer.erase(i);
            s.inner.insert(i);
        }
        return s;
    }

    // An instruction inside the reduction loops: a reduction nested in it is named after `insn`'s origin.
    Instruction update_like(const Instruction& insn, const std::string& id, const ExprPtr& acc, ExprPtr rhs,
                            const Site& site, std::set<std::string> deps) {
        origin_[id] = origin_of(insn.id);
        return assignment_like(insn, id, acc, std::move(rhs), site.inner, std::move(deps));
    }

    std::vector<Instruction> realize(const Instruction& insn, const ExprPtr& red) {
        check_sequential(insn, red);
        const Site site = site_of(insn, red);
        const DType t = body_type(red, 0);
        const ExprPtr acc = accumulator(site.acc_base, t);
        if (is_arg_extremum(red->name)) return realize_arg_extremum(insn, red, acc, t, site);

        Instruction init =
            assignment_like(insn, names_(site.id_base + "_init"), acc, neutral_element(red, t), site.outer, {});
        std::set<std::string> update_deps = insn.depends_on;
        update_deps.insert(init.id);
        Instruction update = update_like(insn, names_(site.id_base + "_update"), acc,
                                         fold(red->name, acc, red->args[0]), site, update_deps);
        Instruction rewritten = insn;
        rewritten.expression = replace_node(insn.expression, red, acc);
        rewritten.depends_on.insert(update.id);
        return {std::move(init), std::move(update), std::move(rewritten)};
    }

    // argmax/argmin keep a value and an index accumulator. The index moves only on a strict improvement, so
    // the first extreme element wins (and NaNs never do), and is updated before the value it compares with.
    std::vector<Instruction> realize_arg_extremum(const Instruction& insn, const ExprPtr& red, const ExprPtr& acc,
                                                  DType t, const Site& site) {
        user_assert(insn.expression == red && insn.assignees.size() == 2, "LoopyError", "instruction '", insn.id,
                    "': ", red->name, " must be the whole right-hand side of an assignment to two variables, as in "
                    "'v, i = ", red->name, "(i, a[i], i)'");
        const ExprPtr index_acc = accumulator(site.acc_base, body_type(red, 1));
        const ExprPtr& value = red->args[0];
        const ExprPtr& index = red->args[1];

        const std::string& base = site.id_base;
        Instruction init = assignment_like(insn, names_(base + "_init"), acc, neutral_element(red, t), site.outer, {});
        Instruction index_init =
            assignment_like(insn, names_(base + "_index_init"), index_acc, int_lit(-1), site.outer, {});
        std::set<std::string> deps = insn.depends_on;
        deps.insert({init.id, index_init.id});
        const ExprPtr better = binary(red->name == "argmax" ? BinOp::Gt : BinOp::Lt, value, acc);
        Instruction index_update = update_like(insn, names_(base + "_index_update"), index_acc,
                                               if_then_else(better, index, index_acc), site, deps);
        deps.insert(index_update.id);
        Instruction update = update_like(insn, names_(base + "_update"), acc, fold(red->name, acc, value), site, deps);

        Instruction index_out = assignment_like(insn, names_(insn.id + "_index"), insn.assignees[1], index_acc,
                                                insn.within_inames, insn.depends_on);
        index_out.depends_on.insert(update.id);
        index_out.within_inames_is_final = insn.within_inames_is_final;
        // The value assignment keeps the id, and waits on the index one, so that whatever depends on the
        // instruction sees both results.
        Instruction value_out = insn;
        value_out.assignees = {insn.assignees[0]};
        value_out.expression = acc;
        value_out.depends_on.insert({update.id, index_out.id});
        return {std::move(init), std::move(index_init), std::move(index_update), std::move(update),
                std::move(index_out), std::move(value_out)};
    }

    const Kernel& kernel_;
    KernelData& out_;
    KernelData typed_;  // the kernel with every type known so far, for the accumulators' types
    NameGenerator names_;
    std::map<std::string, std::string> origin_;  // update instruction id -> the instruction it was made for
};

bool has_reduction(const KernelData& k) {
    for (const Instruction& insn : k.instructions)
        if (insn.kind == InsnKind::Assignment && first_reduction(insn.expression)) return true;
    return false;
}

}  // namespace

Kernel realize_reduction(const Kernel& kernel) {
    if (!has_reduction(*kernel)) return kernel;
    KernelData k = kernel.copy();
    Realizer(kernel, k).run();
    k.linearized = false;
    k.linearization.clear();
    return Kernel(std::make_shared<const KernelData>(std::move(k)));
}

}  // namespace loom
