// Performance statistics (SPEC "Statistics"): lp.get_op_map, lp.get_mem_access_map,
// lp.get_synchronization_map, the keys lp.Op, lp.MemAccess, lp.Sync, lp.CountGranularity, and the
// "loom.CountMap" and "loom.Count" userdata. Keys are Lua tables (fields as loopy names them, strides as
// tables {[0] = 1, [1] = "m"}) with a metatable per kind; counts are isl piecewise quasi-polynomials.
// lp.gather_access_footprints and lp.gather_access_footprint_bytes return tables fp[variable][direction] of
// "loom.Set" userdata (isl sets) and of counts.
#include <algorithm>
#include <memory>
#include <new>
#include <set>

#include "analysis/statistics.h"
#include "isl/isl.h"
#include "lua/args.h"
#include "lua/binding.h"
#include "lua/trampoline.h"
#include "parse/instructions.h"
#include "preprocess/preprocess.h"
#include "support/strings.h"

namespace loom::lua {

namespace {

using isl_util::PwQPolynomial;

constexpr const char* kMapMeta = "loom.CountMap";
constexpr const char* kCountMeta = "loom.Count";
constexpr const char* kSetMeta = "loom.Set";

const char* kind_meta(StatKind k) {
    return k == StatKind::Op ? "loom.Op" : k == StatKind::MemAccess ? "loom.MemAccess" : "loom.Sync";
}
const char* kind_name(StatKind k) { return k == StatKind::Op ? "Op" : k == StatKind::MemAccess ? "MemAccess" : "Sync"; }

// --- userdata owning an engine value: counts, count maps, sets

template <class T>
struct Owned {
    std::unique_ptr<T> value;
};

// Created empty with its metatable set before it owns `value`, so that __gc always finds a valid object.
template <class T>
void push_owned(lua_State* L, const char* meta, T value) {
    auto* h = static_cast<Owned<T>*>(lua_newuserdatauv(L, sizeof(Owned<T>), 0));
    new (h) Owned<T>{};
    luaL_setmetatable(L, meta);
    h->value = std::make_unique<T>(std::move(value));
}

template <class T>
const T& check_owned(lua_State* L, int idx, const char* meta, const char* fname, const char* what) {
    auto* h = static_cast<Owned<T>*>(check_udata(L, idx, meta, fname));
    if (!h->value) arg_error(L, idx, fname, cat(what, " has been collected"));
    return *h->value;
}

template <class T>
int owned_gc(lua_State* L) {
    static_cast<Owned<T>*>(lua_touserdata(L, 1))->value.reset();
    return 0;
}

// --- counts

void push_count(lua_State* L, const PwQPolynomial& c) { push_owned(L, kCountMeta, c); }

const PwQPolynomial& check_count(lua_State* L, int idx, const char* fname) {
    return check_owned<PwQPolynomial>(L, idx, kCountMeta, fname, "count");
}

// {name = integer, ...}: parameter values.
std::map<std::string, std::int64_t> parameter_table(lua_State* L, int idx, const char* fname) {
    std::map<std::string, std::int64_t> out;
    if (lua_isnoneornil(L, idx)) return out;
    check_table(L, idx, fname);
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        int isnum = 0;
        const lua_Integer v = lua_tointegerx(L, -1, &isnum);
        if (lua_type(L, -2) != LUA_TSTRING || !isnum) arg_error(L, idx, fname, "table of integer parameter values expected");
        out[lua_tostring(L, -2)] = v;
        lua_pop(L, 1);
    }
    return out;
}

void push_value(lua_State* L, std::pair<std::int64_t, std::int64_t> v) {
    if (v.second == 1) lua_pushinteger(L, v.first);
    else lua_pushnumber(L, static_cast<double>(v.first) / static_cast<double>(v.second));
}

int count_eval(lua_State* L) {
    const PwQPolynomial& c = check_count(L, 1, "eval");
    push_value(L, c.eval(parameter_table(L, 2, "eval")));
    return 1;
}

int count_tostring(lua_State* L) {
    lua_pushstring(L, check_count(L, 1, "__tostring").to_str().c_str());
    return 1;
}

// The count at `idx`, or the integer there as a constant count.
PwQPolynomial count_operand(lua_State* L, int idx, const char* fname) {
    if (test_udata(L, idx, kCountMeta)) return check_count(L, idx, fname);
    return PwQPolynomial::constant({}, check_integer(L, idx, fname));
}

template <char Op>
int count_arith(lua_State* L) {
    const PwQPolynomial a = count_operand(L, 1, "count arithmetic"), b = count_operand(L, 2, "count arithmetic");
    push_count(L, Op == '+' ? a + b : Op == '-' ? a - b : a * b);
    return 1;
}

// --- sets: a footprint, the elements of an array

void push_set(lua_State* L, const isl::set& s) { push_owned(L, kSetMeta, s); }

const isl::set& check_set(lua_State* L, int idx, const char* fname) {
    return check_owned<isl::set>(L, idx, kSetMeta, fname, "set");
}

int set_tostring(lua_State* L) {
    lua_pushstring(L, isl_util::to_str(check_set(L, 1, "__tostring")).c_str());
    return 1;
}

// The number of points as a count in the set's parameters (loopy's statistics.count).
int set_count(lua_State* L) {
    push_count(L, isl_util::card(check_set(L, 1, "count")));
    return 1;
}

int set_remove_divs(lua_State* L) {
    push_set(L, isl_util::remove_divs(check_set(L, 1, "remove_divs")));
    return 1;
}

// --- keys

// A stride as Lua holds it: an integer, an expression of the parameters, or false (unknown).
void push_stride(lua_State* L, const Stride& s) {
    if (const auto* v = std::get_if<std::int64_t>(&s)) lua_pushinteger(L, *v);
    else if (const auto* t = std::get_if<std::string>(&s)) lua_pushstring(L, t->c_str());
    else lua_pushboolean(L, 0);
}

Stride read_stride(lua_State* L, int idx, int arg, const char* fname) {
    if (lua_isinteger(L, idx)) return static_cast<std::int64_t>(lua_tointeger(L, idx));
    if (lua_type(L, idx) == LUA_TSTRING) return canonical_stride(parse_expression(lua_tostring(L, idx)));
    if (lua_isboolean(L, idx) && !lua_toboolean(L, idx)) return std::monostate{};
    arg_error(L, arg, fname, "strides: integer, expression string or false expected");
}

void push_key(lua_State* L, const StatKey& key) {
    const std::vector<std::string>& names = key_fields(key.kind);
    lua_createtable(L, 0, static_cast<int>(names.size()));
    for (std::size_t i = 0; i < names.size(); ++i) {
        const StatField& f = key.fields[i];
        if (!f) continue;
        if (const auto* s = std::get_if<std::string>(&*f)) {
            lua_pushstring(L, s->c_str());
        } else {
            lua_newtable(L);
            for (const auto& [axis, stride] : std::get<Strides>(*f)) {
                push_stride(L, stride);
                lua_rawseti(L, -2, axis);
            }
        }
        lua_setfield(L, -2, names[i].c_str());
    }
    luaL_setmetatable(L, kind_meta(key.kind));
}

// Field `i` of a key of kind `kind` from the Lua value at `idx` (nil: absent).
StatField read_field(lua_State* L, int idx, StatKind kind, std::size_t i, int arg, const char* fname) {
    if (lua_isnil(L, idx)) return std::nullopt;
    const std::string& name = key_fields(kind)[i];
    if (name == "lid_strides" || name == "gid_strides") {
        if (!lua_istable(L, idx)) arg_error(L, arg, fname, cat(name, ": table expected"));
        Strides s;
        lua_pushnil(L);
        while (lua_next(L, idx < 0 ? idx - 1 : idx) != 0) {
            if (!lua_isinteger(L, -2)) arg_error(L, arg, fname, cat(name, ": integer axes expected"));
            s[static_cast<int>(lua_tointeger(L, -2))] = read_stride(L, lua_gettop(L), arg, fname);
            lua_pop(L, 1);
        }
        return s;
    }
    if (name == "variable_tags") arg_error(L, arg, fname, "variable_tags: Loom's variables carry no tags");
    if (lua_type(L, idx) != LUA_TSTRING) arg_error(L, arg, fname, cat(name, ": string expected"));
    const std::string value = lua_tostring(L, idx);
    if (name == "dtype") return dtype_name(check_dtype(L, idx, fname, arg, "dtype"));
    if (name == "count_granularity") check_granularity(value);
    return value;
}

StatKey read_key(lua_State* L, int idx, StatKind kind, const char* fname) {
    StatKey key{kind, {}};
    const std::vector<std::string>& names = key_fields(kind);
    for (std::size_t i = 0; i < names.size(); ++i) {
        get_field(L, idx, names[i].c_str());
        key.fields.push_back(read_field(L, -1, kind, i, idx, fname));
        lua_pop(L, 1);
    }
    return key;
}

// The kind of the key at `idx`, from its metatable.
std::optional<StatKind> key_kind(lua_State* L, int idx) {
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return std::nullopt;
    for (StatKind k : {StatKind::Op, StatKind::MemAccess, StatKind::Sync}) {
        luaL_getmetatable(L, kind_meta(k));
        const bool same = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
        if (same) {
            lua_pop(L, 1);
            return k;
        }
    }
    lua_pop(L, 1);
    return std::nullopt;
}

StatKey check_key(lua_State* L, int idx, const char* fname) {
    const std::optional<StatKind> k = key_kind(L, idx);
    if (!k) arg_error(L, idx, fname, cat("lp.Op, lp.MemAccess or lp.Sync key expected, got ", luaL_typename(L, idx)));
    return read_key(L, idx, *k, fname);
}

// lp.Op(dtype, name, count_granularity, kernel_name) or lp.Op{...}; lp.MemAccess's positional fields are the
// first six (mtype .. variable), the others go in a trailing table as loopy's keyword-only ones do.
template <StatKind Kind>
int make_key(lua_State* L) {
    const char* fname = kind_name(Kind);
    const std::vector<std::string>& names = key_fields(Kind);
    const std::size_t positional = Kind == StatKind::MemAccess ? 6 : names.size();
    const int n = lua_gettop(L);
    const bool keywords_only = n == 1 && lua_istable(L, 1) && !key_kind(L, 1);
    const int keywords = keywords_only ? 1 : (n == static_cast<int>(positional) + 1 ? n : 0);
    if (keywords) check_table(L, keywords, fname);
    StatKey key{Kind, std::vector<StatField>(names.size())};
    for (std::size_t i = 0; i < names.size(); ++i) {
        const int arg = static_cast<int>(i) + 1;
        if (!keywords_only && i < positional && arg <= n && arg != keywords) {
            key.fields[i] = read_field(L, arg, Kind, i, arg, fname);
        } else if (keywords) {
            get_field(L, keywords, names[i].c_str());
            key.fields[i] = read_field(L, lua_gettop(L), Kind, i, keywords, fname);
            lua_pop(L, 1);
        }
    }
    if (keywords) {
        lua_pushnil(L);
        while (lua_next(L, keywords) != 0) {
            lua_pop(L, 1);
            const bool known = lua_type(L, -1) == LUA_TSTRING &&
                               std::find(names.begin(), names.end(), lua_tostring(L, -1)) != names.end();
            if (!known) arg_error(L, keywords, fname, cat("unknown field '", to_display_string(L, -1), "'"));
        }
    }
    push_key(L, key);
    return 1;
}

int key_tostring(lua_State* L) {
    const std::string s = to_string(check_key(L, 1, "__tostring"));
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

int key_eq(lua_State* L) {
    lua_pushboolean(L, check_key(L, 1, "__eq") == check_key(L, 2, "__eq"));
    return 1;
}

// --- count maps

void push_map(lua_State* L, CountMap map) { push_owned(L, kMapMeta, std::move(map)); }

const CountMap& check_map(lua_State* L, int idx, const char* fname) { return check_owned<CountMap>(L, idx, kMapMeta, fname, "map"); }

const PwQPolynomial* find(const CountMap& m, const StatKey& key) {
    for (const auto& [k, c] : m.entries())
        if (k == key) return &c;
    return nullptr;
}

int map_get(lua_State* L) {
    const CountMap& h = check_map(L, 1, "get");
    if (const PwQPolynomial* c = find(h, check_key(L, 2, "get"))) push_count(L, *c);
    else lua_pushnil(L);
    return 1;
}

int map_sum(lua_State* L) {
    push_count(L, check_map(L, 1, "sum").total());
    return 1;
}

int map_eval_and_sum(lua_State* L) {
    const CountMap& h = check_map(L, 1, "eval_and_sum");
    push_value(L, h.total().eval(parameter_table(L, 2, "eval_and_sum")));
    return 1;
}

// The entries of h whose keys `keep` accepts, as a new map (pushed).
template <class Keep>
void push_filtered(lua_State* L, const CountMap& h, Keep&& keep) {
    CountMap out(h.params());
    for (const auto& [key, count] : h.entries())
        if (keep(key)) out.add(key, count);
    push_map(L, std::move(out));
}

// filter_by{field = value or list of values, ...}: a field a key does not have matches nothing.
int map_filter_by(lua_State* L) {
    const char* f = "filter_by";
    const CountMap& h = check_map(L, 1, f);
    check_table(L, 2, f);
    std::vector<std::pair<std::string, int>> fields;  // name -> stack index of its allowed values (a list)
    lua_pushnil(L);
    while (lua_next(L, 2) != 0) {
        if (lua_type(L, -2) != LUA_TSTRING) arg_error(L, 2, f, "field names expected");
        const std::string name = lua_tostring(L, -2);
        // One value or a list of them; a strides value is itself a table, so its list is one of tables.
        const bool strides = name == "lid_strides" || name == "gid_strides";
        bool list = lua_istable(L, -1) && !key_kind(L, -1);
        if (list && strides) {
            list = lua_rawgeti(L, -1, 1) == LUA_TTABLE;
            lua_pop(L, 1);
        }
        if (!list) {
            lua_createtable(L, 1, 0);
            lua_pushvalue(L, -2);
            lua_rawseti(L, -2, 1);
            lua_replace(L, -2);
        }
        luaL_checkstack(L, 2, "filter_by");
        fields.emplace_back(name, lua_gettop(L));
        lua_pushvalue(L, -2);  // the field name again, for lua_next
    }
    push_filtered(L, h, [&](const StatKey& key) {
        const std::vector<std::string>& names = key_fields(key.kind);
        for (const auto& [name, list] : fields) {
            const auto at = std::find(names.begin(), names.end(), name);
            if (at == names.end()) return false;
            const auto i = static_cast<std::size_t>(at - names.begin());
            bool any = false;
            for (lua_Integer j = 1; j <= length(L, list) && !any; ++j) {
                get_index(L, list, j);
                any = read_field(L, lua_gettop(L), key.kind, i, 2, f) == key.fields[i];
                lua_pop(L, 1);
            }
            if (!any) return false;
        }
        return true;
    });
    return 1;
}

int map_filter_by_func(lua_State* L) {
    const CountMap& h = check_map(L, 1, "filter_by_func");
    if (lua_type(L, 2) != LUA_TFUNCTION) arg_error(L, 2, "filter_by_func", "function expected");
    push_filtered(L, h, [&](const StatKey& key) {
        lua_pushvalue(L, 2);
        push_key(L, key);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) throw LuaRaised{luaL_ref(L, LUA_REGISTRYINDEX)};
        const bool keep = lua_toboolean(L, -1);
        lua_pop(L, 1);
        return keep;
    });
    return 1;
}

// group_by("dtype", ...): keys keep only the named fields; counts of keys that become equal add up.
int map_group_by(lua_State* L) {
    const CountMap& h = check_map(L, 1, "group_by");
    std::set<std::string> keep;
    for (int i = 2; i <= lua_gettop(L); ++i) keep.insert(check_string(L, i, "group_by"));
    CountMap out(h.params());
    for (const auto& [key, count] : h.entries()) {
        StatKey grouped{key.kind, key.fields};
        const std::vector<std::string>& names = key_fields(key.kind);
        for (std::size_t i = 0; i < names.size(); ++i)
            if (!keep.count(names[i])) grouped.fields[i] = std::nullopt;
        out.add(grouped, count);
    }
    push_map(L, std::move(out));
    return 1;
}

int map_to_bytes(lua_State* L) {
    const CountMap& h = check_map(L, 1, "to_bytes");
    CountMap out(h.params());
    for (const auto& [key, count] : h.entries()) {
        const std::vector<std::string>& names = key_fields(key.kind);
        const auto at = std::find(names.begin(), names.end(), "dtype");
        const StatField* dtype = at == names.end() ? nullptr : &key.fields[static_cast<std::size_t>(at - names.begin())];
        if (!dtype || !*dtype) raise(error_kind::LoopyError, cat("to_bytes: ", to_string(key), " has no dtype"));
        out.add(key, count.scaled(static_cast<std::int64_t>(dtype_size(*dtype_from_name(std::get<std::string>(**dtype))))));
    }
    push_map(L, std::move(out));
    return 1;
}

int map_index(lua_State* L) {
    if (lua_type(L, 2) == LUA_TSTRING) {
        luaL_getmetatable(L, kMapMeta);
        lua_getfield(L, -1, "methods");
        lua_getfield(L, -1, lua_tostring(L, 2));
        return 1;
    }
    const CountMap& h = check_map(L, 1, "__index");
    const StatKey key = check_key(L, 2, "__index");
    const PwQPolynomial* c = find(h, key);
    if (!c) raise(error_kind::KeyError, cat("no count for ", to_string(key)));
    push_count(L, *c);
    return 1;
}

// The entries as a list of {key, count} pairs, in the map's order.
int map_items(lua_State* L) {
    const CountMap& h = check_map(L, 1, "items");
    lua_createtable(L, static_cast<int>(h.entries().size()), 0);
    lua_Integer i = 0;
    for (const auto& [key, count] : h.entries()) {
        lua_createtable(L, 2, 0);
        push_key(L, key);
        lua_rawseti(L, -2, 1);
        push_count(L, count);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, ++i);
    }
    return 1;
}

