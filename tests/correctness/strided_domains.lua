-- Domains with strides and existentially quantified variables on both executors: `i mod 3 = 0`,
-- `exists k: i = 2k+1`, offsets, 2-D strides coupled between inames. Only the elements inside the domain are
-- compared: the kernel leaves the others undefined.
local lp = require("loom")
local h = require("helpers")

-- Runs knl with `args` and compares the elements of its first output where inside(...) holds with value(...).
local function check_kernel(what, knl, args, inside, value)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, args)
    h.check_array(out, function(...)
      if inside(...) then return value(...) end
    end, name .. " " .. what)
  end)
end

-- arange over the footprint of a 1-D domain: the array's shape is one past the largest i < n inside it.
local function footprint(n, inside)
  local size = 0
  for i = 0, n - 1 do
    if inside(i) then size = i + 1 end
  end
  return lp.arange(size, "float64")
end

-- The shape of a stride-3 footprint is 3*((n + 2) // 3) - 2, from which n cannot be read back: n is passed.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n and i mod 3 = 0 }", "out[i] = a[i] * 3")
  local inside = function(i) return i % 3 == 0 end
  for _, n in ipairs({ 19, 20, 21 }) do
    check_kernel("i mod 3 = 0, n = " .. n, knl, { a = footprint(n, inside), n = n }, inside,
      function(i) return 3 * i end)
  end
end

do
  local odd = function(i) return i % 2 == 1 end
  local knl = lp.make_kernel("{ [i]: exists k: i = 2k+1 and 0<=i<n }", "out[i] = -a[i]")
  check_kernel("exists k: i = 2k+1", knl, { a = footprint(20, odd), n = 20 }, odd, function(i) return -i end)
end

-- A stride with an offset: i = 4k + 2 from 2 up.
do
  local inside = function(i) return i % 4 == 2 end
  local knl = lp.make_kernel("{ [i]: exists k: i = 4k + 2 and 0 <= i < n }", "out[i] = a[i] + 0.5")
  check_kernel("exists k: i = 4k + 2", knl, { a = footprint(20, inside), n = 20 }, inside,
    function(i) return i + 0.5 end)
end

-- Two strides at once: multiples of 2 that are 1 mod 3.
do
  local inside = function(i) return i % 2 == 0 and i % 3 == 1 end
  local knl = lp.make_kernel("{ [i]: 0<=i<n and i mod 2 = 0 and i mod 3 = 1 }", "out[i] = a[i] * a[i]")
  check_kernel("i mod 2 = 0 and i mod 3 = 1", knl, { a = footprint(20, inside), n = 20 }, inside,
    function(i) return i * i end)
end

-- A checkerboard: the stride of j depends on i. Both loop orders.
do
  local base = lp.make_kernel("{ [i,j]: 0<=i,j<n and exists k: i + j = 2k }", "out[i,j] = a[i,j] + i")
  local a = h.array_from({ 6, 6 }, "int32", function(i, j) return 10 * i + j end)
  for _, order in ipairs({ "i,j", "j,i" }) do
    check_kernel("checkerboard (" .. order .. ")", lp.prioritize_loops(base, order), { a = a },
      function(i, j) return (i + j) % 2 == 0 end, function(i, j) return 11 * i + j end)
  end
end

-- A stride inside a triangle: j runs over the multiples of 3 up to i.
do
  local base = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<=i and j mod 3 = 0 }", "out[i,j] = a[i,j] * 2")
  local a = h.array_from({ 8, 7 }, "int64", function(i, j) return i * j + 1 end)
  for _, order in ipairs({ "i,j", "j,i" }) do
    check_kernel("strided triangle (" .. order .. ")", lp.prioritize_loops(base, order), { a = a, n = 8 },
      function(i, j) return j <= i and j % 3 == 0 end, function(i, j) return 2 * (i * j + 1) end)
  end
end

print("strided_domains: ok")
