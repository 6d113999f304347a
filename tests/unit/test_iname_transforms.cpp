// The iname transformations on the kernel model (domains, instructions, tags) and the match expressions
// that select instructions for them.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "isl/isl.h"
#include "helpers.h"
#include "parse/make_kernel.h"
#include "parse/match.h"
#include "support/error.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

std::string domain_text(const Kernel& k, std::size_t n = 0) { return isl_util::to_str(k->domains.at(n)); }

std::string rhs(const Kernel& k, const std::string& id) { return to_string(k.find_instruction(id)->expression); }

std::string lhs(const Kernel& k, const std::string& id) { return to_string(k.find_instruction(id)->assignees.at(0)); }

std::set<std::string> loops(const Kernel& k, const std::string& id) { return k.find_instruction(id)->within_inames; }

bool fails_with(const std::optional<Error>& e, const std::string& kind, const std::string& text) {
    return e && e->kind() == kind && e->message().find(text) != std::string::npos;
}

Instruction insn(std::string id, std::set<std::string> tags = {}) {
    Instruction i;
    i.id = std::move(id);
    i.tags = std::move(tags);
    i.assignees = {subscript("out", {var("i")})};
    i.expression = binary(BinOp::Add, subscript("a", {var("i")}), var("b"));
    i.within_inames = {"i"};
    return i;
}

}  // namespace

TEST_CASE("match expressions select instructions", "[match]") {
    const Instruction scale = insn("scale_1", {"hot"});
    CHECK(matches("", scale));
    CHECK(matches("*", scale));
    CHECK(matches("id:scale_*", scale));
    CHECK(matches("scale_?", scale));
    CHECK_FALSE(matches("id:scale", scale));
    CHECK(matches("tag:hot", scale));
    CHECK(matches("writes:out", scale));
    CHECK_FALSE(matches("writes:a", scale));
    CHECK(matches("reads:a and reads:b and reads:i", scale));
    CHECK(matches("iname:i", scale));
    CHECK(matches("not tag:cold", scale));
    CHECK(matches("id:x or id:y or tag:h*", scale));
    CHECK_FALSE(matches("id:x or id:y and tag:hot", scale));  // and binds tighter
    CHECK(matches("(id:x or id:scale_1) and tag:hot", scale));
    CHECK_FALSE(matches("not (tag:hot or id:x)", scale));
    CHECK(Match::parse("in_kernel:gemm*")(scale, "gemm_tiled"));
    CHECK_FALSE(Match::parse("in_kernel:gemm*")(scale, "loopy_kernel"));
    CHECK(fails_with(test::error_of([] { Match::parse("id:a and"); }), "LoopyError", "unexpected end of input"));
    CHECK(fails_with(test::error_of([] { Match::parse("id:a id:b"); }), "LoopyError", "unexpected 'id:b'"));
    CHECK(fails_with(test::error_of([] { Match::parse("size:3"); }), "LoopyError", "unknown selector"));
}

TEST_CASE("split_iname rewrites the domain and the instructions", "[iname]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = 2*a[i]"}, "n >= 1");
    const Kernel s = split_iname(k, "i", 16);
    CHECK(s.all_inames() == std::vector<std::string>{"i_outer", "i_inner"});
    CHECK(domain_text(s) == "[n] -> { [i_outer, i_inner] : i_inner >= 0 and -16i_outer <= i_inner <= 15 and "
                            "i_inner < n - 16i_outer }");
    CHECK(lhs(s, "insn") == "out[i_inner + i_outer*16]");
    CHECK(rhs(s, "insn") == "2*a[i_inner + i_outer*16]");
    CHECK(loops(s, "insn") == std::set<std::string>{"i_inner", "i_outer"});
    CHECK(k.all_inames() == std::vector<std::string>{"i"});  // the input is unchanged

    SplitOptions o;
    o.outer_iname = "io";
    o.inner_tag = "unr";
    o.outer_tag = "g.0";
    o.slabs = {0, 1};
    const Kernel t = split_iname(k, "i", 4, o);
    CHECK(t.all_inames() == std::vector<std::string>{"io", "i_inner"});
    CHECK(to_string(t.iname_tag("i_inner")) == "unr");
    CHECK(to_string(t.iname_tag("io")) == "g.0");
    CHECK(t->iname_slabs.at("io") == std::pair<int, int>{0, 1});
}

