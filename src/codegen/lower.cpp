#include "codegen/lower.h"

#include <algorithm>
#include <climits>
#include <map>
#include <cstdlib>
#include <iostream>
#include <set>
#include <sstream>

#include "analysis/types.h"
#include "codegen/atomics.h"
#include "codegen/c_expr.h"
#include "codegen/declarations.h"
#include "codegen/functions.h"
#include "codegen/loop_annotations.h"
#include "codegen/loop_nest.h"
#include "codegen/pre_codegen_checks.h"
#include "preprocess/preprocess.h"
#include "ir/derived.h"
#include "ir/names.h"
#include "analysis/address_space.h"
#include "analysis/bounds.h"
#include "analysis/access_order.h"
#include "analysis/kernel_checks.h"
#include "analysis/write_races.h"
#include "schedule/barriers.h"
#include "schedule/global_barriers.h"
#include "schedule/grid_loops.h"
#include "schedule/kernel_split.h"
#include "schedule/linearize.h"
#include "schedule/verify_linearization.h"
#include "ir/access.h"
#include "ir/affine.h"
#include "ir/domain.h"
#include "ir/listing.h"
#include "ir/layout.h"
#include "isl/isl.h"
#include "support/error.h"
#include "support/limits.h"
#include "support/strings.h"
#include "transform/auto_axes.h"
#include "transform/privatize.h"
#include "transform/transforms.h"

namespace loom {

namespace {

// A comment of the code. Its text holds instruction ids, which are not identifiers: no "*/" or line break in
// it may end the comment and put the rest into the code.
std::string c_comment(const std::string& text) {
    std::string safe = replace_all(text, "*/", "* /");
    std::replace(safe.begin(), safe.end(), '\n', ' ');
    return "/* " + safe + " */";
}

// Names the instructions of a device kernel read and write.
struct Uses {
    std::set<std::string> read, written;
    bool any(const std::string& n) const { return read.count(n) || written.count(n); }
};

Uses uses_of(const KernelData& part) {
    Uses u;
    for (const LinearItem& it : part.linearization) {
        if (it.kind != LinearItem::Kind::RunInstruction) continue;
        const Instruction& insn = *find_instruction(part, it.name);
        for (const std::string& n : read_names(insn)) u.read.insert(n);
        for (const std::string& n : written_names(insn)) u.written.insert(n);
    }
    return u;
}

// The device kernel's parameters: the arrays it touches (an argument with `sep` axes as its separate
// arrays), every value argument, and the global temporaries it touches (allocated by the caller), in that order.
std::vector<KernelParam> kernel_params(const KernelData& part, const Uses& u) {
    std::vector<KernelParam> out;
    for (const Variable& v : part.args) {
        if (v.kind != VarKind::ValueArg && !u.any(v.name)) continue;
        const bool pointer = v.kind != VarKind::ValueArg, written = u.written.count(v.name) != 0;
        const std::vector<SepPiece> pieces = sep_pieces(v);
        for (const SepPiece& piece : pieces) out.push_back({piece.name, v.name, v.dtype, pointer, written});
        if (pieces.empty()) out.push_back({v.name, v.name, v.dtype, pointer, written});
    }
    for (const Variable& t : part.temporaries)
        if (t.address_space == AddressSpace::Global && t.initializer.empty() && u.any(t.name))  // tables: constants
            out.push_back({t.name, t.name, t.dtype, true, u.written.count(t.name) != 0});
    return out;
}

std::string param_decl(const KernelParam& p, const KernelData& k, const Target& t) {
    const Variable& v = *find_variable(k, p.variable);
    if (!p.is_pointer) return t.scalar_type(p.dtype) + " const " + p.name;
    return t.pointer_qualifiers(v) + element_type(v, t) + (p.is_written ? "" : " const") + " *__restrict__ " + p.name;
}

std::string signature(const KernelData& k, const DeviceKernel& dk, const Target& t) {
    std::string params;
    for (std::size_t i = 0; i < dk.params.size(); ++i)
        params += (i ? ", " : "") + param_decl(dk.params[i], k, t);
    return t.kernel_signature(dk, params);
}

class BodyEmitter {
public:
    BodyEmitter(const KernelData& k, const LoopNest& nest, const Uses& uses, CExprPrinter& printer, const Target& t)
        : k_(k), nest_(nest), uses_(uses), printer_(printer), target_(t) {}

