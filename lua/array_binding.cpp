#include "lua/array_binding.h"

#include <algorithm>
#include <climits>
#include <complex>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <new>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "lua/args.h"
#include "lua/trampoline.h"
#include "support/error.h"

namespace loom::lua {

namespace {

constexpr const char* kArrayMeta = "loom.Array";
constexpr std::size_t kMaxNesting = 32;  // deeper nested tables are taken for a table that contains itself

// The userdata block. `array` points into `storage` from construction until __gc and is null otherwise, so that
// a second __gc (after resurrection) and later uses can tell.
struct ArrayBox {
    HostArray* array;
    alignas(HostArray) std::byte storage[sizeof(HostArray)];
};

static_assert(std::is_nothrow_move_constructible_v<HostArray>, "push_array relies on a move that cannot throw");

// Lua sees only the small userdata; telling the collector about the buffer lets it keep pace with scripts that
// create many large arrays in a loop. Views count their memory again, which only makes it keener.
void report_external_memory(lua_State* L, std::size_t bytes) {
    const std::size_t kb = bytes / 1024;
    if (kb > 0) lua_gc(L, LUA_GCSTEP, static_cast<int>(std::min<std::size_t>(kb, INT_MAX)));
}

void ensure_stack(lua_State* L, std::size_t slots, const char* fname) {
    if (!lua_checkstack(L, static_cast<int>(slots))) raise(error_kind::MemoryError, cat(fname, ": Lua stack overflow"));
}

// ---- Arguments ----

std::string valid_dtype_names() {
    std::string names;
    for (auto t = static_cast<int>(DType::Bool); t <= static_cast<int>(DType::Complex128); ++t)
        names += (names.empty() ? "" : ", ") + dtype_name(static_cast<DType>(t));
    return names;
}

HostArray::Index check_index(lua_State* L, int first, int last, const char* fname) {
    HostArray::Index index;
    for (int arg = first; arg <= last; ++arg) index.push_back(check_integer(L, arg, fname));
    return index;
}

// ---- Scalars ----

// A {re, im} table: two numbers at [1] and [2] and nothing after.
bool is_complex_pair(lua_State* L, int idx) {
    idx = lua_absindex(L, idx);  // the parts are pushed above it
    if (!lua_istable(L, idx) || lua_rawlen(L, idx) != 2) return false;
    const bool re = lua_rawgeti(L, idx, 1) == LUA_TNUMBER;
    const bool im = lua_rawgeti(L, idx, 2) == LUA_TNUMBER;
    lua_pop(L, 2);
    return re && im;
}

std::complex<double> complex_pair(lua_State* L, int idx) {
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, idx, 1);
    lua_rawgeti(L, idx, 2);
    const std::complex<double> c(lua_tonumber(L, -2), lua_tonumber(L, -1));
    lua_pop(L, 2);
    return c;
}

// A Lua number, boolean or {re, im} table as an element value; nothing for any other value.
std::optional<Scalar> to_scalar(lua_State* L, int idx) {
    switch (lua_type(L, idx)) {
        case LUA_TBOOLEAN: return Scalar(lua_toboolean(L, idx) != 0);
        case LUA_TNUMBER:
            if (lua_isinteger(L, idx)) return Scalar(static_cast<std::int64_t>(lua_tointeger(L, idx)));
            return Scalar(static_cast<double>(lua_tonumber(L, idx)));
        case LUA_TTABLE:
            if (is_complex_pair(L, idx)) return Scalar(complex_pair(L, idx));
            break;
    }
    return std::nullopt;
}

Scalar check_scalar(lua_State* L, int arg, const char* fname) {
    if (std::optional<Scalar> v = to_scalar(L, arg)) return *v;
    arg_error(L, arg, fname, cat("number, boolean or {re, im} table expected, got ", luaL_typename(L, arg)));
}

void push_scalar(lua_State* L, const Scalar& v) {
    if (const auto* b = std::get_if<bool>(&v)) {
        lua_pushboolean(L, *b);
    } else if (const auto* i = std::get_if<std::int64_t>(&v)) {
        lua_pushinteger(L, static_cast<lua_Integer>(*i));
    } else if (const auto* d = std::get_if<double>(&v)) {
        lua_pushnumber(L, *d);
    } else {
        const auto& c = std::get<std::complex<double>>(v);
        lua_createtable(L, 2, 0);
        lua_pushnumber(L, c.real());
        lua_rawseti(L, -2, 1);
        lua_pushnumber(L, c.imag());
        lua_rawseti(L, -2, 2);
    }
}

// ---- Nested tables ----

std::string path_string(const std::vector<lua_Integer>& path) {
    std::string s;
    for (lua_Integer k : path) s += cat("[", k, "]");
    return s;
}

// With a complex dtype a {re, im} pair is one element rather than a list of two.
bool is_list(lua_State* L, int idx, bool complex_pairs) {
    return lua_istable(L, idx) && !(complex_pairs && is_complex_pair(L, idx));
}

// The shape of lp.array's nested tables at `idx`, read off their first items (ragged lists fail in fill_nested).
HostArray::Shape nested_shape(lua_State* L, int idx, bool complex_pairs) {
    HostArray::Shape shape;
    const int top = lua_gettop(L);
    for (int at = idx; is_list(L, at, complex_pairs); at = lua_gettop(L)) {
        if (shape.size() >= kMaxNesting) {
            lua_settop(L, top);
            arg_error(L, 1, "array", cat("tables nested more than ", kMaxNesting, " deep (does one contain itself?)"));
        }
        shape.push_back(static_cast<std::int64_t>(lua_rawlen(L, at)));
        if (shape.back() == 0) break;
        lua_rawgeti(L, at, 1);
    }
    lua_settop(L, top);
    return shape;
}

// Stores the Lua value on top of the stack, of Lua type `type`, as an element of the array being filled. Numbers
// into real arrays (the common case) skip the general conversion through Scalar where they fit.
class LeafStore {
public:
    explicit LeafStore(DType dtype) : dtype_(dtype) {}

