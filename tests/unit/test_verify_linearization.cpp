// The linearization verifier: broken linearizations, made by hand on purpose, are InternalErrors naming both
// instructions, the variable and the loops; the linearizer's output for real kernels, and other correct
// orders, pass. Every kernel that preprocess_kernel returns has passed it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/lower.h"
#include "preprocess/preprocess.h"
#include "helpers.h"
#include "parse/make_kernel.h"
#include "schedule/linear_tree.h"
#include "schedule/save_reload.h"
#include "schedule/verify_linearization.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

Kernel kernel(const std::vector<std::string>& domains, const std::vector<std::string>& instructions,
              const std::map<std::string, DType>& dtypes, const std::string& assumptions = "") {
    return add_dtypes(test::kernel(domains, instructions, assumptions), dtypes);
}

// What code generation works on; preprocess_kernel has run the verifier on it.
Kernel preprocessed(const Kernel& k) { return preprocess_kernel(k); }

// Items written "for i, f, end i, barrier" (a barrier item as barrier insertion places them).
std::vector<LinearItem> items(const std::string& text) {
    std::vector<LinearItem> out;
    for (const std::string& item : split_trimmed(text, ',')) {
        if (item.rfind("for ", 0) == 0) out.push_back({LinearItem::Kind::EnterLoop, item.substr(4), "", ""});
        else if (item.rfind("end ", 0) == 0) out.push_back({LinearItem::Kind::LeaveLoop, item.substr(4), "", ""});
        else if (item == "barrier") out.push_back({LinearItem::Kind::Barrier, "", "", "local"});
        else out.push_back({LinearItem::Kind::RunInstruction, item, "", ""});
    }
    return out;
}

Kernel with_linearization(const Kernel& k, std::vector<LinearItem> linearization) {
    KernelData d = k.copy();
    d.linearization = std::move(linearization);
    d.linearized = true;
    return Kernel(std::move(d));
}

Kernel with_linearization(const Kernel& k, const std::string& text) { return with_linearization(k, items(text)); }

bool runs_any(const LinearNode& n, const std::set<std::string>& ids) {
    if (n.item.kind == LinearItem::Kind::RunInstruction) return ids.count(n.item.name) != 0;
    return std::any_of(n.body.begin(), n.body.end(), [&](const LinearNode& c) { return runs_any(c, ids); });
}

// The loop over `loop` cut in two: the instructions `first` (with the loops around them inside it) run in the
// first copy, everything else in the second (what a linearizer that closes a loop too early produces).
std::vector<LinearNode> cut_loop(std::vector<LinearNode> nodes, const std::string& loop, const std::set<std::string>& first) {
    std::vector<LinearNode> out;
    for (LinearNode& n : nodes) {
        if (n.item.kind != LinearItem::Kind::EnterLoop) {
            out.push_back(std::move(n));
            continue;
        }
        if (n.item.name != loop) {
            n.body = cut_loop(std::move(n.body), loop, first);
            out.push_back(std::move(n));
            continue;
        }
        LinearNode early{n.item, {}}, late{n.item, {}};
        for (LinearNode& c : n.body)
            (runs_any(c, first) ? early : late).body.push_back(std::move(c));
        out.push_back(std::move(early));
        out.push_back(std::move(late));
    }
    return out;
}

Kernel with_cut_loop(const Kernel& k, const std::string& loop, const std::set<std::string>& first) {
    return with_linearization(k, to_items(cut_loop(to_tree(k->linearization), loop, first)));
}

// The message of the InternalError the verifier raises on `k`.
std::string rejection(const Kernel& k) {
    try {
        verify_linearization(*k);
    } catch (const Error& e) {
        CHECK(e.kind() == "InternalError");
        return e.message();
    }
    FAIL("the verifier accepted a broken linearization");
    return "";
}

void check_names(const std::string& message, const std::vector<std::string>& names) {
    for (const std::string& n : names) CHECK_THAT(message, Catch::Contains(n));
}

SplitOptions tagged(const std::string& outer, const std::string& inner) {
    SplitOptions o;
    o.outer_tag = outer;
    o.inner_tag = inner;
    return o;
}

// A prefetch whose fetch inames run on free local axes.
PrefetchOptions on_local_axes() {
    PrefetchOptions o;
    o.default_tag = "l.auto";
    return o;
}

const std::map<std::string, DType> a_f32{{"a", DType::Float32}};
const std::map<std::string, DType> ab_f32{{"a", DType::Float32}, {"b", DType::Float32}};

Kernel copy_kernel() {
    return preprocessed(kernel({"{ [i]: 0<=i<n }"}, {"x[i] = a[i] {id=p}", "y[i] = 2*x[i] {id=q, dep=p}"}, a_f32));
}

// The writer of a private temporary and its reader, a reduction, in the loops over i and j.
Kernel private_temporary_kernel() {
    return preprocessed(prioritize_loops(
        kernel({"{ [i,j]: 0<=i<3 and 0<=j<4 }"}, {"<> t = 2*a[i,j] {id=f}", "out[i] = sum(j, t) {dep=f}"}, a_f32), {"i", "j"}));
}

