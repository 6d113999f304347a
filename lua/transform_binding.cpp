// The transformations: lp.f(knl, ...) and knl:f(...), each returning a new kernel.
#include <algorithm>

#include "analysis/types.h"
#include "codegen/lower.h"
#include "preprocess/preprocess.h"
#include "lua/args.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "schedule/linearize.h"
#include "schedule/save_reload.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom::lua {

namespace {

std::vector<std::string> name_list(lua_State* L, int idx, const char* fname) {
    if (lua_type(L, idx) == LUA_TSTRING) return split_trimmed(lua_tostring(L, idx), ',');
    if (!lua_istable(L, idx))
        arg_error(L, idx, fname, cat("string or list of names expected, got ", luaL_typename(L, idx)));
    std::vector<std::string> out;
    const lua_Integer n = length(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (get_index(L, idx, i) != LUA_TSTRING) arg_error(L, idx, fname, "list of names expected");
        out.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return out;
}

// A table {name = dtype, ...} as a map; a key may list several names separated by commas (as loopy's).
std::map<std::string, DType> dtype_map(lua_State* L, int idx, const char* fname) {
    check_table(L, idx, fname);
    std::map<std::string, DType> out;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, idx, fname, "keys must be variable names");
        const DType dtype = check_dtype(L, lua_gettop(L), fname, idx);
        for (const std::string& name : split_trimmed(lua_tostring(L, -2), ',')) out[name] = dtype;
        lua_pop(L, 1);
    }
    return out;
}

// loopy's values: true, false (warn) or "no_check".
std::optional<AccessOrdering> opt_access_ordering(lua_State* L, int opts, const char* f) {
    get_field(L, opts, "enforce_variable_access_ordered");
    std::optional<AccessOrdering> out;
    if (lua_isboolean(L, -1)) {
        out = lua_toboolean(L, -1) ? AccessOrdering::Enforce : AccessOrdering::Warn;
    } else if (lua_type(L, -1) == LUA_TSTRING && std::string(lua_tostring(L, -1)) == "no_check") {
        out = AccessOrdering::NoCheck;
    } else if (!lua_isnil(L, -1)) {
        lua_pop(L, 1);
        arg_error(L, opts, f, "option 'enforce_variable_access_ordered' must be true, false or \"no_check\"");
    }
    lua_pop(L, 1);
    return out;
}

int set_options(lua_State* L) {
    const char* f = "set_options";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    check_table(L, 2, f);
    // loopy options for its Python machinery have no meaning here: naming them is an error, not a silent no-op.
    for (const char* python_only : {"no_numpy", "cl_exec_manage_array_events", "trace_assignments"}) {
        get_field(L, 2, python_only);
        const bool given = !lua_isnil(L, -1);
        lua_pop(L, 1);
        if (given)
            arg_error(L, 2, f, cat("option '", python_only, "' configures loopy's Python/PyOpenCL wrapper, which Loom does "
                                   "not have"));
    }
    check_option_keys(L, 2, f,
                      {"write_code", "return_dict", "allow_terminal_colors", "check_dep_resolution", "build_options",
                       "target", "write_wrapper", "insert_gbarriers", "enforce_variable_access_ordered", "checked"});
    OptionUpdate u;
    u.write_code = opt_bool(L, 2, "write_code", f);
    u.write_wrapper = opt_bool(L, 2, "write_wrapper", f);
    u.return_dict = opt_bool(L, 2, "return_dict", f);
    u.allow_terminal_colors = opt_bool(L, 2, "allow_terminal_colors", f);
    u.check_dep_resolution = opt_bool(L, 2, "check_dep_resolution", f);
    u.insert_gbarriers = opt_bool(L, 2, "insert_gbarriers", f);
    u.checked = opt_bool(L, 2, "checked", f);
    u.build_options = opt_string_list(L, 2, "build_options", f);
    if (u.build_options) check_compiler_flags(L, *u.build_options, f, "build_options");
    u.target = opt_string(L, 2, "target", f);
    if (u.target) target_from_name(*u.target);
    u.access_ordering = opt_access_ordering(L, 2, f);
    push_kernel(L, loom::set_options(k, u));
    return 1;
}

int add_dtypes(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "add_dtypes").kernel;
    push_kernel(L, loom::add_dtypes(k, dtype_map(L, 2, "add_dtypes")));
    return 1;
}

