#include "isl/ast_expr.h"

#include <set>

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/id.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "isl/isl.h"
#include "support/error.h"

namespace loom::isl_util {

namespace {

std::int64_t val_to_int(isl_val* v) {
    const isl::val held = isl::manage(v);
    const std::optional<long> r = long_value(held.get());
    internal_assert(r.has_value(), "non-integer value in isl AST");
    return *r;
}

// isl objects are held while Loom's expressions are built from them: building one may throw (an integer
// beyond 64 bits), and what isl allocated must not leak then.
ExprPtr arg(isl_ast_expr* e, int i) {
    const isl::ast_expr a = isl::manage(isl_ast_expr_op_get_arg(e, i));
    return ast_expr_to_expr(a.get());
}

ExprPtr fold(isl_ast_expr* e, const char* fn) {
    // isl's min/max take two or more arguments; Loom's calls take two.
    const int n = isl_ast_expr_op_get_n_arg(e);
    ExprPtr acc = arg(e, 0);
    for (int i = 1; i < n; ++i) acc = call(fn, {acc, arg(e, i)});
    return acc;
}

ExprPtr op_to_expr(isl_ast_expr* e) {
    switch (isl_ast_expr_op_get_type(e)) {
        case isl_ast_expr_op_and:
        case isl_ast_expr_op_and_then: return binary(BinOp::And, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_or:
        case isl_ast_expr_op_or_else: return binary(BinOp::Or, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_max: return fold(e, "max");
        case isl_ast_expr_op_min: return fold(e, "min");
        case isl_ast_expr_op_minus: return unary("-", arg(e, 0));
        case isl_ast_expr_op_add: return binary(BinOp::Add, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_sub: return binary(BinOp::Sub, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_mul: return binary(BinOp::Mul, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_div:
        case isl_ast_expr_op_pdiv_q: return binary(BinOp::CDiv, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_fdiv_q: return binary(BinOp::FloorDiv, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_pdiv_r:
        case isl_ast_expr_op_zdiv_r: return binary(BinOp::CMod, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_cond:
        case isl_ast_expr_op_select: return if_then_else(arg(e, 0), arg(e, 1), arg(e, 2));
        case isl_ast_expr_op_eq: return binary(BinOp::Eq, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_le: return binary(BinOp::Le, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_lt: return binary(BinOp::Lt, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_ge: return binary(BinOp::Ge, arg(e, 0), arg(e, 1));
        case isl_ast_expr_op_gt: return binary(BinOp::Gt, arg(e, 0), arg(e, 1));
        default: internal_assert(false, "unexpected operation in isl AST expression"); return nullptr;
    }
}

}  // namespace

ExprPtr ast_expr_to_expr(isl_ast_expr* e) {
    switch (isl_ast_expr_get_type(e)) {
        case isl_ast_expr_int: return int_lit(val_to_int(isl_ast_expr_int_get_val(e)));
        case isl_ast_expr_id: {
            isl_id* id = isl_ast_expr_id_get_id(e);
            ExprPtr v = var(isl_id_get_name(id));
            isl_id_free(id);
            return v;
        }
        case isl_ast_expr_op: return op_to_expr(e);
        default: internal_assert(false, "invalid isl AST expression"); return nullptr;
    }
}

namespace {

// isl's AST for a schedule with marks (see MarkedLoops), and whether isl wrote some mark more than once: it
// copies a mark onto each part of a body it generates in parts (below a band that runs once, for example),
// which would turn one marked loop around a sequence into a sequence of loops.
struct Conversion {
    const MarkedLoops& marked;
    std::set<std::string> seen;
    bool split = false;
};

AstNode convert(isl_ast_node* n, Conversion& c);

AstNode convert_list(isl_ast_node_list* taken, Conversion& conv) {
    const isl::ast_node_list list = isl::manage(taken);
    AstNode block;
    const int k = isl_ast_node_list_n_ast_node(list.get());
    for (int i = 0; i < k; ++i) {
        const isl::ast_node c = isl::manage(isl_ast_node_list_get_ast_node(list.get(), i));
        AstNode child = convert(c.get(), conv);
        // Flatten nested blocks: isl's block structure carries no meaning for us.
        if (child.kind == AstNode::Kind::Block)
            for (AstNode& g : child.children) block.children.push_back(std::move(g));
        else
            block.children.push_back(std::move(child));
    }
    return block;
}

AstNode as_block(AstNode n) {
    if (n.kind == AstNode::Kind::Block) return n;
    AstNode b;
    b.children.push_back(std::move(n));
    return b;
}

ExprPtr take_expr(isl_ast_expr* e) {
    const isl::ast_expr held = isl::manage(e);
    return ast_expr_to_expr(held.get());
}

AstNode convert_for(isl_ast_node* n, Conversion& conv) {
    AstNode f;
    f.kind = AstNode::Kind::For;
    isl_ast_expr* it = isl_ast_node_for_get_iterator(n);
    isl_id* id = isl_ast_expr_id_get_id(it);
    f.iterator = isl_id_get_name(id);
    isl_id_free(id);
    isl_ast_expr_free(it);
    f.init = take_expr(isl_ast_node_for_get_init(n));
    f.cond = take_expr(isl_ast_node_for_get_cond(n));
    f.inc = take_expr(isl_ast_node_for_get_inc(n));
    const isl::ast_node body = isl::manage(isl_ast_node_for_get_body(n));
    f.children.push_back(as_block(convert(body.get(), conv)));
    return f;
}

AstNode convert_if(isl_ast_node* n, Conversion& conv) {
    AstNode f;
    f.kind = AstNode::Kind::If;
    f.cond = take_expr(isl_ast_node_if_get_cond(n));
    const isl::ast_node then_node = isl::manage(isl_ast_node_if_get_then_node(n));
    f.children.push_back(as_block(convert(then_node.get(), conv)));
    if (isl_ast_node_if_has_else_node(n) == isl_bool_true) {
        const isl::ast_node else_node = isl::manage(isl_ast_node_if_get_else_node(n));
        f.children.push_back(as_block(convert(else_node.get(), conv)));
    }
    return f;
}

AstNode convert_user(isl_ast_node* n) {
    AstNode u;
    u.kind = AstNode::Kind::User;
    const isl::ast_expr call_expr = isl::manage(isl_ast_node_user_get_expr(n));
    isl_ast_expr* fn = isl_ast_expr_op_get_arg(call_expr.get(), 0);
    isl_id* id = isl_ast_expr_id_get_id(fn);
    u.statement = isl_id_get_name(id);
    isl_id_free(id);
    isl_ast_expr_free(fn);
    const int nargs = isl_ast_expr_op_get_n_arg(call_expr.get());
    for (int i = 1; i < nargs; ++i) u.args.push_back(arg(call_expr.get(), i));
    return u;
}

// The loop a mark of `marked` stands for, around `body`.
AstNode marked_loop(const std::string& iterator, std::pair<long, long> range, AstNode body) {
    AstNode f;
    f.kind = AstNode::Kind::For;
    f.iterator = iterator;
    f.init = int_lit(range.first);
    f.cond = binary(BinOp::Le, var(iterator), int_lit(range.second));
    f.inc = int_lit(1);
    f.children.push_back(as_block(std::move(body)));
    return f;
}

AstNode convert_mark(isl_ast_node* n, Conversion& conv) {
    isl_id* id = isl_ast_node_mark_get_id(n);
    const std::string name = isl_id_get_name(id);
    isl_id_free(id);
    conv.split = conv.split || !conv.seen.insert(name).second;
    const isl::ast_node inner = isl::manage(isl_ast_node_mark_get_node(n));
    AstNode out = convert(inner.get(), conv);
    const std::string iterator = name.substr(0, name.find('#'));
    const auto loop = conv.marked.find(iterator);
    return loop == conv.marked.end() ? out : marked_loop(iterator, loop->second, std::move(out));
}

AstNode convert(isl_ast_node* n, Conversion& conv) {
    switch (isl_ast_node_get_type(n)) {
        case isl_ast_node_for: return convert_for(n, conv);
        case isl_ast_node_if: return convert_if(n, conv);
        case isl_ast_node_block: return convert_list(isl_ast_node_block_get_children(n), conv);
        case isl_ast_node_user: return convert_user(n);
        case isl_ast_node_mark: return convert_mark(n, conv);
        default: internal_assert(false, "unexpected isl AST node"); return {};
    }
}

}  // namespace

isl::schedule leaf_schedule(const isl::set& domain, const std::string& name) {
    isl_set* named = isl_set_set_tuple_name(domain.copy(), name.c_str());
    return isl::manage(isl_schedule_from_domain(isl_union_set_from_set(named)));
}

isl::schedule loop_schedule(const isl::schedule& body, const isl::union_map& times) {
    isl_multi_union_pw_aff* band = isl_multi_union_pw_aff_from_union_map(times.copy());
    return isl::manage(isl_schedule_insert_partial_schedule(body.copy(), band));
}

isl::schedule marked_schedule(const isl::schedule& body, const std::string& name) {
    isl_schedule_node* root = isl_schedule_get_root(body.get());
    isl_schedule_node* top = isl_schedule_node_child(root, 0);
    top = isl_schedule_node_insert_mark(top, isl_id_alloc(isl_schedule_get_ctx(body.get()), name.c_str(), nullptr));
    isl_schedule* out = isl_schedule_node_get_schedule(top);
    isl_schedule_node_free(top);
    return isl::manage(out);
}

namespace {

// parts[lo, hi) in sequence, merged as a balanced tree: isl flattens nested sequences by copying the children of
// both sides, so adding one part at a time would take time quadratic in the number of parts.
isl_schedule* sequence_of(const std::vector<isl::schedule>& parts, std::size_t lo, std::size_t hi) {
    if (hi - lo == 1) return parts[lo].copy();
    const std::size_t mid = lo + (hi - lo) / 2;
    return isl_schedule_sequence(sequence_of(parts, lo, mid), sequence_of(parts, mid, hi));
}

}  // namespace

isl::schedule sequence_schedule(const std::vector<isl::schedule>& parts) {
    internal_assert(!parts.empty(), "a sequence of no schedules");
    return isl::manage(sequence_of(parts, 0, parts.size()));
}

namespace {

// The schedule as a map when it is one band of loops (the common one-statement kernel): isl's AST generator
// takes a map faster than the equivalent tree. Null otherwise.
isl_union_map* single_band_map(const isl::schedule& schedule) {
    isl_schedule_node* root = isl_schedule_get_root(schedule.get());
    isl_schedule_node* band = isl_schedule_node_get_child(root, 0);
    isl_union_map* out = nullptr;
    if (isl_schedule_node_get_type(band) == isl_schedule_node_band && isl_schedule_node_n_children(band) == 1) {
        isl_schedule_node* leaf = isl_schedule_node_get_child(band, 0);
        if (isl_schedule_node_get_type(leaf) == isl_schedule_node_leaf)
            out = isl_union_map_intersect_domain(isl_schedule_node_band_get_partial_schedule_union_map(band),
                                                 isl_schedule_get_domain(schedule.get()));
        isl_schedule_node_free(leaf);
    }
    isl_schedule_node_free(band);
    isl_schedule_node_free(root);
    return out;
}

}  // namespace

std::optional<AstNode> generate_ast(const isl::schedule& schedule, const isl::set& context, const MarkedLoops& marked) {
    isl_ast_build* build = isl_ast_build_from_context(context.copy());
    isl_union_map* band = single_band_map(schedule);
    isl_ast_node* tree = band ? isl_ast_build_node_from_schedule_map(build, band)
                              : isl_ast_build_node_from_schedule(build, schedule.copy());
    isl_ast_build_free(build);
    internal_assert(tree != nullptr, "isl could not generate loops for the schedule");
    const isl::ast_node held = isl::manage(tree);
    Conversion conv{marked, {}, false};
    AstNode out = as_block(convert(held.get(), conv));
    if (conv.split) return std::nullopt;
    return out;
}

}  // namespace loom::isl_util
