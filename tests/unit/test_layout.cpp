// Array layouts: parsing dim tags, strides computed from shapes and tags (loopy's rules), the listing text of
// resolved tags, and the layout measures the call-time checks use.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.h"
#include "ir/layout.h"
#include "parse/dim_tags.h"
#include "parse/instructions.h"
#include "support/error.h"
#include "support/strings.h"

using namespace loom;

namespace {

Variable array(const std::string& shape, const std::string& tags, char order = 'C') {
    Variable v;
    v.name = std::string(1, 'a');
    for (const std::string& extent : split_trimmed(shape, ',')) v.shape.push_back(parse_expression(extent));
    if (!tags.empty()) v.dim_tags = parse_dim_tags({tags}, "a");
    v.order = order;
    return v;
}

std::vector<std::string> strides_of(const std::string& shape, const std::string& tags, char order = 'C') {
    Variable v = array(shape, tags, order);
    compute_layout(v);
    std::vector<std::string> out;
    for (const ExprPtr& s : v.strides) out.push_back(to_string(s));
    return out;
}

std::string listing_of(const std::string& shape, const std::string& tags, char order = 'C') {
    Variable v = array(shape, tags, order);
    compute_layout(v);
    return dim_tags_text(v);
}

std::string layout_error(const std::string& shape, const std::string& tags) {
    const std::optional<Error> e = test::error_of([&] {
        Variable v = array(shape, tags);
        compute_layout(v);
    });
    if (!e) return "";
    CHECK(e->kind() == "LoopyError");
    return e->message();
}

using Strides = std::vector<std::string>;

}  // namespace

TEST_CASE("orders and c/f tags give loopy's strides", "[layout]") {
    CHECK(strides_of("n", "") == Strides{"1"});
    CHECK(strides_of("n, m", "") == Strides{"m", "1"});
    CHECK(strides_of("n, m", "", 'F') == Strides{"1", "n"});
    CHECK(strides_of("3, m, 4", "c,c,c") == Strides{"4*m", "4", "1"});
    CHECK(strides_of("3, m, 4", "f,f,f") == Strides{"1", "3", "3*m"});
    // Left to right, c nests inside (faster than) the axes so far, f outside them.
    CHECK(strides_of("3, m, 4", "c,f,c") == Strides{"4", "12", "1"});
    CHECK(strides_of("50, 10, 99", "") == Strides{"990", "99", "1"});
}

TEST_CASE("explicit nesting levels and fixed strides", "[layout]") {
    // The reference's example: N1,N0,N2 on shape (3, M, 4) gives strides (M, 1, 3*M).
    CHECK(strides_of("3, M, 4", "N1,N0,N2") == Strides{"M", "1", "M*3"});
    CHECK(strides_of("n, m", "N2, N3") == Strides{"1", "n"});  // levels are shifted to start at 0
    CHECK(strides_of("n, 4", "stride:8, stride:1") == Strides{"8", "1"});
    CHECK(strides_of("n, 4", "stride:2*n, c") == Strides{"2*n", "1"});
    // The listing's own form reads back.
    CHECK(strides_of("n, 16", "N1:stride:16, N0:stride:1") == Strides{"16", "1"});
    CHECK(strides_of("n, m", "N1, N0:stride:2") == Strides{"2*m", "2"});
}

TEST_CASE("optional tags are dropped leftmost first", "[layout]") {
    CHECK(strides_of("n, m", "N2?,N1,N0") == Strides{"m", "1"});
    CHECK(strides_of("n, m, k", "N2?,N1,N0") == Strides{"k*m", "k", "1"});
    CHECK(strides_of("n", "c?,c?,f") == Strides{"1"});
}

TEST_CASE("the listing prints levels and strides as loopy", "[layout]") {
    CHECK(listing_of("n", "") == "(N0:stride:1)");
    CHECK(listing_of("n, m", "") == "(N1:stride:m, N0:stride:1)");
    CHECK(listing_of("n, m", "", 'F') == "(N0:stride:1, N1:stride:n)");
    CHECK(listing_of("n, 4", "stride:8,stride:1") == "(stride:8, stride:1)");
}

TEST_CASE("dim tags that do not fit are LoopyErrors", "[layout]") {
    CHECK_THAT(layout_error("n, m", "c"), Catch::Contains("2 axes but 1 dim tags"));
    CHECK_THAT(layout_error("n", "c,c"), Catch::Contains("1 axes but 2 dim tags"));
    CHECK_THAT(layout_error("n, m", "N0,c"), Catch::Contains("mixes c/f"));
    CHECK_THAT(layout_error("n, m", "N0,N0"), Catch::Contains("N0 is given to more than one axis"));
    CHECK_THAT(layout_error("n, m", "N0,N2"), Catch::Contains("not contiguous"));
    CHECK_THAT(layout_error("n, m", "c,vec"), Catch::Contains("axis 1 of array 'a' is tagged 'vec', but does not have constant length (m)"));
    CHECK_THAT(layout_error("k, n", "sep,c"), Catch::Contains("axis 0 of array 'a' is tagged 'sep', but does not have constant length (k)"));
    CHECK_THAT(layout_error("n, 5", "c,vec"), Catch::Contains("length 5: vector types have 2, 3, 4, 8 or 16 entries"));
    CHECK_THAT(layout_error("2, 4", "vec,vec"), Catch::Contains("may only have one axis tagged 'vec'"));
    CHECK_THAT(layout_error("n", "x"), Catch::Contains("invalid dim tag 'x'"));
    CHECK_THAT(layout_error("n", "N0:c"), Catch::Contains("invalid dim tag"));
}