int map_len(lua_State* L) {
    lua_pushinteger(L, static_cast<lua_Integer>(check_map(L, 1, "__len").entries().size()));
    return 1;
}

// One line per key, sorted by key text as loopy prints them.
int map_tostring(lua_State* L) {
    const CountMap& h = check_map(L, 1, "__tostring");
    std::vector<std::string> lines;
    for (const auto& [key, count] : h.entries()) lines.push_back(to_string(key) + ": " + count.to_str());
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const std::string& l : lines) out += (out.empty() ? "" : "\n") + l;
    lua_pushlstring(L, out.data(), out.size());
    return 1;
}

// map + map: counts of equal keys add up. map * count (or integer): every count multiplied.
int map_add(lua_State* L) {
    const CountMap& a = check_map(L, 1, "__add");
    const CountMap& b = check_map(L, 2, "__add");
    CountMap out = a;
    for (const auto& [key, count] : b.entries()) out.add(key, count);
    push_map(L, std::move(out));
    return 1;
}

int map_mul(lua_State* L) {
    const int m = test_udata(L, 1, kMapMeta) ? 1 : 2;
    const CountMap& h = check_map(L, m, "__mul");
    const int other = 3 - m;
    CountMap out(h.params());
    for (const auto& [key, count] : h.entries())
        out.add(key, test_udata(L, other, kCountMeta) ? count * check_count(L, other, "__mul")
                                                       : count.scaled(check_integer(L, other, "__mul")));
    push_map(L, std::move(out));
    return 1;
}