    std::string emit() {
        declare_temporaries();
        block(nest_.root, 1);
        return os_.str();
    }

private:
    static std::string indent(int n) { return std::string(2 * static_cast<std::size_t>(n), ' '); }

    void declare_temporaries() {
        bool any = false;
        for (const Variable& t : k_.temporaries) {
            if (t.address_space == AddressSpace::Global || at_program_scope(t, target_) || !uses_.any(t.name)) continue;
            any = true;
            os_ << indent(1) << (t.address_space == AddressSpace::Local ? target_.local_qualifier() : "")
                << temporary_declaration(t, target_, [&](const ExprPtr& size) { return printer_.print(size); }) << ";\n";
        }
        if (any) os_ << "\n";
    }

    void block(const AstNode& b, int depth) {
        std::string last_comment;
        for (const AstNode& c : b.children) {
            const std::string comment = slab_comment(nest_, c, open_loops_);
            const bool fresh = !comment.empty() && !open_slabs_.count(comment);
            if (fresh && comment != last_comment) os_ << indent(depth) << c_comment(comment) << "\n";
            last_comment = comment;
            if (fresh) open_slabs_.insert(comment);
            node(c, depth);
            if (fresh) open_slabs_.erase(comment);
        }
    }

    // A body of one statement goes without braces, as loopy prints it.
    void body(const AstNode& b, int depth) {
        const bool single = b.children.size() == 1 &&
                            !(b.children[0].kind == AstNode::Kind::If && b.children[0].children.size() > 1);
        // A statement that prints nothing (a C barrier, a nop) alone in a body leaves an empty statement.
        if (single && prints_nothing(b.children[0])) return void(os_ << indent(depth + 1) << ";\n");
        // A statement that is a block of its own (an atomic compare-and-swap loop) brings its braces.
        if (single) return node(b.children[0], depth + (is_block_statement(b.children[0]) ? 0 : 1));
        os_ << indent(depth) << "{\n";
        block(b, depth + 1);
        os_ << indent(depth) << "}\n";
    }

    bool prints_nothing(const AstNode& n) const {
        if (n.kind != AstNode::Kind::User) return false;
        const Statement& s = nest_.statements.at(n.statement);
        return s.barrier ? target_.barrier(*s.barrier).empty() : s.insn->kind != InsnKind::Assignment;
    }

    bool is_block_statement(const AstNode& n) const {
        if (n.kind != AstNode::Kind::User) return false;
        const Instruction* insn = nest_.statements.at(n.statement).insn;
        return insn && insn->atomic && insn->predicates.empty() && atomic_needs_block(k_, target_, *insn);
    }

    std::string loop_condition(const ExprPtr& cond) {
        // isl writes `i < e` or `i <= e`; loopy prints `i <= e - 1` with the constant first.
        if (cond->kind == ExprKind::Binary && cond->op == BinOp::Lt)
            return printer_.print(binary(BinOp::Le, cond->args[0], binary(BinOp::Sub, cond->args[1], int_lit(1))));
        return printer_.print(cond);
    }

    void node(const AstNode& n, int depth) {
        using Kind = AstNode::Kind;
        switch (n.kind) {
            case Kind::Block: block(n, depth); break;
            case Kind::For: {
                printer_.set_statement_inames({});  // bounds and guards: no statement's domain holds where they run
                const bool unit = n.inc->kind == ExprKind::IntLit && n.inc->ival == 1;
                if (starts_parallel_region(n.iterator)) os_ << indent(depth) << parallel_pragma();
                if (const std::string p = unroll_pragma(k_, n.iterator, target_); !p.empty()) os_ << indent(depth) << p;
                os_ << indent(depth) << "for (" << target_.scalar_type(k_.options.index_dtype) << " " << n.iterator << " = " << printer_.print(n.init) << "; "
                    << loop_condition(n.cond) << "; "
                    << (unit ? "++" + n.iterator : n.iterator + " += " + printer_.print(n.inc)) << ")\n";
                open_loops_.push_back(n.iterator);
                if (const std::vector<ExprPtr> exits = exit_conditions(n); !exits.empty())
                    body_with_exits(n.children[0], exits, depth);
                else
                    body(n.children[0], depth);
                open_loops_.pop_back();
                break;
            }
            case Kind::If:
                printer_.set_statement_inames({});
                os_ << indent(depth) << "if (" << printer_.guard(n.cond) << ")\n";
                body(n.children[0], depth);
                if (n.children.size() > 1) {
                    os_ << indent(depth) << "else\n";
                    body(n.children[1], depth);
                }
                break;
            case Kind::User: statement(n, depth); break;
        }
    }