// A row t of temporaries, written in every iteration of i, and a reader of it.
Kernel row_kernel(const std::string& reader) {
    MakeKernelInput in;
    in.domains = {"{ [i,j]: 0<=i,j<n }"};
    in.instructions = {"t[j] = 2*a[i,j] {id=w}", reader + " {id=r, dep=w}"};
    Variable t;
    t.name = "t";
    t.kind = VarKind::Temporary;
    t.dtype = DType::Float32;
    t.shape = {var("n")};
    in.args = {t};
    return preprocessed(add_dtypes(make_kernel(in), a_f32));
}

Kernel prefetched_matmul() {
    Kernel k = kernel({"{ [i,j,k]: 0<=i,j,k<n }"}, {"c[i,j] = sum(k, a[i,k]*b[k,j])"}, ab_f32, "n mod 16 = 0 and n >= 16");
    k = split_iname(k, "i", 16, tagged("g.0", "l.1"));
    k = split_iname(k, "j", 16, tagged("g.1", "l.0"));
    k = split_iname(k, "k", 16);
    k = add_prefetch(k, "a", {"i_inner", "k_inner"}, on_local_axes());
    return preprocessed(add_prefetch(k, "b", {"k_inner", "j_inner"}, on_local_axes()));
}

Kernel prefetched_stencil() {
    Kernel k = kernel({"{ [i,j]: 1<=i,j<n-1 }"}, {"out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]"}, a_f32);
    return preprocessed(add_prefetch(split_iname(k, "i", 4), "a", {}));
}

}  // namespace

TEST_CASE("an instruction placed before its dependency is an InternalError naming both and their loop", "[verify]") {
    const Kernel k = copy_kernel();
    CHECK_NOTHROW(verify_linearization(*k));
    check_names(rejection(with_linearization(k, "for i, q, p, end i")), {"'q' depends on 'p'", "shared inames: i"});
    // Every instance of p must run before q's in the same iteration, in whichever loops.
    check_names(rejection(with_linearization(k, "for i, q, end i, for i, p, end i")), {"'q' depends on 'p'", "i"});
    // All of p before all of q is a correct order too.
    CHECK_NOTHROW(verify_linearization(*with_linearization(k, "for i, p, end i, for i, q, end i")));
}

TEST_CASE("a prerequisite without instances may run anywhere", "[verify]") {
    // The order of items alone would reject this; isl finds no instance of p that runs too late.
    const Kernel k = kernel({"{ [i,j]: 0<=i<n and 0<=j<m }"}, {"x[j] = b[j] {id=p}", "y[i] = 2*a[i] {id=q, dep=p}"}, ab_f32);
    const std::string late = "for i, q, end i, for j, p, end j";
    CHECK_NOTHROW(verify_linearization(*with_linearization(preprocessed(assume(k, "m = 0")), late)));
    check_names(rejection(with_linearization(preprocessed(assume(k, "m = 1")), late)),
                {"'q' depends on 'p' (shared inames: none)", "m=1"});
}

TEST_CASE("the writer of a private temporary in another loop nest than its reader is found", "[verify]") {
    const Kernel k = private_temporary_kernel();
    CHECK_NOTHROW(verify_linearization(*k));
    // The linearization: t read in the second nest is always the one f(i=2, j=3) wrote.
    for (const char* writer_nest : {"for j, for i, f, end i, end j", "for i, for j, f, end j, end i"}) {
        const std::string message = rejection(with_linearization(
            k, writer_nest + std::string(", for i, insn_j_init, for j, insn_j_update, end j, insn, end i")));
        check_names(message, {"'insn_j_update' reads 't' written by 'f'", "another iteration of loops", "f(", "i=2",
                              "j=3", "loops around 'f'"});
    }
}

TEST_CASE("an accumulator initialized in a loop of its own is found", "[verify]") {
    const Kernel k = private_temporary_kernel();
    const std::string message = rejection(with_linearization(
        k, "for i, insn_j_init, end i, for i, for j, f, insn_j_update, end j, insn, end i"));
    check_names(message, {"'insn_j_update' reads 'acc_j' written by 'insn_j_init'", "another iteration of loop i"});
}

TEST_CASE("fetches that all run before their readers are found", "[verify]") {
    SECTION("local prefetch in its own k_outer loop, the issue's matmul") {
        const Kernel k = prefetched_matmul();
        CHECK_NOTHROW(verify_linearization(*k));
        const std::string message = rejection(with_cut_loop(k, "k_outer", {"a_fetch_rule", "b_fetch_rule"}));
        check_names(message, {"'insn_k_outer_k_inner_update' reads '", "_fetch' written by '", "another iteration of loop k_outer"});
    }
    SECTION("a fetch loop separated from its reader") {
        const Kernel k = prefetched_stencil();
        CHECK_NOTHROW(verify_linearization(*k));
        const std::string message = rejection(with_cut_loop(k, "j", {"a_fetch_rule"}));
        check_names(message, {"'insn' reads 'a_fetch' written by 'a_fetch_rule'", "another iteration of loop j",
                              "(with n="});
    }
}

