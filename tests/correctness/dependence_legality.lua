-- Every variant legal or refused (issue 33): the variants of dependent kernels that the dependence check
-- accepts compute what the kernel computes sequentially, on every executor. Each is compared with a plain-Lua
-- loop; the refused variants of the same kernels are in tests/errors/dependence_violations.lua.
local lp = require("loom")
local h = require("helpers")

-- Row prefix sums: the dependence runs along j, which stays sequential; the rows are independent.
do
  local knl = lp.make_kernel("{ [i, j]: 0<=i<m and 1<=j<n }", "a[i, j] = a[i, j-1] + a[i, j]  {id=upd}",
    { lp.GlobalArg("a", "float64", { shape = "m, n" }), lp.ValueArg("m, n", "int32") })
  local m, n = 37, 50
  local a0 = lp.rand({ m, n }, "float64", 7)
  local want = {}
  for i = 0, m - 1 do
    local acc = 0
    for j = 0, n - 1 do
      acc = (j == 0) and a0:get(i, 0) or acc + a0:get(i, j)
      want[i * n + j] = acc
    end
  end
  local function check(variant, what)
    h.on_each_executor(function(exec, name)
      local a = a0:copy()
      variant(exec, { a = a })
      h.check_array(a, function(i, j) return want[i * n + j] end, what .. " on " .. name)
    end)
  end
  check(lp.split_iname(knl, "i", 8, { outer_tag = "g.0", inner_tag = "l.0" }), "rows on g.0/l.0")
  check(lp.split_iname(knl, "i", 4, { inner_tag = "ilp" }), "rows as ilp copies")
  check(lp.tag_inames(lp.split_iname(knl, "i", 4, { outer_tag = "g.0" }), { i_inner = "vec" }), "rows on vec lanes")
  -- ilp on the scan's own iname keeps its copies in order: legal.
  check(lp.split_iname(knl, "j", 4, { inner_tag = "unr" }), "scan unrolled")
  h.expect_error("DependenceViolationError", "another work-item of the group (j on l.0)", lp.generate_code,
    lp.fix_parameters(lp.tag_inames(knl, { j = "l.0" }), { n = 50 }))
end

-- Jacobi-style out-of-place steps: each step reads the old array and writes a new one, then copies back (two
-- loops, i and i2: over one iname the two would share each iteration, and the sequential kernel would read
-- the copied values). On g.0 a global barrier separates the two halves of a step (a host loop over t); on
-- l.0 barriers do.
do
  local src = [[
    for t
      for i
        b[i] = (a[i-1] + a[i] + a[i+1]) / 3  {id=smooth, dep=*}
      end
      %s
      for i2
        a[i2] = b[i2]  {id=copy, dep=%s}
      end
    end
  ]]
  local args = { lp.GlobalArg("a, b", "float64", { shape = "n" }), lp.ValueArg("n, steps", "int32") }
  local domain = "{ [t, i, i2]: 0<=t<steps and 1<=i,i2<n-1 }"
  local global = lp.make_kernel(domain, string.format(src, "... gbarrier  {id=wait, dep=smooth}", "wait"), args)
  local plain = lp.make_kernel(domain, string.format(src, "", "smooth"), args)
  local function both(knl, f)
    return f(f(knl, "i"), "i2")
  end
  local n, steps = 300, 6
  local a0 = lp.rand({ n }, "float64", 11)
  local want = {}
  for i = 0, n - 1 do want[i] = a0:get(i) end
  for _ = 1, steps do
    local old = {}
    for i = 0, n - 1 do old[i] = want[i] end
    for i = 1, n - 2 do want[i] = (old[i - 1] + old[i] + old[i + 1]) / 3 end
  end
  local function check(variant, what, size)
    h.on_each_executor(function(exec, name)
      local a = a0:copy()
      variant(exec, { a = a, b = a0:copy(), steps = steps, n = size })
      h.check_array(a, function(i) return want[i] end, what .. " on " .. name)
    end)
  end
  local function split(size, tags)
    return function(knl, iname) return lp.split_iname(knl, iname, size, tags) end
  end
  check(plain, "jacobi", n)
  check(both(global, split(64, { outer_tag = "g.0", inner_tag = "l.0" })), "jacobi on g.0 with gbarrier", n)
  h.expect_error("MissingBarrierError", "requires synchronization by a global barrier", lp.generate_code,
    both(plain, split(64, { outer_tag = "g.0", inner_tag = "l.0" })))
  check(lp.fix_parameters(lp.tag_inames(plain, { i = "l.0", i2 = "l.0" }), { n = n }), "jacobi on l.0", nil)
  check(both(plain, split(4, { inner_tag = "vec" })), "jacobi on vec", n)
  check(both(plain, split(4, { inner_tag = "ilp" })), "jacobi on ilp", n)
end

-- A neighbour's value from the step before, in a new column per step: the loop over t carries the
-- dependence, and the barrier at its top orders the work-items.
do
  local knl = lp.make_kernel("{ [t, i]: 0<=t<T and 0<=i<n }", "a[i, t+1] = a[(i+1) % n, t] + 1  {id=pass}",
    { lp.GlobalArg("a", "float32", { shape = "n, T+1" }), lp.ValueArg("n, T", "int32") })
  local n, T = 32, 5
  local par = lp.fix_parameters(lp.tag_inames(knl, { i = "l.0" }), { n = n, T = T })
  h.check_contains((lp.generate_code(par)), "barrier(CLK_GLOBAL_MEM_FENCE)")
  local a0 = lp.zeros({ n, T + 1 }, "float32")
  for i = 0, n - 1 do a0:set(i, 0, i) end
  h.on_each_executor(function(exec, name)
    local a = a0:copy()
    par(exec, { a = a })
    h.check_array(a, function(i, t) return (i + t) % n + t end, "neighbour passing on " .. name)
  end)
