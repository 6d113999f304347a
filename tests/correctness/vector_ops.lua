-- 1-D kernels on both executors against plain-Lua loops: the tutorial's doubling kernel, arithmetic in every
-- common dtype, several outputs, value arguments and the default executor.
local lp = require("loom")
local h = require("helpers")

local N = 37 -- not a multiple of anything, so no bound happens to line up

-- The tutorial's first kernel, on float32 data; doubling is exact in float32.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
  local a = lp.rand({ N }, "float32", 1)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i) return 2 * a:get(i) end, name .. " doubling", { dtype = "float32", shape = { N } })
  end)
end

-- The same kernel object specialised for each dtype it is called with.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 3*a[i] - b[i]")
  local inputs = {
    float32 = { lp.rand(N, "float32", 2), lp.rand(N, "float32", 3) },
    float64 = { lp.rand(N, "float64", 2), lp.rand(N, "float64", 3) },
    int32 = { h.array_from({ N }, "int32", function(i) return i * 7 - 100 end),
              h.array_from({ N }, "int32", function(i) return 5 - i end) },
    int64 = { h.array_from({ N }, "int64", function(i) return i * 3000000000 end),
              h.array_from({ N }, "int64", function(i) return -i end) },
  }
  for dtype, ab in pairs(inputs) do
    local a, b = ab[1], ab[2]
    local ref = function(i) return 3 * a:get(i) - b:get(i) end
    -- Compilers may contract a*b-c into a fused multiply-add: floats agree to rounding only.
    local tol = ({ float32 = { rtol = 1e-6, atol = 1e-6 }, float64 = { rtol = 1e-14, atol = 1e-15 } })[dtype] or {}
    tol.dtype = dtype
    h.on_each_executor(function(exec, name)
      local out = knl(exec, { a = a, b = b })
      h.check_array(out, ref, name .. " " .. dtype, tol)
    end)
  end
end

-- Mixed operands promote: int32 * float64 is float64.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] * x[i]")
  local a = h.array_from({ N }, "int32", function(i) return i - 10 end)
  local x = lp.rand(N, "float64", 4)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, x = x })
    h.check_array(out, function(i) return a:get(i) * x:get(i) end, name .. " int32*float64", { dtype = "float64" })
  end)
end

-- Several outputs come back in argument order (alphabetical when guessed).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "sum[i] = a[i] + b[i]",
    "diff[i] = a[i] - b[i]",
    "prod[i] = a[i] * b[i]",
  })
  local a = h.array_from({ N }, "int64", function(i) return i * i end)
  local b = h.array_from({ N }, "int64", function(i) return 2 * i + 1 end)
  h.on_each_executor(function(exec, name)
    local diff, prod, sum = knl(exec, { a = a, b = b })
    h.check_array(diff, function(i) return i * i - (2 * i + 1) end, name .. " diff")
    h.check_array(prod, function(i) return i * i * (2 * i + 1) end, name .. " prod")
    h.check_array(sum, function(i) return i * i + 2 * i + 1 end, name .. " sum")
  end)
end

-- Scalars: a value argument typed from the Lua number passed, and inames in expressions.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = s*a[i] + i")
  local a = lp.rand(N, "float64", 5)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a, s = 2.5 }), function(i) return 2.5 * a:get(i) + i end, name .. " float scalar",
      { rtol = 1e-15 })
    h.check_array(knl(exec, { a = a, s = -3 }), function(i) return -3 * a:get(i) + i end, name .. " integer scalar",
      { rtol = 1e-15 })
  end)
end

-- Empty and one-element domains.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] + 1")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = lp.zeros(0, "float64") })
    h.check_equal(#out, 0, name .. " empty output")
    h.check_array(knl(exec, { a = lp.array({ 41 }, "int32") }), function() return 42 end, name .. " one element")
  end)
end

-- knl{...} runs on the executor of the kernel's target option.
do
  local a = lp.arange(N, "int32")
  local ocl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] * a[i]")
  h.check_array(ocl { a = a }, function(i) return i * i end, "default OpenCL executor")
  local c = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] * a[i]", nil, { target = "c" })
  h.check_array(c { a = a }, function(i) return i * i end, "default C executor")
  local switched = lp.set_options(ocl, { target = "c" })
  h.check_array(switched { a = a }, function(i) return i * i end, "target switched by set_options")
end

print("vector_ops: ok")