// --- the map functions

StatOptions stat_options(lua_State* L, int arg, const char* fname, bool ops) {
    if (ops) check_options(L, arg, fname, {"subgroup_size", "count_redundant_work", "count_within_subscripts", "within"});
    else check_options(L, arg, fname, {"subgroup_size", "count_redundant_work", "within"});
    StatOptions o;
    if (lua_istable(L, arg)) {
        get_field(L, arg, "subgroup_size");
        // loopy's "guess" without a device to ask: its guess, 32.
        if (lua_type(L, -1) == LUA_TSTRING && std::string(lua_tostring(L, -1)) == "guess") o.subgroup_size = 32;
        else if (!lua_isnil(L, -1)) o.subgroup_size = to_int(L, opt_integer(L, arg, "subgroup_size", fname).value_or(0), arg, fname);
        lua_pop(L, 1);
    }
    o.count_redundant_work = opt_bool(L, arg, "count_redundant_work", fname).value_or(false);
    o.count_within_subscripts = opt_bool(L, arg, "count_within_subscripts", fname).value_or(true);
    o.within = opt_string(L, arg, "within", fname).value_or("");
    return o;
}

Kernel preprocessed(const Kernel& k) { return preprocess_unlinearized(k); }

int get_op_map(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_op_map").kernel;
    const Kernel p = preprocessed(k);
    push_map(L, op_map(p, stat_options(L, 2, "get_op_map", true)));
    return 1;
}