end

-- Runs each of `variants` (name -> kernel over A and tsteps) on every executor from A0 and compares A with
-- `reference(exec)`: a function of (i, j) or an array.
local function check_seidel_variants(variants, A0, tsteps, reference)
  h.on_each_executor(function(exec, name)
    local want = reference(exec)
    for what, variant in pairs(variants) do
      local A = A0:copy()
      variant(exec, { A = A, tsteps = tsteps })
      h.check_array(A, want, "seidel " .. what .. " on " .. name)
    end
  end)
end

-- seidel-2d as PolyBench writes it, sequential, and with its only legal parallelism here: none across i or j,
-- but unrolling and ilp of the innermost j keep the order.
do
  local seidel = lp.make_kernel("{ [t, i, j]: 0<=t<tsteps and 1<=i<n-1 and 1<=j<n-1 }",
    "A[i,j] = (A[i-1,j-1] + A[i-1,j] + A[i-1,j+1] + A[i,j-1] + A[i,j] + A[i,j+1] + A[i+1,j-1] + A[i+1,j] + A[i+1,j+1])/9.0  {inames=t:i:j}",
    { lp.GlobalArg("A", "float64", { shape = "n, n" }), lp.ValueArg("n, tsteps", "int32") })
  local n, tsteps = 20, 3
  local A0 = lp.rand({ n, n }, "float64", 5)
  local want = {}
  for i = 0, n - 1 do for j = 0, n - 1 do want[i * n + j] = A0:get(i, j) end end
  for _ = 1, tsteps do
    for i = 1, n - 2 do
      for j = 1, n - 2 do
        local s = 0
        for di = -1, 1 do for dj = -1, 1 do s = s + want[(i + di) * n + j + dj] end end
        want[i * n + j] = s / 9.0
      end
    end
  end
  check_seidel_variants({ sequential = seidel, ilp_j = lp.split_iname(seidel, "j", 2, { inner_tag = "ilp" }),
                          unr_i = lp.split_iname(seidel, "i", 2, { inner_tag = "unr" }) }, A0, tsteps,
    function() return function(i, j) return want[i * n + j] end end)
end

-- A split keeps the place of the iname it replaces in the loop order: seidel split along i (untagged) runs
-- its loops in the order t, i_outer, i_inner, j, as before the split (it ran j outside i_outer, and computed
-- another result, when the new inames went last).
do
  local seidel = lp.make_kernel("{ [t, i, j]: 0<=t<tsteps and 1<=i<n-1 and 1<=j<n-1 }",
    "A[i,j] = (A[i-1,j] + A[i,j-1] + A[i,j] + A[i,j+1] + A[i+1,j])/5.0  {inames=t:i:j}",
    { lp.GlobalArg("A", "float64", { shape = "n, n" }), lp.ValueArg("n, tsteps", "int32") })
  local n, tsteps = 19, 2
  local A0 = lp.rand({ n, n }, "float64", 9)
  check_seidel_variants({ split_i = lp.split_iname(seidel, "i", 4), split_j = lp.split_iname(seidel, "j", 4),
                          split_both = lp.split_iname(lp.split_iname(seidel, "i", 4), "j", 8) }, A0, tsteps,
    function(exec)
      local want = A0:copy()
      seidel(exec, { A = want, tsteps = tsteps })
      return want
    end)
end

-- A producer and a consumer fused in one loop nest: `use` at (i, j) reads what `make` wrote at (i-1, j) in an
-- earlier iteration of i. Any order of the two loops keeps that (the pair is one column apart), and so do a
-- split of j taken outside i, and j on l.0 or g.0; i on l.0 needs the barrier that dep= puts between the two.
-- Each is compared with the sequential result.
do
  local knl = lp.make_kernel("{ [i, j]: 1<=i<n and 0<=j<m }", [[
    a[i, j] = 2*c[i, j] + 1  {id=make}
    b[i, j] = a[i-1, j] + a[i, j]  {id=use, dep=make}
  ]], { lp.GlobalArg("a, b, c", "float64", { shape = "n, m" }), lp.ValueArg("n, m", "int32") })
  local n, m = 23, 37
  local a0, c0 = lp.rand({ n, m }, "float64", 3), lp.rand({ n, m }, "float64", 4)
  local function a_at(i, j) return i == 0 and a0:get(0, j) or 2 * c0:get(i, j) + 1 end
  local function check(variant, what)
    h.on_each_executor(function(exec, name)
      local a, b = a0:copy(), lp.zeros({ n, m }, "float64")
      variant(exec, { a = a, b = b, c = c0 })
      h.check_array(b, function(i, j) return i == 0 and 0 or a_at(i - 1, j) + a_at(i, j) end, what .. " on " .. name)
    end)
  end
  check(knl, "fused sequential")
  check(lp.prioritize_loops(knl, "j,i"), "fused, j outside i")
  check(lp.prioritize_loops(lp.split_iname(knl, "j", 8), "j_outer,i,j_inner"), "fused, j blocks outside i")
  check(lp.split_iname(knl, "j", 8, { outer_tag = "g.0", inner_tag = "l.0" }), "fused, j on g.0/l.0")
  check(lp.fix_parameters(lp.tag_inames(knl, { i = "l.0" }), { n = n }), "fused, i on l.0")
end
