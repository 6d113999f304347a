// lp.make_kernel, the argument declarations (lp.GlobalArg, ...), the "loom.Kernel" userdata and code
// generation (lp.generate_code, ...).
#include <fstream>
#include <new>
#include <optional>

#include "analysis/dependency_graph.h"
#include "codegen/lower.h"
#include "ir/listing.h"
#include "lua/args.h"
#include "lua/array_binding.h"
#include "lua/binding.h"
#include "lua/sandbox.h"
#include "lua/trampoline.h"
#include "parse/dim_tags.h"
#include "parse/instructions.h"
#include "parse/make_kernel.h"
#include "schedule/linearize.h"
#include "support/strings.h"
#include "transform/transforms.h"

namespace loom::lua {

namespace {

constexpr const char* kKernelMeta = "loom.Kernel";
constexpr const char* kArgSpecMeta = "loom.ArgSpec";
constexpr const char* kAutoKey = "loom.auto";
constexpr const char* kNoneKey = "loom.none";

// --- the Kernel userdata

// Also reachable as getmetatable(knl).__gc(x): a foreign `x` is an error, a second call does nothing.
int kernel_gc(lua_State* L) {
    auto* h = static_cast<KernelHandle*>(check_udata(L, 1, kKernelMeta, "__gc"));
    if (h->kernel.operator->() != nullptr) {
        h->~KernelHandle();
        new (h) KernelHandle{Kernel(nullptr), {}};  // the empty handle that check_kernel refuses
    }
    return 0;
}

}  // namespace

KernelHandle& check_kernel(lua_State* L, int idx, const char* fname) {
    auto* h = static_cast<KernelHandle*>(check_udata(L, idx, kKernelMeta, fname));
    if (h->kernel.operator->() == nullptr) arg_error(L, idx, fname, "kernel has been collected");
    return *h;
}

void push_kernel(lua_State* L, Kernel k) {
    MemoryCharge charge(approximate_bytes(*k), "a kernel object");  // before the userdata: a MemoryError leaves none
    void* mem = lua_newuserdatauv(L, sizeof(KernelHandle), 0);
    new (mem) KernelHandle{Kernel(nullptr), {}, {}};
    luaL_setmetatable(L, kKernelMeta);
    auto* h = static_cast<KernelHandle*>(mem);
    h->kernel = std::move(k);
    h->charge = std::move(charge);
}

DType check_dtype(lua_State* L, int idx, const char* fname, int arg, const char* option) {
    if (lua_isnoneornil(L, idx)) return DType::Unknown;
    const std::string where = option ? cat("option '", option, "': ") : "";
    if (arg == 0) arg = idx;
    if (lua_type(L, idx) != LUA_TSTRING)
        arg_error(L, arg, fname, cat(where, "dtype name expected, got ", luaL_typename(L, idx)));
    const std::string name = lua_tostring(L, idx);
    const auto t = dtype_from_name(name);
    if (!t) arg_error(L, arg, fname, cat(where, "unknown dtype '", name, "'"));
    return *t;
}

namespace {

// Whether the value at `idx` is the sentinel registered under `key` (lp.auto, lp.none).
bool is_sentinel(lua_State* L, int idx, const char* key) {
    idx = lua_absindex(L, idx);  // a relative index would name the sentinel pushed below
    lua_getfield(L, LUA_REGISTRYINDEX, key);
    const bool same = lua_rawequal(L, -1, idx);
    lua_pop(L, 1);
    return same;
}

bool is_auto(lua_State* L, int idx) { return is_sentinel(L, idx, kAutoKey); }

// --- argument declarations: tables tagged with the "loom.ArgSpec" metatable, read by make_kernel.

int declare(lua_State* L, const char* kind, const char* fname) {
    const std::string name = check_string(L, 1, fname);
    int opts = 3;
    if (lua_istable(L, 2)) opts = 2;  // lp.GlobalArg("a", {shape=...}): no dtype
    else if (!lua_isnoneornil(L, 2)) check_dtype(L, 2, fname);
    check_option_keys(L, opts, fname,
                      {"shape", "dim_tags", "order", "offset", "strides", "for_atomic", "is_input", "is_output",
                       "alignment", "address_space", "initializer", "read_only", "dtype"});
    lua_createtable(L, 0, 4);
    if (lua_istable(L, opts)) {
        lua_pushnil(L);
        while (lua_next(L, opts) != 0) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_settable(L, -4);
        }
    }
    lua_pushstring(L, kind);
    lua_setfield(L, -2, "kind");
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "name");
    if (opts == 3 && !lua_isnoneornil(L, 2)) {
        lua_pushvalue(L, 2);
        lua_setfield(L, -2, "dtype");
    }
    luaL_setmetatable(L, kArgSpecMeta);
    return 1;
}