    bool operator()(lua_State* L, int type, std::byte* p) const {
        if (type == LUA_TNUMBER) {
            switch (dtype_) {
                case DType::Float64: return store_number<double>(L, p);
                case DType::Float32: return store_number<float>(L, p);
                case DType::Int64: return store_number<std::int64_t>(L, p) || store_general(L, p);
                case DType::Int32: return store_number<std::int32_t>(L, p) || store_general(L, p);
                default: break;
            }
        }
        return store_general(L, p);
    }

private:
    // Floats take any number; integers an integer they hold (anything else goes the general way, which converts
    // or names the problem).
    template <class T>
    static bool store_number(lua_State* L, std::byte* p) {
        T x;
        if constexpr (std::is_floating_point_v<T>) {
            x = static_cast<T>(lua_tonumber(L, -1));
        } else {
            if (!lua_isinteger(L, -1)) return false;
            const lua_Integer v = lua_tointeger(L, -1);
            if (!std::in_range<T>(v)) return false;
            x = static_cast<T>(v);
        }
        std::memcpy(p, &x, sizeof x);
        return true;
    }

    bool store_general(lua_State* L, std::byte* p) const {
        const std::optional<Scalar> v = to_scalar(L, -1);
        if (v) store_element(dtype_, p, *v);
        return v.has_value();
    }

