// realize_reduction's structure: accumulators (names, types, private scalars), init and update instructions
// (ids, loops, dependencies, expressions), nested and sibling reductions, argmax's two accumulators, and the
// errors for what it cannot realize.
#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "helpers.h"
#include "parse/make_kernel.h"
#include "schedule/linearize.h"
#include "support/error.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

using Ids = std::vector<std::string>;
using Names = std::set<std::string>;

Kernel kernel(const std::vector<std::string>& domains, const std::vector<std::string>& instructions,
              const std::map<std::string, DType>& dtypes = {}) {
    const Kernel k = test::kernel(domains, instructions);
    return dtypes.empty() ? k : add_dtypes(k, dtypes);
}

Ids ids_of(const Kernel& k) {
    Ids out;
    for (const Instruction& insn : k->instructions) out.push_back(insn.id);
    return out;
}

const Instruction& insn(const Kernel& k, const std::string& id) {
    const Instruction* i = k.find_instruction(id);
    REQUIRE(i != nullptr);
    return *i;
}

std::string text(const Kernel& k, const std::string& id) {
    const Instruction& i = insn(k, id);
    return to_string(i.assignees[0]) + " = " + to_string(i.expression);
}

const Variable& temporary(const Kernel& k, const std::string& name) {
    const Variable* v = k.find_variable(name);
    REQUIRE(v != nullptr);
    CHECK(v->kind == VarKind::Temporary);
    CHECK_FALSE(v->is_array);
    CHECK(v->address_space == AddressSpace::Private);
    return *v;
}

std::optional<Error> realize_error(const Kernel& k) { return test::error_of([&] { realize_reduction(k); }); }

}  // namespace

TEST_CASE("a sum becomes an accumulator with init and update instructions", "[reduction]") {
    const Kernel k = kernel({"{ [i,k]: 0<=i<n and 0<=k<m }"}, {"out[i] = sum(k, a[i,k]*x[k])"},
                            {{"a", DType::Float32}, {"x", DType::Float32}});
    const Kernel r = realize_reduction(k);

    CHECK(ids_of(r) == Ids{"insn_k_init", "insn_k_update", "insn"});
    REQUIRE(r->temporaries.size() == 1);
    CHECK(temporary(r, "acc_k").dtype == DType::Float32);

    CHECK(text(r, "insn_k_init") == "acc_k = 0.0");
    CHECK(text(r, "insn_k_update") == "acc_k = acc_k + a[i, k]*x[k]");
    CHECK(text(r, "insn") == "out[i] = acc_k");

    CHECK(insn(r, "insn_k_init").within_inames == Names{"i"});
    CHECK(insn(r, "insn_k_update").within_inames == Names{"i", "k"});
    CHECK(insn(r, "insn").within_inames == Names{"i"});

    CHECK(insn(r, "insn_k_init").depends_on.empty());
    CHECK(insn(r, "insn_k_update").depends_on == Names{"insn_k_init"});
    CHECK(insn(r, "insn").depends_on == Names{"insn_k_update"});

    // The input is untouched, and a kernel without reductions comes back as it is.
    CHECK(ids_of(k) == Ids{"insn"});
    CHECK(&*realize_reduction(r) == &*r);
}

