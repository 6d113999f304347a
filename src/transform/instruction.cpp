// Transformations of how instructions are ordered and synchronized, as loopy's transform/instruction.py
// and transform/add_barrier.py: priorities, dependencies, nosync entries and barrier instructions.
#include <algorithm>
#include <functional>
#include <memory>

#include "parse/match.h"
#include "support/error.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom {

namespace {

std::set<std::string> matching_ids(const KernelData& k, const std::string& insn_match) {
    const Match match = Match::parse(insn_match);
    std::set<std::string> out;
    for (const Instruction& insn : k.instructions)
        if (match(insn, k.name)) out.insert(insn.id);
    return out;
}

// An instruction id names that instruction even where, read as a match expression, it would not (loopy
// tries the id first).
std::set<std::string> id_or_matching_ids(const KernelData& k, const std::string& spec) {
    if (find_instruction(k, spec)) return {spec};
    return matching_ids(k, spec);
}

// The kernel with `edit` applied to the instructions whose ids are in `ids`.
Kernel edit_instructions(const Kernel& k, const std::set<std::string>& ids, const std::function<void(Instruction&)>& edit) {
    KernelData out = k.copy();
    for (Instruction& insn : out.instructions)
        if (ids.count(insn.id)) edit(insn);
    return unlinearized_kernel(std::move(out));
}

bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) != 0; });
}

bool in_conflicting_groups(const Instruction& a, const Instruction& b) {
    return intersects(a.groups, b.conflicts_with_groups) || intersects(b.groups, a.conflicts_with_groups);
}

SyncScope sync_scope(const std::string& scope) {
    if (scope == "local") return SyncScope::Local;
    if (scope == "global") return SyncScope::Global;
    user_assert(scope == "any", error_kind::LoopyError, "add_nosync: unknown scope '", scope,
                "' (allowed scopes are 'local', 'global', 'any')");
    return SyncScope::Any;
}

void add_nosync_entry(Instruction& insn, const std::string& other, SyncScope scope) {
    const bool present = std::any_of(insn.no_sync_with.begin(), insn.no_sync_with.end(), [&](const NoSync& n) {
        return n.id_pattern == other && n.scope == scope;
    });
    if (!present) insn.no_sync_with.push_back({other, scope});
}

void check_barrier_options(const KernelData& k, const BarrierOptions& o) {
    user_assert(o.synchronization_kind == "global" || o.synchronization_kind == "local", error_kind::LoopyError,
                "add_barrier: unknown synchronization_kind '", o.synchronization_kind, "' (expected 'global' or 'local')");
    user_assert(o.mem_kind.empty() || o.mem_kind == "global" || o.mem_kind == "local", error_kind::LoopyError,
                "add_barrier: unknown mem_kind '", o.mem_kind, "' (expected 'global' or 'local')");
    for (const std::string& iname : o.within_inames)
        user_assert(is_iname(k, iname), error_kind::LoopyError, "add_barrier: unknown iname '", iname, "' in within_inames");
}

// The first of `base`, base_0, base_1, ... that no instruction has as its id.
std::string unique_instruction_id(const KernelData& k, const std::string& base) {
    std::string id = base;
    for (int n = 0; find_instruction(k, id); ++n) id = cat(base, "_", n);
    return id;
}

}  // namespace

Kernel set_instruction_priority(const Kernel& k, const std::string& insn_match, int priority) {
    const std::set<std::string> ids = matching_ids(*k, insn_match);
    if (ids.empty()) return k;
    return edit_instructions(k, ids, [&](Instruction& insn) { insn.priority = priority; });
}

Kernel add_inames_to_insn(const Kernel& k, const std::vector<std::string>& inames, const std::string& insn_match) {
    for (const std::string& i : inames)
        user_assert(is_iname(*k, i), error_kind::LoopyError, "add_inames_to_insn: iname '", i, "' does not exist");
    const std::set<std::string> ids = matching_ids(*k, insn_match);
    if (ids.empty()) return k;
    return edit_instructions(k, ids, [&](Instruction& insn) { insn.within_inames.insert(inames.begin(), inames.end()); });
}

