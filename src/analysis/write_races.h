// Write races that loopy warns about (WriteRaceConditionWarning), and loopy's warn_with_kernel.
#pragma once

#include <string>

#include "ir/kernel.h"

namespace loom {

/// Reports warning `kind` about kernel `k` unless one of its silenced_warnings patterns matches `id`
/// (fnmatch, as loopy): "in kernel NAME: TEXT (add 'ID' to silenced_warnings kernel attribute to disable)".
void warn_with_kernel(const KernelData& k, const std::string& id, const std::string& text, const std::string& kind);

/// loopy's check_for_write_races: warns (id "write_race(INSN)") about each instruction that runs across
/// concurrent inames its assignee's indices do not use, where those inames share the assigned memory:
/// every concurrent iname for arguments and global temporaries, all but group axes for local ones, ILP and
/// vector inames for private ones. Address spaces must be resolved.
void check_for_write_races(const KernelData& k);

}  // namespace loom
