// Warnings of the engine (loopy's LoopyWarning family, e.g. WriteRaceConditionWarning): diagnostics that do
// not stop the pipeline. What happens to them is a process-wide policy, as Python's warnings filters are:
// shown (by the sink the host installs; the engine never prints), raised as errors, or ignored.
#pragma once

#include <string>

namespace loom {

enum class WarningAction { Default, Error, Ignore };

/// lp.set_warnings: Default shows each distinct warning once per process, Error raises it as a loom::Error
/// whose kind is the warning's class name, Ignore drops it.
void set_warning_action(WarningAction action);

/// Where shown warnings go; the Lua module installs one that writes to stderr. Without one they are dropped.
using WarningSink = void (*)(const std::string& kind, const std::string& message);
void set_warning_sink(WarningSink sink);

/// Reports warning `kind` (e.g. "WriteRaceConditionWarning") with `message` under the current action.
void warn(const std::string& kind, const std::string& message);

}  // namespace loom
