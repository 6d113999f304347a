// Loom's isl helpers (src/isl/) and their bridge to expressions (src/ir/affine.h): domain parsing with
// automatic parameters, expressions as affine functions, projections, extents and index boxes, schedule maps,
// and isl's AST as Loom's tree. References are isl objects parsed from text, compared semantically, or values
// at fixed parameters.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "helpers.h"
#include "codegen/isl_ast.h"
#include "ir/affine.h"
#include "isl/budget.h"
#include "isl/isl.h"
#include "parse/domain_text.h"
#include "parse/instructions.h"
#include "support/error.h"

using namespace loom;
using namespace loom::isl_util;
using namespace loom::affine;

namespace {

using Names = std::vector<std::string>;

isl::set set_of(const std::string& text) { return isl::set(ctx(), text); }

std::optional<std::string> raised_kind(const std::string& domain) {
    const std::optional<Error> e = test::error_of([&] { parse_domain(domain); });
    return e ? std::optional(e->kind()) : std::nullopt;
}

// The value of a function of the parameters where the parameters satisfy `fixed` ("n = 5").
long value_where(const isl::pw_aff& f, const std::string& fixed) {
    const isl::set params = align_params(parse_assumptions(fixed), f.space());
    const isl::val v = f.intersect_params(params).max_val();
    REQUIRE(v.is_int());
    return v.get_num_si();
}

// Same domain, same value everywhere on it.
bool same_function(const isl::pw_aff& a, const std::string& reference) {
    const isl::pw_aff r(ctx(), reference);
    return a.domain().is_equal(r.domain()) && a.eq_set(r).is_equal(a.domain());
}

}  // namespace

TEST_CASE("parse_domain declares the parameters a domain uses", "[isl]") {
    const isl::set s = parse_domain("{ [i,j]: 0<=i<n and 0<=j<m+i }");
    CHECK(set_dim_names(s) == Names{"i", "j"});
    CHECK(param_names(s.space()) == Names{"n", "m"});
    CHECK(s.is_equal(set_of("[n, m] -> { [i,j]: 0<=i<n and 0<=j<m+i }")));
}

TEST_CASE("parse_domain leaves names bound by exists alone", "[isl]") {
    const isl::set s = parse_domain("{ [i]: exists (q: i = 2q) and 0<=i<n }");
    CHECK(param_names(s.space()) == Names{"n"});
    CHECK(s.is_equal(set_of("[n] -> { [i]: i mod 2 = 0 and 0<=i<n }")));
}

TEST_CASE("parse_domain extends a declared parameter list", "[isl]") {
    CHECK(param_names(parse_domain("[n] -> { [i]: 0<=i<n+m }").space()) == Names{"n", "m"});
    CHECK(param_names(parse_domain("[] -> { [i]: 0<=i<k }").space()) == Names{"k"});
    CHECK(param_names(parse_domain("[n] -> { [i]: 0<=i<n }").space()) == Names{"n"});
}

TEST_CASE("parse_domain takes neither tuple names nor keywords for parameters", "[isl]") {
    const isl::set s = parse_domain("{ S[i]: 0<=i<n and (i mod 2 = 0 or i >= floor(n/2)) }");
    CHECK(param_names(s.space()) == Names{"n"});
    CHECK(s.tuple_dim() == 1);
}

TEST_CASE("parse_domain reports malformed domains as ParseError", "[isl]") {
    CHECK(raised_kind("{ [i]: 0<=i< }") == "ParseError");
    CHECK(raised_kind("{ [i] 0<=i<n") == "ParseError");
    CHECK(raised_kind("{ [i]: 0<=i<n }") == std::nullopt);
}

TEST_CASE("parse_assumptions gives a parameter set", "[isl]") {
    const isl::set a = parse_assumptions("n >= 1 and n mod 16 = 0");
    CHECK(a.tuple_dim() == 0);
    CHECK(a.is_equal(set_of("[n] -> { : n >= 1 and n mod 16 = 0 }")));
    CHECK(parse_assumptions("{ : m > 2 }").is_equal(set_of("[m] -> { : m > 2 }")));
    CHECK_THROWS_AS(parse_assumptions("{ [i]: 0 <= i < n }"), Error);
}

