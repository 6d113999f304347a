// lp.set_warnings: what happens to the engine's warnings (loopy's are Python warnings, filtered the same
// way). Shown warnings go to stderr, as Python prints them.
#include <cstdio>

#include "lua/args.h"
#include "lua/binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "support/error.h"
#include "support/warnings.h"

namespace loom::lua {

namespace {

void print_warning(const std::string& kind, const std::string& message) {
    std::fprintf(stderr, "%s: %s\n", kind.c_str(), message.c_str());
}

// Process-wide (support/warnings.h), so not a sandboxed script's to change.
int set_warnings(lua_State* L) {
    const char* f = "set_warnings";
    refuse_in_sandbox(L, f);
    const std::string name = check_string(L, 1, f);
    if (name == "default") set_warning_action(WarningAction::Default);
    else if (name == "error") set_warning_action(WarningAction::Error);
    else if (name == "ignore") set_warning_action(WarningAction::Ignore);
    else arg_error(L, 1, f, cat("unknown action '", name, "' (expected 'default', 'error' or 'ignore')"));
    return 0;
}

const luaL_Reg kFunctions[] = {
    {"set_warnings", trampoline<set_warnings>},
    {nullptr, nullptr},
};

}  // namespace

void register_warning_api(lua_State* L, int module_table) {
    set_warning_sink(print_warning);
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