    // The conditions on which a sequential loop is left at the start of an iteration: a predicate of every
    // statement of the loop on private scalars some of those statements write (OKL's `break` flag) fails,
    // where the predicates every statement checks before it hold. No statement of the loop can run then, nor
    // make the predicate hold again, and no other code runs until the loop ends, so the remaining iterations
    // would do nothing. The flag is read only where the statements would read it (C's && evaluates in order):
    // elsewhere it may never have been set (OKL sets it under the predicates around the loop; reading it there
    // is undefined, and PoCL's compiler made the kernel store nothing). None where the loop holds a barrier or
    // runs on a hardware axis or unrolled, or where the predicates read an iname without a value there.
    std::vector<ExprPtr> exit_conditions(const AstNode& loop) const {
        const InameTag tag = iname_tag(k_, loop.iterator);
        if (tag.is_concurrent() || tag.is_unrolled()) return {};
        std::vector<const Instruction*> insns;
        if (!predicated_statements(loop, insns) || insns.empty()) return {};
        // The predicates every statement checks first, in the same order.
        const std::vector<ExprPtr>& first = insns[0]->predicates;
        std::vector<std::string> shared;
        for (const ExprPtr& p : first) shared.push_back(to_string(p));
        for (const Instruction* insn : insns) {
            std::size_t same = 0;
            while (same < shared.size() && same < insn->predicates.size() && to_string(insn->predicates[same]) == shared[same]) ++same;
            shared.resize(same);
        }
        std::set<std::string> written;
        for (const Instruction* insn : insns)
            for (const ExprPtr& a : insn->assignees) written.insert(a->name);
        std::vector<ExprPtr> out;
        const auto and_then = [](const ExprPtr& a, const ExprPtr& b) { return a ? binary(BinOp::And, a, b) : b; };
        ExprPtr before;  // the shared predicates before the one at hand
        for (std::size_t i = 0; i < shared.size(); ++i) {
            const std::vector<std::string> names = referenced_names(first[i]);
            const bool changes = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return written.count(n) > 0; });
            const ExprPtr cond = and_then(before, unary("not", first[i]));
            if (changes && on_private_scalars(names) && defined_here(cond)) out.push_back(cond);
            before = and_then(before, first[i]);
        }
        return out;
    }