int add_and_infer_dtypes(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "add_and_infer_dtypes").kernel;
    push_kernel(L, loom::add_and_infer_dtypes(k, dtype_map(L, 2, "add_and_infer_dtypes")));
    return 1;
}

int prioritize_loops(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "prioritize_loops").kernel;
    push_kernel(L, loom::prioritize_loops(k, name_list(L, 2, "prioritize_loops")));
    return 1;
}

int assume(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "assume").kernel;
    push_kernel(L, loom::assume(k, check_string(L, 2, "assume")));
    return 1;
}

int realize_reduction(lua_State* L) {
    const char* f = "realize_reduction";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    check_options(L, 2, f, {"insn_id_filter"});
    std::optional<std::set<std::string>> filter;
    if (lua_istable(L, 2) && get_field(L, 2, "insn_id_filter") != LUA_TNIL) {
        const std::vector<std::string> ids = name_list(L, lua_gettop(L), f);
        filter = std::set<std::string>(ids.begin(), ids.end());
    }
    push_kernel(L, loom::realize_reduction(k, filter));
    return 1;
}

int set_temporary_address_space(lua_State* L) {
    const char* f = "set_temporary_address_space";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string name = check_string(L, 2, f);
    const std::string space = check_string(L, 3, f);
    AddressSpace as = AddressSpace::Private;
    if (space == "local") as = AddressSpace::Local;
    else if (space == "global") as = AddressSpace::Global;
    else if (space != "private") arg_error(L, 3, f, cat("unknown address space '", space, "' (private, local or global)"));
    push_kernel(L, loom::set_temporary_address_space(k, name, as));
    return 1;
}

int tag_array_axes(lua_State* L) {
    const char* f = "tag_array_axes";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    push_kernel(L, loom::tag_array_axes(k, name_list(L, 2, f), name_list(L, 3, f)));
    return 1;
}

int privatize_temporaries_with_inames(lua_State* L) {
    const char* f = "privatize_temporaries_with_inames";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::vector<std::string> inames = name_list(L, 2, f);
    std::optional<std::set<std::string>> only;
    if (!lua_isnoneornil(L, 3)) {
        const std::vector<std::string> names = name_list(L, 3, f);
        only.emplace(names.begin(), names.end());
    }
    push_kernel(L, loom::privatize_temporaries_with_inames(k, {inames.begin(), inames.end()}, only));
    return 1;
}

int preprocess_kernel(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "preprocess_kernel").kernel;
    push_kernel(L, loom::preprocess_unlinearized(k));
    return 1;
}

int get_one_linearized_kernel(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_one_linearized_kernel").kernel;
    push_kernel(L, loom::preprocess_kernel(k));
    return 1;
}

// As loopy: a kernel not yet linearized is preprocessed and linearized first, to see its device kernels.
int save_and_reload_temporaries(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "save_and_reload_temporaries").kernel;
    const Kernel linear = k->linearized ? k : loom::preprocess_kernel(k);
    push_kernel(L, loom::save_and_reload_temporaries(linear));
    return 1;
}

// `within`: a match expression, or a list of instruction ids.
std::string opt_within(lua_State* L, int arg, const char* fname) {
    if (!lua_istable(L, arg)) return "";
    get_field(L, arg, "within");
    std::string out;
    if (lua_type(L, -1) == LUA_TSTRING) {
        out = lua_tostring(L, -1);
    } else if (lua_istable(L, -1)) {
        std::vector<std::string> ids;
        const lua_Integer n = length(L, -1);
        for (lua_Integer i = 1; i <= n; ++i) {
            if (get_index(L, -1, i) != LUA_TSTRING) arg_error(L, arg, fname, "option 'within': list of instruction ids expected");
            ids.push_back(cat("id:", lua_tostring(L, -1)));
            lua_pop(L, 1);
        }
        user_assert(!ids.empty(), error_kind::LoopyError, fname, ": 'within' is an empty list");
        out = join(ids, " or ");
    } else if (!lua_isnil(L, -1)) {
        arg_error(L, arg, fname, cat("option 'within': string or list expected, got ", luaL_typename(L, -1)));
    }
    lua_pop(L, 1);
    return out;
}