TEST_CASE("reading another iteration's value by design is no error", "[verify]") {
    // r reading t[j-1], which w does not write in r's own iteration, gets it from whichever iteration wrote it
    // last, in one loop nest or in two. Reading t[j], which w does write there, from another iteration is wrong.
    const std::string separate_nests = "for i, for j, w, end j, end i, for i, for j, r, end j, end i";
    const Kernel previous = row_kernel("out[i,j] = t[j-1]");
    CHECK_NOTHROW(verify_linearization(*previous));
    CHECK_NOTHROW(verify_linearization(*with_linearization(previous, separate_nests)));
    const Kernel same = row_kernel("out[i,j] = t[j]");
    CHECK_NOTHROW(verify_linearization(*same));
    check_names(rejection(with_linearization(same, separate_nests)),
                {"'r' reads 't' written by 'w' in another iteration of loop i"});
    check_names(rejection(with_linearization(same, "for i, for j, r, w, end j, end i")), {"'r' depends on 'w'"});
}

TEST_CASE("the linearizer's output passes", "[verify]") {
    CHECK_NOTHROW(private_temporary_kernel());
    CHECK_NOTHROW(prefetched_matmul());
    CHECK_NOTHROW(prefetched_stencil());
    SECTION("matrix-vector product") {
        const Kernel k = kernel({"{ [i,k]: 0<=i<n and 0<=k<m }"}, {"out[i] = sum(k, a[i,k]*b[k])"}, ab_f32);
        CHECK_NOTHROW(preprocess_kernel(k));
    }
    SECTION("ILP accumulators") {
        Kernel k = kernel({"{ [i,j,k]: 0<=i,j,k<n }"}, {"c[i,j] = sum(k, a[i,k]*b[k,j])"}, ab_f32, "n mod 64 = 0 and n >= 64");
        k = split_iname(k, "i", 64, tagged("g.0", ""));
        k = split_iname(k, "i_inner", 16, tagged("ilp", "l.0"));
        k = split_iname(k, "j", 16, tagged("g.1", "l.1"));
        CHECK_NOTHROW(preprocessed(k));
    }
    SECTION("device kernels split at a global barrier, temporaries saved and reloaded") {
        Kernel k = kernel({"{ [i]: 0<=i<n }"},
                          {"<> t = 2*a[i] {id=w}", "... gbarrier {id=bar, dep=w}", "out[i] = t + a[i] {id=r, dep=bar}"},
                          a_f32, "n mod 8 = 0");
        k = split_iname(k, "i", 8, tagged("g.0", "l.0"));
        const Kernel saved = preprocessed(save_and_reload_temporaries(preprocessed(k)));
        CHECK_NOTHROW(verify_linearization(*saved));
        // The reload's reader running before the reload is not.
        std::vector<LinearItem> broken = saved->linearization;
        const auto reload = std::find_if(broken.begin(), broken.end(), [](const LinearItem& it) { return it.name == "t.reload"; });
        REQUIRE(reload != broken.end());
        std::iter_swap(reload, reload + 1);
        check_names(rejection(with_linearization(saved, broken)), {"'r' depends on 't.reload'"});
    }
}

TEST_CASE("a linearization that does not run each instruction once in its loops is an InternalError", "[verify]") {
    const Kernel k = copy_kernel();
    check_names(rejection(with_linearization(k, "for i, p, end i")), {"never runs 'q'"});
    check_names(rejection(with_linearization(k, "for i, p, q, p, end i")), {"runs 'p' twice"});
    check_names(rejection(with_linearization(k, "p, for i, q, end i")), {"runs 'p' outside loop 'i'"});
    check_names(rejection(with_linearization(k, "for i, for i, p, end i, q, end i")), {"runs 'p' in two loops over 'i'"});
    check_names(rejection(with_linearization(private_temporary_kernel(),
                                             "for i, for j, insn_j_init, f, insn_j_update, end j, insn, end i")),
                {"runs 'insn_j_init' in loop 'j', which is not one of its inames"});
    check_names(rejection(with_linearization(tag_inames(k, {{"i", "l.0"}}), "for i, p, q, end i")),
                {"runs 'p' in a loop over 'i', which is a hardware axis (l.0)"});
    check_names(rejection(with_linearization(k, "for i, p, q, end j")), {"leaves loop 'j'"});
    check_names(rejection(with_linearization(k, "for i, p, q")), {"leaves loop 'i' open"});
    check_names(rejection(with_linearization(k, "for i, p, q, r, end i")), {"runs 'r', which is no instruction"});
}

TEST_CASE("preprocess_kernel verifies a linearization it is given", "[verify]") {
    const Kernel broken = with_linearization(copy_kernel(), "for i, q, p, end i");
    try {
        generate_code(broken, TargetKind::OpenCL);
        FAIL("code was generated for a broken linearization");
    } catch (const Error& e) {
        CHECK(e.kind() == "InternalError");
        CHECK_THAT(e.message(), Catch::Contains("'q' depends on 'p'"));
    }
}