Kernel add_dependency(const Kernel& k, const std::string& insn_match, const std::string& depends_on) {
    const std::set<std::string> added = id_or_matching_ids(*k, depends_on);
    user_assert(!added.empty(), error_kind::LoopyError, "no instructions found matching '", depends_on,
                "' (to add as dependencies)");
    const std::set<std::string> ids = matching_ids(*k, insn_match);
    user_assert(!ids.empty(), error_kind::LoopyError, "no instructions found matching '", insn_match,
                "' (to which dependencies would be added)");
    return edit_instructions(k, ids, [&](Instruction& insn) { insn.depends_on.insert(added.begin(), added.end()); });
}

Kernel add_nosync(const Kernel& k, const std::string& scope, const std::string& source, const std::string& sink,
                  const NoSyncOptions& options) {
    const SyncScope s = sync_scope(scope);
    const std::set<std::string> sources = id_or_matching_ids(*k, source);
    const std::set<std::string> sinks = id_or_matching_ids(*k, sink);
    user_assert(!sources.empty() || options.empty_ok, error_kind::LoopyError, "No match found for source specification '",
                source, "'.");
    user_assert(!sinks.empty() || options.empty_ok, error_kind::LoopyError, "No match found for sink specification '", sink, "'.");

    std::map<std::string, std::vector<std::string>> to_add;  // instruction -> ids it need not synchronize with
    for (const std::string& t : sinks) {
        const std::set<std::string> deps = all_dependencies(*k, t);
        for (const std::string& src : sources) {
            const bool needed = options.force || deps.count(src) ||
                                in_conflicting_groups(*k.find_instruction(src), *k.find_instruction(t));
            if (!needed) continue;
            to_add[t].push_back(src);
            if (options.bidirectional) to_add[src].push_back(t);
        }
    }
    user_assert(!to_add.empty() || options.empty_ok, error_kind::LoopyError,
                "No nosync annotations were added as a result of this call. add_nosync will (by default) only add "
                "them to accompany existing dependencies or group exclusions. Maybe you want to pass force=True?");
    if (to_add.empty()) return k;
    KernelData out = k.copy();
    for (Instruction& insn : out.instructions)
        for (const std::string& other : to_add[insn.id]) add_nosync_entry(insn, other, s);
    return unlinearized_kernel(std::move(out));
}

Kernel add_barrier(const Kernel& k, const std::optional<std::string>& insn_before,
                   const std::optional<std::string>& insn_after, const BarrierOptions& options) {
    check_barrier_options(*k, options);
    Instruction barrier;
    barrier.kind = InsnKind::Barrier;
    barrier.barrier_kind = options.synchronization_kind;
    barrier.mem_kind = options.mem_kind.empty() ? options.synchronization_kind : options.mem_kind;
    barrier.id = unique_instruction_id(
        *k, options.id_based_on.empty() ? options.synchronization_kind.substr(0, 1) + "_barrier" : options.id_based_on);
    if (insn_before) barrier.depends_on = matching_ids(*k, *insn_before);
    barrier.depends_on_is_final = true;
    barrier.within_inames = options.within_inames;
    barrier.within_inames_is_final = true;
    barrier.tags = options.tags;

    // The instructions after it are chosen among the existing ones: the barrier never waits for itself.
    std::set<std::string> after;
    if (insn_after) {
        after = matching_ids(*k, *insn_after);
        user_assert(!after.empty(), error_kind::LoopyError, "no instructions found matching '", *insn_after,
                    "' (to which dependencies would be added)");
    }
    KernelData out = k.copy();
    for (Instruction& insn : out.instructions)
        if (after.count(insn.id)) insn.depends_on.insert(barrier.id);
    out.instructions.push_back(std::move(barrier));
    return unlinearized_kernel(std::move(out));
}

}  // namespace loom