TEST_CASE("to_pw_aff converts affine expressions", "[isl]") {
    const isl::set dom = parse_domain("{ [i,j]: 0<=i<n and 0<=j<n }");
    const auto f = to_pw_aff(parse_expression("2*i + n - 1 - j"), dom);
    REQUIRE(f);
    CHECK(same_function(*f, "[n] -> { [i,j] -> [(2i + n - 1 - j)] : 0<=i<n and 0<=j<n }"));

    const auto q = to_pw_aff(parse_expression("(i + 3) // 4 + i % 2"), dom);
    REQUIRE(q);
    CHECK(same_function(*q, "[n] -> { [i,j] -> [(floor((i + 3)/4) + (i mod 2))] : 0<=i<n and 0<=j<n }"));

    // A name that is neither a dimension nor a parameter of the domain becomes a parameter.
    const auto m = to_pw_aff(parse_expression("i + m"), dom);
    REQUIRE(m);
    CHECK(same_function(*m, "[n, m] -> { [i,j] -> [(i + m)] : 0<=i<n and 0<=j<n }"));
}

TEST_CASE("to_pw_aff refuses what is not quasi-affine", "[isl]") {
    const isl::set dom = parse_domain("{ [i,j]: 0<=i<n and 0<=j<n }");
    for (const char* text : {"i*j", "n*i", "a[i]", "i // n", "i % j", "i / 2", "sin(i)", "i // 0"}) {
        INFO(text);
        CHECK_FALSE(to_pw_aff(parse_expression(text), dom));
    }
    CHECK(to_pw_aff(parse_expression("3*i*2"), dom));
}

TEST_CASE("project_onto keeps the named dimensions in the order given", "[isl]") {
    const isl::set s = parse_domain("{ [i,j,k]: 0<=i<n and 0<=j<i and 0<=k<5 }");
    const isl::set p = project_onto(s, {"k", "i"});
    CHECK(set_dim_names(p) == Names{"k", "i"});
    // j exists only where i >= 1.
    CHECK(p.is_equal(set_of("[n] -> { [k,i]: 0<=k<5 and 1<=i<n }")));
    CHECK(set_dim_names(project_onto(s, {"j"})) == Names{"j"});
    CHECK(project_onto(s, {}).tuple_dim() == 0);
}

TEST_CASE("extent is the smallest bound from zero, and zero where the set is empty", "[isl]") {
    const isl::set universe = set_of("{ : }");
    const isl::set tri = parse_domain("{ [i,j]: 0<=i<n and 0<=j<=i }");
    CHECK(value_where(extent(tri, 0, universe), "n = 7") == 7);
    CHECK(value_where(extent(tri, 1, universe), "n = 7") == 7);
    CHECK(value_where(extent(tri, 1, universe), "n = -3") == 0);

    const isl::set shifted = parse_domain("{ [i]: 2<=i<n+2 }");
    CHECK(value_where(extent(shifted, 0, universe), "n = 4") == 6);

    const isl::pw_aff under_context = extent(parse_domain("{ [i]: 0<=i<n }"), 0, parse_assumptions("n >= 0"));
    // Simplified under the context, as loopy prints grid sizes: no condition left.
    CHECK(same_function(under_context, "[n] -> { [(n)] }"));
}

TEST_CASE("index_box turns a hardware index into a parameter with a box", "[isl]") {
    // The result has no set dimensions (a zero-dimensional set, so params() to compare with a parameter set).
    const isl::set box = index_box(parse_domain("{ [h]: 0<=h<n }"));
    CHECK(box.tuple_dim() == 0);
    CHECK(box.params().is_equal(set_of("[n, h] -> { : 0 <= h < n }")));

    // Holes are filled: every index up to the largest one is launched.
    const isl::set strided = index_box(parse_domain("{ [h]: exists (q: h = 2q) and 0<=h<n }")).params();
    CHECK(strided.is_equal(set_of("[n, h] -> { : 0 <= h <= n - 1 and (n mod 2 = 1 or h <= n - 2) }")));
    CHECK_FALSE(strided.intersect(set_of("[n, h] -> { : n = 5 and h = 3 }")).is_empty());
}

