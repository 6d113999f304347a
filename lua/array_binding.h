// The Lua face of host arrays: lp.array, lp.zeros, lp.rand, ... and the "loom.Array" userdata with its fields
// (shape, dtype, ndim, #a) and methods (get, set, totable, copy, fill, transpose, reshape).
#pragma once

#include <lua.hpp>

#include <complex>
#include <optional>
#include <string_view>

#include "backends/host/host_array.h"

namespace loom::lua {

/// Adds array, zeros, empty, arange, rand, randn, allclose and max_abs_diff to the table at `module_table`, and
/// creates the "loom.Array" metatable.
void register_array_api(lua_State* L, int module_table);

/// The dtype name at `arg`, or `fallback` when it is none or nil; ArgumentError listing the valid names otherwise.
DType opt_dtype(lua_State* L, int arg, const char* fname, DType fallback);

/// "C" or "F" at `arg` (none or nil: C).
Order opt_order(lua_State* L, int arg, const char* fname);

/// A shape at `arg`: an integer (one axis) or a list of integers.
HostArray::Shape check_shape(lua_State* L, int arg, const char* fname);

/// The {re, im} table at `idx` as a complex number, or nothing when the value there is not one.
std::optional<std::complex<double>> test_complex(lua_State* L, int idx);

/// The array at `idx`, or nullptr when the value there is not one.
HostArray* test_array(lua_State* L, int idx);

/// The array at `idx`; otherwise raises ArgumentError "bad argument #idx to 'fname' (loom.Array expected, ...)".
HostArray& check_array(lua_State* L, int idx, const char* fname);

/// Whether `key` is one of the fields every array userdata has: "shape", "dtype" or "ndim".
bool is_array_field(std::string_view key);

/// Pushes field `key` (is_array_field) of an array with `shape` and `dtype`: host and device arrays alike.
void push_array_field(lua_State* L, std::string_view key, const HostArray::Shape& shape, DType dtype);

/// Pushes a new userdata holding `a` (a view: it shares a's memory). register_array_api must have run on this
/// state, as it creates the metatable.
void push_array(lua_State* L, HostArray a);

}  // namespace loom::lua