int get_mem_access_map(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_mem_access_map").kernel;
    const Kernel p = preprocessed(k);
    push_map(L, mem_access_map(p, stat_options(L, 2, "get_mem_access_map", false)));
    return 1;
}

int get_synchronization_map(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_synchronization_map").kernel;
    check_options(L, 2, "get_synchronization_map", {"subgroup_size"});
    const Kernel linear = preprocess_kernel(k);
    push_map(L, synchronization_map(linear));
    return 1;
}

// --- access footprints

// The option of both footprint functions, from the table at argument 2.
bool ignore_uncountable(lua_State* L, const char* fname) {
    check_options(L, 2, fname, {"ignore_uncountable"});
    return opt_bool(L, 2, "ignore_uncountable", fname).value_or(false);
}

// The table t[variable][direction] = what `push_value` pushes for the footprint.
template <class PushValue>
void push_footprints(lua_State* L, const std::vector<AccessFootprint>& footprints, PushValue&& push_value) {
    lua_newtable(L);
    for (const AccessFootprint& f : footprints) {
        if (lua_getfield(L, -1, f.variable.c_str()) != LUA_TTABLE) {
            lua_pop(L, 1);
            lua_createtable(L, 0, 2);
            lua_pushvalue(L, -1);
            lua_setfield(L, -3, f.variable.c_str());
        }
        push_value(f);
        lua_setfield(L, -2, f.direction.c_str());
        lua_pop(L, 1);
    }
}