    // Whether every iname `e` reads has a value where a loop's body begins: a loop around it, or a work-item id
    // (an iname whose loop isl did not write stands for the one value its statements are given instead).
    bool defined_here(const ExprPtr& e) const {
        const std::vector<std::string> names = referenced_names(e);
        return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
            if (!is_iname(k_, name)) return true;
            if (std::find(open_loops_.begin(), open_loops_.end(), name) != open_loops_.end()) return true;
            return !target_.runs_on_host() && iname_tag(k_, name).is_hardware();
        });
    }

    // The instructions that print code under `n`; false, as soon as it is found, where `n` holds a barrier or
    // one without a predicate (most loops: then no exit, and the walk ends at the first statement).
    bool predicated_statements(const AstNode& n, std::vector<const Instruction*>& out) const {
        if (n.kind == AstNode::Kind::User) {
            const Statement& s = nest_.statements.at(n.statement);
            if (s.barrier) return false;
            if (s.insn->kind != InsnKind::Assignment) return true;
            out.push_back(s.insn);
            return !s.insn->predicates.empty();
        }
        return std::all_of(n.children.begin(), n.children.end(),
                           [&](const AstNode& c) { return predicated_statements(c, out); });
    }

    bool on_private_scalars(const std::vector<std::string>& names) const {
        return std::all_of(names.begin(), names.end(), [&](const std::string& name) {
            const Variable* v = find_variable(k_, name);
            return v && v->kind == VarKind::Temporary && v->address_space == AddressSpace::Private && !v->is_array;
        });
    }

    void body_with_exits(const AstNode& b, const std::vector<ExprPtr>& exits, int depth) {
        printer_.set_statement_inames({});
        os_ << indent(depth) << "{\n";
        for (const ExprPtr& exit : exits)
            os_ << indent(depth + 1) << "if (" << printer_.print(exit) << ")\n" << indent(depth + 2) << "break;\n";
        block(b, depth + 1);
        os_ << indent(depth) << "}\n";
    }

    void barrier(const LinearItem& b, int depth) {
        const std::string comment = b.comment.empty() ? "" : " " + c_comment(b.comment);
        user_assert(b.sync_kind != "global", error_kind::LoopyError,
                    "global barriers need the kernel split into several device kernels, which this code generator "
                    "does not do yet");
        if (const std::string text = target_.barrier(b); !text.empty()) os_ << indent(depth) << text << comment << ";\n";
    }

    void statement(const AstNode& n, int depth) {
        const Statement& s = nest_.statements.at(n.statement);
        std::map<std::string, ExprPtr> subst;
        for (std::size_t j = 0; j < s.loops.size(); ++j) subst[s.loops[j]] = n.args[j];
        auto inst = [&](const ExprPtr& e) { return substitute(e, subst); };
        if (s.barrier) return barrier(*s.barrier, depth);
        const Instruction& insn = *s.insn;
        if (insn.kind != InsnKind::Assignment) return;
        user_assert(insn.assignees.size() == 1 || is_tuple_assignment(insn), error_kind::LoopyError, "instruction '", insn.id,
                    "' assigns several values; only reductions and make_tuple (one value per assignee) may do that");
        printer_.set_statement_inames({insn.within_inames.begin(), insn.within_inames.end()});
        printer_.set_vector_iname(s.vector_iname);
        std::vector<std::string> lines;
        if (insn.atomic)
            lines = atomic_assignment(k_, printer_, target_, insn, inst(insn.assignees[0]), inst(insn.expression));
        else if (insn.assignees.size() == 1)
            lines = {printer_.assignment(inst(insn.assignees[0]), inst(insn.expression))};
        else
            for (std::size_t v = 0; v < insn.assignees.size(); ++v)
                lines.push_back(printer_.assignment(inst(insn.assignees[v]), inst(insn.expression->args[v])));
        if (lines.size() > 1 && !insn.atomic && !insn.predicates.empty()) {  // one statement under the predicates
            for (std::string& line : lines) line = "  " + line;
            lines.insert(lines.begin(), "{");
            lines.push_back("}");
        }
        if (!insn.predicates.empty()) {
            ExprPtr cond;
            for (const ExprPtr& p : insn.predicates) cond = cond ? binary(BinOp::And, cond, inst(p)) : inst(p);
            os_ << indent(depth) << "if (" << printer_.print(cond) << ")\n";
            if (lines.size() == 1) ++depth;  // a block brings its braces
        }
        std::size_t bytes = 0;
        for (const std::string& line : lines) {
            os_ << indent(depth) << line << "\n";
            bytes += line.size();
        }
        stage_work(bytes);
    }

    // On a target that runs on the host the outermost group-axis loop runs its iterations on OpenMP threads.
    bool starts_parallel_region(const std::string& iname) {
        if (!target_.runs_on_host() || in_parallel_region_) return false;
        if (!iname_tag(k_, iname).is_group()) return false;
        in_parallel_region_ = true;
        return true;
    }

    // Private and local temporaries are per work-item and per group: each thread needs its own copy of
    // those the body declares up front (the scratch values of atomics are declared in their own blocks).
    // Global ones are parameters, shared by all.
    std::string parallel_pragma() const {
        std::vector<std::string> priv;
        for (const Variable& t : k_.temporaries)
            if (t.address_space != AddressSpace::Global && !at_program_scope(t, target_) && uses_.any(t.name))
                priv.push_back(t.name);
        return "#pragma omp parallel for" + (priv.empty() ? std::string() : " private(" + join(priv, ", ") + ")") + "\n";
    }

    const KernelData& k_;
    const LoopNest& nest_;
    const Uses& uses_;
    CExprPrinter& printer_;
    const Target& target_;
    std::ostringstream os_;
    bool in_parallel_region_ = false;
    std::vector<std::string> open_loops_;  // the loops around the node being emitted, outermost first
    std::set<std::string> open_slabs_;     // the slabs the node being emitted is in (already commented)
};

