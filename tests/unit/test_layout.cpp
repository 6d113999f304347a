// Array layouts: parsing dim tags, strides computed from shapes and tags (loopy's rules), the listing text of
// resolved tags, and the layout measures the call-time checks use.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

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
    try {
        Variable v = array(shape, tags);
        compute_layout(v);
    } catch (const Error& e) {
        CHECK(e.kind() == "LoopyError");
        return e.message();
    }
    return "";
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
    CHECK_THAT(layout_error("n, 4", "c,vec"), Catch::Contains("axis 1 is tagged 'vec'"));
    CHECK_THAT(layout_error("2, n", "sep,c"), Catch::Contains("axis 0 is tagged 'sep'"));
    CHECK_THAT(layout_error("n", "x"), Catch::Contains("invalid dim tag 'x'"));
    CHECK_THAT(layout_error("n", "N0:c"), Catch::Contains("invalid dim tag"));
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