int gather_access_footprints(lua_State* L) {
    const char* fname = "gather_access_footprints";
    const Kernel& k = check_kernel(L, 1, fname).kernel;
    const bool ignore = ignore_uncountable(L, fname);
    push_footprints(L, access_footprints(preprocessed(k), ignore), [&](const AccessFootprint& f) { push_set(L, f.elements); });
    return 1;
}

int gather_access_footprint_bytes(lua_State* L) {
    const char* fname = "gather_access_footprint_bytes";
    const Kernel& k = check_kernel(L, 1, fname).kernel;
    const bool ignore = ignore_uncountable(L, fname);
    const Kernel p = preprocessed(k);
    push_footprints(L, access_footprints(p, ignore), [&](const AccessFootprint& f) { push_count(L, footprint_bytes(*p, f)); });
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"get_op_map", trampoline<get_op_map>},
    {"get_mem_access_map", trampoline<get_mem_access_map>},
    {"get_synchronization_map", trampoline<get_synchronization_map>},
    {"gather_access_footprints", trampoline<gather_access_footprints>},
    {"gather_access_footprint_bytes", trampoline<gather_access_footprint_bytes>},
    {"Op", trampoline<make_key<StatKind::Op>>},
    {"MemAccess", trampoline<make_key<StatKind::MemAccess>>},
    {"Sync", trampoline<make_key<StatKind::Sync>>},
    {nullptr, nullptr},
};