// Extents of the hardware axes: the number of groups and the work-group size, functions of the parameters.
// A work-group size is a constant where one bounds its inames (reqd_work_group_size needs one), else as
// loopy a value computed at launch (`l.0` over `0 <= i < n`). Several inames on one axis: the grid covers the
// largest.
using AxisExtents = std::vector<std::optional<isl::pw_aff>>;

void record_axis(AxisExtents& axes, std::size_t n, const isl::pw_aff& extent) {
    if (axes.size() <= n) axes.resize(n + 1);
    axes[n] = axes[n] ? isl_util::union_max(*axes[n], extent) : extent;
}

void set_grid(const KernelData& k, DeviceKernel& dk) {
    std::vector<std::vector<std::string>> group_inames;  // per group axis
    AxisExtents parametric_local;
    std::vector<std::optional<long>> local;  // per local axis: the largest constant size of its inames
    const isl::set ctx = assumption_context(k);
    for (const std::string& h : hardware_inames(k)) {
        const InameTag tag = iname_tag(k, h);
        const auto n = static_cast<std::size_t>(tag.number);
        user_assert(n < 3, error_kind::LoopyError, "iname '", h, "' is tagged ", tag, ": only axes 0, 1 and 2 exist");
        const isl::set values = domain_of(k, {h});
        if (tag.is_group()) {
            if (group_inames.size() <= n) group_inames.resize(n + 1);
            group_inames[n].push_back(h);
            continue;
        }
        if (local.size() <= n) local.resize(n + 1);
        if (const std::optional<long> size = isl_util::static_extent(values))
            local[n] = std::max(local[n].value_or(1), *size);
        else
            record_axis(parametric_local, n, hardware_extent(k, h));
    }
    for (const std::vector<std::string>& inames : group_inames) {
        const std::optional<isl::pw_aff> g = inames.empty() ? std::nullopt : std::optional(group_count(k, inames));
        dk.groups.push_back(g ? affine::pw_aff_to_expr(*g, ctx) : int_lit(1));
        // Work-group ids have the index type too (hardware inames start at 0, their extent is their end).
        if (dk.groups.back()->kind == ExprKind::IntLit)
            check_index_value(k, dk.groups.back()->ival, "generate_code",
                              cat("the number of work-groups on axis ", dk.groups.size() - 1, ","));
        dk.groups_isl.push_back(g ? isl_util::to_str(*g) : "{ [(1)] }");
    }
    for (std::size_t n = 0; n < local.size(); ++n) {
        if (n < parametric_local.size() && parametric_local[n]) {
            isl::pw_aff size = *parametric_local[n];
            if (local[n]) {
                const isl::set constant(isl_util::ctx(), cat("{ [x] : 0 <= x < ", *local[n], " }"));
                const isl::pw_aff fixed = isl_util::extent(constant, 0, ctx);
                size = isl_util::union_max(size, fixed);
            }
            dk.local.push_back(affine::pw_aff_to_expr(size, ctx));
            dk.local_isl.push_back(isl_util::to_str(size));
            continue;
        }
        dk.local.push_back(int_lit(local[n].value_or(1)));
        dk.local_isl.push_back(cat("{ [(", local[n].value_or(1), ")] }"));
    }
    if (dk.groups.empty()) {
        dk.groups = {int_lit(1)};
        dk.groups_isl = {"{ [(1)] }"};
    }
    if (dk.local.empty()) {
        dk.local = {int_lit(1)};
        dk.local_isl = {"{ [(1)] }"};
    }
}

}  // namespace

