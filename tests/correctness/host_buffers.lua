-- Host memory without copies: lp.frombytes / a:tobytes, lp.array and a:totable (read straight between Lua tables
-- and the array's memory), and views passed to kernels in place where the declared layout is theirs.
local lp = require("loom")
local h = require("helpers")

local check, check_equal, check_array, expect_error = h.check, h.check_equal, h.check_array, h.expect_error

-- Bytes in, bytes out: the layout is the machine's (little-endian here, as string.pack "<" writes).
check_equal(lp.array({ 1, -2, 300 }, "int32"):tobytes(), string.pack("<i4<i4<i4", 1, -2, 300), "int32 tobytes")
local d = lp.frombytes(string.pack("<d<d<d<d<d<d", 1.5, -2, 3, 4, 5, 6.25), "float64", { 2, 3 })
check_array(d, function(i, j) return ({ { 1.5, -2, 3 }, { 4, 5, 6.25 } })[i + 1][j + 1] end, "frombytes 2-d",
  { shape = { 2, 3 }, dtype = "float64" })
check_equal(#lp.frombytes(string.pack("<f<f", 1, 2), "float32"), 2, "frombytes without a shape")
local function sample(dtype, i, j)
  if dtype == "bool" then return (i + j) % 2 == 1 end
  if dtype:match("complex") then return { i + 0.5, -j } end
  return 3 * i + j
end
for _, dtype in ipairs({ "bool", "int8", "uint16", "int64", "uint64", "float32", "complex64", "complex128" }) do
  local src = h.array_from({ 3, 4 }, dtype, function(i, j) return sample(dtype, i, j) end)
  local back = lp.frombytes(src:tobytes(), dtype, { 3, 4 })
  check(lp.max_abs_diff(back, src) == 0 and back.dtype == dtype, "%s: frombytes(tobytes) differs", dtype)
end
-- A view's bytes are its elements in C order.
local m = lp.arange(24, "int16"):reshape(4, 6)
local v = m:view { { 1, 4 }, { 0, 6, 2 } }
check_equal(v:tobytes(), v:copy():tobytes(), "tobytes of a view")
check_equal(#v:tobytes(), 9 * 2, "tobytes of a view: size")
check_equal(m:transpose():tobytes(), m:transpose():copy():tobytes(), "tobytes of a transpose")

expect_error("ArgumentError", { "bad argument #1 to 'frombytes'", "7 bytes do not make (2,) elements of float32" },
  lp.frombytes, "1234567", "float32", 2)
expect_error("ArgumentError", "string expected, got table", lp.frombytes, {}, "float32")
expect_error("ArgumentError", "unknown dtype", lp.frombytes, "1234", "float31")

-- lp.array and totable: nested tables in every depth and dtype; the values are exactly those written.
local rows = {}
for i = 1, 50 do
  rows[i] = {}
  for j = 1, 40 do rows[i][j] = i * 1000 + j + 0.5 end
end
for _, dtype in ipairs({ "float64", "float32", "int32", "int64", "uint8" }) do
  local src = rows
  if dtype:match("int") then
    src = {}
    for i = 1, 50 do
      src[i] = {}
      for j = 1, 40 do src[i][j] = (i * 40 + j) % 200 end
    end
  end
  local a = lp.array(src, dtype)
  check_array(a, function(i, j) return src[i + 1][j + 1] end, dtype .. " lp.array", { shape = { 50, 40 }, dtype = dtype })
  local t = a:totable()
  check_equal(#t, 50, dtype .. " totable rows")
  for i = 1, 50 do
    for j = 1, 40 do check_equal(t[i][j], a:get(i - 1, j - 1), dtype .. " totable") end
  end
end
check_equal(lp.array(2.5):get(), 2.5, "0-d array")
check_equal(lp.array(7, "int32"):totable(), 7, "0-d totable")
check_equal(lp.array({ 1, 2.75 }, "int32"):get(1), 2, "a float into int32 truncates")
check_equal(lp.array({ true, false }, "bool"):get(0), true, "bool")
check_equal(lp.array({ { 1, 2 }, { 3, -4 } }, "complex128"):totable()[2][2], -4, "complex pairs are elements")
-- A strided view's totable reads its own elements.
local vt = v:totable()
check_equal(#vt, 3, "view totable rows")
check_equal(vt[3][2], m:get(3, 2), "view totable")
expect_error("ArgumentError", "ragged nested lists", lp.array, { { 1, 2 }, { 3 } })
expect_error("ArgumentError", "number, boolean or table expected at [2][1], got string", lp.array, { { 1 }, { "x" } })
expect_error("ArgumentError", "out of range for int32", lp.array, { 1, 2 ^ 40 }, "int32")
expect_error("ArgumentError", "out of range for uint8", lp.array, { 256 }, "uint8")

-- Views go to kernels in place when the declared layout is theirs (stride:auto): a written view updates the
-- array it is a view of, on both executors.
local knl = lp.make_kernel("{[i, j]: 0<=i<n and 0<=j<m}", "x[i, j] = x[i, j] + i + 10*j",
  { lp.GlobalArg("x", "float64", { shape = "n, m", dim_tags = "stride:auto, stride:auto" }), "..." })
h.on_each_executor(function(exec, name)
  local big = lp.zeros({ 6, 8 }, "float64")
  local view = big:view { { 1, 6, 2 }, { 0, 8, 3 } }
  check(rawequal(knl(exec, { x = view }), view), "%s: the view passed is returned", name)
  check_array(big, function(i, j)
    if i % 2 == 1 and j % 3 == 0 then return (i - 1) / 2 + 10 * (j // 3) end
    return 0
  end, name .. " written through a view")
end)
print("host_buffers: ok")
