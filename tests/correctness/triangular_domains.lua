-- Non-rectangular convex domains on both executors, in both loop orders: lower and upper triangles, a strict
-- triangle, a band, a tetrahedron and a triangle clipped by a second parameter. Only the elements inside the
-- domain are compared: the kernel leaves the others undefined.
local lp = require("loom")
local h = require("helpers")

local N = 8

-- Runs `instruction` over `domain` in each loop order of `orders` and compares the elements of out for which
-- inside(i, j, ...) holds with value(i, j, ...).
local function check_domain(what, domain, instruction, args, orders, inside, value, options)
  local base = lp.make_kernel(domain, instruction, nil, options)
  for _, order in ipairs(orders) do
    local knl = lp.prioritize_loops(base, order)
    h.on_each_executor(function(exec, name)
      local out = knl(exec, args)
      h.check_array(out, function(...)
        if inside(...) then return value(...) end
      end, string.format("%s %s (%s)", name, what, order))
    end)
  end
end

local a = h.array_from({ N, N }, "int32", function(i, j) return 10 * i + j end)

check_domain("lower triangle", "{ [i,j]: 0<=i<n and 0<=j<=i }", "out[i,j] = a[i,j] + 1", { a = a },
  { "i,j", "j,i" }, function(i, j) return j <= i end, function(i, j) return 10 * i + j + 1 end)

check_domain("upper triangle", "{ [i,j]: 0<=i<n and i<=j<n }", "out[i,j] = 2*a[i,j]", { a = a },
  { "i,j", "j,i" }, function(i, j) return i <= j end, function(i, j) return 2 * (10 * i + j) end)

-- The strict triangle reaches only n-1 columns, so a and out have shape (n, n - 1).
do
  local strict = h.array_from({ N, N - 1 }, "int32", function(i, j) return 10 * i + j end)
  check_domain("strict lower triangle", "{ [i,j]: 0<=i<n and 0<=j<i }", "out[i,j] = a[i,j] - j", { a = strict },
    { "i,j", "j,i" }, function(i, j) return j < i end, function(i) return 10 * i end)
end

check_domain("band", "{ [i,j]: 0<=i,j<n and i-2<=j<=i+1 }", "out[i,j] = a[i,j] * (j - i)", { a = a },
  { "i,j", "j,i" }, function(i, j) return i - 2 <= j and j <= i + 1 end,
  function(i, j) return (10 * i + j) * (j - i) end)

-- The triangle transposed into the output: out's upper half from a's lower half.
check_domain("transposed triangle", "{ [i,j]: 0<=j<=i<n }", "out[j,i] = a[i,j]", { a = a },
  { "i,j", "j,i" }, function(j, i) return j <= i end, function(j, i) return 10 * i + j end)

do
  local cube = h.array_from({ 5, 5, 5 }, "float64", function(i, j, k) return i * 25 + j * 5 + k end)
  check_domain("tetrahedron", "{ [i,j,k]: 0<=k<=j<=i<n }", "out[i,j,k] = 0.5*a[i,j,k]", { a = cube },
    { "i,j,k", "k,j,i", "j,i,k" }, function(i, j, k) return k <= j and j <= i end,
    function(i, j, k) return 0.5 * (i * 25 + j * 5 + k) end)
end

-- Two parameters: the triangle j <= i is clipped at column m, and the assumption m <= n makes out (n, m).
do
  local M = 5
  local wide = h.array_from({ N, M }, "float32", function(i, j) return i - j end)
  check_domain("clipped triangle", "{ [i,j]: 0<=i<n and 0<=j<m and j<=i }", "out[i,j] = a[i,j] * a[i,j]",
    { a = wide }, { "i,j", "j,i" }, function(i, j) return j <= i end, function(i, j) return (i - j) ^ 2 end,
    { assumptions = "1 <= m <= n" })
end

print("triangular_domains: ok")