namespace {

// Loop variables have the kernel's index type: a loop whose values, or the value after its last one, fall
// outside it would wrap around. isl writes the constant bounds of a loop as literals.
void check_index_range(const KernelData& k, const AstNode& n) {
    if (n.kind == AstNode::Kind::For) {
        visit(n.init, [&](const ExprPtr& e) {
            if (e->kind == ExprKind::IntLit)
                check_index_value(k, e->ival, "generate_code", cat("the start of iname '", n.iterator, "',"));
        });
        visit(n.cond, [&](const ExprPtr& e) {
            if (e->kind == ExprKind::IntLit && e->ival < INT64_MAX)
                check_index_value(k, e->ival + 1, "generate_code", cat("the end of iname '", n.iterator, "',"));
        });
    }
    for (const AstNode& c : n.children) check_index_range(k, c);
}

}  // namespace

namespace {

// In a device kernel, the inames of the host loops around it are values that the host passes: parameters of
// its domains, not loops. The host keeps to the loops' bounds, so the device kernel assumes them (and a
// domain left without inames says nothing more).
void host_loops_as_parameters(const KernelData& k, KernelData& part, const std::vector<std::string>& host_loops) {
    if (host_loops.empty()) return;
    const isl::set bounds = isl_util::dims_to_params(domain_of(k, host_loops), host_loops).params();
    part.assumptions = isl_util::align_params(part.assumptions, bounds.space()).intersect(
        isl_util::align_params(bounds, part.assumptions.space()));
    std::vector<isl::set> domains;
    for (const isl::set& d : part.domains) {
        const isl::set moved = isl_util::dims_to_params(d, host_loops);
        if (!isl_util::set_dim_names(moved).empty() || isl_util::set_dim_names(d).empty()) domains.push_back(moved);
    }
    part.domains = std::move(domains);
    for (Instruction& insn : part.instructions)
        for (const std::string& h : host_loops) insn.within_inames.erase(h);
    for (const std::string& h : host_loops) {
        part.iname_tags.erase(h);
        Variable v;
        v.name = h;
        v.kind = VarKind::ValueArg;
        v.dtype = part.options.index_dtype;
        v.is_array = false;
        part.args.push_back(std::move(v));
    }
}

// The parameters of the host function: those of every device kernel, once, but the host loops' inames.
std::vector<KernelParam> host_params(const GeneratedCode& code, const std::set<std::string>& host_inames) {
    std::vector<KernelParam> out;
    std::map<std::string, std::size_t> index;
    for (const DeviceKernel& dk : code.kernels)
        for (const KernelParam& p : dk.params) {
            if (host_inames.count(p.name)) continue;
            const auto [it, added] = index.emplace(p.name, out.size());
            if (added) out.push_back(p);
            else out[it->second].is_written = out[it->second].is_written || p.is_written;
        }
    return out;
}

void collect_host_inames(const HostProgram& program, std::set<std::string>& out) {
    for (const HostStep& s : program)
        if (s.kind == HostStep::Kind::Loop) {
            out.insert(s.iname);
            collect_host_inames(s.body, out);
        }
}

class HostCodeWriter {
public:
    HostCodeWriter(const KernelData& k, const GeneratedCode& code, const Target& target)
        : k_(k), code_(code), target_(target), printer_(k, target) {}

    // On a target that runs on the host a C function calling the device kernels; on device targets the launch
    // sequence, each launch with its grid.
    std::string write() {
        std::set<std::string> host_inames;
        collect_host_inames(code_.host, host_inames);
        std::string out;
        if (target_.runs_on_host()) {
            std::string params;
            for (const KernelParam& p : host_params(code_, host_inames))
                params += (params.empty() ? "" : ", ") + param_decl(p, k_, target_);
            out = "void _lpy_host_" + k_.name + "(" + params + ")\n";
        } else {
            out = "/* the launches of the device kernels: groups and work-items per group on each axis */\n";
        }
        return out + "{\n" + steps(code_.host, "  ") + "}\n";
    }

private:
    std::string steps(const HostProgram& program, const std::string& indent) {
        std::string out;
        for (const HostStep& s : program) {
            if (s.kind == HostStep::Kind::Launch) {
                out += indent + launch(code_.kernels.at(s.kernel)) + "\n";
                continue;
            }
            out += cat(indent, "for (", target_.scalar_type(k_.options.index_dtype), " ", s.iname, " = ", printer_.print(s.lower),
                       "; ", s.iname, " <= ", printer_.print(s.upper), "; ++", s.iname, ")\n", indent, "{\n");
            out += steps(s.body, indent + "  ") + indent + "}\n";
        }
        return out;
    }