// An iname tag: a string, or false/nil for none.
std::string tag_value(lua_State* L, int idx, int arg, const char* fname) {
    if (lua_isnil(L, idx) || (lua_isboolean(L, idx) && !lua_toboolean(L, idx))) return "";
    if (lua_type(L, idx) != LUA_TSTRING) arg_error(L, arg, fname, cat("tag string expected, got ", luaL_typename(L, idx)));
    return lua_tostring(L, idx);
}

std::string opt_tag(lua_State* L, int arg, const char* key, const char* fname) {
    if (!lua_istable(L, arg)) return "";
    get_field(L, arg, key);
    std::string out = tag_value(L, -1, arg, fname);
    lua_pop(L, 1);
    return out;
}

// A table {key = value} of string keys, in key order (Lua's own order is not deterministic).
template <class F>
void for_each_named(lua_State* L, int idx, int arg, const char* fname, F&& f) {
    std::vector<std::string> keys;
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING) arg_error(L, arg, fname, "table with string keys expected");
        keys.emplace_back(lua_tostring(L, -1));
    }
    std::sort(keys.begin(), keys.end());
    for (const std::string& key : keys) {
        get_field(L, idx, key.c_str());
        f(key, lua_gettop(L));
        lua_pop(L, 1);
    }
}

SplitOptions split_options(lua_State* L, int arg, const char* fname) {
    check_options(L, arg, fname, {"outer_iname", "inner_iname", "outer_tag", "inner_tag", "slabs", "within"});
    const int top = lua_gettop(L);
    SplitOptions o;
    o.outer_iname = opt_string(L, arg, "outer_iname", fname).value_or("");
    o.inner_iname = opt_string(L, arg, "inner_iname", fname).value_or("");
    o.outer_tag = opt_tag(L, arg, "outer_tag", fname);
    o.inner_tag = opt_tag(L, arg, "inner_tag", fname);
    o.within = opt_within(L, arg, fname);
    if (lua_istable(L, arg) && get_field(L, arg, "slabs") != LUA_TNIL) {
        const int t = lua_gettop(L);
        if (!lua_istable(L, t) || length(L, t) != 2) arg_error(L, arg, fname, "option 'slabs': {head, tail} expected");
        for (int i = 1; i <= 2; ++i) {
            get_index(L, t, i);
            int isnum = 0;
            const lua_Integer v = lua_tointegerx(L, -1, &isnum);
            if (!isnum) arg_error(L, arg, fname, "option 'slabs': integers expected");
            (i == 1 ? o.slabs.first : o.slabs.second) = to_int(L, v, arg, fname, "option 'slabs': ");
            lua_pop(L, 1);
        }
    }
    lua_settop(L, top);
    return o;
}

// split_iname and chunk_iname share their arguments: (knl, iname, count, {options}).
using SplitTransform = Kernel (*)(const Kernel&, const std::string&, std::int64_t, const SplitOptions&);

int split_like(lua_State* L, SplitTransform transform, const char* f) {
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string iname = check_string(L, 2, f);
    const std::int64_t count = check_integer(L, 3, f);
    push_kernel(L, transform(k, iname, count, split_options(L, 4, f)));
    return 1;
}

int split_iname(lua_State* L) { return split_like(L, loom::split_iname, "split_iname"); }
int chunk_iname(lua_State* L) { return split_like(L, loom::chunk_iname, "chunk_iname"); }

int join_inames(lua_State* L) {
    const char* f = "join_inames";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::vector<std::string> inames = name_list(L, 2, f);
    const std::string new_iname = lua_isnoneornil(L, 3) ? "" : check_string(L, 3, f);
    check_options(L, 4, f, {"tag", "within"});
    push_kernel(L, loom::join_inames(k, inames, new_iname, opt_tag(L, 4, "tag", f), opt_within(L, 4, f)));
    return 1;
}

