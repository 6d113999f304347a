-- Host arrays from Lua: constructors, fields, element access in every dtype, views, comparison, printing and
-- the errors raised for misuse.
local lp = require("loom")
local h = require("helpers")

local DTYPES = { "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float32", "float64", "complex64", "complex128" }
local INTEGER = { int8 = true, int16 = true, int32 = true, int64 = true,
                  uint8 = true, uint16 = true, uint32 = true, uint64 = true }
local COMPLEX = { complex64 = true, complex128 = true }

local check_equal = h.check_equal
local expect_error = h.expect_error

local function check_list(got, want, what)
  check_equal(#got, #want, what .. " length")
  for i = 1, #want do check_equal(got[i], want[i], what .. "[" .. i .. "]") end
end

-- The value written for element k in the dtype tests, and what reading it back must give.
local function sample(dtype, k)
  if dtype == "bool" then return k % 2 == 0 end
  if INTEGER[dtype] then return k + 1 end
  if COMPLEX[dtype] then return { k + 0.5, -k } end
  return k + 0.25
end

local function same_value(got, want)
  if type(want) == "table" then
    return type(got) == "table" and got[1] == want[1] and got[2] == want[2]
  end
  return got == want
end

-- Constructors and fields ------------------------------------------------------------------------------------

do
  local a = lp.array({ { 1, 2, 3 }, { 4, 5, 6 } })
  check_equal(a.dtype, "float64", "default dtype")
  check_list(a.shape, { 2, 3 }, "shape")
  check_equal(a.ndim, 2, "ndim")
  check_equal(#a, 6, "#a")
  check_equal(a:get(1, 2), 6.0, "get")
  check_equal(math.type(a:get(1, 2)), "float", "float64 reads as a float")
  check_equal(a.no_such_field, nil, "unknown field")

  local s = lp.array(2.5)
  check_equal(s.ndim, 0, "0-d ndim")
  check_equal(#s, 1, "0-d size")
  check_equal(s:get(), 2.5, "0-d get")
  check_equal(s:totable(), 2.5, "0-d totable")

  check_list(lp.array({}).shape, { 0 }, "empty list")
  check_list(lp.array({ {}, {} }, "int32").shape, { 2, 0 }, "list of empty lists")
  check_list(lp.array({ true, false }):totable(), { 1.0, 0.0 }, "booleans into float64")

  local z = lp.array({ { 1, 2 }, { 3, -4.5 } }, "complex64")
  check_list(z.shape, { 2 }, "{re, im} pairs are complex elements")
  check_list(z:get(1), { 3, -4.5 }, "complex element")
  check_list(lp.array({ { { 1, 0 }, { 0, 1 } } }, "complex128").shape, { 1, 2 }, "complex matrix")
  check_list(lp.array({ 1, 2, 3 }, "complex128"):get(2), { 3, 0 }, "real numbers into complex")
  check_equal(lp.array({ 1, 2 }, "double").dtype, "float64", "dtype alias")
end

for _, dtype in ipairs(DTYPES) do
  local z = lp.zeros({ 2, 3 }, dtype)
  check_equal(z.dtype, dtype, "zeros dtype")
  check_list(z.shape, { 2, 3 }, "zeros shape")
  local zero = 0
  if dtype == "bool" then zero = false elseif COMPLEX[dtype] then zero = { 0, 0 } end
  assert(same_value(z:get(1, 2), zero), "zeros are zero in " .. dtype)
  check_list(lp.empty(4, dtype).shape, { 4 }, "empty with an integer shape")
  assert(same_value(lp.empty(4, dtype):get(3), zero), "empty memory is cleared in " .. dtype)
end

do
  check_list(lp.zeros(5).shape, { 5 }, "integer shape")
  check_equal(lp.zeros(5).dtype, "float64", "zeros default dtype")
  check_equal(lp.zeros({}).ndim, 0, "0-d zeros")
  check_list(lp.zeros({ 3, 0 }).shape, { 3, 0 }, "zero-size axis")
  check_equal(#lp.zeros({ 3, 0 }), 0, "zero-size count")

  -- F order: the transpose of an F-order array is C-contiguous, the array itself is not.
  local f = lp.zeros({ 2, 3 }, "float32", "F")
  expect_error("ArgumentError", "not contiguous", f.reshape, f, 6)
  check_list(f:transpose():reshape(6).shape, { 6 }, "F order transposed is contiguous")
  local c = lp.zeros({ 2, 3 }, "float32", "C")
  check_list(c:reshape(6).shape, { 6 }, "C order reshapes")
end

do
  local r = lp.arange(5)
  check_equal(r.dtype, "int64", "arange default dtype")
  for i = 0, 4 do
    check_equal(r:get(i), i, "arange value")
    check_equal(math.type(r:get(i)), "integer", "int64 reads as an integer")
  end
  for _, dtype in ipairs(DTYPES) do
    if dtype ~= "bool" then
      local a = lp.arange(3, dtype)
      check_equal(a.dtype, dtype, "arange dtype")
      assert(same_value(a:get(2), COMPLEX[dtype] and { 2, 0 } or 2), "arange(3, " .. dtype .. ")[2]")
    end
  end
  check_equal(#lp.arange(0), 0, "arange(0)")
  check_equal(#lp.arange(-2), 0, "arange of a negative count")
end

-- Element access in every dtype ------------------------------------------------------------------------------

for _, dtype in ipairs(DTYPES) do
  local a = lp.zeros({ 2, 2 }, dtype)
  for k = 0, 3 do a:set(k // 2, k % 2, sample(dtype, k)) end
  for k = 0, 3 do
    local got = a:get(k // 2, k % 2)
    assert(same_value(got, sample(dtype, k)),
      string.format("%s: element %d reads back as %s", dtype, k, tostring(got)))
    if INTEGER[dtype] then check_equal(math.type(got), "integer", dtype .. " reads as an integer") end
    if dtype == "bool" then check_equal(type(got), "boolean", "bool reads as a boolean") end
    if dtype:match("^float") then check_equal(math.type(got), "float", dtype .. " reads as a float") end
  end
  -- totable gives nested 1-based tables, and lp.array takes them back.
  local t = a:totable()
  check_equal(#t, 2, dtype .. " totable rows")
  assert(same_value(t[2][1], sample(dtype, 2)), dtype .. " totable element")
  local back = lp.array(t, dtype)
  check_list(back.shape, { 2, 2 }, dtype .. " round trip shape")
  for k = 0, 3 do
    assert(same_value(back:get(k // 2, k % 2), sample(dtype, k)), dtype .. " round trip")
  end
end

do
  -- numpy's conversions: floats truncate into integers; what does not fit is an error.
  local i = lp.zeros(3, "int8")
  i:set(0, 2.9)
  i:set(1, -2.9)
  i:set(2, true)
  check_list(i:totable(), { 2, -2, 1 }, "conversions into int8")
  expect_error("ArgumentError", "out of range for int8", i.set, i, 0, 128)
  expect_error("ArgumentError", "out of range for int8", i.set, i, 0, -129)
  expect_error("ArgumentError", "NaN", i.set, i, 0, 0 / 0)
  expect_error("ArgumentError", "out of range", i.set, i, 0, math.huge)
  expect_error("ArgumentError", "complex", i.set, i, 0, { 1, 1 })
  expect_error("ArgumentError", "out of range for uint8", lp.array, { 1, 256 }, "uint8")
  expect_error("ArgumentError", "out of range for uint16", lp.array, { -1 }, "uint16")

  local big = lp.zeros(1, "int64")
  big:set(0, math.maxinteger)
  check_equal(big:get(0), math.maxinteger, "int64 holds Lua's largest integer exactly")
  local u = lp.zeros(1, "uint64")
  u:set(0, -1) -- Lua integers are signed: -1 is the largest uint64, as with math.ult
  check_equal(u:get(0), -1, "uint64 round trip")

  local f = lp.zeros(1, "float32")
  f:set(0, 0.1)
  assert(f:get(0) ~= 0.1 and math.abs(f:get(0) - 0.1) < 1e-8, "float32 rounds")
  f:set(0, { 3, 0 })
  check_equal(f:get(0), 3.0, "a complex value with no imaginary part fits a real array")
  expect_error("ArgumentError", "complex", f.set, f, 0, { 3, 1 })

  local b = lp.zeros(2, "bool")
  b:set(0, 5)
  b:set(1, 0.0)
  check_list(b:totable(), { true, false }, "numbers into bool")
end

do
  local a = lp.zeros({ 2, 3 })
  expect_error("ArgumentError", "expected 2 indices for a 2-d array, got 1", a.get, a, 0)
  expect_error("ArgumentError", "expected 2 indices for a 2-d array, got 3", a.set, a, 0, 0, 0, 1)
  expect_error("ArgumentError", "index 3 is out of bounds for axis 1 with size 3", a.get, a, 0, 3)
  expect_error("ArgumentError", "index -1 is out of bounds for axis 0 with size 2", a.set, a, -1, 0, 1)
  expect_error("ArgumentError", "bad argument #3 to 'get'", a.get, a, 0, "x")
  expect_error("ArgumentError", "number has no integer representation", a.get, a, 0, 1.5)
  expect_error("ArgumentError", "bad argument #4 to 'set'", a.set, a, 0, 0, "x")
  expect_error("ArgumentError", "value expected", a.set, a)
  expect_error("ArgumentError", "loom.Array expected, got number", a.get, 5)
end

-- Views, copies and fill --------------------------------------------------------------------------------------

do
  local a = lp.array({ { 0, 1, 2 }, { 10, 11, 12 } }, "int32")
  local t = a:transpose()
  check_list(t.shape, { 3, 2 }, "transpose shape")
  check_equal(t:get(2, 1), 12, "transpose element")
  t:set(2, 1, -1)
  check_equal(a:get(1, 2), -1, "transpose is a view")
  check_list(t:totable()[3], { 2, -1 }, "totable of a view")

  local r = a:reshape({ 3, 2 })
  check_list(r.shape, { 3, 2 }, "reshape shape")
  check_equal(r:get(1, 0), 2, "reshape keeps C order")
  r:set(0, 0, 99)
  check_equal(a:get(0, 0), 99, "reshape is a view")
  check_list(a:reshape(-1).shape, { 6 }, "reshape infers -1")
  check_list(a:reshape(3, -1).shape, { 3, 2 }, "reshape takes integers")
  check_list(a:reshape({ 1, 6, 1 }).shape, { 1, 6, 1 }, "reshape adds axes")
  expect_error("ArgumentError", "cannot reshape an array of shape (2, 3) into shape (4, 2)", a.reshape, a, 4, 2)
  expect_error("ArgumentError", "only one dimension can be -1", a.reshape, a, { -1, -1 })
  expect_error("ArgumentError", "not contiguous", t.reshape, t, 6)
  expect_error("ArgumentError", "shape expected", a.reshape, a)

  local c = t:copy()
  check_list(c:reshape(6):totable(), { 99, 10, 1, 11, 2, -1 }, "copy of a view is C-ordered")
  c:set(0, 0, 7)
  check_equal(a:get(0, 0), 99, "copy does not share memory")

  local v = lp.zeros({ 2, 2 }, "float64")
  check_equal(v:fill(3), v, "fill returns the array")
  check_list(v:reshape(4):totable(), { 3, 3, 3, 3 }, "fill")
  v:transpose():fill(-1.5)
  check_equal(v:get(1, 0), -1.5, "fill through a view")
  local ints = lp.zeros(3, "uint8")
  expect_error("ArgumentError", "out of range", ints.fill, ints, 300)
  check_list(ints:totable(), { 0, 0, 0 }, "a failed fill changes nothing")
  local zc = lp.zeros(2, "complex64"):fill({ 1, -2 })
  check_list(zc:get(1), { 1, -2 }, "fill with a complex value")
end

-- Random data -------------------------------------------------------------------------------------------------

do
  for _, dtype in ipairs({ "float32", "float64", "complex64", "complex128" }) do
    local a = lp.rand({ 50, 20 }, dtype, 42)
    check_equal(a.dtype, dtype, "rand dtype")
    check_equal(lp.max_abs_diff(a, lp.rand({ 50, 20 }, dtype, 42)), 0.0, "rand is reproducible from a seed")
    assert(lp.max_abs_diff(a, lp.rand({ 50, 20 }, dtype, 43)) > 0, "other seeds give other values")
    for _, row in ipairs(a:totable()) do
      for _, x in ipairs(row) do
        for _, part in ipairs(type(x) == "table" and x or { x }) do
          assert(part >= 0 and part < 1, "rand is in [0, 1)")
        end
      end
    end
  end
  check_equal(lp.rand(3).dtype, "float64", "rand default dtype")
  assert(lp.max_abs_diff(lp.rand(100), lp.rand(100)) > 0, "unseeded draws advance the shared generator")
  check_equal(lp.max_abs_diff(lp.rand(10, nil, 5), lp.rand(10, "float64", 5)), 0.0, "nil dtype with a seed")

  local n = lp.randn(20000, "float64", 1)
  local sum, sum_sq = 0, 0
  for _, x in ipairs(n:totable()) do
    sum, sum_sq = sum + x, sum_sq + x * x
  end
  local mean = sum / #n
  assert(math.abs(mean) < 0.03, "randn mean")
  assert(math.abs(sum_sq / #n - mean * mean - 1) < 0.05, "randn variance")
  check_equal(lp.max_abs_diff(lp.randn(7, "complex64", 9), lp.randn(7, "complex64", 9)), 0.0, "randn seed")
  expect_error("ArgumentError", "rand: dtype int32 is not a floating-point or complex type", lp.rand, 3, "int32")
  expect_error("ArgumentError", "randn: dtype bool", lp.randn, 3, "bool")
end

-- Comparison --------------------------------------------------------------------------------------------------

do
  local a = lp.array({ 1, 2, 3 })
  local b = lp.array({ 1, 2, 3 + 1e-6 }, "float32")
  assert(lp.allclose(a, b), "allclose within the default tolerances")
  local far = lp.array({ 1, 2, 3.1 })
  assert(not lp.allclose(a, far), "allclose rejects 0.1 off")
  assert(lp.allclose(a, far, { atol = 0.2 }), "atol")
  assert(lp.allclose(a, far, { rtol = 0.05 }), "rtol is relative to the second array")
  assert(not lp.allclose(a, far, { rtol = 0, atol = 0.05 }), "tight tolerances")
  assert(lp.allclose(lp.arange(3, "int32"), lp.array({ 0, 1, 2 })), "dtypes may differ")
  local diff = lp.max_abs_diff(a, far)
  assert(math.abs(diff - 0.1) < 1e-12, "max_abs_diff")
  check_equal(math.type(diff), "float", "max_abs_diff is a number")

  local nan = lp.array({ 0 / 0 })
  assert(not lp.allclose(nan, nan), "NaN is never close")
  assert(lp.max_abs_diff(nan, nan) ~= lp.max_abs_diff(nan, nan), "max_abs_diff of NaN is NaN")
  local inf = lp.array({ math.huge, -math.huge })
  assert(lp.allclose(inf, inf), "equal infinities are close")

  local z1 = lp.array({ { 0, 3 } }, "complex128")
  local z2 = lp.array({ { 4, 0 } }, "complex64")
  assert(math.abs(lp.max_abs_diff(z1, z2) - 5) < 1e-12, "complex distance")

  local m = lp.zeros({ 2, 3 })
  expect_error("ArgumentError", "the shapes (2, 3) and (3, 2) do not match", lp.allclose, m, m:transpose())
  expect_error("ArgumentError", "the shapes (2, 3) and (6,) do not match", lp.max_abs_diff, m, m:reshape(6))
  expect_error("ArgumentError", "unknown option 'rtl'", lp.allclose, m, m, { rtl = 1 })
  expect_error("ArgumentError", "option 'atol': number expected", lp.allclose, m, m, { atol = "x" })
  expect_error("ArgumentError", "bad argument #3 to 'allclose'", lp.allclose, m, m, 5)
  expect_error("ArgumentError", "bad argument #2 to 'max_abs_diff'", lp.max_abs_diff, m)
end

-- Printing ----------------------------------------------------------------------------------------------------

do
  check_equal(tostring(lp.array({ 1, 2 }, "float32")), "array([1., 2.], dtype=float32)", "tostring float32")
  check_equal(tostring(lp.array({ 1, 2.5 })), "array([1. , 2.5])", "tostring float64")
  check_equal(tostring(lp.arange(4, "int32"):reshape(2, 2)), "array([[0, 1],\n       [2, 3]], dtype=int32)",
    "tostring matrix")
  check_equal(tostring(lp.array({ true, false }, "bool")), "array([ True, False])", "tostring bool")
  check_equal(tostring(lp.array({ { 1, 2 }, { 3, -4.5 } }, "complex64")), "array([1.+2.j , 3.-4.5j], dtype=complex64)",
    "tostring complex")
  check_equal(tostring(lp.array(5)), "array(5.)", "tostring 0-d")
  check_equal(tostring(lp.zeros(0, "int8")), "array([], dtype=int8)", "tostring empty")
  check_equal(tostring(lp.arange(5000)), "array([   0,    1,    2, ..., 4997, 4998, 4999], shape=(5000,))",
    "tostring abbreviates")
end

-- Argument errors ---------------------------------------------------------------------------------------------

do
  expect_error("ArgumentError", "unknown dtype 'flaot32'", lp.zeros, 3, "flaot32")
  expect_error("ArgumentError", "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float32, float64, " ..
    "complex64, complex128", lp.array, { 1 }, "nope")
  expect_error("ArgumentError", "bad argument #2 to 'arange'", lp.arange, 3, 7)
  expect_error("ArgumentError", "bad argument #1 to 'zeros'", lp.zeros, "x")
  expect_error("ArgumentError", "shape entry 2 is not an integer", lp.empty, { 2, 1.5 })
  expect_error("ArgumentError", "negative dimensions are not allowed", lp.zeros, { 2, -1 })
  expect_error("ArgumentError", "too large", lp.zeros, { 1 << 40, 1 << 40 })
  expect_error("ArgumentError", "order must be \"C\" or \"F\"", lp.zeros, 3, "float64", "K")
  expect_error("ArgumentError", "bad argument #3 to 'rand'", lp.rand, 3, "float64", "seed")
  expect_error("ArgumentError", "ragged nested lists", lp.array, { { 1, 2 }, { 3 } })
  expect_error("ArgumentError", "ragged nested lists", lp.array, { { 1, 2 }, 3 })
  expect_error("ArgumentError", "ragged nested lists", lp.array, { 1, { 2 } })
  expect_error("ArgumentError", "number, boolean or table expected at [2][1], got string", lp.array, { { 1 }, { "x" } })
  expect_error("ArgumentError", "got nil", lp.array, nil)
  local loop = {}
  loop[1] = loop
  expect_error("ArgumentError", "contain itself", lp.array, loop)
end

print("arrays: ok")