TEST_CASE("the neutral element and the fold depend on the operation and type", "[reduction]") {
    const auto realized = [](const std::string& op, DType t) {
        return realize_reduction(kernel({"{ [i]: 0<=i<n }"}, {"s = " + op + "(i, a[i])"}, {{"a", t}}));
    };
    CHECK(text(realized("product", DType::Int32), "insn_i_init") == "acc_i = 1");
    CHECK(text(realized("product", DType::Int32), "insn_i_update") == "acc_i = acc_i*a[i]");
    CHECK(text(realized("max", DType::Float64), "insn_i_init") == "acc_i = -inf");
    CHECK(text(realized("max", DType::Float64), "insn_i_update") == "acc_i = max(acc_i, a[i])");
    CHECK(text(realized("min", DType::Float32), "insn_i_init") == "acc_i = inf");
    CHECK(text(realized("max", DType::Int32), "insn_i_init") == "acc_i = -2147483648");
    CHECK(text(realized("min", DType::Int64), "insn_i_init") == "acc_i = 9223372036854775807");
    CHECK(text(realized("max", DType::UInt8), "insn_i_init") == "acc_i = 0");
    CHECK(text(realized("min", DType::UInt16), "insn_i_init") == "acc_i = 65535");

    const Kernel logic = realize_reduction(
        kernel({"{ [i]: 0<=i<n }"}, {"p = any(i, a[i] > 0) {id=p}", "q = all(i, a[i] > 0) {id=q}"},
               {{"a", DType::Float32}}));
    CHECK(text(logic, "p_i_init") == "acc_i = 0");
    CHECK(text(logic, "p_i_update") == "acc_i = acc_i or a[i] > 0");
    CHECK(text(logic, "q_i_init") == "acc_i_0 = 1");
    CHECK(text(logic, "q_i_update") == "acc_i_0 = acc_i_0 and a[i] > 0");
    CHECK(temporary(logic, "acc_i").dtype == DType::Bool);
}

TEST_CASE("sums with unknown types are realized and typed later", "[reduction]") {
    const Kernel r = realize_reduction(kernel({"{ [i]: 0<=i<n }"}, {"s = sum(i, a[i])"}));
    CHECK(temporary(r, "acc_i").dtype == DType::Unknown);
    CHECK(text(r, "insn_i_init") == "acc_i = 0");
}

TEST_CASE("nested reductions initialize inside the outer reduction's loop", "[reduction]") {
    const Kernel r = realize_reduction(kernel({"{ [i,j,k]: 0<=i,j,k<n }"}, {"out[i] = sum(k, a[i,k]*sum(j, a[k,j]))"},
                                              {{"a", DType::Float32}}));
    CHECK(ids_of(r) == Ids{"insn_k_init", "insn_j_init", "insn_j_update", "insn_k_update", "insn"});
    CHECK(text(r, "insn_k_update") == "acc_k = acc_k + a[i, k]*acc_j");
    CHECK(insn(r, "insn_j_init").within_inames == Names{"i", "k"});
    CHECK(insn(r, "insn_j_update").within_inames == Names{"i", "j", "k"});
    CHECK(insn(r, "insn_j_update").depends_on == Names{"insn_j_init", "insn_k_init"});
    CHECK(insn(r, "insn_k_update").depends_on == Names{"insn_k_init", "insn_j_update"});
    CHECK(temporary(r, "acc_j").dtype == DType::Float32);

    // The linearizer puts the inner init inside the k loop, before the j loop.
    const Kernel linear = linearize(r);
    Ids order;
    for (const LinearItem& item : linear->linearization)
        order.push_back(item.kind == LinearItem::Kind::EnterLoop   ? "for " + item.name
                        : item.kind == LinearItem::Kind::LeaveLoop ? "end " + item.name
                                                                   : item.name);
    CHECK(order == Ids{"for i", "insn_k_init", "for k", "insn_j_init", "for j", "insn_j_update", "end j",
                       "insn_k_update", "end k", "insn", "end i"});
}

TEST_CASE("reductions side by side get distinct accumulators and ids", "[reduction]") {
    const Kernel r = realize_reduction(kernel({"{ [i]: 0<=i<n }"}, {"w = max(i, b[i]) + min(i, b[i])"},
                                              {{"b", DType::Float32}}));
    CHECK(ids_of(r) == Ids{"insn_i_init", "insn_i_update", "insn_i_init_0", "insn_i_update_0", "insn"});
    CHECK(text(r, "insn") == "w = acc_i + acc_i_0");
    CHECK(insn(r, "insn").depends_on == Names{"insn_i_update", "insn_i_update_0"});
}

