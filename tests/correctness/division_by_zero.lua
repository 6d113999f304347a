-- An integer `//` or `%` by zero in the data stopped the whole process on the C target (SIGFPE); it now gives
-- 0, numpy's result, and the most negative int by -1 wraps around (docs/tutorial.md, "Expression syntax"). OpenCL C leaves the value unspecified, so only the
-- C target is checked. Other divisors keep Python's floor semantics.
local lp = require("loom")
local h = require("helpers")

local exec = lp.c.executor {}

local function floor_div(a, b) return b == 0 and 0 or a // b end
local function mod(a, b) return b == 0 and 0 or a % b end

-- Signed operands (helpers for any sign), unsigned ones (plain C where the divisor is known non-zero), and a
-- divisor that is a value argument.
for _, dtype in ipairs({ "int32", "int64", "int8", "uint32", "uint16" }) do
  local signed = dtype:sub(1, 1) == "i"
  local knl = lp.set_options(lp.make_kernel("{ [i]: 0<=i<n }", [[
    q[i] = a[i] // b[i]
    r[i] = a[i] % b[i]
    s[i] = a[i] // d
    t[i] = a[i] % d
    ]], { lp.GlobalArg("a, b", dtype, { shape = "n" }), lp.ValueArg("d", dtype), "..." }), { return_dict = true })
  local n = 12
  local a = h.array_from({ n }, dtype, function(i) return signed and (i * 5 - 27) or i * 5 end)
  local b = h.array_from({ n }, dtype, function(i) return signed and (i % 4 - 1) or i % 3 end)
  for _, d in ipairs({ 0, 3 }) do
    local out = knl(exec, { a = a, b = b, d = d })
    local name = dtype .. " with d = " .. d
    h.check_array(out.q, function(i) return floor_div(a:get(i), b:get(i)) end, name .. ": a // b")
    h.check_array(out.r, function(i) return mod(a:get(i), b:get(i)) end, name .. ": a % b")
    h.check_array(out.s, function(i) return floor_div(a:get(i), d) end, name .. ": a // d")
    h.check_array(out.t, function(i) return mod(a:get(i), d) end, name .. ": a % d")
  end
end

-- The most negative int32 and int64 by -1 trapped too: the quotient wraps around, the remainder is 0 (numpy).
for _, case in ipairs({ { "int32", -2147483648 }, { "int64", math.mininteger } }) do
  local knl = lp.set_options(lp.make_kernel("{ [i]: 0<=i<n }", "q[i] = a[i] // b[i]\nr[i] = a[i] % b[i]",
    { lp.GlobalArg("a, b", case[1], { shape = "n" }), "..." }), { return_dict = true })
  local a = h.array_from({ 4 }, case[1], function(i) return i < 2 and case[2] or 7 end)
  local b = h.array_from({ 4 }, case[1], function(i) return i < 2 and -1 or 2 - 4 * i end)
  local out = knl(exec, { a = a, b = b })
  -- Lua's integers are 64-bit: an int32 quotient wraps at 32 bits.
  local wrap = case[1] == "int32" and function(x) return (x + (1 << 31)) % (1 << 32) - (1 << 31) end
    or function(x) return x end
  h.check_array(out.q, function(i) return wrap(a:get(i) // b:get(i)) end, case[1] .. " // -1")
  h.check_array(out.r, function(i) return a:get(i) % b:get(i) end, case[1] .. " % -1")
end

-- Non-negative operands that isl knows about (inames) and a literal divisor stay plain C.
local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = i // 4 + i % 3 + i // d", { lp.ValueArg("d", "int32"), "..." },
  { target = "c" })
local code = lp.generate_code(lp.add_dtypes(knl, { out = "int32" }))
h.check_contains(code, "i / 4 + i % 3")
h.check_array(knl(exec, { n = 9, d = 0 }), function(i) return i // 4 + i % 3 end, "iname by a zero value argument")

print("division_by_zero: ok")