TEST_CASE("dim_max and dim_min are functions of the parameters", "[isl]") {
    const isl::set tri = parse_domain("{ [i,j]: 0<=i<n and 0<=j<=i }");
    CHECK(value_where(dim_max(tri, 1), "n = 5") == 4);
    CHECK(same_function(dim_max(tri, 0), "[n] -> { [(n - 1)] : n >= 1 }"));
    CHECK(value_where(dim_min(parse_domain("{ [i]: 2<=i<n }"), 0), "n = 9") == 2);
}

TEST_CASE("schedule_map maps statement instances to times", "[isl]") {
    const isl::set dom = parse_domain("{ [i,j]: 0<=i,j<n }");
    const isl::map sched = schedule_map(dom, "S", {-1, 1, 0}, {3, 0, 0});
    CHECK(sched.is_equal(isl::map(ctx(), "[n] -> { S[i,j] -> [3, j, i] : 0<=i,j<n }")));
}

TEST_CASE("generate_ast gives loops, guards and statements", "[isl]") {
    const isl::set dom = parse_domain("{ [i,j]: 0<=i<n and 0<=j<=i }");
    const isl::schedule leaf = leaf_schedule(dom, "S");
    const isl::schedule j_loop = loop_schedule(leaf, isl::union_map(schedule_map(dom, "S", {1}, {0})));
    const AstNode root = *generate_ast(loop_schedule(j_loop, isl::union_map(schedule_map(dom, "S", {0}, {0}))),
                                       set_of("[n] -> { : n >= 1 }"));
    REQUIRE(root.kind == AstNode::Kind::Block);
    REQUIRE(root.children.size() == 1);
    const AstNode& outer = root.children[0];
    REQUIRE(outer.kind == AstNode::Kind::For);
    CHECK(to_string(outer.init) == "0");
    REQUIRE(outer.children.size() == 1);
    REQUIRE(outer.children[0].children.size() == 1);
    const AstNode& inner = outer.children[0].children[0];
    REQUIRE(inner.kind == AstNode::Kind::For);
    REQUIRE(inner.children[0].children.size() == 1);
    const AstNode& stmt = inner.children[0].children[0];
    CHECK(stmt.kind == AstNode::Kind::User);
    CHECK(stmt.statement == "S");
    REQUIRE(stmt.args.size() == 2);
    CHECK(to_string(stmt.args[0]) == outer.iterator);
    CHECK(to_string(stmt.args[1]) == inner.iterator);
    // The inner loop's bound is the outer iterator: the triangle.
    CHECK(to_string(inner.cond).find(outer.iterator) != std::string::npos);
}

TEST_CASE("generate_ast refuses a marked loop that isl writes in parts", "[isl]") {
    // Below a band that runs once, isl copies the mark onto each statement of the sequence in it: the loop the
    // mark stands for would run S0's copies, then S1's, not S0 then S1 in each iteration.
    const isl::set d0 = set_of("{ [g, x] : g = 0 and 0 <= x <= 1 }"), d1 = set_of("{ [g, i] : g = 0 and 0 <= i <= 1 }");
    const isl::schedule s0 = loop_schedule(leaf_schedule(d0, "S0"), isl::union_map(schedule_map(isl::set::universe(d0.space()), "S0", {1}, {0})));
    const isl::schedule s1 = loop_schedule(leaf_schedule(d1, "S1"), isl::union_map(schedule_map(isl::set::universe(d1.space()), "S1", {1}, {0})));
    const isl::schedule marked = marked_schedule(sequence_schedule({s0, s1}), "o#0");
    const isl::union_map band = isl::union_map(schedule_map(isl::set::universe(d0.space()), "S0", {0}, {0}))
                                    .unite(isl::union_map(schedule_map(isl::set::universe(d1.space()), "S1", {0}, {0})));
    const MarkedLoops loops{{"o", {0, 4}}};
    CHECK_FALSE(generate_ast(loop_schedule(marked, band), set_of("{ : }"), loops).has_value());
    // The same mark where isl keeps the sequence whole: one loop over o around both.
    const std::optional<AstNode> whole = generate_ast(marked, set_of("{ : }"), loops);
    REQUIRE(whole.has_value());
    REQUIRE(whole->children.size() == 1);
    CHECK(whole->children[0].kind == AstNode::Kind::For);
    CHECK(whole->children[0].iterator == "o");
}

