-- Math functions in float32 and float64 on both executors against Lua's math library, within a tolerance
-- (device libraries differ from the host's in the last bits; float32 is compared with the double result).
local lp = require("loom")
local h = require("helpers")

local N = 16

local function sinh(x) return (math.exp(x) - math.exp(-x)) / 2 end
local function cosh(x) return (math.exp(x) + math.exp(-x)) / 2 end
local function round(x) return x < 0 and -math.floor(-x + 0.5) or math.floor(x + 0.5) end
local function trunc(x) return x < 0 and math.ceil(x) or math.floor(x) end

-- x in (0, 1) and y in (-0.5, 0.5): each function below is defined on them.
local FUNCTIONS = {
  { "sqrt(x[i])", function(x) return math.sqrt(x) end },
  { "exp(y[i])", function(_, y) return math.exp(y) end },
  { "log(x[i])", function(x) return math.log(x) end },
  { "log10(x[i])", function(x) return math.log(x, 10) end },
  { "log2(x[i])", function(x) return math.log(x, 2) end },
  { "exp2(y[i])", function(_, y) return 2 ^ y end },
  { "expm1(y[i])", function(_, y) return math.exp(y) - 1 end, 1e-12 },
  { "log1p(y[i])", function(_, y) return math.log(1 + y) end, 1e-12 },
  { "sin(y[i])", function(_, y) return math.sin(y) end },
  { "cos(y[i])", function(_, y) return math.cos(y) end },
  { "tan(y[i])", function(_, y) return math.tan(y) end },
  { "asin(y[i])", function(_, y) return math.asin(y) end },
  { "acos(y[i])", function(_, y) return math.acos(y) end },
  { "atan(y[i])", function(_, y) return math.atan(y) end },
  { "sinh(y[i])", function(_, y) return sinh(y) end, 1e-12 },
  { "cosh(y[i])", function(_, y) return cosh(y) end },
  { "tanh(y[i])", function(_, y) return sinh(y) / cosh(y) end, 1e-12 },
  { "cbrt(x[i])", function(x) return x ^ (1 / 3) end },
  { "fabs(y[i])", function(_, y) return math.abs(y) end },
  { "abs(y[i])", function(_, y) return math.abs(y) end },
  { "floor(4*y[i])", function(_, y) return math.floor(4 * y) end },
  { "ceil(4*y[i])", function(_, y) return math.ceil(4 * y) end },
  { "trunc(4*y[i])", function(_, y) return trunc(4 * y) end },
  { "round(4*y[i])", function(_, y) return round(4 * y) end },
  { "pow(x[i], y[i])", function(x, y) return x ^ y end },
  { "atan2(y[i], x[i])", function(x, y) return math.atan(y, x) end },
  { "fmod(y[i], 0.125)", function(_, y) return math.fmod(y, 0.125) end, 1e-12 },
  { "hypot(x[i], y[i])", function(x, y) return math.sqrt(x * x + y * y) end },
  { "fmin(x[i], y[i])", function(x, y) return math.min(x, y) end },
  { "fmax(x[i], y[i])", function(x, y) return math.max(x, y) end },
  { "min(x[i], y[i])", function(x, y) return math.min(x, y) end },
  { "max(x[i], y[i])", function(x, y) return math.max(x, y) end },
}

-- All functions in one kernel per dtype: one build per executor keeps the test fast.
local function kernel()
  local insns = {}
  for k, f in ipairs(FUNCTIONS) do insns[k] = string.format("out%d[i] = %s", k, f[1]) end
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", insns, { lp.GlobalArg("x, y", nil, { shape = "n" }), "..." })
  return lp.set_options(knl, { return_dict = true })
end

local knl = kernel()
for _, dtype in ipairs({ "float32", "float64" }) do
  local x = h.array_from({ N }, dtype, function(i) return 0.03 + 0.94 * i / N end)
  local y = h.array_from({ N }, dtype, function(i) return 0.45 - 0.9 * i / N end)
  h.on_each_executor(function(exec, name)
    local result = knl(exec, { x = x, y = y })
    for k, f in ipairs(FUNCTIONS) do
      local tol = dtype == "float32" and { rtol = 2e-6, atol = 1e-6 } or { rtol = f[3] or 1e-14, atol = 1e-15 }
      tol.dtype = dtype
      h.check_array(result["out" .. k], function(i) return f[2](x:get(i), y:get(i)) end,
        string.format("%s %s %s", name, dtype, f[1]), tol)
    end
  end)
end

print("math_functions: ok")