TEST_CASE("sep and vec tags parse, with '?'", "[layout]") {
    CHECK(parse_dim_tag("sep", "a").kind == DimTag::Kind::Sep);
    const DimTag vec = parse_dim_tag(" vec? ", "a");
    CHECK(vec.kind == DimTag::Kind::Vec);
    CHECK(vec.optional);
    CHECK(parse_dim_tags({"sep, c", "vec"}, "a").size() == 3);
    CHECK(strides_of("n, 4", "sep?,c,vec") == Strides{"4", "1"});
}

TEST_CASE("vec axes: stride 1, the others counted from the vector size", "[layout]") {
    CHECK(strides_of("n, 4", "c,vec") == Strides{"4", "1"});
    CHECK(strides_of("n, m, 2", "c,c,vec") == Strides{"2*m", "2", "1"});
    CHECK(strides_of("8, n", "vec,c") == Strides{"1", "8"});
    CHECK(strides_of("n, 4, m", "f,vec,f") == Strides{"4", "1", "4*n"});
    // A 3-vector fills 4 scalars, as OpenCL's float3.
    CHECK(strides_of("n, 3", "c,vec") == Strides{"4", "1"});
    CHECK(strides_of("n, 4", "stride:8,vec") == Strides{"8", "1"});
    CHECK(listing_of("n, 4", "c,vec") == "(N0:stride:4, vec)");
    Variable v = array("n, m, 3", "c,c,vec");
    compute_layout(v);
    CHECK(vec_axis(v) == std::optional<std::size_t>(2));
    CHECK(vector_length(v) == 3);
    CHECK(vector_size(v) == 4);
    CHECK(to_string(stride_in_vectors(v, v.strides[0])) == "m");
    CHECK(to_string(stride_in_vectors(v, v.strides[1])) == "1");
    CHECK_THROWS_WITH(stride_in_vectors(v, parse_expression("6")), Catch::Contains("not a multiple of the size of its vectors (4)"));
    Variable plain = array("n", "");
    CHECK_FALSE(vec_axis(plain).has_value());
    CHECK(vector_size(plain) == 1);
}

TEST_CASE("sep axes: separate arrays named as loopy's", "[layout]") {
    CHECK(strides_of("2, n", "sep,c") == Strides{"0", "1"});
    CHECK(strides_of("n, 3, m", "c,sep,c") == Strides{"m", "0", "1"});
    CHECK(strides_of("2, n, 4", "sep,c,vec") == Strides{"0", "4", "1"});
    CHECK(listing_of("2, n", "sep,c") == "(sep, N0:stride:1)");
    Variable v = array("2, n, 3", "sep,c,sep");
    compute_layout(v);
    CHECK(sep_axes(v) == std::vector<std::size_t>{0, 2});
    std::vector<std::string> names;
    for (const SepPiece& p : sep_pieces(v)) names.push_back(p.name);
    CHECK(names == std::vector<std::string>{"a_s0_0", "a_s0_1", "a_s0_2", "a_s1_0", "a_s1_1", "a_s1_2"});
    CHECK(sep_pieces(v)[4].index == std::vector<std::int64_t>{1, 1});
    CHECK(sep_pieces(array("n", "c")).empty());
    // A piece is an array of its own: the other axes, their strides and tags.
    Variable sv = array("2, n, 4", "sep,c,vec");
    compute_layout(sv);
    const Variable piece = sep_piece_variable(sv, sep_pieces(sv)[1]);
    CHECK(piece.name == "a_s1");
    CHECK(piece.shape.size() == 2);
    CHECK(to_string(piece.strides[0]) == "4");
    CHECK(vec_axis(piece) == std::optional<std::size_t>(1));
    CHECK(sep_axes(piece).empty());
    Variable t = array("2, n", "sep,c");
    t.kind = VarKind::Temporary;
    CHECK_THROWS_WITH(compute_layout(t), Catch::Contains("only arguments may be split into separate arrays"));
}

TEST_CASE("layout measures", "[layout]") {
    CHECK(storage_span({3, 4}, {4, 1}) == 12);
    CHECK(storage_span({3, 4}, {8, 1}) == 20);
    CHECK(storage_span({3, 0}, {1, 3}) == 0);
    CHECK(storage_span({}, {}) == 1);
    CHECK(is_compact({3, 4}, {1, 3}));
    CHECK(is_compact({3, 1, 4}, {4, 99, 1}));
    CHECK_FALSE(is_compact({3, 4}, {8, 1}));
    CHECK_FALSE(is_compact({2, 2, 2}, {1, 1, 5}));  // spans 8 elements, but overlaps
    CHECK(contiguous_strides({2, 3, 4}, 'C') == std::vector<std::int64_t>{12, 4, 1});
    CHECK(contiguous_strides({2, 3, 4}, 'F') == std::vector<std::int64_t>{1, 2, 6});
    CHECK(same_strides({1, 4}, {7, 1}, {4, 1}));
    CHECK_FALSE(same_strides({2, 4}, {1, 2}, {4, 1}));
}
