-- 2-D arrays on both executors against plain-Lua loops: element-wise maps, broadcasting along an axis,
-- transposition, rectangles with two parameters and non-contiguous inputs.
local lp = require("loom")
local h = require("helpers")

local N, M = 7, 5

do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = a[i,j] * b[j] + c[i]")
  local a = lp.rand({ N, M }, "float64", 1)
  local b = lp.rand(M, "float64", 2)
  local c = lp.rand(N, "float64", 3)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, b = b, c = c })
    h.check_array(out, function(i, j) return a:get(i, j) * b:get(j) + c:get(i) end, name .. " broadcast",
      { shape = { N, M }, rtol = 1e-15 })
  end)
end

-- Transposition: the output's shape comes from the accesses, (m, n).
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[j,i] = a[i,j]")
  local a = h.array_from({ N, M }, "int32", function(i, j) return 100 * i + j end)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(j, i) return 100 * i + j end, name .. " transpose", { shape = { M, N } })
  end)
end

-- A non-contiguous input (a transposed view) is read with its own layout.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = 2*a[i,j]")
  local base = h.array_from({ M, N }, "float32", function(i, j) return i - j / 4 end)
  local view = base:transpose()
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = view })
    h.check_array(out, function(i, j) return 2 * (j - i / 4) end, name .. " transposed view", { shape = { N, M } })
  end)
end

-- Both index orders of one array and inames as values, in int64.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<n }", "out[i,j] = a[i,j] - a[j,i] + i*n + j")
  local a = h.array_from({ N, N }, "int64", function(i, j) return (i + 1) * (j + 3) end)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i, j) return (i + 1) * (j + 3) - (j + 1) * (i + 3) + i * N + j end,
      name .. " antisymmetric part")
  end)
end

-- Three parameters and 3-D arrays read in opposite axis orders.
do
  local knl = lp.make_kernel("{ [i,j,k]: 0<=i<l and 0<=j<m and 0<=k<n }",
    "out[i,j,k] = a[i,j,k] + b[k,j,i]")
  local a = h.array_from({ 2, 3, 4 }, "float64", function(i, j, k) return i + 10 * j + 100 * k end)
  local b = h.array_from({ 4, 3, 2 }, "float64", function(k, j, i) return -i * j * k end)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, b = b })
    h.check_array(out, function(i, j, k) return i + 10 * j + 100 * k - i * j * k end, name .. " 3-D",
      { shape = { 2, 3, 4 } })
  end)
end

print("arrays_2d: ok")
