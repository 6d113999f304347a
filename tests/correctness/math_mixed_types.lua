-- Math functions on integer operands and with literals of another type, on both executors: sqrt of an
-- int32 is a float64 (as numpy), min/max of an int64 and an integer literal stay int64, rsqrt exists on C.
local lp = require("loom")
local h = require("helpers")

local N = 9

do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "r[i] = sqrt(a[i])", "e[i] = exp(a[i] - 4)" })
  for _, dtype in ipairs({ "int32", "int64" }) do
    local a = lp.arange(N, dtype)
    h.on_each_executor(function(exec, name)
      local e, r = knl(exec, { a = a })
      h.check_array(r, function(i) return math.sqrt(i) end, name .. " sqrt of " .. dtype,
        { dtype = "float64", rtol = 1e-15 })
      h.check_array(e, function(i) return math.exp(i - 4) end, name .. " exp of " .. dtype,
        { dtype = "float64", rtol = 1e-14 })
    end)
  end
end

do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "lo[i] = min(a[i], 4)", "hi[i] = max(a[i], 4)", "m[i] = abs(a[i] - 4)" })
  for _, dtype in ipairs({ "int32", "int64" }) do
    local a = lp.arange(N, dtype)
    h.on_each_executor(function(exec, name)
      local hi, lo, m = knl(exec, { a = a })
      h.check_array(lo, function(i) return math.min(i, 4) end, name .. " min of " .. dtype, { dtype = dtype })
      h.check_array(hi, function(i) return math.max(i, 4) end, name .. " max of " .. dtype, { dtype = dtype })
      h.check_array(m, function(i) return math.abs(i - 4) end, name .. " abs of " .. dtype, { dtype = dtype })
    end)
  end
end

do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = rsqrt(x[i])")
  for _, dtype in ipairs({ "float32", "float64" }) do
    local x = h.array_from({ N }, dtype, function(i) return i + 0.5 end)
    h.on_each_executor(function(exec, name)
      h.check_array(knl(exec, { x = x }), function(i) return 1 / math.sqrt(i + 0.5) end, name .. " rsqrt " .. dtype,
        { rtol = dtype == "float32" and 1e-6 or 1e-15 })
    end)
  end
end

print("math_mixed_types: ok")