// {i = "l.0", j = "unr"}, a list of {iname, tag} pairs, or the string "i:l.0, j:unr".
std::vector<std::pair<std::string, std::string>> tag_pairs(lua_State* L, int arg, const char* fname) {
    if (lua_type(L, arg) == LUA_TSTRING) return parse_iname_tags(lua_tostring(L, arg));
    check_table(L, arg, fname);
    std::vector<std::pair<std::string, std::string>> out;
    const lua_Integer n = length(L, arg);
    for (lua_Integer i = 1; i <= n; ++i) {
        get_index(L, arg, i);
        if (!lua_istable(L, -1) || get_index(L, -1, 1) != LUA_TSTRING)
            arg_error(L, arg, fname, "list entries must be {iname, tag} pairs");
        const std::string iname = lua_tostring(L, -1);
        get_index(L, -2, 2);
        out.emplace_back(iname, tag_value(L, -1, arg, fname));
        lua_pop(L, 3);
    }
    if (n > 0) return out;
    for_each_named(L, arg, arg, fname, [&](const std::string& iname, int idx) {
        out.emplace_back(iname, tag_value(L, idx, arg, fname));
    });
    return out;
}

int tag_inames(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "tag_inames").kernel;
    push_kernel(L, loom::tag_inames(k, tag_pairs(L, 2, "tag_inames")));
    return 1;
}

int duplicate_inames(lua_State* L) {
    const char* f = "duplicate_inames";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::vector<std::string> inames = name_list(L, 2, f);
    check_options(L, 3, f, {"within", "new_inames", "suffix", "tags"});
    DuplicateOptions o;
    o.within = opt_within(L, 3, f);
    o.new_inames = opt_string_list(L, 3, "new_inames", f).value_or(std::vector<std::string>{});
    o.suffix = opt_string(L, 3, "suffix", f).value_or("");
    if (lua_istable(L, 3) && get_field(L, 3, "tags") != LUA_TNIL) {
        if (!lua_istable(L, -1)) arg_error(L, 3, f, "option 'tags': table expected");
        for_each_named(L, lua_gettop(L), 3, f,
                       [&](const std::string& iname, int idx) { o.tags[iname] = tag_value(L, idx, 3, f); });
    }
    push_kernel(L, loom::duplicate_inames(k, inames, o));
    return 1;
}

int add_inames_to_insn(lua_State* L) {
    const char* f = "add_inames_to_insn";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    push_kernel(L, loom::add_inames_to_insn(k, name_list(L, 2, f), check_string(L, 3, f)));
    return 1;
}

int rename_argument(lua_State* L) {
    const char* f = "rename_argument";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    push_kernel(L, loom::rename_argument(k, check_string(L, 2, f), check_string(L, 3, f)));
    return 1;
}

// lp.merge{knl1, knl2, ...}: the entrypoint with the others as its callables.
int merge(lua_State* L) {
    const char* f = "merge";
    check_table(L, 1, f);
    std::vector<Kernel> kernels;
    const lua_Integer n = length(L, 1);
    for (lua_Integer i = 1; i <= n; ++i) {
        get_index(L, 1, i);
        kernels.push_back(check_kernel(L, lua_gettop(L), f).kernel);
        lua_pop(L, 1);
    }
    if (kernels.empty()) arg_error(L, 1, f, "list of kernels expected, got an empty list");
    push_kernel(L, loom::merge(kernels));
    return 1;
}

int register_callable(lua_State* L) {
    const char* f = "register_callable";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string name = check_string(L, 2, f);
    push_kernel(L, loom::register_callable(k, name, check_kernel(L, 3, f).kernel));
    return 1;
}

int inline_callable_kernel(lua_State* L) {
    const char* f = "inline_callable_kernel";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    push_kernel(L, loom::inline_callable_kernel(k, check_string(L, 2, f)));
    return 1;
}

int rename_iname(lua_State* L) {
    const char* f = "rename_iname";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string old_iname = check_string(L, 2, f);
    const std::string new_iname = check_string(L, 3, f);
    check_options(L, 4, f, {"existing_ok", "within"});
    const bool existing_ok = opt_bool(L, 4, "existing_ok", f).value_or(false);
    push_kernel(L, loom::rename_iname(k, old_iname, new_iname, existing_ok, opt_within(L, 4, f)));
    return 1;
}

int remove_unused_inames(lua_State* L) {
    const char* f = "remove_unused_inames";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::vector<std::string> inames = lua_isnoneornil(L, 2) ? std::vector<std::string>{} : name_list(L, 2, f);
    push_kernel(L, loom::remove_unused_inames(k, inames));
    return 1;
}

