#include "codegen/isl_ast.h"

#include <set>
#include <sstream>

#include "ir/ast_expr.h"
#include "isl/isl.h"
#include "isl/relations.h"
#include "support/error.h"
#include "support/limits.h"

namespace loom {

namespace {

using affine::ast_expr_to_expr;

// isl's AST for a schedule with marks (see MarkedLoops), and whether isl wrote some mark more than once: it
// copies a mark onto each part of a body it generates in parts (below a band that runs once, for example),
// which would turn one marked loop around a sequence into a sequence of loops.
struct Conversion {
    const MarkedLoops& marked;
    std::set<std::string> seen;
    bool split = false;
};

AstNode convert(const isl::ast_node& n, Conversion& c);

AstNode convert_block(const isl::ast_node_block& b, Conversion& conv) {
    const isl::ast_node_list list = b.children();
    AstNode block;
    for (unsigned i = 0; i < list.size(); ++i) {
        AstNode child = convert(list.at(static_cast<int>(i)), conv);
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

AstNode convert_for(const isl::ast_node_for& n, Conversion& conv) {
    AstNode f;
    f.kind = AstNode::Kind::For;
    f.iterator = n.iterator().as<isl::ast_expr_id>().id().name();
    f.init = ast_expr_to_expr(n.init());
    f.cond = ast_expr_to_expr(n.cond());
    f.inc = ast_expr_to_expr(n.inc());
    f.children.push_back(as_block(convert(n.body(), conv)));
    return f;
}

AstNode convert_if(const isl::ast_node_if& n, Conversion& conv) {
    AstNode f;
    f.kind = AstNode::Kind::If;
    f.cond = ast_expr_to_expr(n.cond());
    f.children.push_back(as_block(convert(n.then_node(), conv)));
    if (n.has_else_node()) f.children.push_back(as_block(convert(n.else_node(), conv)));
    return f;
}

AstNode convert_user(const isl::ast_node_user& n) {
    AstNode u;
    u.kind = AstNode::Kind::User;
    const isl::ast_expr_op call_expr = n.expr().as<isl::ast_expr_op>();
    u.statement = call_expr.arg(0).as<isl::ast_expr_id>().id().name();
    for (unsigned i = 1; i < call_expr.n_arg(); ++i) u.args.push_back(ast_expr_to_expr(call_expr.arg(static_cast<int>(i))));
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

AstNode convert_mark(const isl::ast_node_mark& n, Conversion& conv) {
    const std::string name = n.id().name();
    conv.split = conv.split || !conv.seen.insert(name).second;
    AstNode out = convert(n.node(), conv);
    const std::string iterator = name.substr(0, name.find('#'));
    const auto loop = conv.marked.find(iterator);
    return loop == conv.marked.end() ? out : marked_loop(iterator, loop->second, std::move(out));
}

AstNode convert(const isl::ast_node& n, Conversion& conv) {
    if (n.isa<isl::ast_node_for>()) return convert_for(n.as<isl::ast_node_for>(), conv);
    if (n.isa<isl::ast_node_if>()) return convert_if(n.as<isl::ast_node_if>(), conv);
    if (n.isa<isl::ast_node_block>()) return convert_block(n.as<isl::ast_node_block>(), conv);
    if (n.isa<isl::ast_node_user>()) return convert_user(n.as<isl::ast_node_user>());
    internal_assert(n.isa<isl::ast_node_mark>(), "unexpected isl AST node");
    return convert_mark(n.as<isl::ast_node_mark>(), conv);
}

// parts[lo, hi) in sequence, merged as a balanced tree: isl flattens nested sequences by copying the children of
// both sides, so adding one part at a time would take time quadratic in the number of parts.
isl::schedule sequence_of(const std::vector<isl::schedule>& parts, std::size_t lo, std::size_t hi) {
    if (hi - lo == 1) return parts[lo];
    const std::size_t mid = lo + (hi - lo) / 2;
    return isl_util::sequence(sequence_of(parts, lo, mid), sequence_of(parts, mid, hi));
}

// The schedule as a map when it is one band of loops (the common one-statement kernel): isl's AST generator
// takes a map faster than the equivalent tree. nullopt otherwise.
std::optional<isl::union_map> single_band_map(const isl::schedule& schedule) {
    const isl::schedule_node band = schedule.root().child(0);
    if (!band.isa<isl::schedule_node_band>() || band.n_children() != 1 ||
        !band.child(0).isa<isl::schedule_node_leaf>())
        return std::nullopt;
    const isl::union_map times = isl::union_map::from(band.as<isl::schedule_node_band>().partial_schedule());
    return times.intersect_domain(schedule.domain());
}

}  // namespace

isl::schedule leaf_schedule(const isl::set& domain, const std::string& name) {
    return isl::schedule::from_domain(isl::union_set(isl_util::with_tuple_name(domain, name)));
}

isl::schedule loop_schedule(const isl::schedule& body, const isl::union_map& times) {
    return isl_util::insert_band(body, times);
}

isl::schedule marked_schedule(const isl::schedule& body, const std::string& name) {
    return body.root().child(0).insert_mark(isl_util::named_id(name)).schedule();
}

isl::schedule sequence_schedule(const std::vector<isl::schedule>& parts) {
    internal_assert(!parts.empty(), "a sequence of no schedules");
    return sequence_of(parts, 0, parts.size());
}

namespace {

// isl's AST for `schedule`. isl 0.25 fails on some statement domains with several divisions ("input involves
// unknown divs": finding 29 of docs/reliability.md): a LoopyError that names them, not an InternalError.
isl::ast_node ast_of(const isl::schedule& schedule, const isl::set& context) {
    const isl::ast_build build = isl::ast_build::from_context(context);
    const std::optional<isl::union_map> band = single_band_map(schedule);
    try {
        return band ? build.node_from_schedule_map(*band) : build.node_from(schedule);
    } catch (const isl::exception& e) {
        std::ostringstream domains;
        domains << schedule.domain();
        throw Error(error_kind::LoopyError, cat("isl's AST generator cannot build the loops of the statement domains ",
                                                domains.str(), " (", e.what(), "): simplify the domain's divisions"));
    }
}

}  // namespace

std::optional<AstNode> generate_ast(const isl::schedule& schedule, const isl::set& context, const MarkedLoops& marked,
                                    double* isl_seconds) {
    const double start = thread_cpu_seconds();
    const isl::ast_node tree = ast_of(schedule, context);
    if (isl_seconds) *isl_seconds += thread_cpu_seconds() - start;
    Conversion conv{marked, {}, false};
    AstNode out = as_block(convert(tree, conv));
    if (conv.split) return std::nullopt;
    return out;
}

}  // namespace loom
