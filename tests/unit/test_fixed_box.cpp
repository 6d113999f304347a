// affine::fixed_box_hull (src/ir/affine.h): the constant-size box around a footprint that precompute and
// add_prefetch store, with an offset in the parameters (the outer inames), and no box when the size varies.
#include <catch2/catch.hpp>

#include "ir/affine.h"
#include "ir/eval.h"
#include "isl/isl.h"

using namespace loom;
using namespace loom::affine;

namespace {

isl::set set_of(const std::string& text) { return isl::set(isl_util::ctx(), text); }

}  // namespace

TEST_CASE("a tile's footprint has a box offset by the tile index", "[isl][box]") {
    // The elements of one tile of 16, clipped by n: the box is 16 wide wherever the tile starts.
    const auto box = fixed_box_hull(set_of("[n, io] -> { [s] : 16io <= s <= 15 + 16io and s < n }"));
    REQUIRE(box.has_value());
    REQUIRE(box->size() == 1);
    CHECK((*box)[0].size == 16);
    CHECK(eval_int((*box)[0].offset, {{"io", 3}, {"n", 100}}) == 48);
}

TEST_CASE("a stencil's halo is two wider per axis", "[isl][box]") {
    const auto box = fixed_box_hull(set_of(
        "[io, jo] -> { [s, t] : exists (i, j : 0 <= i - 16io <= 15 and 0 <= j - 16jo <= 15 and "
        "((s = i and -1 <= t - j <= 1) or (t = j and -1 <= s - i <= 1))) }"));
    REQUIRE(box.has_value());
    CHECK((*box)[0].size == 18);
    CHECK((*box)[1].size == 18);
    CHECK(eval_int((*box)[0].offset, {{"io", 2}, {"jo", 0}}) == 31);
    CHECK(eval_int((*box)[1].offset, {{"io", 2}, {"jo", 1}}) == 15);
}

TEST_CASE("a footprint whose size depends on a parameter has no fixed box", "[isl][box]") {
    CHECK_FALSE(fixed_box_hull(set_of("[n] -> { [s] : 0 <= s < n }")).has_value());
    CHECK_FALSE(fixed_box_hull(set_of("[n] -> { [s] : s >= 0 }")).has_value());
}

TEST_CASE("a single point is a box of size one", "[isl][box]") {
    const auto box = fixed_box_hull(set_of("[i] -> { [s] : s = 2i + 1 }"));
    REQUIRE(box.has_value());
    CHECK((*box)[0].size == 1);
    CHECK(eval_int((*box)[0].offset, {{"i", 5}}) == 11);
}