int fix_parameters(lua_State* L) {
    const char* f = "fix_parameters";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    check_table(L, 2, f);
    push_kernel(L, loom::fix_parameters(k, parameter_values(L, 2, 2, f)));
    return 1;
}

// --- substitution rules

int expand_subst(lua_State* L) {
    const char* f = "expand_subst";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    // loopy's expand_subst(kernel, within): the stack match also as the second argument.
    if (lua_type(L, 2) == LUA_TSTRING) {
        push_kernel(L, loom::expand_subst(k, lua_tostring(L, 2)));
        return 1;
    }
    check_option_keys(L, 2, f, {"within"});
    push_kernel(L, loom::expand_subst(k, opt_within(L, 2, f)));
    return 1;
}

// lp.extract_subst(knl, name, template, parameters, {within=}); parameters may also go in the options.
int extract_subst(lua_State* L) {
    const char* f = "extract_subst";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string name = check_string(L, 2, f), templ = check_string(L, 3, f);
    const int opts = lua_istable(L, 4) && length(L, 4) == 0 ? 4 : 5;
    check_option_keys(L, opts, f, {"parameters", "within"});
    std::vector<std::string> params;
    if (opts == 5 && !lua_isnoneornil(L, 4)) params = name_list(L, 4, f);
    if (auto p = opt_string_list(L, opts, "parameters", f)) params = *p;
    push_kernel(L, loom::extract_subst(k, name, templ, params, opt_within(L, opts, f)));
    return 1;
}

int assignment_to_subst(lua_State* L) {
    const char* f = "assignment_to_subst";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string name = check_string(L, 2, f);
    check_option_keys(L, 3, f, {"extra_arguments", "within", "force_retain_argument"});
    const auto extra = opt_string_list(L, 3, "extra_arguments", f).value_or(std::vector<std::string>{});
    const bool retain = opt_bool(L, 3, "force_retain_argument", f).value_or(false);
    push_kernel(L, loom::assignment_to_subst(k, name, extra, opt_within(L, 3, f), retain));
    return 1;
}

// --- precompute and prefetch

AddressSpace opt_address_space(lua_State* L, int arg, const char* fname) {
    const std::optional<std::string> space = opt_string(L, arg, "temporary_address_space", fname);
    if (!space || *space == "auto") return AddressSpace::Auto;
    if (*space == "private") return AddressSpace::Private;
    if (*space == "local") return AddressSpace::Local;
    if (*space == "global") return AddressSpace::Global;
    arg_error(L, arg, fname, cat("option 'temporary_address_space': unknown address space '", *space, "'"));
}

// Sweep inames: a list, a comma-separated string, or nil for none.
std::vector<std::string> sweep_list(lua_State* L, int idx, const char* fname) {
    return lua_isnoneornil(L, idx) ? std::vector<std::string>{} : name_list(L, idx, fname);
}

// lp.precompute(knl, subst_use, sweep_inames, {options}); subst_use is a rule name, a use "f(i, j+1)", or a
// list of uses.
int precompute(lua_State* L) {
    const char* f = "precompute";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    std::vector<std::string> uses;
    if (lua_type(L, 2) == LUA_TSTRING) uses.emplace_back(lua_tostring(L, 2));
    else uses = name_list(L, 2, f);
    const std::vector<std::string> sweep = sweep_list(L, 3, f);
    check_options(L, 4, f, {"storage_axes", "precompute_inames", "precompute_outer_inames", "temporary_name",
                            "temporary_address_space", "default_tag", "within", "fetch_bounding_box",
                            "compute_insn_id", "dtype"});
    PrecomputeOptions o;
    o.storage_axes = opt_string_list(L, 4, "storage_axes", f).value_or(std::vector<std::string>{});
    o.precompute_inames = opt_string_list(L, 4, "precompute_inames", f).value_or(std::vector<std::string>{});
    o.precompute_outer_inames = opt_string_list(L, 4, "precompute_outer_inames", f);
    o.temporary_name = opt_string(L, 4, "temporary_name", f).value_or("");
    o.temporary_address_space = opt_address_space(L, 4, f);
    o.default_tag = opt_tag(L, 4, "default_tag", f);
    o.within = opt_within(L, 4, f);
    o.fetch_bounding_box = opt_bool(L, 4, "fetch_bounding_box", f).value_or(false);
    o.compute_insn_id = opt_string(L, 4, "compute_insn_id", f).value_or("");
    if (lua_istable(L, 4) && get_field(L, 4, "dtype") != LUA_TNIL)
        o.dtype = check_dtype(L, lua_gettop(L), f, 4, "dtype");
    lua_settop(L, 4);
    push_kernel(L, loom::precompute(k, uses, sweep, o));
    return 1;
}