    DType dtype_;
};

// The 0-based position `index` as a numpy index tuple, for the messages.
std::string position_string(const std::vector<lua_Integer>& path) {
    HostArray::Index index;
    for (lua_Integer k : path) index.push_back(k - 1);
    return shape_string(index);
}

// Fills `out` in C order from the nested tables at `idx` (absolute), checking that every list has the shape's
// length at its depth. `path` holds the 1-based keys that lead to `idx`.
void fill_nested(lua_State* L, int idx, const HostArray::Shape& shape, bool complex_pairs, const LeafStore& store,
                 std::vector<lua_Integer>& path, std::byte*& out, std::size_t itemsize) {
    const std::size_t axis = path.size();
    const bool list = is_list(L, idx, complex_pairs);
    if (axis == shape.size()) {
        if (list)
            arg_error(L, 1, "array", cat("ragged nested lists: expected a scalar at 0-based position ",
                                         position_string(path), ", got a list"));
        return;
    }
    const lua_Integer n = list ? static_cast<lua_Integer>(lua_rawlen(L, idx)) : -1;
    if (n != shape[axis])
        arg_error(L, 1, "array", cat("ragged nested lists: expected a list of ", shape[axis], " items at 0-based position ",
                                     position_string(path), ", got ", list ? cat("a list of ", n) : std::string("a scalar")));
    const bool leaves = axis + 1 == shape.size();
    for (lua_Integer k = 1; k <= n; ++k) {
        const int type = lua_rawgeti(L, idx, k);
        if (leaves && (type != LUA_TTABLE || !is_list(L, -1, complex_pairs))) {
            if (!store(L, type, out)) {
                path.push_back(k);
                arg_error(L, 1, "array", cat("number, boolean or table expected at ", path_string(path), ", got ",
                                             luaL_typename(L, -1)));
            }
            out += itemsize;
        } else {
            path.push_back(k);
            fill_nested(L, lua_gettop(L), shape, complex_pairs, store, path, out, itemsize);
            path.pop_back();
        }
        lua_pop(L, 1);
    }
}

// Pushes the element of `dtype` at `p`: floats directly (the common case), the others through Scalar.
void push_element(lua_State* L, DType dtype, const std::byte* p) {
    if (dtype == DType::Float64) {
        double x;
        std::memcpy(&x, p, sizeof x);
        lua_pushnumber(L, x);
    } else if (dtype == DType::Float32) {
        float x;
        std::memcpy(&x, p, sizeof x);
        lua_pushnumber(L, x);
    } else {
        push_scalar(L, load_element(dtype, p));
    }
}

// Pushes the elements of `a` from axis `axis` on, starting at `base`, as nested 1-based tables.
void push_nested_tables(lua_State* L, const HostArray& a, const std::byte* base, std::size_t axis) {
    if (axis == a.ndim()) return push_element(L, a.dtype(), base);
    const std::int64_t n = a.shape()[axis];
    const std::int64_t step = a.strides()[axis] * static_cast<std::int64_t>(dtype_size(a.dtype()));
    lua_createtable(L, static_cast<int>(std::min<std::int64_t>(n, INT_MAX)), 0);
    for (std::int64_t i = 0; i < n; ++i, base += step) {
        push_nested_tables(L, a, base, axis + 1);
        lua_rawseti(L, -2, i + 1);
    }
}

// ---- Module functions ----

// lp.array(nested_tables [, dtype]): the elements are read straight into the new array's memory.
int l_array(lua_State* L) {
    const DType dtype = opt_dtype(L, 2, "array", DType::Float64);
    ensure_stack(L, kMaxNesting + 4, "array");
    const bool complex_pairs = is_complex(dtype);
    const HostArray::Shape shape = nested_shape(L, 1, complex_pairs);
    const HostArray a = HostArray::empty(shape, dtype);
    std::vector<lua_Integer> path;
    auto* out = static_cast<std::byte*>(a.data());
    if (shape.empty()) {
        lua_pushvalue(L, 1);
        if (!LeafStore(dtype)(L, lua_type(L, -1), out))
            arg_error(L, 1, "array", cat("number, boolean or table expected, got ", luaL_typename(L, 1)));
        lua_pop(L, 1);
    } else {
        fill_nested(L, 1, shape, complex_pairs, LeafStore(dtype), path, out, dtype_size(dtype));
    }
    push_array(L, a);
    return 1;
}

// lp.frombytes(str, dtype [, shape]): a new array holding a copy of the bytes (in C order; numpy's frombytes
// then reshape). Without a shape it is one axis of #str / itemsize elements.
int l_frombytes(lua_State* L) {
    const char* f = "frombytes";
    if (lua_type(L, 1) != LUA_TSTRING) arg_error(L, 1, f, cat("string expected, got ", luaL_typename(L, 1)));
    std::size_t size = 0;
    const char* bytes = lua_tolstring(L, 1, &size);  // not copied: the array gets the one copy
    const DType dtype = opt_dtype(L, 2, f, DType::Float64);
    const std::size_t itemsize = dtype_size(dtype);
    const HostArray::Shape shape = lua_isnoneornil(L, 3)
                                       ? HostArray::Shape{static_cast<std::int64_t>(size / itemsize)}
                                       : check_shape(L, 3, f);
    const HostArray a = HostArray::empty(shape, dtype);
    if (a.nbytes() != size)
        arg_error(L, 1, f, cat(size, " bytes do not make ", shape_string(shape), " elements of ", dtype_name(dtype),
                               " (", a.nbytes(), " bytes)"));
    std::memcpy(a.data(), bytes, size);
    push_array(L, a);
    return 1;
}

int l_zeros(lua_State* L) {
    const HostArray::Shape shape = check_shape(L, 1, "zeros");
    push_array(L, HostArray::zeros(shape, opt_dtype(L, 2, "zeros", DType::Float64), opt_order(L, 3, "zeros")));
    return 1;
}

int l_empty(lua_State* L) {
    const HostArray::Shape shape = check_shape(L, 1, "empty");
    push_array(L, HostArray::empty(shape, opt_dtype(L, 2, "empty", DType::Float64), opt_order(L, 3, "empty")));
    return 1;
}

int l_arange(lua_State* L) {
    const std::int64_t n = check_integer(L, 1, "arange");
    push_array(L, HostArray::arange(n, opt_dtype(L, 2, "arange", DType::Int64)));
    return 1;
}

// Draws without a seed come from one generator for the whole process. Its seed is fixed, so a script sees the
// same "random" data on every run; the mutex serves hosts that run Lua states on several threads.
std::mutex shared_generator_mutex;
std::mt19937_64 shared_generator;

using Draw = HostArray (*)(const HostArray::Shape&, DType, std::mt19937_64&);

int push_random(lua_State* L, const char* fname, Draw draw) {
    const HostArray::Shape shape = check_shape(L, 1, fname);
    const DType dtype = opt_dtype(L, 2, fname, DType::Float64);
    if (!lua_isnoneornil(L, 3)) {
        std::mt19937_64 gen(static_cast<std::uint64_t>(check_integer(L, 3, fname)));
        push_array(L, draw(shape, dtype, gen));
        return 1;
    }
    std::optional<HostArray> a;
    {
        // Not held while pushing: the collector may run finalizers that draw too.
        const std::lock_guard lock(shared_generator_mutex);
        a = draw(shape, dtype, shared_generator);
    }
    push_array(L, std::move(*a));
    return 1;
}

int l_rand(lua_State* L) { return push_random(L, "rand", &HostArray::rand); }
int l_randn(lua_State* L) { return push_random(L, "randn", &HostArray::randn); }

int l_allclose(lua_State* L) {
    const HostArray& a = check_array(L, 1, "allclose");
    const HostArray& b = check_array(L, 2, "allclose");
    if (!lua_isnoneornil(L, 3)) check_table(L, 3, "allclose");
    check_option_keys(L, 3, "allclose", {"rtol", "atol"});
    const double rtol = opt_number(L, 3, "rtol", "allclose").value_or(1e-5);
    const double atol = opt_number(L, 3, "atol", "allclose").value_or(1e-8);
    lua_pushboolean(L, allclose(a, b, rtol, atol));
    return 1;
}

int l_max_abs_diff(lua_State* L) {
    lua_pushnumber(L, max_abs_diff(check_array(L, 1, "max_abs_diff"), check_array(L, 2, "max_abs_diff")));
    return 1;
}

// ---- Methods ----

int l_get(lua_State* L) {
    const HostArray& a = check_array(L, 1, "get");
    push_scalar(L, a.get(check_index(L, 2, lua_gettop(L), "get")));
    return 1;
}

int l_set(lua_State* L) {
    HostArray& a = check_array(L, 1, "set");
    const int top = lua_gettop(L);
    if (top < 2) arg_error(L, 2, "set", "value expected");
    a.set(check_index(L, 2, top - 1, "set"), check_scalar(L, top, "set"));
    return 0;
}

int l_totable(lua_State* L) {
    const HostArray& a = check_array(L, 1, "totable");
    ensure_stack(L, a.ndim() + 4, "totable");
    push_nested_tables(L, a, static_cast<const std::byte*>(a.data()), 0);
    return 1;
}

// a:tobytes(): the elements in C order as a string (numpy's tobytes).
int l_tobytes(lua_State* L) {
    const HostArray& a = check_array(L, 1, "tobytes");
    const HostArray c = a.is_contiguous() ? a : a.copy();
    lua_pushlstring(L, static_cast<const char*>(c.data()), c.nbytes());
    return 1;
}

int l_copy(lua_State* L) {
    push_array(L, check_array(L, 1, "copy").copy());
    return 1;
}

// Returns the array itself, so that `lp.empty(n):fill(1)` reads naturally.
int l_fill(lua_State* L) {
    check_array(L, 1, "fill").fill(check_scalar(L, 2, "fill"));
    lua_settop(L, 1);
    return 1;
}

int l_transpose(lua_State* L) {
    push_array(L, check_array(L, 1, "transpose").transpose());
    return 1;
}

// a:reshape({2, 3}) or a:reshape(2, 3).
int l_reshape(lua_State* L) {
    const HostArray& a = check_array(L, 1, "reshape");
    if (lua_gettop(L) < 2) arg_error(L, 2, "reshape", "shape expected");
    HostArray::Shape shape =
        lua_istable(L, 2) ? check_shape(L, 2, "reshape") : check_index(L, 2, lua_gettop(L), "reshape");
    push_array(L, a.reshape(std::move(shape)));
    return 1;
}

// a:view{0, {2, 10, 2}}: numpy's a[0, 2:10:2], sharing a's memory. An entry is an index or {start, stop[, step]}.
int l_view(lua_State* L) {
    const char* f = "view";
    const HostArray& a = check_array(L, 1, f);
    check_table(L, 2, f);
    std::vector<HostArray::Slice> slices;
    const lua_Integer n = length(L, 2);
    for (lua_Integer i = 1; i <= n; ++i) {
        HostArray::Slice s;
        if (get_index(L, 2, i) == LUA_TTABLE) {
            const lua_Integer parts = length(L, -1);
            if (parts < 2 || parts > 3) arg_error(L, 2, f, cat("entry ", i, " must be {start, stop} or {start, stop, step}"));
            std::int64_t* fields[] = {&s.start, &s.stop, &s.step};
            for (lua_Integer j = 1; j <= parts; ++j) {
                get_index(L, -1, j);
                if (!lua_isinteger(L, -1)) arg_error(L, 2, f, cat("entry ", i, " must hold integers"));
                *fields[j - 1] = lua_tointeger(L, -1);
                lua_pop(L, 1);
            }
        } else if (lua_isinteger(L, -1)) {
            s.is_index = true;
            s.start = lua_tointeger(L, -1);
        } else {
            arg_error(L, 2, f, cat("entry ", i, " must be an integer index or a {start, stop[, step]} table"));
        }
        lua_pop(L, 1);
        slices.push_back(s);
    }
    push_array(L, a.view(slices));
    return 1;
}

// ---- Metamethods ----

// Fields first, then the methods table (upvalue 1). Unknown keys give nil, as for Lua's own userdata.
int l_index(lua_State* L) {
    const HostArray& a = check_array(L, 1, "__index");
    const std::string_view key = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : "";
    if (is_array_field(key)) {
        push_array_field(L, key, a.shape(), a.dtype());
    } else {
        lua_pushvalue(L, 2);
        lua_rawget(L, lua_upvalueindex(1));
    }
    return 1;
}

int l_len(lua_State* L) {
    lua_pushinteger(L, static_cast<lua_Integer>(check_array(L, 1, "__len").size()));
    return 1;
}

int l_tostring(lua_State* L) {
    const std::string s = to_string(check_array(L, 1, "__tostring"));
    lua_pushlstring(L, s.data(), s.size());
    return 1;
}

int l_gc(lua_State* L) {
    auto* box = static_cast<ArrayBox*>(check_udata(L, 1, kArrayMeta, "__gc"));  // getmetatable(a).__gc(x)
    if (box->array) {
        box->array->~HostArray();
        box->array = nullptr;
    }
    return 0;
}

const luaL_Reg kModuleFunctions[] = {
    {"array", trampoline<l_array>},       {"zeros", trampoline<l_zeros>},
    {"frombytes", trampoline<l_frombytes>},
    {"empty", trampoline<l_empty>},       {"arange", trampoline<l_arange>},
    {"rand", trampoline<l_rand>},         {"randn", trampoline<l_randn>},
    {"allclose", trampoline<l_allclose>}, {"max_abs_diff", trampoline<l_max_abs_diff>},
    {nullptr, nullptr},
};

const luaL_Reg kMethods[] = {
    {"get", trampoline<l_get>},         {"set", trampoline<l_set>},   {"totable", trampoline<l_totable>},
    {"copy", trampoline<l_copy>},       {"fill", trampoline<l_fill>}, {"transpose", trampoline<l_transpose>},
    {"reshape", trampoline<l_reshape>}, {"view", trampoline<l_view>},
    {"tobytes", trampoline<l_tobytes>}, {nullptr, nullptr},
};

const luaL_Reg kMetamethods[] = {
    {"__len", trampoline<l_len>},
    {"__tostring", trampoline<l_tostring>},
    {"__gc", trampoline<l_gc>},
    {nullptr, nullptr},
};

}  // namespace

