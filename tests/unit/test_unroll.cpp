// Unrolled loops as loopy's generate_unroll_loop emits them (codegen/unroll.h): one copy of the body per
// value, each under its loop's condition at that value, simplified by isl where the loops around hold.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "codegen/unroll.h"
#include "codegen/isl_ast.h"
#include "isl/isl.h"

using namespace loom;
using namespace loom::isl_util;

namespace {

isl::set set_of(const std::string& text) { return isl::set(ctx(), text); }

// isl's loops for statement S over `domain`, dimension by dimension (iterators c0, c1, ...).
AstNode loops(const std::string& domain, const std::string& context) {
    const isl::set d = set_of(domain);
    isl::schedule s = leaf_schedule(d, "S");
    for (int dim = static_cast<int>(d.tuple_dim()) - 1; dim >= 0; --dim)
        s = loop_schedule(s, isl::union_map(schedule_map(isl::set::universe(d.space()), "S", {dim}, {0})));
    return *generate_ast(s, set_of(context));
}

// The text of `n`: loops, guards and statements with their arguments, one per line.
std::string text(const AstNode& n, int depth = 0) {
    const std::string indent(2 * static_cast<std::size_t>(depth), ' ');
    switch (n.kind) {
        case AstNode::Kind::Block: {
            std::string out;
            for (const AstNode& c : n.children) out += text(c, depth);
            return out;
        }
        case AstNode::Kind::For:
            return indent + "for " + n.iterator + " from " + to_string(n.init) + " while " + to_string(n.cond) + "\n" +
                   text(n.children[0], depth + 1);
        case AstNode::Kind::If: return indent + "if " + to_string(n.cond) + "\n" + text(n.children[0], depth + 1);
        case AstNode::Kind::User: {
            std::string args;
            for (const ExprPtr& a : n.args) args += (args.empty() ? "" : ", ") + to_string(a);
            return indent + n.statement + "(" + args + ")\n";
        }
    }
    return "";
}

}  // namespace

TEST_CASE("unrolled copies carry their own guards, simplified by isl", "[unroll]") {
    // A split by 4 with the inner loop unrolled: the first copy always runs where the outer loop does.
    const std::string split = "[n] -> { [o, i] : 0 <= i < 4 and 0 <= 4o + i < n }";
    const AstNode root = unroll_loops(loops(split, "[n] -> { : n >= 0 }"), {"c1"}, set_of("[n] -> { : n >= 0 }"));
    CHECK(text(root) == "for c0 from 0 while c0 <= (n - 1) // 4\n"
                        "  S(c0, 0)\n"
                        "  if n >= 4*c0 + 2\n    S(c0, 1)\n"
                        "  if n >= 4*c0 + 3\n    S(c0, 2)\n"
                        "  if n >= 4*c0 + 4\n    S(c0, 3)\n");
    // Once n is a multiple of 4 every copy runs: no guards at all.
    const std::string multiple = "[n] -> { : n >= 0 and n mod 4 = 0 }";
    const AstNode plain = unroll_loops(loops(split, multiple), {"c1"}, set_of(multiple));
    CHECK(text(plain).find("if") == std::string::npos);
}

TEST_CASE("loops inside a copy get its value; a copy that never runs is left out", "[unroll]") {
    // i takes 0..2 but only where o >= i: later copies are guarded; k runs up to i in each copy.
    const std::string tri = "[n] -> { [o, i, k] : 0 <= i < 3 and i <= o < n and 0 <= k <= i }";
    const AstNode root = unroll_loops(loops(tri, "[n] -> { : n >= 1 }"), {"c1"}, set_of("[n] -> { : n >= 1 }"));
    const std::string t = text(root);
    INFO(t);
    CHECK(t == "for c0 from 0 while c0 < n\n"
               "  for c2 from 0 while c2 <= 0\n    S(c0, 0, c2)\n"
               "  if c0 >= 1\n    for c2 from 0 while c2 <= 1\n      S(c0, 1, c2)\n"
               "  if c0 >= 2\n    for c2 from 0 while c2 <= 2\n      S(c0, 2, c2)\n");
}

TEST_CASE("a copy that never runs is left out", "[unroll]") {
    // The unrolled loop covers 0..3, but for this tail only 0..1 exist.
    const std::string tail = "{ [i] : 0 <= i < 2 }";
    const AstNode root = unroll_loops(loops(tail, "{ : }"), {"c0"}, set_of("{ : }"));
    CHECK(text(root) == "S(0)\nS(1)\n");
}

TEST_CASE("an AST without unrolled loops is returned as it is", "[unroll]") {
    const AstNode root = loops("[n] -> { [i] : 0 <= i < n }", "[n] -> { : n >= 0 }");
    CHECK(text(unroll_loops(root, {}, set_of("[n] -> { : n >= 0 }"))) == text(root));
}