int global_arg(lua_State* L) { return declare(L, "GlobalArg", "GlobalArg"); }
int constant_arg(lua_State* L) { return declare(L, "ConstantArg", "ConstantArg"); }
int value_arg(lua_State* L) { return declare(L, "ValueArg", "ValueArg"); }
int temporary_variable(lua_State* L) { return declare(L, "TemporaryVariable", "TemporaryVariable"); }

std::optional<std::string> field_string(lua_State* L, const char* key) {
    get_field(L, -1, key);
    std::optional<std::string> out;
    if (lua_type(L, -1) == LUA_TSTRING) out = lua_tostring(L, -1);
    lua_pop(L, 1);
    return out;
}

std::optional<bool> field_bool(lua_State* L, const char* key) {
    get_field(L, -1, key);
    std::optional<bool> out;
    if (!lua_isnil(L, -1)) out = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    return out;
}

ExprPtr expr_entry(lua_State* L, int idx, const char* fname, const char* what) {
    if (lua_isinteger(L, idx)) return int_lit(lua_tointeger(L, idx));
    if (lua_type(L, idx) == LUA_TSTRING) return parse_expression(lua_tostring(L, idx));
    arg_error(L, 3, fname, cat(what, " entries must be integers or expression strings"));
}

// A tuple string without the parentheses that enclose all of it, as loopy writes shapes: "(n, m)" is "n, m",
// while "(n+1)*2, m" keeps its own.
std::string without_tuple_parens(std::string_view text) {
    const std::string s = trim(text);
    if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
    int depth = 0;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0) return s;  // the first parenthesis closes before the end
    }
    return s.substr(1, s.size() - 2);
}

// A shape or strides value at the top of the stack: "n, m" (or "(n, m)"), an integer, or a list of integers and
// strings.
std::vector<ExprPtr> expr_list(lua_State* L, const Variable& v, const char* fname, const char* what) {
    std::vector<ExprPtr> out;
    if (lua_type(L, -1) == LUA_TSTRING) {
        for (const std::string& part : split_trimmed(without_tuple_parens(lua_tostring(L, -1)), ','))
            out.push_back(parse_expression(part));
    } else if (lua_isinteger(L, -1)) {
        out.push_back(int_lit(lua_tointeger(L, -1)));
    } else if (lua_istable(L, -1)) {
        const lua_Integer n = length(L, -1);
        for (lua_Integer i = 1; i <= n; ++i) {
            get_index(L, -1, i);
            out.push_back(expr_entry(L, -1, fname, what));
            lua_pop(L, 1);
        }
    } else {
        arg_error(L, 3, fname, cat(what, " of '", v.name, "' must be a string, a list, an integer or lp.auto"));
    }
    return out;
}

bool has_field(lua_State* L, const char* key);

// Reads `shape` of the ArgSpec at the top of the stack into v. An array argument declared without one is
// lp.auto, or, given strides, lp.none with an axis per stride (loopy's shape=None).
void read_shape(lua_State* L, Variable& v, const char* fname) {
    const bool strided = v.kind != VarKind::ValueArg && v.kind != VarKind::Temporary && has_field(L, "strides");
    const int t = get_field(L, -1, "shape");
    if (t == LUA_TNIL && strided) v.no_shape = true;
    else if (t == LUA_TNIL) v.shape_auto = v.kind != VarKind::ValueArg;
    else if (is_auto(L, -1)) v.shape_auto = true;
    else if (is_sentinel(L, -1, kNoneKey)) v.no_shape = true;
    else v.shape = expr_list(L, v, fname, "shape");
    lua_pop(L, 1);
    if (v.shape.size() > kMaxArrayAxes)
        arg_error(L, 3, fname, cat("the shape of '", v.name, "' has ", v.shape.size(), " axes; arrays have at most ",
                                   kMaxArrayAxes, " (numpy's limit)"));
}