TEST_CASE("split_iname within some instructions keeps the old iname for the others", "[iname]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[i] {id=one}", "b[i] = 1 {id=two}"});
    SplitOptions o;
    o.within = "id:two";
    const Kernel s = split_iname(k, "i", 3, o);
    CHECK(s.all_inames() == std::vector<std::string>{"i", "i_outer", "i_inner"});
    CHECK(loops(s, "one") == std::set<std::string>{"i"});
    CHECK(loops(s, "two") == std::set<std::string>{"i_inner", "i_outer"});
    CHECK(lhs(s, "two") == "b[i_inner + i_outer*3]");
    o.within = "id:three";
    CHECK(split_iname(k, "i", 3, o)->domains.size() == 1);
    CHECK(&*split_iname(k, "i", 3, o) == &*k);  // nothing selected: the same kernel
}

TEST_CASE("split_iname follows reductions, priorities and nested domains", "[iname]") {
    const Kernel r = prioritize_loops(test::kernel({"{ [i,k]: 0<=i<n and 0<=k<m }"}, {"out[i] = sum(k, a[i,k])"}), {"k", "i"});
    const Kernel s = split_iname(r, "k", 4);
    CHECK(rhs(s, "insn") == "sum((k_outer, k_inner), a[i, k_inner + k_outer*4])");
    CHECK(s->loop_priority.at(0) == std::vector<std::string>{"k_outer", "k_inner", "i"});

    const Kernel nested = test::kernel({"{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }"}, {"out[i,j] = 1"});
    const Kernel t = split_iname(nested, "i", 2);
    CHECK(domain_text(t, 1) == "[i_outer, i_inner] -> { [j] : 0 <= i_inner <= 1 and 0 <= j <= 2i_outer + i_inner }");
}

TEST_CASE("chunk_iname makes consecutive chunks", "[iname]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<10 }"}, {"out[i] = a[i]"});
    const Kernel c = chunk_iname(k, "i", 3);
    CHECK(domain_text(c) == "{ [i_outer, i_inner] : 0 <= i_outer <= 2 and -i_outer <= 3i_inner <= 9 - i_outer }");
    CHECK(lhs(c, "insn") == "out[i_inner + 4*min(i_outer, 1) + 3*(i_outer - min(i_outer, 1))]");
    const Kernel even = chunk_iname(test::kernel({"{ [i]: 2<=i<14 }"}, {"out[i] = a[i]"}), "i", 4);
    CHECK(lhs(even, "insn") == "out[2 + i_inner + 3*i_outer]");
    const Kernel param = chunk_iname(test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[i]"}), "i", 2);
    CHECK(lhs(param, "insn") == "out[i_inner + ((n + 1) // 2)*min(i_outer, n % 2) + (n // 2)*(i_outer - min(i_outer, n % 2))]");
}

TEST_CASE("join_inames counts through the joined inames", "[iname]") {
    const Kernel k = test::kernel({"{ [i,j]: 0<=i<n and 1<=j<=4 }"}, {"out[i,j] = a[i,j]"});
    const Kernel j = join_inames(k, {"i", "j"}, "ij", "l.0");
    CHECK(j.all_inames() == std::vector<std::string>{"ij"});
    CHECK(domain_text(j) == "[n] -> { [ij] : 0 <= ij < 4n }");
    CHECK(lhs(j, "insn") == "out[ij // 4, ij % 4 + 1]");
    CHECK(to_string(j.iname_tag("ij")) == "l.0");
    CHECK(join_inames(k, {"i", "j"}).all_inames() == std::vector<std::string>{"j_and_i"});
    CHECK(fails_with(test::error_of([&] { join_inames(k, {"j", "i"}); }), "LoopyError", "iname 'i' has no constant length"));
}