bool is_array_field(std::string_view key) { return key == "shape" || key == "dtype" || key == "ndim"; }

void push_array_field(lua_State* L, std::string_view key, const HostArray::Shape& shape, DType dtype) {
    if (key == "dtype") {
        lua_pushstring(L, dtype_name(dtype).c_str());
    } else if (key == "ndim") {
        lua_pushinteger(L, static_cast<lua_Integer>(shape.size()));
    } else {
        lua_createtable(L, static_cast<int>(shape.size()), 0);
        for (std::size_t k = 0; k < shape.size(); ++k) {
            lua_pushinteger(L, static_cast<lua_Integer>(shape[k]));
            lua_rawseti(L, -2, static_cast<lua_Integer>(k + 1));
        }
    }
}

std::optional<std::complex<double>> test_complex(lua_State* L, int idx) {
    if (!is_complex_pair(L, idx)) return std::nullopt;
    return complex_pair(L, idx);
}

DType opt_dtype(lua_State* L, int arg, const char* fname, DType fallback) {
    if (lua_isnoneornil(L, arg)) return fallback;
    const std::string name = check_string(L, arg, fname);
    const std::optional<DType> dtype = dtype_from_name(name);
    if (!dtype) arg_error(L, arg, fname, cat("unknown dtype '", name, "'; valid dtypes are ", valid_dtype_names()));
    return *dtype;
}

