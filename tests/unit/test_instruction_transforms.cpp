// The instruction-ordering transforms on the kernel model: inputs stay unchanged, nosync follows transitive
// dependencies and conflicting groups, barriers get unique ids and sit between the instructions they order.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "helpers.h"
#include "parse/make_kernel.h"
#include "support/error.h"
#include "transform/transforms.h"

using namespace loom;

namespace {

Kernel kernel(std::vector<std::string> instructions) { return test::kernel({"{ [i]: 0<=i<n }"}, std::move(instructions)); }

const Instruction& insn(const Kernel& k, const std::string& id) {
    const Instruction* found = k.find_instruction(id);
    REQUIRE(found != nullptr);
    return *found;
}

std::vector<std::string> nosync_ids(const Instruction& i) {
    std::vector<std::string> out;
    for (const NoSync& n : i.no_sync_with) out.push_back(n.id_pattern);
    return out;
}

const std::vector<std::string> kChain{"x[i] = a[i] {id=one, dep=*}", "y[i] = x[i] {id=two}", "z[i] = y[i] {id=three}"};

}  // namespace

TEST_CASE("set_instruction_priority and add_dependency return new kernels", "[instruction_transforms]") {
    const Kernel k = kernel(kChain);
    const Kernel p = set_instruction_priority(k, "id:t*", 3);
    CHECK(insn(p, "two").priority == 3);
    CHECK(insn(p, "three").priority == 3);
    CHECK(insn(p, "one").priority == 0);
    CHECK(insn(k, "two").priority == 0);
    CHECK(set_instruction_priority(k, "id:none", 3).operator->() == k.operator->());

    const Kernel d = add_dependency(k, "id:three", "reads:a");
    CHECK(insn(d, "three").depends_on == std::set<std::string>{"one", "two"});
    CHECK(insn(k, "three").depends_on == std::set<std::string>{"two"});
    CHECK_THROWS_AS(add_dependency(k, "id:three", "id:none"), Error);
}

TEST_CASE("add_nosync follows transitive dependencies", "[instruction_transforms]") {
    const Kernel k = kernel(kChain);
    const Kernel n = add_nosync(k, "global", "one", "three");
    REQUIRE(insn(n, "three").no_sync_with.size() == 1);
    CHECK(insn(n, "three").no_sync_with[0].scope == SyncScope::Global);
    CHECK(nosync_ids(insn(n, "three")) == std::vector<std::string>{"one"});
    CHECK(insn(n, "one").no_sync_with.empty());
    // Adding the same entry again changes nothing; bidirectional adds the reverse one.
    CHECK(nosync_ids(insn(add_nosync(n, "global", "one", "three"), "three")) == std::vector<std::string>{"one"});
    CHECK(nosync_ids(insn(add_nosync(k, "any", "one", "three", {true, false, false}), "one")) ==
          std::vector<std::string>{"three"});
    // No dependency from three to one: only with force.
    CHECK_THROWS_AS(add_nosync(k, "local", "three", "one"), Error);
    CHECK(nosync_ids(insn(add_nosync(k, "local", "three", "one", {false, true, false}), "one")) ==
          std::vector<std::string>{"three"});
}

TEST_CASE("add_nosync between conflicting groups", "[instruction_transforms]") {
    const Kernel k = kernel({"x[i] = a[i] {id=p, groups=g1, conflicts=g2}", "y[i] = b[i] {id=q, groups=g2, conflicts=g1}"});
    CHECK(nosync_ids(insn(add_nosync(k, "local", "p", "q"), "q")) == std::vector<std::string>{"p"});
}

TEST_CASE("add_barrier ids and dependencies", "[instruction_transforms]") {
    const Kernel k = kernel(kChain);
    const Kernel b = add_barrier(k, std::string("id:one"), std::string("id:two or id:three"));
    const Instruction& bar = insn(b, "g_barrier");
    CHECK(bar.kind == InsnKind::Barrier);
    CHECK(bar.barrier_kind == "global");
    CHECK(bar.mem_kind == "global");
    CHECK(bar.depends_on == std::set<std::string>{"one"});
    CHECK(bar.within_inames.empty());
    CHECK(insn(b, "three").depends_on == std::set<std::string>{"g_barrier", "two"});

    BarrierOptions local;
    local.synchronization_kind = "local";
    local.within_inames = {"i"};
    const Kernel twice = add_barrier(add_barrier(b, std::nullopt, std::nullopt, local), std::nullopt, std::nullopt, local);
    CHECK(insn(twice, "l_barrier").within_inames == std::set<std::string>{"i"});
    CHECK(insn(twice, "l_barrier_0").mem_kind == "local");
    CHECK(insn(twice, "l_barrier_0").depends_on.empty());
}
