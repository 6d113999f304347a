-- loom.recipes: every recipe, for each target's schedule, on both executors, with sizes fixed into the kernel
-- and given at the call, sizes its tiles divide and sizes they do not, against plain-Lua references.
local lp = require("loom")
local recipes = require("loom.recipes")
local h = require("helpers")

local executors = { c = lp.c.executor {}, opencl = lp.cl.queue {} }

-- Runs recipe `name` built with `opts` (plus the sizes `sizes`, fixed or not) on each executor its target runs
-- on; `check(outputs, label)` judges the results.
local function each_run(name, opts, sizes, args, check)
  for _, target in ipairs { "c", "opencl" } do
    for _, fixed in ipairs { false, true } do
      local o = { target = target }
      for k, v in pairs(opts) do o[k] = v end
      if fixed then
        for k, v in pairs(sizes) do o[k] = v end
      end
      local knl = recipes[name](o)
      -- The C schedules use C compiler options: they are for the C executor.
      for ename, exec in pairs(executors) do
        if target == "opencl" or ename == "c" then
          local label = string.format("%s [%s schedule, %s sizes, on %s]", name, target, fixed and "fixed" or "call", ename)
          check(table.pack(knl(exec, args)), label)
        end
      end
    end
  end
end

-- Small integers as float32: every sum below is exact, so results compare exactly.
local function ints(shape, seed) return h.random_ints(shape, "float32", seed, -3, 3) end

-- GEMM: exact on small integers; sizes the default tiles do not divide.
for _, s in ipairs { { n = 16, m = 64, k = 256 }, { n = 13, m = 37, k = 300 } } do
  local a, b = ints({ s.n, s.k }, 1), ints({ s.k, s.m }, 2)
  each_run("gemm", {}, s, { a = a, b = b }, function(out, label)
    h.check_array(out[1], function(i, j)
      local sum = 0
      for p = 0, s.k - 1 do sum = sum + a:get(i, p) * b:get(p, j) end
      return sum
    end, label)
  end)
end
-- Other tiles, as tune tries them.
do
  local a, b = ints({ 12, 20 }, 3), ints({ 20, 48 }, 4)
  local ref = recipes.gemm { target = "c", mr = 4, nr = 16, kc = 8 }(executors.c, { a = a, b = b })
  for _, t in ipairs { { mr = 6, nr = 48, kc = 128 }, { mr = 4, nr = 16, kc = 8 } } do
    t.target = "c"
    h.check_array(recipes.gemm(t)(executors.c, { a = a, b = b }), ref, "gemm with other C tiles")
  end
  local g = recipes.gemm { target = "opencl", lx = 8, ly = 8, ri = 2, rj = 2, kt = 8, vec = 1 }(executors.opencl, { a = a, b = b })
  h.check_array(g, ref, "gemm with other OpenCL tiles")
  -- Runs of vec adjacent rows and columns per work-item, the tile of a stored k-major: sizes fixed and not,
  -- on both executors.
  for _, vec in ipairs { 2, 4 } do
    for _, sizes in ipairs { {}, { n = 12, m = 48, k = 20 } } do
      local o = { target = "opencl", lx = 4, ly = 2, ri = 4, rj = 8, kt = 8, vec = vec }
      for k, v in pairs(sizes) do o[k] = v end
      for ename, exec in pairs(executors) do
        h.check_array(recipes.gemm(o)(exec, { a = a, b = b }), ref,
          string.format("gemm with vec = %d on %s%s", vec, ename, sizes.n and ", sizes fixed" or ""))
      end
    end
  end
  h.expect_error("ArgumentError", "vec = 3 must divide ri = 8 and rj = 4", recipes.gemm, { vec = 3 })
end

for _, s in ipairs { { n = 64, m = 96 }, { n = 37, m = 70 } } do
  local a = ints({ s.n, s.m }, 5)
  each_run("transpose", {}, s, { a = a }, function(out, label)
    h.check_array(out[1], function(j, i) return a:get(i, j) end, label)
  end)
  each_run("stencil5", {}, s, { a = a }, function(out, label)
    h.check_array(out[1], function(i, j)
      if i == 0 or j == 0 or i == s.n - 1 or j == s.m - 1 then return 0 end
      return a:get(i - 1, j) + a:get(i + 1, j) + a:get(i, j - 1) + a:get(i, j + 1) - 4 * a:get(i, j)
    end, label)
  end)
end

-- Sums of more and of fewer values than one group adds.
for _, n in ipairs { 100, 70001 } do
  local a = ints({ n }, 6)
  local want = 0
  for i = 0, n - 1 do want = want + a:get(i) end
  each_run("sum", {}, { n = n }, { a = a }, function(out, label) h.check_equal(out[1]:get(0), want, label) end)
end

for _, vec in ipairs { 1, 4 } do
  local n = 1000
  local shape = vec > 1 and { n, vec } or { n }
  local a, b, c = ints(shape, 7), ints(shape, 8), ints(shape, 9)
  each_run("copy", { vec = vec }, { n = n }, { a = a }, function(out, label)
    h.check_array(out[1], a, label .. " vec=" .. vec)
  end)
  each_run("triad", { vec = vec }, { n = n }, { b = b, c = c, s = 3 }, function(out, label)
    h.check_array(out[1], function(...) return b:get(...) + 3 * c:get(...) end, label .. " vec=" .. vec)
  end)
end

do
  local batch = 37
  local a, b = ints({ batch, 8, 8 }, 10), ints({ batch, 8, 8 }, 11)
  each_run("batched_gemm", {}, { batch = batch }, { a = a, b = b }, function(out, label)
    h.check_array(out[1], function(p, i, j)
      local sum = 0
      for k = 0, 7 do sum = sum + a:get(p, i, k) * b:get(p, k, j) end
      return sum
    end, label)
  end)
end

-- Every recipe has defaults and a space to tune per target, and the space's values build.
for name, per_target in pairs(recipes.tunables) do
  for target, space in pairs(per_target) do
    h.check(recipes.defaults[name][target] ~= nil, "defaults of %s on %s", name, target)
    local o = { target = target }
    for k, values in pairs(space) do o[k] = values[#values] end
    h.check(lp.generate_code(lp.add_dtypes(recipes[name](o), {})) ~= nil, "%s on %s with the last values", name, target)
  end
end

h.expect_error("ArgumentError", "unknown option 'tile'", recipes.gemm, { tile = 8 })
h.expect_error("ArgumentError", "unknown target 'cuda'", recipes.gemm, { target = "cuda" })