HostArray::Shape check_shape(lua_State* L, int arg, const char* fname) {
    if (lua_type(L, arg) == LUA_TNUMBER) return {check_integer(L, arg, fname)};
    if (!lua_istable(L, arg))
        arg_error(L, arg, fname, cat("shape (integer or list of integers) expected, got ", luaL_typename(L, arg)));
    HostArray::Shape shape;
    const auto n = static_cast<lua_Integer>(lua_rawlen(L, arg));
    for (lua_Integer k = 1; k <= n; ++k) {
        lua_rawgeti(L, arg, k);
        int isnum = 0;
        const lua_Integer d = lua_tointegerx(L, -1, &isnum);
        lua_pop(L, 1);
        if (!isnum) arg_error(L, arg, fname, cat("shape entry ", k, " is not an integer"));
        shape.push_back(d);
    }
    return shape;
}

Order opt_order(lua_State* L, int arg, const char* fname) {
    if (lua_isnoneornil(L, arg)) return Order::C;
    const std::string order = check_string(L, arg, fname);
    if (order == "C") return Order::C;
    if (order == "F") return Order::F;
    arg_error(L, arg, fname, cat("order must be \"C\" or \"F\", got \"", order, "\""));
}

void register_array_api(lua_State* L, int module_table) {
    module_table = lua_absindex(L, module_table);
    luaL_newmetatable(L, kArrayMeta);
    luaL_setfuncs(L, kMetamethods, 0);
    lua_newtable(L);
    luaL_setfuncs(L, kMethods, 0);
    lua_pushcclosure(L, trampoline<l_index>, 1);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    lua_pushvalue(L, module_table);
    luaL_setfuncs(L, kModuleFunctions, 0);
    lua_pop(L, 1);
}

HostArray* test_array(lua_State* L, int idx) {
    auto* box = static_cast<ArrayBox*>(test_udata(L, idx, kArrayMeta));
    return box ? box->array : nullptr;
}

HostArray& check_array(lua_State* L, int idx, const char* fname) {
    auto* box = static_cast<ArrayBox*>(check_udata(L, idx, kArrayMeta, fname));
    if (!box->array) arg_error(L, idx, fname, "the array has been finalized");
    return *box->array;
}

void push_array(lua_State* L, HostArray a) {
    const std::size_t bytes = a.nbytes();
    auto* box = static_cast<ArrayBox*>(lua_newuserdatauv(L, sizeof(ArrayBox), 0));
    box->array = nullptr;
    luaL_setmetatable(L, kArrayMeta);
    box->array = new (box->storage) HostArray(std::move(a));  // cannot throw, so __gc never sees a half-made box
    report_external_memory(L, bytes);
}

}  // namespace loom::lua