TEST_CASE("generate_ast tells apart marks of one iname", "[isl]") {
    // Two marked loops over the same iname one after the other (each register tile of a kernel gets its own
    // mark "iname#N"): each is written once, so neither counts as a loop isl split.
    const isl::set d0 = set_of("{ [x] : 0 <= x <= 1 }"), d1 = set_of("{ [y] : 0 <= y <= 1 }");
    const isl::schedule s0 = loop_schedule(leaf_schedule(d0, "S0"), isl::union_map(schedule_map(d0, "S0", {0}, {0})));
    const isl::schedule s1 = loop_schedule(leaf_schedule(d1, "S1"), isl::union_map(schedule_map(d1, "S1", {0}, {0})));
    const isl::schedule both = sequence_schedule({marked_schedule(s0, "o#0"), marked_schedule(s1, "o#1")});
    const std::optional<AstNode> loops = generate_ast(both, set_of("{ : }"), MarkedLoops{{"o", {0, 3}}});
    REQUIRE(loops.has_value());
    REQUIRE(loops->children.size() == 2);
    CHECK(loops->children[0].iterator == "o");
    CHECK(loops->children[1].iterator == "o");
}

TEST_CASE("beyond: the points past the first or before the last values of a dimension (slabs)", "[isl]") {
    // A triangle: for each i, j runs over 0..i; slabs are per value of the outer dimension.
    const isl::set tri = set_of("[n] -> { [i, j] : 0 <= j <= i < n }");
    CHECK(beyond(tri, 1, 2, true).is_equal(set_of("[n] -> { [i, j] : 2 <= j <= i < n }")));
    CHECK(beyond(tri, 1, 1, false).is_equal(set_of("[n] -> { [i, j] : 0 <= j < i < n }")));
    CHECK(beyond(tri, 1, 0, true).is_equal(tri));
    // Along the outer dimension, with a tile that is partial at the end.
    const isl::set tiles = set_of("[n] -> { [o] : 0 <= 16o < n }");
    CHECK(beyond(tiles, 0, 1, false).is_equal(set_of("[n] -> { [o] : 0 <= o and 16o + 16 < n }")));
}

TEST_CASE("condition_set: isl AST conditions as parameter sets", "[isl]") {
    const auto parsed = [](const std::string& text) { return condition_set(parse_expression(text)); };
    CHECK(parsed("i <= min(3, n - 4*o - 1)")->is_equal(set_of("[i, n, o] -> { : i <= 3 and i <= n - 4o - 1 }")));
    CHECK(parsed("max(0, n - 8) <= i")->is_equal(set_of("[i, n] -> { : i >= 0 and i >= n - 8 }")));
    // (The parser reads `min(a, b)` as a reduction over a: the call is built here, as the AST has it.)
    const ExprPtr min_ab = call("min", {var("a"), var("b")});
    CHECK(condition_set(binary(BinOp::Lt, min_ab, var("c")))->is_equal(set_of("[a, b, c] -> { : a < c or b < c }")));
    CHECK(condition_set(binary(BinOp::Ge, var("c"), min_ab))->is_equal(set_of("[a, b, c] -> { : a <= c or b <= c }")));
    CHECK(parsed("n % 4 == 0 and n >= 1 or n == 0")
              ->is_equal(set_of("[n] -> { : (n mod 4 = 0 and n >= 1) or n = 0 }")));
    CHECK(!parsed("a[i] >= 0").has_value());
    CHECK(!parsed("i * n >= 0").has_value());
}