TEST_CASE("a reduction over two inames has one accumulator", "[reduction]") {
    const Kernel r = realize_reduction(kernel({"{ [i,j]: 0<=i,j<n }"}, {"s = sum((i, j), a[i, j])"},
                                              {{"a", DType::Float64}}));
    CHECK(ids_of(r) == Ids{"insn_i_j_init", "insn_i_j_update", "insn"});
    CHECK(temporary(r, "acc_i_j").dtype == DType::Float64);
    CHECK(insn(r, "insn_i_j_init").within_inames.empty());
    CHECK(insn(r, "insn_i_j_update").within_inames == Names{"i", "j"});
}

TEST_CASE("argmax keeps a value and an index accumulator", "[reduction]") {
    const Kernel r = realize_reduction(kernel({"{ [i]: 0<=i<n }"}, {"v, idx = argmax(i, a[i], i)"},
                                              {{"a", DType::Float32}}));
    CHECK(ids_of(r) == Ids{"insn_i_init", "insn_i_index_init", "insn_i_index_update", "insn_i_update",
                           "insn_index", "insn"});
    CHECK(temporary(r, "acc_i").dtype == DType::Float32);
    CHECK(temporary(r, "acc_i_0").dtype == DType::Int32);
    CHECK(text(r, "insn_i_index_init") == "acc_i_0 = -1");
    // The index moves on a strict improvement only, before the value it compares against changes.
    CHECK(text(r, "insn_i_index_update") == "acc_i_0 = if(a[i] > acc_i, i, acc_i_0)");
    CHECK(text(r, "insn_i_update") == "acc_i = max(acc_i, a[i])");
    CHECK(insn(r, "insn_i_update").depends_on == Names{"insn_i_init", "insn_i_index_init", "insn_i_index_update"});
    CHECK(text(r, "insn_index") == "idx = acc_i_0");
    CHECK(text(r, "insn") == "v = acc_i");
    CHECK(insn(r, "insn").depends_on == Names{"insn_i_update", "insn_index"});

    const Kernel m = realize_reduction(kernel({"{ [i]: 0<=i<n }"}, {"v, idx = argmin(i, a[i], i)"},
                                              {{"a", DType::Int32}}));
    CHECK(text(m, "insn_i_init") == "acc_i = 2147483647");
    CHECK(text(m, "insn_i_index_update") == "acc_i_0 = if(a[i] < acc_i, i, acc_i_0)");

    // Both accumulators take the next free `acc_<inames>` name, as loopy's are named.
    const Kernel after = realize_reduction(
        kernel({"{ [i]: 0<=i<n }"}, {"w = max(i, a[i])", "v, idx = argmax(i, a[i], i)"}, {{"a", DType::Float32}}));
    CHECK(text(after, "insn_0_i_index_init") == "acc_i_1 = -1");
    CHECK(text(after, "insn_0_i_init") == "acc_i_0 = -inf");
}

TEST_CASE("what cannot be realized is a user error", "[reduction]") {
    auto e = realize_error(kernel({"{ [i]: 0<=i<n }"}, {"s = max(i, a[i])"}));
    REQUIRE(e);
    CHECK(e->kind() == "TypeInferenceError");

    e = realize_error(kernel({"{ [i]: 0<=i<n }"}, {"s = 1 + argmax(i, a[i], i)"}, {{"a", DType::Float32}}));
    REQUIRE(e);
    CHECK(e->kind() == "LoopyError");

    KernelData tagged = kernel({"{ [i]: 0<=i<16 }"}, {"s = sum(i, a[i])"}).copy();
    tagged.iname_tags["i"] = InameTag::group(0);  // l.0 makes a tree reduction; groups cannot combine results
    e = realize_error(Kernel(std::move(tagged)));
    REQUIRE(e);
    CHECK(e->kind() == "LoopyError");
    CHECK(e->message().find("Reduce in two stages") != std::string::npos);
}
