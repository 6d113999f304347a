// Bindings of the instruction-ordering transformations: set_instruction_priority, add_dependency, add_nosync
// and add_barrier (lp.f(knl, ...) and knl:f(...)).
#include "lua/args.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "transform/transforms.h"

namespace loom::lua {

namespace {

std::set<std::string> opt_name_set(lua_State* L, int arg, const char* key, const char* fname) {
    const auto names = opt_string_list(L, arg, key, fname).value_or(std::vector<std::string>{});
    return {names.begin(), names.end()};
}

int set_instruction_priority(lua_State* L) {
    const char* f = "set_instruction_priority";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string insn_match = check_string(L, 2, f);
    const std::int64_t priority = check_integer(L, 3, f);
    push_kernel(L, loom::set_instruction_priority(k, insn_match, to_int(L, priority, 3, f)));
    return 1;
}

int add_dependency(lua_State* L) {
    const char* f = "add_dependency";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string insn_match = check_string(L, 2, f);
    push_kernel(L, loom::add_dependency(k, insn_match, check_string(L, 3, f)));
    return 1;
}

int add_nosync(lua_State* L) {
    const char* f = "add_nosync";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string scope = check_string(L, 2, f);
    const std::string source = check_string(L, 3, f);
    const std::string sink = check_string(L, 4, f);
    check_options(L, 5, f, {"bidirectional", "force", "empty_ok"});
    NoSyncOptions o;
    o.bidirectional = opt_bool(L, 5, "bidirectional", f).value_or(false);
    o.force = opt_bool(L, 5, "force", f).value_or(false);
    o.empty_ok = opt_bool(L, 5, "empty_ok", f).value_or(false);
    push_kernel(L, loom::add_nosync(k, scope, source, sink, o));
    return 1;
}

// nil: no instructions that way (loopy's None).
std::optional<std::string> opt_match(lua_State* L, int arg, const char* fname) {
    if (lua_isnoneornil(L, arg)) return std::nullopt;
    return check_string(L, arg, fname);
}

int add_barrier(lua_State* L) {
    const char* f = "add_barrier";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::optional<std::string> before = opt_match(L, 2, f);
    const std::optional<std::string> after = opt_match(L, 3, f);
    check_options(L, 4, f, {"id_based_on", "within_inames", "synchronization_kind", "mem_kind", "tags"});
    BarrierOptions o;
    o.id_based_on = opt_string(L, 4, "id_based_on", f).value_or("");
    o.within_inames = opt_name_set(L, 4, "within_inames", f);
    o.synchronization_kind = opt_string(L, 4, "synchronization_kind", f).value_or("global");
    o.mem_kind = opt_string(L, 4, "mem_kind", f).value_or("");
    o.tags = opt_name_set(L, 4, "tags", f);
    push_kernel(L, loom::add_barrier(k, before, after, o));
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"set_instruction_priority", trampoline<set_instruction_priority>},
    {"add_dependency", trampoline<add_dependency>},
    {"add_nosync", trampoline<add_nosync>},
    {"add_barrier", trampoline<add_barrier>},
    {nullptr, nullptr},
};

}  // namespace

void register_instruction_api(lua_State* L, int module_table) {
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