TEST_CASE("condition_expr: a guard simplified where the context holds", "[isl]") {
    const isl::set context = set_of("[n, o] -> { : n >= 0 and 0 <= o and 4o <= n - 1 }");
    // Implied by the context: no condition left to test but the part that is not.
    CHECK(to_string(condition_expr(set_of("[n, o] -> { : 4o <= n - 2 and o >= 0 }"), context)) == "n >= 4*o + 2");
    CHECK(to_string(condition_expr(set_of("[n] -> { : exists q : n = 4q }"), set_of("[n] -> { : n >= 0 }"))) ==
          "n % 4 == 0");
}

TEST_CASE("independent_factors: groups of dimensions no constraint relates", "[isl]") {
    const isl::set s = set_of("[n] -> { [i, j, k, l] : 0 <= i < n and 0 <= k <= i and 0 <= j < 16 and l = 2j and "
                              "n mod 4 = 0 }");
    const std::vector<isl::set> factors = independent_factors(s);
    REQUIRE(factors.size() == 2);
    CHECK(set_dim_names(factors[0]) == Names{"i", "k"});
    CHECK(set_dim_names(factors[1]) == Names{"j", "l"});
    // The constraint on the parameter alone stays in each factor; their product is the set.
    CHECK(factors[0].is_equal(set_of("[n] -> { [i, k] : 0 <= k <= i < n and n mod 4 = 0 }")));
    CHECK(factors[1].is_equal(set_of("[n] -> { [j, l] : 0 <= j < 16 and l = 2j and n mod 4 = 0 }")));
    // Dimensions related through an existentially quantified variable are one group.
    CHECK(independent_factors(set_of("{ [i, j] : exists e : i = 2e and j = e + 1 }")).size() == 1);
    // Each group keeps its own existentially quantified variables (a stride each), and only those.
    const std::vector<isl::set> strided =
        independent_factors(set_of("{ [i, j] : exists e, f : i = 2e and j = 3f + 1 and 0 <= i, j < 10 }"));
    REQUIRE(strided.size() == 2);
    CHECK(strided[0].is_equal(set_of("{ [i] : i mod 2 = 0 and 0 <= i < 10 }")));
    CHECK(strided[1].is_equal(set_of("{ [j] : j mod 3 = 1 and 0 <= j < 10 }")));
    // A union of several basic sets is not split.
    CHECK(independent_factors(set_of("{ [i, j] : 0 <= i, j < 4 or 8 <= i, j < 12 }")).size() == 1);
}

TEST_CASE("spans: a dimension that takes every value of a range", "[isl]") {
    const isl::set range = set_of("[h] -> { : 0 <= h <= 15 }");
    CHECK(spans(set_of("[n] -> { [o, h] : 0 <= h < 16 and 0 <= 16o + h < n and n mod 16 = 0 }"), "h", range));
    CHECK(!spans(set_of("[n] -> { [o, h] : 0 <= h < 16 and 0 <= 16o + h < n }"), "h", range));
    CHECK(!spans(set_of("{ [h] : 0 <= h < 8 }"), "h", range));
    // A bound that another dimension sets, at either end of the range (tested at both ends, not projected).
    CHECK(!spans(set_of("{ [x, h] : 0 <= x < 4 and x <= h < 16 }"), "h", range));
    CHECK(!spans(set_of("{ [x, h] : 0 <= x < 4 and 0 <= h <= 12 + x }"), "h", range));
    CHECK(spans(set_of("{ [x, h] : 0 <= x < 4 and 0 <= h <= 15 + x }"), "h", range));
    // An equality, a division on the dimension, a union and a range with a parameter take the general test.
    CHECK(!spans(set_of("{ [x, h] : 0 <= x < 16 and h = x }"), "h", range));
    CHECK(!spans(set_of("{ [h] : 0 <= h < 16 and h mod 2 = 0 }"), "h", range));
    CHECK(spans(set_of("{ [x, h] : 0 <= x < 2 and 0 <= h < 16 or 4 <= x < 6 and 0 <= h < 16 }"), "h", range));
    CHECK(spans(set_of("[m] -> { [h] : 0 <= h < m }"), "h", set_of("[h, m] -> { : 0 <= h < m }")));
}

