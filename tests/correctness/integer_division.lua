-- `//` and `%` have Python's semantics (floor division, remainder with the divisor's sign) on negative
-- operands, in int32 and int64, with array, literal and iname operands, on both executors. Lua's own // and %
-- follow the same rules, so they are the reference.
local lp = require("loom")
local h = require("helpers")

-- Every sign combination, zero, and exact multiples.
local NUMERATORS = { -9, -8, -7, -3, -1, 0, 1, 3, 7, 8, 9, -12, 12 }
local DIVISORS = { 1, 2, 3, 4, -1, -2, -3, -4 }

local function pairs_of(dtype)
  local count = #NUMERATORS * #DIVISORS
  local a = lp.zeros(count, dtype)
  local b = lp.zeros(count, dtype)
  local k = 0
  for _, x in ipairs(NUMERATORS) do
    for _, y in ipairs(DIVISORS) do
      a:set(k, x)
      b:set(k, y)
      k = k + 1
    end
  end
  return a, b
end

-- Both operands from arrays.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "q[i] = a[i] // b[i]", "r[i] = a[i] % b[i]" })
  for _, dtype in ipairs({ "int32", "int64" }) do
    local a, b = pairs_of(dtype)
    h.on_each_executor(function(exec, name)
      local q, r = knl(exec, { a = a, b = b })
      h.check_array(q, function(i) return a:get(i) // b:get(i) end, name .. " " .. dtype .. " a // b", { dtype = dtype })
      h.check_array(r, function(i) return a:get(i) % b:get(i) end, name .. " " .. dtype .. " a % b", { dtype = dtype })
    end)
  end
end

-- Literal divisors of each sign (the positive ones have their own, cheaper helpers).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "q4[i] = a[i] // 4", "r4[i] = a[i] % 4",
    "qm3[i] = a[i] // -3", "rm3[i] = a[i] % -3",
  })
  local a = lp.array(NUMERATORS, "int64")
  h.on_each_executor(function(exec, name)
    local q4, qm3, r4, rm3 = knl(exec, { a = a })
    h.check_array(q4, function(i) return a:get(i) // 4 end, name .. " a // 4")
    h.check_array(r4, function(i) return a:get(i) % 4 end, name .. " a % 4")
    h.check_array(qm3, function(i) return a:get(i) // -3 end, name .. " a // -3")
    h.check_array(rm3, function(i) return a:get(i) % -3 end, name .. " a % -3")
  end)
end

-- Negative values from inames: (i - 7) over i in [0, 15).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "q[i] = (i - 7) // 3", "r[i] = (i - 7) % 3", "s[i] = (7 - i) % -4" },
    { lp.GlobalArg("q, r, s", "int32", { shape = "n" }), "..." })
  h.on_each_executor(function(exec, name)
    local q, r, s = knl(exec, { n = 15 })
    h.check_array(q, function(i) return (i - 7) // 3 end, name .. " (i - 7) // 3")
    h.check_array(r, function(i) return (i - 7) % 3 end, name .. " (i - 7) % 3")
    h.check_array(s, function(i) return (7 - i) % -4 end, name .. " (7 - i) % -4")
  end)
end

-- Floats: // is floor(a / b) and % takes the divisor's sign, as in Python and Lua.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "q[i] = x[i] // y[i]", "r[i] = x[i] % y[i]" })
  local x = lp.array({ -7.5, 7.5, -7.5, 7.5, 1, -1, 0.25 })
  local y = lp.array({ 2, 2, -2, -2, 3, 3, -0.5 })
  h.on_each_executor(function(exec, name)
    local q, r = knl(exec, { x = x, y = y })
    h.check_array(q, function(i) return x:get(i) // y:get(i) end, name .. " float //")
    h.check_array(r, function(i) return x:get(i) % y:get(i) end, name .. " float %")
  end)
end

print("integer_division: ok")