// `dim_tags` at the top of the stack: "N1,N0" or a list of tags.
std::vector<std::string> dim_tag_entries(lua_State* L, const Variable& v, const char* fname) {
    if (lua_type(L, -1) == LUA_TSTRING) return {lua_tostring(L, -1)};
    if (!lua_istable(L, -1)) arg_error(L, 3, fname, cat("dim_tags of '", v.name, "' must be a string or a list of strings"));
    std::vector<std::string> out;
    const lua_Integer n = length(L, -1);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (get_index(L, -1, i) != LUA_TSTRING)
            arg_error(L, 3, fname, cat("dim_tags of '", v.name, "': entry ", i, " is not a string"));
        out.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return out;
}

bool has_field(lua_State* L, const char* key) {
    const bool present = get_field(L, -1, key) != LUA_TNIL && !is_auto(L, -1);
    lua_pop(L, 1);
    return present;
}

char parse_order(const std::string& order, const std::string& what) {
    if (order == "C" || order == "c") return 'C';
    if (order == "F" || order == "f") return 'F';
    throw Error(error_kind::LoopyError, cat("order of ", what, " must be \"C\" or \"F\", got \"", order, "\""));
}

// `order`, `dim_tags` or `strides` (loopy takes one of them) of the ArgSpec at the top of the stack. Declared
// strides become fixed-stride dim tags, as in loopy.
void read_layout(lua_State* L, Variable& v, char default_order, const char* fname) {
    const int given = has_field(L, "order") + has_field(L, "dim_tags") + has_field(L, "strides");
    user_assert(given <= 1, error_kind::LoopyError, "array '", v.name, "': give only one of order, dim_tags and strides");
    v.order = default_order;
    if (const auto o = field_string(L, "order")) v.order = parse_order(*o, cat("array '", v.name, "'"));
    if (has_field(L, "dim_tags")) {
        get_field(L, -1, "dim_tags");
        v.dim_tags = parse_dim_tags(dim_tag_entries(L, v, fname), v.name);
        lua_pop(L, 1);
    }
    if (has_field(L, "strides")) {
        get_field(L, -1, "strides");
        for (ExprPtr& s : expr_list(L, v, fname, "strides")) {
            DimTag t;
            t.kind = DimTag::Kind::Stride;
            t.stride = std::move(s);
            v.dim_tags.push_back(std::move(t));
        }
        lua_pop(L, 1);
    }
}

// `offset`: an integer, an expression string (an argument name, say), or lp.auto (an offset argument).
void read_offset(lua_State* L, Variable& v, const char* fname) {
    const int t = get_field(L, -1, "offset");
    if (is_auto(L, -1)) {
        v.offset_auto = true;
    } else if (lua_isinteger(L, -1)) {
        if (lua_tointeger(L, -1) != 0) v.offset = int_lit(lua_tointeger(L, -1));
    } else if (t == LUA_TSTRING) {
        v.offset = parse_expression(lua_tostring(L, -1));
    } else if (t != LUA_TNIL) {
        arg_error(L, 3, fname, cat("offset of '", v.name, "' must be an integer, an expression string or lp.auto"));
    }
    lua_pop(L, 1);
}

void read_alignment(lua_State* L, Variable& v, const char* fname) {
    const int t = get_field(L, -1, "alignment");
    if (t != LUA_TNIL) {
        const lua_Integer a = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        if (a <= 0 || (a & (a - 1)) != 0)
            arg_error(L, 3, fname, cat("alignment of '", v.name, "' must be a power of two (in bytes)"));
        v.alignment = to_int(L, a, 3, fname, cat("alignment of '", v.name, "': "));
    }
    lua_pop(L, 1);
}

// Numbers in nested Lua tables (the table at `idx`), flattened in row-major order; the first entries set the
// shape (until the first number), and every other list must match it.
void flatten_nested(lua_State* L, int idx, std::size_t depth, std::vector<std::int64_t>& shape,
                    std::vector<double>& out, const char* fname) {
    const lua_Integer n = length(L, idx);
    if (depth == shape.size()) shape.push_back(n);
    if (shape[depth] != n) arg_error(L, 3, fname, "the initializer's lists are ragged");
    for (lua_Integer i = 1; i <= n; ++i) {
        const int t = get_index(L, idx, i);
        if (t == LUA_TTABLE && (depth + 1 < shape.size() || out.empty()))
            flatten_nested(L, lua_gettop(L), depth + 1, shape, out, fname);
        else if (t == LUA_TNUMBER && depth + 1 == shape.size()) out.push_back(lua_tonumber(L, -1));
        else if (t == LUA_TBOOLEAN && depth + 1 == shape.size()) out.push_back(lua_toboolean(L, -1) ? 1 : 0);
        else arg_error(L, 3, fname, "the initializer must be a loom.Array or nested lists of numbers of one shape");
        lua_pop(L, 1);
    }
}

