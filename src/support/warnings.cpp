#include "support/warnings.h"

#include <set>
#include <utility>

#include "support/error.h"

namespace loom {

namespace {

WarningAction g_action = WarningAction::Default;
WarningSink g_sink = nullptr;

}  // namespace

void set_warning_action(WarningAction action) { g_action = action; }

void set_warning_sink(WarningSink sink) { g_sink = sink; }

void warn(const std::string& kind, const std::string& message) {
    switch (g_action) {
        case WarningAction::Ignore: return;
        case WarningAction::Error: throw Error(kind, message);
        case WarningAction::Default: {
            // A kernel is preprocessed for code generation and again per build: show each warning once.
            static std::set<std::pair<std::string, std::string>> shown;
            if (g_sink && shown.emplace(kind, message).second) g_sink(kind, message);
            return;
        }
    }
}

}  // namespace loom