int add_prefetch(lua_State* L) {
    const char* f = "add_prefetch";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    const std::string var_name = check_string(L, 2, f);
    const std::vector<std::string> sweep = sweep_list(L, 3, f);
    check_options(L, 4, f, {"dim_arg_names", "temporary_name", "default_tag", "fetch_outer_inames",
                            "temporary_address_space", "fetch_bounding_box", "prefetch_insn_id", "within"});
    PrefetchOptions o;
    o.dim_arg_names = opt_string_list(L, 4, "dim_arg_names", f).value_or(std::vector<std::string>{});
    o.temporary_name = opt_string(L, 4, "temporary_name", f).value_or("");
    o.default_tag = opt_tag(L, 4, "default_tag", f);
    o.fetch_outer_inames = opt_string_list(L, 4, "fetch_outer_inames", f);
    o.temporary_address_space = opt_address_space(L, 4, f);
    o.fetch_bounding_box = opt_bool(L, 4, "fetch_bounding_box", f).value_or(false);
    o.prefetch_insn_id = opt_string(L, 4, "prefetch_insn_id", f).value_or("");
    o.within = opt_within(L, 4, f);
    push_kernel(L, loom::add_prefetch(k, var_name, sweep, o));
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"set_options", trampoline<set_options>},
    {"add_dtypes", trampoline<add_dtypes>},
    {"add_and_infer_dtypes", trampoline<add_and_infer_dtypes>},
    {"prioritize_loops", trampoline<prioritize_loops>},
    {"assume", trampoline<assume>},
    {"split_iname", trampoline<split_iname>},
    {"chunk_iname", trampoline<chunk_iname>},
    {"join_inames", trampoline<join_inames>},
    {"tag_inames", trampoline<tag_inames>},
    {"duplicate_inames", trampoline<duplicate_inames>},
    {"rename_argument", trampoline<rename_argument>},
    {"add_inames_to_insn", trampoline<add_inames_to_insn>},
    {"rename_iname", trampoline<rename_iname>},
    {"merge", trampoline<merge>},
    {"register_callable", trampoline<register_callable>},
    {"inline_callable_kernel", trampoline<inline_callable_kernel>},
    {"remove_unused_inames", trampoline<remove_unused_inames>},
    {"fix_parameters", trampoline<fix_parameters>},
    {"realize_reduction", trampoline<realize_reduction>},
    {"set_temporary_address_space", trampoline<set_temporary_address_space>},
    {"tag_array_axes", trampoline<tag_array_axes>},
    {"privatize_temporaries_with_inames", trampoline<privatize_temporaries_with_inames>},
    {"preprocess_kernel", trampoline<preprocess_kernel>},
    {"get_one_linearized_kernel", trampoline<get_one_linearized_kernel>},
    {"save_and_reload_temporaries", trampoline<save_and_reload_temporaries>},
    {"expand_subst", trampoline<expand_subst>},
    {"extract_subst", trampoline<extract_subst>},
    {"assignment_to_subst", trampoline<assignment_to_subst>},
    {"precompute", trampoline<precompute>},
    {"add_prefetch", trampoline<add_prefetch>},
    {nullptr, nullptr},
};

}  // namespace

std::map<std::string, ExprPtr> parameter_values(lua_State* L, int idx, int arg, const char* fname) {
    std::map<std::string, ExprPtr> values;
    for_each_named(L, idx, arg, fname, [&](const std::string& name, int at) {
        if (lua_isinteger(L, at)) values[name] = int_lit(lua_tointeger(L, at));
        else if (lua_type(L, at) == LUA_TNUMBER) values[name] = float_lit(lua_tonumber(L, at));
        else arg_error(L, arg, fname, cat("value of '", name, "': number expected, got ", luaL_typename(L, at)));
    });
    return values;
}

void register_transform_api(lua_State* L, int module_table) {
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
}

}  // namespace loom::lua