TEST_CASE("tag_inames validates, resolves and refuses to retag", "[iname]") {
    const Kernel k = test::kernel({"{ [i,j,k]: 0<=i,j,k<n }"}, {"out[i,j,k] = 1"});
    const Kernel t = tag_inames(k, parse_iname_tags("i: l.0, j: like.i, k: unused.l"));
    CHECK(to_string(t.iname_tag("i")) == "l.0");
    CHECK(to_string(t.iname_tag("j")) == "l.0");
    CHECK(to_string(t.iname_tag("k")) == "l.1");
    CHECK(tag_inames(t, {{"*", "for"}})->iname_tags.empty());
    CHECK(to_string(tag_inames(t, {{"i", "l.0"}}).iname_tag("i")) == "l.0");
    for (const char* tag : {"ord", "g.12", "unr", "unr_hint", "unr_hint.8", "ilp", "ilp.unr", "ilp.seq", "vec", "l.auto"})
        CHECK(to_string(tag_inames(k, {{"i", tag}}).iname_tag("i")) == tag);
    for (const char* tag : {"l", "l.-1", "g.a", "unroll", "ilp.x", "like."})
        CHECK(fails_with(test::error_of([&] { tag_inames(k, {{"i", tag}}); }), "LoopyError", "tag"));
    CHECK(fails_with(test::error_of([&] { tag_inames(t, {{"i", "g.0"}}); }), "LoopyError", "already tagged 'l.0'"));
    CHECK(fails_with(test::error_of([&] { tag_inames(k, {{"q", "g.0"}}); }), "LoopyError", "unknown iname 'q'"));
    CHECK(tag_inames(k, {{"q*", "g.0"}})->iname_tags.empty());  // a pattern may match nothing
}

TEST_CASE("duplicate_inames and rename_iname", "[iname]") {
    const Kernel k = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[i] {id=one}", "b[i] = out[i] {id=two}"});
    DuplicateOptions d;
    d.within = "id:two";
    d.tags = {{"i", "unr"}};
    const Kernel dup = duplicate_inames(k, {"i"}, d);
    CHECK(domain_text(dup) == "[n] -> { [i, i_0] : 0 <= i < n and 0 <= i_0 < n }");
    CHECK(lhs(dup, "two") == "b[i_0]");
    CHECK(loops(dup, "one") == std::set<std::string>{"i"});
    CHECK(to_string(dup.iname_tag("i_0")) == "unr");

    const Kernel merged = rename_iname(dup, "i_0", "i", true);
    CHECK(merged.all_inames() == std::vector<std::string>{"i"});
    CHECK(lhs(merged, "two") == "b[i]");

    const Kernel renamed = rename_iname(tag_inames(k, {{"i", "g.0"}}), "i", "q");
    CHECK(domain_text(renamed) == "[n] -> { [q] : 0 <= q < n }");
    CHECK(to_string(renamed.iname_tag("q")) == "g.0");
    const Kernel partly = rename_iname(k, "i", "q", false, "id:one");
    CHECK(partly.all_inames() == std::vector<std::string>{"i", "q"});
    CHECK(lhs(partly, "one") == "out[q]");
}

TEST_CASE("remove_unused_inames and fix_parameters", "[iname]") {
    const Kernel k = test::kernel({"{ [i,k]: 0<=i<n and 0<=k<m }"}, {"out[i] = m*a[i]"});
    const Kernel pruned = remove_unused_inames(k);
    CHECK(pruned.all_inames() == std::vector<std::string>{"i"});
    CHECK(domain_text(pruned) == "[n, m] -> { [i] : m > 0 and 0 <= i < n }");
    const Kernel fixed = fix_parameters(k, {{"m", int_lit(4)}});
    CHECK(domain_text(fixed) == "[n] -> { [i, k] : 0 <= i < n and 0 <= k <= 3 }");
    CHECK(rhs(fixed, "insn") == "4*a[i]");
    CHECK(fixed.find_variable("m") == nullptr);
    CHECK(fails_with(test::error_of([&] { fix_parameters(k, {{"i", int_lit(1)}}); }), "LoopyError", "not a parameter"));
}

TEST_CASE("every iname transformation drops the linearization", "[iname]") {
    KernelData d = test::kernel({"{ [i]: 0<=i<n }"}, {"out[i] = a[i]"}).copy();
    d.linearized = true;
    d.linearization.push_back({LinearItem::Kind::RunInstruction, "insn", "", ""});
    const Kernel k(d);
    for (const Kernel& t : {split_iname(k, "i", 2), chunk_iname(k, "i", 2), tag_inames(k, {{"i", "unr"}}),
                            duplicate_inames(k, {"i"}), rename_iname(k, "i", "j"), fix_parameters(k, {{"n", int_lit(3)}}),
                            prioritize_loops(k, {"i"}), assume(k, "n > 2"), join_inames(k, {"i"}, "j")}) {
        CHECK_FALSE(t->linearized);
        CHECK(t->linearization.empty());
    }
}