TEST_CASE("independent_range: a dimension's constant range where the set is its product with the rest", "[isl]") {
    using Range = std::optional<std::pair<long, long>>;
    // Bounds of its own, read off the constraints: rounded inwards, from an equality, with the others coupled.
    CHECK(independent_range(set_of("[n] -> { [e, i] : 0 <= e < n and 0 <= i < 8 }"), 1) == Range({0, 7}));
    CHECK(independent_range(set_of("{ [i] : 3 <= 2i <= 11 }"), 0) == Range({2, 5}));
    CHECK(independent_range(set_of("{ [i] : -7 <= 3i <= -1 }"), 0) == Range({-2, -1}));
    CHECK(independent_range(set_of("{ [x, i] : 0 <= x < 4 and 2i = 6 }"), 1) == Range({3, 3}));
    // Also in the constraints of others, which hold it in: the inner iname of a split where the tiles divide
    // the size, not where they may not; and the range isl finds where the others cut the own bounds short.
    CHECK(independent_range(set_of("[n] -> { [o, i] : 0 <= i < 16 and 0 <= 16o + i < n and n mod 16 = 0 }"), 1) == Range({0, 15}));
    CHECK(independent_range(set_of("[n] -> { [o, i] : 0 <= i < 16 and 0 <= 16o + i < n }"), 1) == std::nullopt);
    CHECK(independent_range(set_of("{ [y, x] : 0 <= y <= 1 and 0 <= x < 16 and x <= 2y + 7 }"), 1) == std::nullopt);
    CHECK(independent_range(set_of("{ [y, x] : y = 0 and 0 <= x < 16 and x <= y + 7 }"), 1) == Range({0, 7}));
    // A bound past 64 bits is isl's to decide (read in its callback it would have thrown through isl's C).
    CHECK_THROWS_AS(independent_range(set_of("{ [x, i] : 0 <= x < 4 and 0 <= i <= 100000000000000000000 }"), 1), Error);
    // Empty: no range, whether the dimension's own bounds or the rest leave no point.
    CHECK(independent_range(set_of("{ [i] : 5 <= i <= 4 }"), 0) == std::nullopt);
    CHECK(independent_range(set_of("[n] -> { [e, i] : 0 <= e < n and n < 0 and 0 <= i < 8 }"), 1) == std::nullopt);
    // Tied to another dimension or a parameter: isl decides, and finds the product where there is one.
    CHECK(independent_range(set_of("{ [x, i] : 0 <= x < 4 and x <= i < 8 }"), 1) == std::nullopt);
    CHECK(independent_range(set_of("[n] -> { [i] : 0 <= i < n }"), 0) == std::nullopt);
    CHECK(independent_range(set_of("[n] -> { [i] : 0 <= i < 8 and i < n + 100 and n >= 0 }"), 0) == Range({0, 7}));
    CHECK(independent_range(set_of("{ [i] : 0 <= i < 8 and i mod 2 = 0 }"), 0) == std::nullopt);
    CHECK(independent_range(set_of("{ [x, i] : 0 <= x < 2 and 0 <= i < 4 or 4 <= x < 6 and 0 <= i < 4 }"), 1) == Range({0, 3}));
}

TEST_CASE("scaled_against_params: loop bounds that would divide by a work-item id", "[isl]") {
    // A bounding-box fetch split by the work-group size: each id takes every 8th element up to a bound.
    CHECK(scaled_against_params(set_of("[l] -> { [o] : 0 <= l < 8 and 0 <= 8o + l <= 9 }"), {"l"}));
    // A bound with coefficient 1 (a triangular loop) is a plain bound for isl.
    CHECK(!scaled_against_params(set_of("[l] -> { [j] : 0 <= l < 8 and 0 <= j <= l }"), {"l"}));
    // An equality ties the loop to the id: one iteration, which a guard would turn into a loop over all ids.
    CHECK(!scaled_against_params(set_of("[l] -> { [o, j] : 0 <= l < 8 and 0 <= 8o + l <= 9 and j = 8o + l }"), {"l"}));
    // Only the parameters named count.
    CHECK(!scaled_against_params(set_of("[n] -> { [o] : 0 <= 8o < n }"), {"l"}));
}