// The values of a host array in row-major order.
std::vector<double> array_values(const HostArray& a) {
    std::vector<double> out;
    std::vector<std::int64_t> index(a.ndim(), 0);
    for (std::int64_t n = 0; n < a.size(); ++n) {
        out.push_back(a.get_double(index));
        for (std::size_t j = a.ndim(); j-- > 0;) {
            if (++index[j] < a.shape()[j]) break;
            index[j] = 0;
        }
    }
    return out;
}

// `initializer` of a temporary: a loom.Array or nested lists of numbers. It gives the shape when none is
// declared, and the dtype of an array when none is.
void read_initializer(lua_State* L, Variable& v, const char* fname) {
    std::vector<std::int64_t> shape;
    const int t = get_field(L, -1, "initializer");
    if (const HostArray* a = test_array(L, -1)) {
        if (is_complex(a->dtype())) arg_error(L, 3, fname, cat("initializer of '", v.name, "' cannot be complex"));
        if (v.dtype == DType::Unknown) v.dtype = a->dtype();
        shape = a->shape();
        v.initializer = array_values(*a);
    } else if (t == LUA_TTABLE) {
        if (v.dtype == DType::Unknown)
            arg_error(L, 3, fname, cat("initializer of '", v.name, "' is a Lua table: declare the dtype"));
        flatten_nested(L, lua_gettop(L), 0, shape, v.initializer, fname);
    } else if (t != LUA_TNIL) {
        arg_error(L, 3, fname, cat("initializer of '", v.name, "' must be a loom.Array or nested lists of numbers"));
    }
    lua_pop(L, 1);
    if (t == LUA_TNIL || !v.shape_auto) return;
    v.shape_auto = false;
    v.shape.clear();
    for (const std::int64_t n : shape) v.shape.push_back(int_lit(n));
}

VarKind var_kind(const std::string& kind) {
    if (kind == "ConstantArg") return VarKind::ConstantArg;
    if (kind == "ValueArg") return VarKind::ValueArg;
    if (kind == "TemporaryVariable") return VarKind::Temporary;
    return VarKind::GlobalArg;
}

AddressSpace address_space(const std::string& s, const char* fname) {
    if (s == "private") return AddressSpace::Private;
    if (s == "local") return AddressSpace::Local;
    if (s == "global") return AddressSpace::Global;
    if (s == "auto") return AddressSpace::Auto;
    throw Error(error_kind::ArgumentError, cat("bad argument to '", fname, "' (unknown address space '", s, "')"));
}

// The ArgSpec at the top of the stack as Variables (one per comma-separated name).
std::vector<Variable> read_arg_spec(lua_State* L, char default_order, const char* fname) {
    Variable v;
    v.name = field_string(L, "name").value_or("");
    v.kind = var_kind(field_string(L, "kind").value_or("GlobalArg"));
    v.is_array = v.kind != VarKind::ValueArg;
    if (const auto d = field_string(L, "dtype")) {
        const auto t = dtype_from_name(*d);
        if (!t) throw Error(error_kind::ArgumentError, cat("unknown dtype '", *d, "'"));
        v.dtype = *t;
    }
    read_shape(L, v, fname);
    if (v.no_shape && (v.kind == VarKind::ValueArg || v.kind == VarKind::Temporary))
        arg_error(L, 3, fname, cat("'", v.name, "': only array arguments can be declared without a shape (lp.none)"));
    read_initializer(L, v, fname);
    if (v.kind == VarKind::Temporary && !v.shape_auto && v.shape.empty()) v.is_array = false;
    read_layout(L, v, default_order, fname);
    read_offset(L, v, fname);
    read_alignment(L, v, fname);
    v.is_input = field_bool(L, "is_input");
    v.is_output = field_bool(L, "is_output");
    v.read_only = field_bool(L, "read_only").value_or(false);
    v.for_atomic = field_bool(L, "for_atomic").value_or(false);
    if (const auto a = field_string(L, "address_space")) v.address_space = address_space(*a, fname);
    std::vector<Variable> out;
    for (const std::string& name : split_trimmed(v.name, ',')) {
        Variable each = v;
        each.name = name;
        out.push_back(std::move(each));
    }
    return out;
}

