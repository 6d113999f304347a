// Iname tags as values: parsed once from loopy's text, printed back as the same text.
#include <catch2/catch.hpp>

#include <string>

#include "ir/iname_tags.h"

using namespace loom;

TEST_CASE("iname tags parse from their text and print back the same", "[iname]") {
    for (const char* text : {"ord", "l.0", "l.2", "g.1", "g.12", "l.auto", "unr", "unr_hint", "unr_hint.0",
                             "unr_hint.8", "ilp", "ilp.unr", "ilp.seq", "vec"}) {
        const std::optional<InameTag> tag = parse_iname_tag(text);
        REQUIRE(tag.has_value());
        CHECK(to_string(*tag) == text);
    }
    for (const char* text : {"", "for", "None", "like.i", "unused.l", "l", "l.", "l.-1", "g.a", "unroll", "ilp.x",
                             "l.9999999999"})
        CHECK_FALSE(parse_iname_tag(text).has_value());
    CHECK(to_string(InameTag{}).empty());
}

TEST_CASE("iname tags say what they ask of the code generator", "[iname]") {
    const auto tag = [](const char* text) { return parse_iname_tag(text).value(); };
    CHECK(tag("g.1") == InameTag::group(1));
    CHECK(tag("l.0") == InameTag::local(0));
    CHECK(tag("l.2").number == 2);
    CHECK((tag("l.auto").is_local() && tag("l.auto").is_hardware() && !tag("l.auto").is_group()));
    CHECK((tag("unr").is_unrolled() && tag("ilp").is_unrolled() && tag("ilp.unr").is_unrolled()));
    CHECK_FALSE(tag("ilp.seq").is_unrolled());
    CHECK((tag("ilp.seq").is_ilp() && tag("ilp.seq").is_innermost() && tag("vec").is_innermost()));
    CHECK_FALSE(tag("vec").is_ilp());
    CHECK((tag("vec").is_concurrent() && tag("g.0").is_concurrent() && !tag("unr").is_concurrent()));
    CHECK_FALSE(InameTag{}.is_concurrent());
    CHECK(tag("unr_hint").unroll_hint() == 0);
    CHECK(tag("unr_hint.4").unroll_hint() == 4);
    CHECK_FALSE(tag("unr").unroll_hint().has_value());
    // Sorted as their text: group axes before local ones, axes by number.
    CHECK(tag("g.1") < tag("l.0"));
    CHECK(tag("l.2") < tag("l.10"));
    CHECK(tag("l.1") < tag("l.auto"));
}

TEST_CASE("tag requests: no tag, another iname's tag, the lowest unused axis", "[iname]") {
    for (const char* none : {"", "for", "None"}) CHECK(parse_tag_request(none)->kind == TagRequest::Kind::None);
    CHECK(parse_tag_request("like.i")->iname == "i");
    CHECK(parse_tag_request("unused.g")->kind == TagRequest::Kind::UnusedGroup);
    CHECK(parse_tag_request("unused.l")->kind == TagRequest::Kind::UnusedLocal);
    CHECK(parse_tag_request("ilp.seq")->tag == InameTag{InameTag::Kind::IlpSeq});
    CHECK_FALSE(parse_tag_request("unused.x").has_value());
}