TEST_CASE("static_max: the largest value, also of a size isl writes as an exact division", "[isl]") {
    const isl::set context = set_of("[G] -> { : 0 <= G <= 64 }");
    CHECK(static_max(isl::pw_aff(ctx(), "[G] -> { [(G)] : 0 <= G <= 16 }"), context) == 16);
    // A piece (G + 4)/4, an integer wherever it applies: isl's maximum refuses non-integer expressions, which
    // made constant_length fail with an untyped isl error (fuzz_pipeline, docs/reliability.md finding 18).
    CHECK(static_max(isl::pw_aff(ctx(), "[G] -> { [((G + 4)/4)] : G mod 4 = 0 and 0 <= G <= 16 }"), context) == 5);
    CHECK(!static_max(isl::pw_aff(ctx(), "[G] -> { [(G)] : G >= 0 }"), set_of("[G] -> { : G >= 0 }")).has_value());
}

TEST_CASE("pw_aff_to_expr: an expression defined nowhere is 0", "[isl]") {
    // The number of groups of a kernel whose domain is empty under its assumptions: isl has no expression to
    // print for it (fuzz_pipeline, docs/reliability.md finding 19).
    const isl::pw_aff nowhere(ctx(), "[j] -> { [(j)] : 1 = 0 }");
    CHECK(to_string(pw_aff_to_expr(nowhere, set_of("[j] -> { : 1 = 0 }"))) == "0");
    CHECK(to_string(pw_aff_to_expr(isl::pw_aff(ctx(), "[j] -> { [(j + 1)] : j >= 0 }"), set_of("[j] -> { : j >= 0 }"))) == "j + 1");
}

TEST_CASE("within_operations: a budget inside another leaves the outer one in force", "[isl]") {
    // The parametric extremes of an iname tied to a parameter through splits (docs/reliability.md finding 31):
    // more than the one step the budgets below allow.
    const isl::set heavy = set_of("[q, n] -> { [j2] : exists (e0, e1: q > 0 and n > q and 0 <= j2 <= 2 and "
                                  "0 <= e1 <= 16 and 288q - 289e0 - 17e1 - 3j2 >= 0 and "
                                  "288q - 289e0 - 17e1 - 3j2 <= 16 and 17e0 + e1 <= q) }");
    const auto maximum = [&] { return dim_max(heavy, 0); };
    CHECK_FALSE(within_operations(1, maximum).has_value());
    CHECK(within_operations(10000000, maximum).has_value());
    // The inner budget ends before the heavy step; the outer one must still bound it (it did not: the inner
    // one lifted every budget when it ended).
    const auto outer = within_operations(1, [&] {
        CHECK(within_operations(10000000, [] { return 1; }) == 1);
        return maximum();
    });
    CHECK_FALSE(outer.has_value());
}

TEST_CASE("within_operations: a budget that runs out inside a parametric maximum leaks nothing", "[isl]") {
    // The footprint of `a[i % 3]`, whose maximum is a parametric integer program (as make_kernel's shapes
    // are): the budget runs out at each of its steps in turn. isl 0.25 leaked its snapshot of the context where
    // it ran out while copying a tableau (docs/reliability.md finding 46, tools/isl_patches/0.25), which
    // LeakSanitizer reports at the exit of the ASan build's run.
    const isl::set footprint = set_of("[n] -> { [x] : exists i: 0 <= i < n and x = i mod 3 }");
    unsigned long budget = 1;
    std::optional<isl::pw_aff> maximum;
    while (!(maximum = within_operations(budget, [&] { return dim_max(footprint, 0); })))
        ++budget;
    CHECK(budget > 100);
    CHECK(value_where(*maximum, "n = 5") == 2);
}