std::vector<std::string> string_or_list(lua_State* L, int idx, const char* fname, const char* what) {
    std::vector<std::string> out;
    if (lua_type(L, idx) == LUA_TSTRING) {
        out.emplace_back(lua_tostring(L, idx));
        return out;
    }
    if (!lua_istable(L, idx)) arg_error(L, idx, fname, cat(what, ": string or list of strings expected, got ", luaL_typename(L, idx)));
    const lua_Integer n = length(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
        if (get_index(L, idx, i) != LUA_TSTRING) arg_error(L, idx, fname, cat(what, ": entry ", i, " is not a string"));
        out.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return out;
}

bool is_arg_spec(lua_State* L, int idx) {
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return false;
    luaL_getmetatable(L, kArgSpecMeta);
    const bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

// Whether the table at `idx` has a key that is not a list index (so it holds options, not declarations).
bool has_named_keys(lua_State* L, int idx) {
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (!lua_isinteger(L, -1)) return lua_pop(L, 1), true;
    }
    return false;
}

void read_args(lua_State* L, int idx, MakeKernelInput& in) {
    if (lua_isnoneornil(L, idx)) return;
    if (lua_type(L, idx) == LUA_TSTRING && std::string(lua_tostring(L, idx)) == "...") return;  // all guessed
    check_table(L, idx, "make_kernel");
    if (has_named_keys(L, idx))
        arg_error(L, idx, "make_kernel", "the declaration list has named entries; options go in the fourth argument");
    in.guess_remaining_args = false;
    const lua_Integer n = length(L, idx);
    for (lua_Integer i = 1; i <= n; ++i) {
        get_index(L, idx, i);
        if (lua_type(L, -1) == LUA_TSTRING && std::string(lua_tostring(L, -1)) == "...") {
            in.guess_remaining_args = true;
        } else if (is_arg_spec(L, -1)) {
            for (Variable& v : read_arg_spec(L, in.default_order, "make_kernel")) in.args.push_back(std::move(v));
        } else {
            arg_error(L, idx, "make_kernel", cat("argument entry ", i, " is neither an lp.*Arg declaration nor \"...\""));
        }
        lua_pop(L, 1);
    }
}

// `options={check_dep_resolution=false}`: loopy's kernel options that act while the kernel is made.
void read_kernel_options(lua_State* L, int idx, MakeKernelInput& in) {
    const char* f = "make_kernel";
    if (!lua_istable(L, idx)) return;
    const int type = get_field(L, idx, "options");
    const int opts = lua_gettop(L);
    if (type == LUA_TNIL) return lua_pop(L, 1);
    if (type != LUA_TTABLE) arg_error(L, idx, f, "'options' must be a table");
    lua_pushnil(L);
    while (lua_next(L, opts) != 0) {
        lua_pop(L, 1);
        const bool known = lua_type(L, -1) == LUA_TSTRING && std::string(lua_tostring(L, -1)) == "check_dep_resolution";
        if (!known) arg_error(L, idx, f, cat("unknown kernel option '", to_display_string(L, -1), "' in 'options'"));
    }
    if (auto v = opt_bool(L, opts, "check_dep_resolution", f)) in.check_dep_resolution = *v;
    lua_pop(L, 1);
}

void read_make_options(lua_State* L, int idx, MakeKernelInput& in) {
    const char* f = "make_kernel";
    check_option_keys(L, idx, f,
                      {"name", "assumptions", "target", "silenced_warnings", "default_order", "index_dtype",
                       "seq_dependencies", "lang_version", "options", "fixed_parameters", "default_offset"});
    read_kernel_options(L, idx, in);
    if (auto v = opt_string(L, idx, "name", f)) in.name = *v;
    if (auto v = opt_string(L, idx, "assumptions", f)) in.assumptions = *v;
    if (auto v = opt_string(L, idx, "target", f)) in.target = *v;
    if (auto v = opt_string_list(L, idx, "silenced_warnings", f)) in.silenced_warnings = *v;
    if (auto v = opt_bool(L, idx, "seq_dependencies", f)) in.seq_dependencies = *v;
    if (auto v = opt_string(L, idx, "default_order", f)) in.default_order = parse_order(*v, "'default_order'");
    if (auto v = opt_string(L, idx, "index_dtype", f)) {
        const auto t = dtype_from_name(*v);
        if (!t || !is_integer(*t)) arg_error(L, idx, f, cat("index_dtype must be an integer dtype, got '", *v, "'"));
        in.index_dtype = *t;
    }
    if (auto v = opt_string(L, idx, "target", f)) target_from_name(*v);
    if (lua_istable(L, idx) && get_field(L, idx, "default_offset") != LUA_TNIL) {
        const bool zero = lua_isinteger(L, -1) && lua_tointeger(L, -1) == 0;
        if (!zero && !is_auto(L, -1)) arg_error(L, idx, f, "option 'default_offset' must be 0 or lp.auto");
        in.default_offset_auto = !zero;
    }
    if (lua_istable(L, idx)) lua_pop(L, 1);
}

// make_kernel, or (not an entrypoint) make_function.
int make_kernel_or_function(lua_State* L, bool is_entrypoint) {
    MakeKernelInput in;
    in.is_entrypoint = is_entrypoint;
    in.domains = string_or_list(L, 1, "make_kernel", "domains");
    in.instructions = string_or_list(L, 2, "make_kernel", "instructions");
    // make_kernel(domains, instructions, {assumptions=...}): loopy's keyword arguments without a declaration list.
    if (lua_istable(L, 3) && lua_isnoneornil(L, 4) && has_named_keys(L, 3)) {
        lua_pushnil(L);
        lua_insert(L, 3);
    }
    if (!lua_isnoneornil(L, 4)) check_table(L, 4, "make_kernel");
    read_make_options(L, 4, in);  // first: default_order applies to the declarations
    read_args(L, 3, in);
    // loopy's fixed_parameters: fix_parameters right after the kernel is made. As in loopy, the shapes found
    // while making it already know the integer values.
    std::map<std::string, ExprPtr> fixed;
    if (lua_istable(L, 4) && get_field(L, 4, "fixed_parameters") != LUA_TNIL) {
        if (!lua_istable(L, -1)) arg_error(L, 4, "make_kernel", "option 'fixed_parameters': table expected");
        fixed = parameter_values(L, lua_gettop(L), 4, "make_kernel");
        for (const auto& [name, value] : fixed)
            if (value->kind == ExprKind::IntLit) in.known_parameters[name] = value->ival;
    }
    Kernel k = loom::make_kernel(in);
    if (!fixed.empty()) k = fix_parameters(k, fixed);
    push_kernel(L, std::move(k));
    return 1;
}

int make_kernel(lua_State* L) { return make_kernel_or_function(L, true); }

// loopy's make_function: a kernel meant to be called from others (lp.merge, lp.register_callable).
int make_function(lua_State* L) { return make_kernel_or_function(L, false); }

// --- kernel fields

void push_string_list(lua_State* L, const std::vector<std::string>& items) {
    lua_createtable(L, static_cast<int>(items.size()), 0);
    for (std::size_t i = 0; i < items.size(); ++i) {
        lua_pushstring(L, items[i].c_str());
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
}

const char* kind_name(VarKind k) {
    switch (k) {
        case VarKind::GlobalArg: return "GlobalArg";
        case VarKind::ConstantArg: return "ConstantArg";
        case VarKind::ValueArg: return "ValueArg";
        case VarKind::Temporary: return "TemporaryVariable";
    }
    return "";
}

void push_variables(lua_State* L, const std::vector<Variable>& vars) {
    lua_createtable(L, static_cast<int>(vars.size()), 0);
    for (std::size_t i = 0; i < vars.size(); ++i) {
        const Variable& v = vars[i];
        lua_createtable(L, 0, 5);
        lua_pushstring(L, v.name.c_str());
        lua_setfield(L, -2, "name");
        lua_pushstring(L, kind_name(v.kind));
        lua_setfield(L, -2, "kind");
        if (v.dtype != DType::Unknown) {
            lua_pushstring(L, dtype_name(v.dtype).c_str());
            lua_setfield(L, -2, "dtype");
        }
        if (v.no_shape) {
            lua_getfield(L, LUA_REGISTRYINDEX, kNoneKey);
            lua_setfield(L, -2, "shape");
        } else if (v.is_array) {
            std::vector<std::string> shape;
            for (const ExprPtr& s : v.shape) shape.push_back(to_string(s));
            push_string_list(L, shape);
            lua_setfield(L, -2, "shape");
        }
        if (v.kind == VarKind::Temporary) {
            lua_pushstring(L, address_space_name(v.address_space).c_str());
            lua_setfield(L, -2, "address_space");
        }
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
}

void push_instructions(lua_State* L, const std::vector<Instruction>& insns) {
    lua_createtable(L, static_cast<int>(insns.size()), 0);
    for (std::size_t i = 0; i < insns.size(); ++i) {
        const Instruction& insn = insns[i];
        lua_createtable(L, 0, 3);
        lua_pushstring(L, insn.id.c_str());
        lua_setfield(L, -2, "id");
        push_string_list(L, {insn.depends_on.begin(), insn.depends_on.end()});
        lua_setfield(L, -2, "depends_on");
        push_string_list(L, {insn.within_inames.begin(), insn.within_inames.end()});
        lua_setfield(L, -2, "within_inames");
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
}

int kernel_index(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "__index").kernel;
    const std::string key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (key == "name") lua_pushstring(L, k->name.c_str());
    else if (key == "args") push_variables(L, k->args);
    else if (key == "temporaries") push_variables(L, k->temporaries);
    else if (key == "inames") push_string_list(L, k.all_inames());
    else if (key == "instructions") push_instructions(L, k->instructions);
    else if (key == "target") lua_pushstring(L, k->options.target.c_str());
    else {
        // Methods: every function of the module, called with the kernel first.
        lua_getfield(L, LUA_REGISTRYINDEX, "loom.module");
        lua_pushvalue(L, 2);
        lua_rawget(L, -2);
    }
    return 1;
}

int kernel_tostring(lua_State* L) {
    const std::string s = to_listing(check_kernel(L, 1, "__tostring").kernel);
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

int stringify(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "stringify").kernel;
    check_option_keys(L, 2, "stringify", {"with_dependencies"});
    const bool deps = opt_bool(L, 2, "with_dependencies", "stringify").value_or(false);
    const std::string s = to_listing(k, deps);
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

// --- code generation

TargetKind kernel_target(const Kernel& k) { return target_from_name(k->options.target); }

void push_grid(lua_State* L, const DeviceKernel& dk) {
    lua_createtable(L, 0, 2);
    push_string_list(L, dk.groups_isl);
    lua_setfield(L, -2, "global");
    push_string_list(L, dk.local_isl);
    lua_setfield(L, -2, "local");
}

int generate_code(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "generate_code").kernel;
    const GeneratedCode code = loom::generate_code(k, kernel_target(k));
    lua_pushlstring(L, code.device_code.data(), code.device_code.size());
    lua_createtable(L, 0, 4);
    lua_pushlstring(L, code.host_code.data(), code.host_code.size());
    lua_setfield(L, -2, "host_code");
    std::vector<std::string> names;
    for (const DeviceKernel& dk : code.kernels) names.push_back(dk.name);
    push_string_list(L, names);
    lua_setfield(L, -2, "kernels");
    lua_createtable(L, static_cast<int>(code.kernels.size()), 0);
    for (std::size_t i = 0; i < code.kernels.size(); ++i) {
        push_grid(L, code.kernels[i]);
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    lua_setfield(L, -2, "grid");
    lua_pushnumber(L, code.isl_ast_seconds);
    lua_setfield(L, -2, "isl_ast_seconds");
    lua_pushnumber(L, code.legality_seconds);
    lua_setfield(L, -2, "legality_seconds");
    return 2;
}

int code_v2_device(lua_State* L) {
    get_field(L, 1, "_device_code");
    return 1;
}

int code_v2_host(lua_State* L) {
    get_field(L, 1, "_host_code");
    return 1;
}

int generate_code_v2(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "generate_code_v2").kernel;
    const GeneratedCode code = loom::generate_code(k, kernel_target(k));
    lua_createtable(L, 0, 4);
    lua_pushlstring(L, code.device_code.data(), code.device_code.size());
    lua_setfield(L, -2, "_device_code");
    lua_pushlstring(L, code.host_code.data(), code.host_code.size());
    lua_setfield(L, -2, "_host_code");
    lua_pushcfunction(L, code_v2_device);
    lua_setfield(L, -2, "device_code");
    lua_pushcfunction(L, code_v2_host);
    lua_setfield(L, -2, "host_code");
    return 1;
}

int generate_header(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "generate_header").kernel;
    const GeneratedCode code = loom::generate_code(k, kernel_target(k));
    push_string_list(L, {code.header});
    return 1;
}

int get_grid_size_upper_bounds(lua_State* L) {
    const Kernel& k = check_kernel(L, 1, "get_grid_size_upper_bounds").kernel;
    const GeneratedCode code = loom::generate_code(k, kernel_target(k));
    const DeviceKernel& dk = code.kernels.at(0);
    push_string_list(L, dk.groups_isl);
    push_string_list(L, dk.local_isl);
    return 2;
}

// --- the dependency graph

int get_dot_dependency_graph(lua_State* L) {
    const char* f = "get_dot_dependency_graph";
    const Kernel& k = check_kernel(L, 1, f).kernel;
    check_option_keys(L, 2, f, {"iname_cluster", "use_insn_id"});
    const bool cluster = opt_bool(L, 2, "iname_cluster", f).value_or(true);
    const bool use_id = opt_bool(L, 2, "use_insn_id", f).value_or(false);
    Kernel shown = k;
    // Loops are drawn from a linearization; a kernel that cannot be linearized (often why one looks at its
    // graph) is drawn without them, as loopy does.
    if (cluster && !k->linearized) {
        try {
            shown = linearize(k, true);
        } catch (const Error& e) {
            if (e.kind() != error_kind::LoopyError) throw;
        }
    }
    const std::string dot = dot_dependency_graph(shown, use_id);
    lua_pushlstring(L, dot.data(), dot.size());
    return 1;
}

// lp.show_dependency_graph(knl, path [, opts]) writes the SVG to `path` and returns the path; without a path,
// (knl [, opts]), it returns the SVG text: all that a sandboxed state may do, since it writes no file.
int show_dependency_graph(lua_State* L) {
    const char* f = "show_dependency_graph";
    check_kernel(L, 1, f);
    std::optional<std::string> path;
    if (lua_type(L, 2) == LUA_TSTRING) {
        refuse_in_sandbox(L, "show_dependency_graph with a path (writing a file)");
        path = check_string(L, 2, f);
        lua_remove(L, 2);
    }
    lua_settop(L, 2);  // get_dot_dependency_graph(knl, opts)
    get_dot_dependency_graph(L);
    const std::string svg = render_svg(lua_tostring(L, -1));
    if (path) {
        std::ofstream out(*path, std::ios::binary);
        out << svg;
        user_assert(out.flush(), error_kind::LoopyError, "show_dependency_graph: cannot write '", *path, "'");
    }
    const std::string& result = path ? *path : svg;
    lua_pushlstring(L, result.data(), result.size());
    return 1;
}

int parse_expression_fn(lua_State* L) {
    const std::string s = to_string(parse_expression(check_string(L, 1, "parse_expression")));
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

const luaL_Reg kFunctions[] = {
    {"make_kernel", trampoline<make_kernel>},
    {"make_function", trampoline<make_function>},
    {"GlobalArg", trampoline<global_arg>},
    {"ArrayArg", trampoline<global_arg>},
    {"ConstantArg", trampoline<constant_arg>},
    {"ValueArg", trampoline<value_arg>},
    {"TemporaryVariable", trampoline<temporary_variable>},
    {"stringify", trampoline<stringify>},
    {"generate_code", trampoline<generate_code>},
    {"generate_code_v2", trampoline<generate_code_v2>},
    {"generate_header", trampoline<generate_header>},
    {"get_grid_size_upper_bounds", trampoline<get_grid_size_upper_bounds>},
    {"parse_expression", trampoline<parse_expression_fn>},
    {"get_dot_dependency_graph", trampoline<get_dot_dependency_graph>},
    {"show_dependency_graph", trampoline<show_dependency_graph>},
    {nullptr, nullptr},
};

int sentinel_tostring(lua_State* L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    return 1;
}

// lp.<name>: a unique table that prints as its name, kept in the registry under `key`.
void create_sentinel(lua_State* L, int module_table, const char* name, const char* key) {
    lua_newtable(L);
    lua_newtable(L);
    lua_pushstring(L, name);
    lua_pushcclosure(L, sentinel_tostring, 1);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, key);
    lua_setfield(L, module_table, name);
}

}  // namespace

void register_kernel_api(lua_State* L, int module_table) {
    luaL_newmetatable(L, kKernelMeta);
    lua_pushcfunction(L, trampoline<kernel_index>);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, trampoline<kernel_tostring>);
    lua_setfield(L, -2, "__tostring");
    lua_pushcfunction(L, trampoline<kernel_gc>);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, trampoline<call_kernel>);
    lua_setfield(L, -2, "__call");
    lua_pop(L, 1);
    luaL_newmetatable(L, kArgSpecMeta);
    lua_pop(L, 1);
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kFunctions, 0);
    lua_pop(L, 1);
    create_sentinel(L, module_table, "auto", kAutoKey);
    create_sentinel(L, module_table, "none", kNoneKey);
}

}  // namespace loom::lua
