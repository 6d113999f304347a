// Realization of reductions, as loopy's realize_reduction. Over loops that are not parallel, every reduction
// becomes a private accumulator, an instruction that sets it to the operation's neutral element outside the
// reduction loops, and one that folds the body into it inside them. Over a local axis it becomes a tree
// reduction in local memory (see realize_local).
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "analysis/types.h"
#include "ir/domain.h"
#include "ir/names.h"
#include "parse/make_kernel.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

bool is_arg_extremum(const std::string& op) { return op == "argmax" || op == "argmin"; }


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
    user_assert(is_integer(t), error_kind::TypeInferenceError, "realize_reduction: cannot find the neutral element of '",
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

// Adds to `out` the conditions under which `target`, a node of `e`, is evaluated: those of the if-expressions
// around it, negated in their else branches. Returns whether `target` was found.
bool branch_conditions(const ExprPtr& e, const ExprPtr& target, std::vector<ExprPtr>& out) {
    if (e == target) return true;
    for (std::size_t n = 0; n < e->args.size(); ++n) {
        if (!branch_conditions(e->args[n], target, out)) continue;
        if (e->kind == ExprKind::If && n > 0) out.push_back(n == 1 ? e->args[0] : unary("not", e->args[0]));
        return true;
    }
    return false;
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

// The global barriers `like` waits for. An initialization waits for them too: else it may run in the device
// kernel before one, and its accumulator would have to live across the barrier (a MissingDefinitionError).
std::set<std::string> global_barriers_before(const KernelData& k, const Instruction& like) {
    std::set<std::string> out;
    for (const std::string& dep : like.depends_on)
        if (const Instruction* d = find_instruction(k, dep); d && d->kind == InsnKind::Barrier && d->barrier_kind == "global")
            out.insert(dep);
    return out;
}

// An accumulator's initialization: in the loops given, under those of `like`'s predicates that read no
// temporary or array, as in loopy. Such a read may come before the variable is set where the initialization
// runs (it depends on no instruction but global barriers); an accumulator set to the neutral element where it
// is not used does no harm.
Instruction accumulator_init(const KernelData& k, const Instruction& like, std::string id, ExprPtr acc,
                             ExprPtr neutral, std::set<std::string> within) {
    Instruction init = assignment_like(like, std::move(id), std::move(acc), std::move(neutral), std::move(within),
                                       global_barriers_before(k, like));
    const auto reads_data = [&](const ExprPtr& p) {
        const std::vector<std::string> names = referenced_names(p);
        return std::any_of(names.begin(), names.end(), [&](const std::string& n) {
            const Variable* v = find_variable(k, n);
            return v && v->kind != VarKind::ValueArg;
        });
    };
    init.predicates.erase(std::remove_if(init.predicates.begin(), init.predicates.end(), reads_data),
                          init.predicates.end());
    return init;
}

// Where one reduction is realized: its names and the loops of its init (`outer`) and update (`inner`).
struct Site {
    std::string acc_base;  // "acc_k"
    std::string id_base;   // "insn_k"
    std::set<std::string> outer, inner;
    std::vector<ExprPtr> guards;  // the if-expression conditions the reduction is evaluated under
};

class Realizer {
public:
    Realizer(const Kernel& kernel, KernelData& out)
        : kernel_(kernel), out_(out), typed_(*infer_types(kernel, {}, false)), names_(out) {}

    // `only`: the ids of the instructions whose reductions are realized (all when unset); what realizing them
    // makes is realized too.
    void run(std::optional<std::set<std::string>> only) {
        std::deque<Instruction> queue(out_.instructions.begin(), out_.instructions.end());
        out_.instructions.clear();
        while (!queue.empty()) {
            Instruction insn = std::move(queue.front());
            queue.pop_front();
            const bool chosen = !only || only->count(insn.id);
            const ExprPtr red = chosen && insn.kind == InsnKind::Assignment ? first_reduction(insn.expression) : nullptr;
            if (!red) {
                out_.instructions.push_back(std::move(insn));
                continue;
            }
            // The new instructions may hold further reductions (nested ones in the update, siblings in the
            // rewritten instruction): they go back to the front of the queue, in execution order.
            std::vector<Instruction> made = realize(insn, red);
            for (auto it = made.rbegin(); it != made.rend(); ++it) {
                if (only) only->insert(it->id);
                queue.push_front(std::move(*it));
            }
        }
    }

private:
    // The local iname a reduction runs over in parallel, or "" for a sequential reduction.
    std::string parallel_iname(const Instruction& insn, const ExprPtr& red) const {
        std::vector<std::string> local, sequential;
        for (const std::string& i : red->inames) {
            const InameTag tag = kernel_.iname_tag(i);
            user_assert(!tag.is_group(), error_kind::LoopyError, "realize_reduction: reduction '", to_string(red),
                        "' in instruction '", insn.id, "' is over iname '", i, "' tagged '", tag,
                        "': work-groups cannot combine their results within one device kernel. Reduce in two "
                        "stages: each group reduces its part over an l.N (or sequential) iname into a global array "
                        "of partial results, and a second kernel (or the same one after a gbarrier) reduces those");
            user_assert(!tag.is_vec(), error_kind::LoopyError, "realize_reduction: reduction '", to_string(red),
                        "' in instruction '", insn.id, "' is over iname '", i,
                        "' tagged 'vec'; only sequential reductions (or tree reductions over one l.N iname) are supported");
            (tag.is_local() ? local : sequential).push_back(i);
        }
        if (local.empty()) return "";
        user_assert(local.size() == 1 && sequential.empty(), error_kind::LoopyError, "realize_reduction: reduction '",
                    to_string(red), "' in instruction '", insn.id, "' is over ", join(red->inames, ", "),
                    ": a parallel reduction runs over exactly one l.N iname and nothing else (split the reduction "
                    "into nested ones)");
        return local[0];
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
        return expr_type(typed_, is_two_valued(red) ? pair_operand(red, arg) : red->args[arg]).dtype;
    }

    Site site_of(const Instruction& insn, const ExprPtr& red) const {
        const std::string tag = "_" + join(red->inames, "_");
        Site s{"acc" + tag, origin_of(insn.id) + tag, insn.within_inames, insn.within_inames, {}};
        branch_conditions(insn.expression, red, s.guards);
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
        // Only where the reduction is evaluated: the terms of `0 if j < 5 else sum(i, a[i+j-5])` may not exist
        // where the condition fails.
        Instruction update = assignment_like(insn, id, acc, std::move(rhs), site.inner, std::move(deps));
        update.predicates.insert(update.predicates.end(), site.guards.begin(), site.guards.end());
        return update;
    }

    std::vector<Instruction> realize(const Instruction& insn, const ExprPtr& red) {
        if (is_arg_extremum(red->name)) check_arg_extremum_form(insn, red);
        if (is_arg_extremum(red->name) && red->args.size() == 1) return realize_inner_pair(insn, red);
        const std::string local = parallel_iname(insn, red);
        const DType t = body_type(red, 0);
        if (!local.empty()) return realize_local(insn, red, local, t);
        const Site site = site_of(insn, red);
        const ExprPtr acc = accumulator(site.acc_base, t);
        if (is_arg_extremum(red->name)) return realize_arg_extremum(insn, red, acc, t, site);

        Instruction init =
            accumulator_init(typed_, insn, names_(site.id_base + "_init"), acc, neutral_element(red, t), site.outer);
        std::set<std::string> update_deps = insn.depends_on;
        update_deps.insert(init.id);
        Instruction update = update_like(insn, names_(site.id_base + "_update"), acc,
                                         fold(red->name, acc, red->args[0]), site, update_deps);
        Instruction rewritten = insn;
        rewritten.expression = replace_node(insn.expression, red, acc);
        rewritten.depends_on.insert(update.id);
        return {std::move(init), std::move(update), std::move(rewritten)};
    }

    void check_arg_extremum_form(const Instruction& insn, const ExprPtr& red) const {
        user_assert(insn.expression == red && insn.assignees.size() == 2, error_kind::LoopyError, "instruction '", insn.id,
                    "': ", red->name, " must be the whole right-hand side of an assignment to two variables, as in "
                    "'v, i = ", red->name, "(i, a[i], i)'");
    }

    // An argmax/argmin of a two-valued reduction, as loopy realizes a tuple-typed reduction argument: the inner
    // one first, in the outer one's loops, into a value and an index temporary, which the outer one then
    // reduces as its value and index.
    std::vector<Instruction> realize_inner_pair(const Instruction& insn, const ExprPtr& red) {
        const ExprPtr& inner = red->args[0];
        Instruction pair = insn;
        pair.id = names_(insn.id + "_" + join(red->inames, "_"));
        pair.expression = inner;
        pair.assignees.clear();
        for (std::size_t n = 0; n < 2; ++n) {
            pair.assignees.push_back(accumulator(cat(pair.id, "_arg", n), body_type(inner, n)));
            typed_.temporaries.push_back(out_.temporaries.back());  // the outer reduction's operands are typed
        }
        pair.within_inames.insert(red->inames.begin(), red->inames.end());
        pair.within_inames_is_final = true;
        origin_[pair.id] = origin_of(insn.id);
        Instruction outer = insn;
        outer.expression = reduction(red->name, red->inames, pair.assignees, red->allow_simultaneous);
        outer.depends_on.insert(pair.id);
        return {std::move(pair), std::move(outer)};
    }

    // argmax/argmin keep a value and an index accumulator. The index moves only on a strict improvement, so
    // the first extreme element wins (and NaNs never do), and is updated before the value it compares with.
    std::vector<Instruction> realize_arg_extremum(const Instruction& insn, const ExprPtr& red, const ExprPtr& acc,
                                                  DType t, const Site& site) {
        const ExprPtr index_acc = accumulator(site.acc_base, body_type(red, 1));
        const ExprPtr& value = red->args[0];
        const ExprPtr& index = red->args[1];

        const std::string& base = site.id_base;
        Instruction init = accumulator_init(typed_, insn, names_(base + "_init"), acc, neutral_element(red, t), site.outer);
        Instruction index_init =
            accumulator_init(typed_, insn, names_(base + "_index_init"), index_acc, int_lit(-1), site.outer);
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

    // --- Parallel reduction over a local iname, as loopy's tree reduction. Each accumulator is a local
    // array with one element per work-item on the reduction's axis (and per work-item of the instruction's
    // own local axes): every work-item sets its element to the neutral element, those in range then to
    // their term, and stages halve the array (work-item s folds in element s + half) until element 0 holds
    // the result, read by work-item 0. Barrier insertion puts the barriers between the stages.

    // What the stages work on: the instruction's local inames (leading accumulator axes) and the extents.
    struct Tree {
        std::string iname;
        InameTag tag;
        long size = 1;
        std::vector<ExprPtr> outer;      // the instruction's local inames, as index expressions
        std::vector<ExprPtr> outer_size;
    };

    Tree tree_of(const Instruction& insn, const std::string& iname) const {
        Tree tree{iname, kernel_.iname_tag(iname), static_extent(*kernel_, iname), {}, {}};
        for (const std::string& o : insn.within_inames)
            if (kernel_.iname_tag(o).is_local()) {
                user_assert(kernel_.iname_tag(o) != tree.tag, error_kind::LoopyError, "realize_reduction: instruction '",
                            insn.id, "' runs on iname '", o, "' tagged '", tree.tag, "', the axis its reduction over '",
                            iname, "' needs");
                tree.outer.push_back(var(o));
                tree.outer_size.push_back(int_lit(static_extent(*kernel_, o)));
            }
        check_uses_all_local_axes(insn, tree);
        return tree;
    }

    // The stages are read-modify-write updates of local memory: work-items of a local axis that neither the
    // instruction nor the reduction runs on would each repeat them and fold partial results in several times
    // (loopy rejects such instructions: they do not use all local hw axes).
    void check_uses_all_local_axes(const Instruction& insn, const Tree& tree) const {
        std::set<InameTag> used = {tree.tag};
        for (const std::string& o : insn.within_inames) used.insert(kernel_.iname_tag(o));
        for (const auto& [other, tag] : kernel_->iname_tags)
            user_assert(tag.kind != InameTag::Kind::Local || used.count(tag), error_kind::LoopyError, "realize_reduction: the tree "
                        "reduction over '", tree.iname, "' (", tree.tag, ") in instruction '", insn.id,
                        "' does not use local axis ", tag, " of iname '", other, "': its work-items would each "
                        "repeat the stages and fold partial results in several times (run the instruction within an "
                        "iname on that axis, or reduce over '", other, "' sequentially)");
    }

    static ExprPtr element(const Tree& tree, const std::string& acc, ExprPtr index) {
        std::vector<ExprPtr> idx = tree.outer;
        idx.push_back(std::move(index));
        return subscript(acc, idx);
    }

    std::string local_accumulator(const Tree& tree, DType t) {
        Variable acc;
        acc.name = names_("acc_" + tree.iname);
        acc.kind = VarKind::Temporary;
        acc.dtype = t;
        acc.address_space = AddressSpace::Local;
        acc.shape = tree.outer_size;
        acc.shape.push_back(int_lit(tree.size));
        set_default_strides(acc);
        out_.temporaries.push_back(acc);
        return acc.name;
    }

    // A new iname on the reduction's axis with `extent` work-items.
    std::string axis_iname(const Tree& tree, const std::string& base, long extent) {
        const std::string name = names_(base);
        out_.domains.push_back(slab_domain(name, int_lit(extent)));
        out_.iname_tags[name] = tree.tag;
        return name;
    }

    // One accumulator of the tree: its array and the term each work-item in range contributes.
    struct Lane {
        std::string acc;
        ExprPtr neutral, term;
    };

    // The stage instructions combining element `s` with element `s + half` of every lane.
    using StageBuilder = std::function<std::vector<Instruction>(const std::string& id, const ExprPtr& s,
                                                                const ExprPtr& above, std::set<std::string> within,
                                                                std::set<std::string> deps)>;

    // The init, transfer and stage instructions of a tree, the iname of work-item 0 after the last stage
    // (where the result is read) and what the reading waits for: the last stage (the transfer if none).
    struct Built {
        std::vector<Instruction> made;
        std::string reader;
        std::set<std::string> last;
    };

    Built build_tree(const Instruction& insn, const Tree& tree,
                                                                const std::vector<Lane>& lanes,
                                                                const StageBuilder& stage) {
        std::vector<Instruction> made;
        const std::string base = origin_of(insn.id) + "_" + tree.iname;
        const std::string all = axis_iname(tree, "red_" + tree.iname, tree.size);
        std::set<std::string> within = insn.within_inames, transfer_deps = insn.depends_on;
        within.insert(all);
        for (const Lane& lane : lanes) {
            // Not under the instruction's predicates: every element must hold the neutral one, as in loopy.
            Instruction init = assignment_like(insn, names_(base + "_init"), element(tree, lane.acc, var(all)),
                                               lane.neutral, within, global_barriers_before(typed_, insn));
            init.predicates.clear();
            transfer_deps.insert(init.id);
            made.push_back(std::move(init));
        }
        within = insn.within_inames;
        within.insert(tree.iname);
        for (const Lane& lane : lanes) {
            Instruction transfer = assignment_like(insn, names_(base + "_transfer"),
                                                   element(tree, lane.acc, var(tree.iname)), lane.term, within,
                                                   transfer_deps);
            origin_[transfer.id] = origin_of(insn.id);
            made.push_back(std::move(transfer));
        }
        // Every stage waits on the init and transfer directly, not only through the stage before it: barrier
        // insertion looks at direct dependencies, and in a loop the next iteration's init must not overwrite
        // what this iteration's last stages still read.
        std::set<std::string> filled;
        for (const Instruction& m : made) filled.insert(m.id);
        std::set<std::string> deps = filled;
        std::string reader = all;
        long width = 1;
        while (width < tree.size) width *= 2;
        for (long bound = tree.size, k = 0; width > 1; bound = width, ++k) {
            width /= 2;
            reader = axis_iname(tree, cat("red_", tree.iname, "_s", k), bound - width);
            within = insn.within_inames;
            within.insert(reader);
            std::vector<Instruction> step = stage(names_(cat("red_", tree.iname, "_stage_", k)), var(reader),
                                                  binary(BinOp::Add, var(reader), int_lit(width)), within, deps);
            deps = filled;
            deps.insert(step.back().id);
            for (Instruction& st : step) made.push_back(std::move(st));
        }
        return {std::move(made), reader, deps};
    }

    std::vector<Instruction> realize_local(const Instruction& insn, const ExprPtr& red, const std::string& iname,
                                           DType t) {
        const Tree tree = tree_of(insn, iname);
        if (is_arg_extremum(red->name)) return realize_local_arg_extremum(insn, red, tree, t);
        const std::string acc = local_accumulator(tree, t);
        const std::string& op = red->name;
        auto stage = [&](const std::string& id, const ExprPtr& s, const ExprPtr& above, std::set<std::string> within,
                         std::set<std::string> deps) {
            const ExprPtr mine = element(tree, acc, s);
            return std::vector<Instruction>{assignment_like(insn, id, mine, fold(op, mine, element(tree, acc, above)),
                                                            std::move(within), std::move(deps))};
        };
        Built built = build_tree(insn, tree, {{acc, neutral_element(red, t), red->args[0]}}, stage);
        Instruction rewritten = insn;
        rewritten.expression = replace_node(insn.expression, red, element(tree, acc, int_lit(0)));
        read_result(rewritten, built);
        built.made.push_back(std::move(rewritten));
        return std::move(built.made);
    }

    // The instruction reading the tree's result runs in work-item 0 of the reduction's axis, after the
    // last stage.
    static void read_result(Instruction& insn, const Built& built) {
        insn.within_inames.insert(built.reader);
        insn.depends_on.insert(built.last.begin(), built.last.end());
    }

    // argmax/argmin: a value and an index array. A stage takes the upper element's index when its value is
    // strictly better, or equal with a smaller index, so that the first extreme element wins as in the
    // sequential realization; the index moves before the value it compares with.
    std::vector<Instruction> realize_local_arg_extremum(const Instruction& insn, const ExprPtr& red,
                                                        const Tree& tree, DType t) {
        const std::string value = local_accumulator(tree, t);
        const std::string index = local_accumulator(tree, body_type(red, 1));
        const BinOp better_op = red->name == "argmax" ? BinOp::Gt : BinOp::Lt;
        auto stage = [&](const std::string& id, const ExprPtr& s, const ExprPtr& above, std::set<std::string> within,
                         std::set<std::string> deps) {
            const ExprPtr v = element(tree, value, s), v_up = element(tree, value, above);
            const ExprPtr i = element(tree, index, s), i_up = element(tree, index, above);
            const ExprPtr better = binary(BinOp::Or, binary(better_op, v_up, v),
                                          binary(BinOp::And, binary(BinOp::Eq, v_up, v), binary(BinOp::Lt, i_up, i)));
            Instruction index_step = assignment_like(insn, names_(id + "_index"), i, if_then_else(better, i_up, i),
                                                     within, std::move(deps));
            Instruction value_step = assignment_like(insn, id, v, fold(red->name, v, v_up), std::move(within),
                                                     {index_step.id});
            return std::vector<Instruction>{std::move(index_step), std::move(value_step)};
        };
        const std::vector<Lane> lanes{{value, neutral_element(red, t), red->args[0]},
                                      {index, int_lit(-1), red->args[1]}};
        Built built = build_tree(insn, tree, lanes, stage);
        Instruction index_out = assignment_like(insn, names_(insn.id + "_index"), insn.assignees[1],
                                                element(tree, index, int_lit(0)), insn.within_inames, insn.depends_on);
        index_out.within_inames_is_final = insn.within_inames_is_final;
        read_result(index_out, built);
        Instruction value_out = insn;
        value_out.assignees = {insn.assignees[0]};
        value_out.expression = element(tree, value, int_lit(0));
        read_result(value_out, built);
        value_out.depends_on.insert(index_out.id);
        built.made.push_back(std::move(index_out));
        built.made.push_back(std::move(value_out));
        return std::move(built.made);
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

Kernel realize_reduction(const Kernel& kernel, const std::optional<std::set<std::string>>& insn_id_filter) {
    if (!has_reduction(*kernel)) return kernel;
    if (insn_id_filter)
        for (const std::string& id : *insn_id_filter)
            user_assert(kernel.find_instruction(id) != nullptr, error_kind::LoopyError, "realize_reduction: no instruction '", id,
                        "' (insn_id_filter)");
    KernelData k = kernel.copy();
    Realizer(kernel, k).run(insn_id_filter);
    return unlinearized_kernel(std::move(k));
}

}  // namespace loom