    std::string launch(const DeviceKernel& dk) {
        std::vector<std::string> args;
        for (const KernelParam& p : dk.params) args.push_back(p.name);
        std::string out = dk.name + "(" + join(args, ", ") + ");";
        if (target_.runs_on_host()) return out;
        return out + "  /* groups (" + grid_text(dk.groups) + "), work-items (" + grid_text(dk.local) + ") */";
    }

    std::string grid_text(const std::vector<ExprPtr>& sizes) {
        std::vector<std::string> out;
        for (const ExprPtr& e : sizes) out.push_back(printer_.print(e));
        return join(out, ", ");
    }

    const KernelData& k_;
    const GeneratedCode& code_;
    const Target& target_;
    CExprPrinter printer_;
};

}  // namespace

// The code of a preprocessed kernel for one target, computed now (emit_code keeps it with the kernel).
GeneratedCode emit_code_now(const Kernel& k, TargetKind kind) {
    const Target& target = target_of(kind);
    check_before_code_generation(*k, target);
    CExprPrinter helpers(*k, target);  // collects what the device kernels' code uses
    GeneratedCode out;
    std::string kernels_text;
    // Unrolled copies and printed statements are charged as they grow, and the deadline checked among them.
    const StageScope stage("generating code");
    for (const DeviceSegment& seg : device_segments(*k)) {
        KernelData edit = k.copy();
        edit.name = seg.name;
        edit.linearization = seg.items;
        host_loops_as_parameters(*k, edit, seg.host_loops);
        // A target that runs on the host runs the grid as loops, per device kernel.
        if (target.runs_on_host())
            edit = grid_as_loops(Kernel(std::move(edit))).copy();
        add_atomic_scratch_variables(edit);
        // Held by a Kernel, the device kernel no longer changes: what the stages below derive is cached.
        const Kernel device(std::move(edit));
        const KernelData& part = *device;
        const Uses uses = uses_of(part);
        const LoopNest nest = build_loop_nest(part, target);
        out.isl_ast_seconds += nest.isl_ast_seconds;
        check_deadline("building the loop nest");
        check_index_range(part, nest.root);
        DeviceKernel dk;
        dk.name = target.kernel_symbol(seg.name);
        dk.params = kernel_params(part, uses);
        set_grid(part, dk);
        CExprPrinter printer(part, target);
        if (!target.runs_on_host())
            for (const std::string& h : hardware_inames(part))
                printer.set_hardware_text(h, target.hardware_index(iname_tag(part, h)));
        BodyEmitter emitter(part, nest, uses, printer, target);
        const std::string body = emitter.emit();
        helpers.adopt_helpers(printer);
        check_deadline("emitting code");
        const std::string sig = signature(part, dk, target);
        kernels_text += (kernels_text.empty() ? "" : "\n") + sig + "\n{\n" + body + "}\n";
        out.header += (out.header.empty() ? "" : "\n") + sig + ";";
        out.kernels.push_back(std::move(dk));
    }
    const std::string functions = scalar_function_definitions(*k, target, helpers);
    out.device_code = target.preamble(*k) + program_scope_declarations(*k, target) + helpers.helper_definitions() +
                      functions + kernels_text;
    out.host = host_program(*k);
    out.host_code = HostCodeWriter(*k, out, target).write();
    return out;
}

GeneratedCode emit_code(const Kernel& k, TargetKind target) {
    return *stage_result<GeneratedCode>(*k, cat("code for target ", static_cast<int>(target)), [&] { return emit_code_now(k, target); });
}

GeneratedCode generate_code(const Kernel& kernel, TargetKind target, const std::map<std::string, DType>& dtypes) {
    double legality_seconds = 0;
    const Kernel preprocessed = preprocess_kernel(kernel, dtypes, &legality_seconds);
    GeneratedCode out = emit_code(preprocessed, target);
    out.legality_seconds = legality_seconds;
    return out;
}

}  // namespace loom
