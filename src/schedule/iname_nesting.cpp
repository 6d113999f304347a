#include "schedule/iname_nesting.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ir/iname_tags.h"
#include "support/error.h"
#include "support/strings.h"

namespace loom {

namespace {

using InameSet = std::set<std::string>;

struct DuplicationOption {
    std::string iname;
    InameSet within;  // the iname set of the instructions whose copy of `iname` would be a new iname
};

InameSet sequential_inames(const KernelData& k, const Instruction& insn) {
    InameSet out;
    for (const std::string& i : insn.within_inames)
        if (!iname_tag(k, i).is_concurrent()) out.insert(i);
    return out;
}

bool overlap(const InameSet& a, const InameSet& b) {
    return std::any_of(a.begin(), a.end(), [&](const std::string& i) { return b.count(i) != 0; });
}

// The connected components of `sets` under overlap, as the unions of their members.
std::vector<InameSet> components(const std::set<InameSet>& sets) {
    std::vector<InameSet> parts(sets.begin(), sets.end());
    for (bool merged = true; merged;) {
        merged = false;
        for (std::size_t a = 0; a < parts.size() && !merged; ++a)
            for (std::size_t b = a + 1; b < parts.size() && !merged; ++b)
                if (overlap(parts[a], parts[b])) {
                    parts[a].insert(parts[b].begin(), parts[b].end());
                    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(b));
                    merged = true;
                }
    }
    return parts;
}

// Appends duplication options for `sets` (with `outer` the inames already found to nest around them): none
// when they nest. Only the options that move one group of instructions are listed, as loopy lists them first.
void duplication_options(const std::set<InameSet>& sets, const InameSet& outer, std::vector<DuplicationOption>& out) {
    if (sets.empty()) return;
    InameSet common = *sets.begin();
    for (const InameSet& s : sets)
        for (auto it = common.begin(); it != common.end();) it = s.count(*it) ? std::next(it) : common.erase(it);
    if (!common.empty()) {
        std::set<InameSet> rest;
        for (const InameSet& s : sets) {
            InameSet r;
            std::set_difference(s.begin(), s.end(), common.begin(), common.end(), std::inserter(r, r.end()));
            if (!r.empty()) rest.insert(std::move(r));
        }
        InameSet around = outer;
        around.insert(common.begin(), common.end());
        duplication_options(rest, around, out);
        return;
    }
    const std::vector<InameSet> parts = components(sets);
    if (parts.size() > 1) {
        for (const InameSet& part : parts) {
            std::set<InameSet> inside;
            for (const InameSet& s : sets)
                if (std::includes(part.begin(), part.end(), s.begin(), s.end())) inside.insert(s);
            duplication_options(inside, outer, out);
        }
        return;
    }
    for (const std::string& iname : parts.front()) {
        std::vector<InameSet> users;
        for (const InameSet& s : sets)
            if (s.count(iname)) users.push_back(s);
        if (users.size() < 2) continue;
        for (InameSet within : users) {
            within.insert(outer.begin(), outer.end());
            out.push_back({iname, std::move(within)});
        }
    }
}

}  // namespace

void check_schedulable_iname_nesting(const KernelData& k) {
    std::set<InameSet> sets;
    for (const Instruction& insn : k.instructions) {
        InameSet s = sequential_inames(k, insn);
        if (!s.empty()) sets.insert(std::move(s));
    }
    std::vector<DuplicationOption> options;
    duplication_options(sets, {}, options);
    if (options.empty()) return;
    std::vector<std::string> lines;
    for (std::size_t n = 0; n < options.size() && n < 3; ++n) {
        std::vector<std::string> ids;
        for (const Instruction& insn : k.instructions)
            if (sequential_inames(k, insn) == options[n].within) ids.push_back("id:" + insn.id);
        lines.push_back(cat("* Duplicate ", options[n].iname, " within instructions (", join(ids, " or "), ")"));
    }
    user_error(error_kind::LoopyError, "Kernel does not have a schedulable iname nesting. In order for there to exist a "
               "feasible loop nesting, you may need to duplicate an iname. To do so, call duplicate_inames. Here "
               "are some options:\n", join(lines, "\n"));
}

}  // namespace loom