const luaL_Reg kMapMethods[] = {
    {"get", trampoline<map_get>},
    {"sum", trampoline<map_sum>},
    {"eval_and_sum", trampoline<map_eval_and_sum>},
    {"filter_by", trampoline<map_filter_by>},
    {"filter_by_func", trampoline<map_filter_by_func>},
    {"group_by", trampoline<map_group_by>},
    {"to_bytes", trampoline<map_to_bytes>},
    {"items", trampoline<map_items>},
    {nullptr, nullptr},
};

void register_metatables(lua_State* L) {
    luaL_newmetatable(L, kMapMeta);
    const luaL_Reg meta[] = {{"__index", trampoline<map_index>}, {"__len", trampoline<map_len>},
                             {"__tostring", trampoline<map_tostring>}, {"__add", trampoline<map_add>},
                             {"__mul", trampoline<map_mul>}, {"__gc", owned_gc<CountMap>}, {nullptr, nullptr}};
    luaL_setfuncs(L, meta, 0);
    luaL_newlib(L, kMapMethods);
    lua_setfield(L, -2, "methods");
    lua_pop(L, 1);

    luaL_newmetatable(L, kCountMeta);
    const luaL_Reg count_meta[] = {{"__tostring", trampoline<count_tostring>}, {"__add", trampoline<count_arith<'+'>>},
                                   {"__sub", trampoline<count_arith<'-'>>}, {"__mul", trampoline<count_arith<'*'>>},
                                   {"__gc", owned_gc<PwQPolynomial>}, {nullptr, nullptr}};
    luaL_setfuncs(L, count_meta, 0);
    lua_newtable(L);
    lua_pushcfunction(L, trampoline<count_eval>);
    lua_setfield(L, -2, "eval");
    lua_pushcfunction(L, trampoline<count_eval>);
    lua_setfield(L, -2, "eval_with_dict");
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    luaL_newmetatable(L, kSetMeta);
    const luaL_Reg set_meta[] = {{"__tostring", trampoline<set_tostring>}, {"__gc", owned_gc<isl::set>}, {nullptr, nullptr}};
    luaL_setfuncs(L, set_meta, 0);
    const luaL_Reg set_methods[] = {{"count", trampoline<set_count>}, {"remove_divs", trampoline<set_remove_divs>}, {nullptr, nullptr}};
    luaL_newlib(L, set_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);

    for (StatKind k : {StatKind::Op, StatKind::MemAccess, StatKind::Sync}) {
        luaL_newmetatable(L, kind_meta(k));
        lua_pushcfunction(L, trampoline<key_tostring>);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, trampoline<key_eq>);
        lua_setfield(L, -2, "__eq");
        lua_pop(L, 1);
    }
}

}  // namespace

void register_statistics_api(lua_State* L, int module_table) {
    register_metatables(L);
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    // lp.CountGranularity.WORKITEM etc., as loopy's CountGranularity.
    lua_createtable(L, 0, 3);
    for (const auto& [field, name] : {std::pair{"WORKITEM", "workitem"}, {"SUBGROUP", "subgroup"}, {"WORKGROUP", "workgroup"}}) {
        lua_pushstring(L, name);
        lua_setfield(L, -2, field);
    }
    lua_setfield(L, -2, "CountGranularity");
    lua_pop(L, 1);
}

}  // namespace loom::lua
