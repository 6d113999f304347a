-- Parallel execution and synchronization: hardware axes, local memory, exact barriers, kernel splitting.
-- Every kernel runs on OpenCL and on the C executor (grid as loops, phases at barriers), and the results
-- are compared with plain-Lua references.
local lp = require("loom")
local h = require("helpers")
local executors = {lp.cl.queue{}, lp.c.executor{}}

-- Vector fill over groups of 128 work-items, for sizes the group size does and does not divide.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 2*i + 1", nil, {assumptions = "n>=0"})
  knl = lp.split_iname(knl, "i", 128, {outer_tag = "g.0", inner_tag = "l.0"})
  local code = lp.generate_code(lp.add_dtypes(knl, {a = "int32"}))
  assert(code:find("reqd_work_group_size(128, 1, 1)", 1, true), code)
  assert(code:find("if (-1 + -128 * gid(0) + -1 * lid(0) + n >= 0)", 1, true), code)
  local glob, loc = lp.get_grid_size_upper_bounds(lp.add_dtypes(knl, {a = "int32"}))
  assert(glob[1]:find("floor((127 + n)/128)", 1, true), glob[1])
  assert(loc[1] == "{ [(128)] }", loc[1])
  for _, ex in ipairs(executors) do
    for _, n in ipairs{1, 127, 128, 129, 1000} do
      local a = knl(ex, {a = lp.zeros({n}, "int32")})
      for i = 0, n - 1 do assert(a:get(i) == 2 * i + 1) end
    end
  end
end

-- A temporary in local memory, written by each work-item and summed by all: one barrier, before the loop.
do
  local knl = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}",
    [[
    <> a_temp[i_inner] = a[16*i_outer + i_inner]  {priority=10}
    out[16*i_outer + i_inner] = sum(k, a_temp[k])
    ]])
  knl = lp.tag_inames(knl, {i_outer = "g.0", i_inner = "l.0"})
  knl = lp.set_temporary_address_space(knl, "a_temp", "local")
  local code = lp.generate_code(lp.add_dtypes(knl, {a = "float32"}))
  assert(code:find("__local float a_temp[16];", 1, true), code)
  assert(h.count_matches(code, "barrier%(CLK_LOCAL_MEM_FENCE%)") == 1, code)
  assert(code:find("/* for a_temp (insn_0_k_update depends on insn) */", 1, true), code)
  for _, ex in ipairs(executors) do
    local n = 64
    local a = lp.rand({n}, "float32", 5)
    local out = knl(ex, {a = a})
    for i = 0, n - 1 do
      local base, s = 16 * (i // 16), 0
      for k = 0, 15 do s = s + a:get(base + k) end
      assert(math.abs(out:get(i) - s) < 1e-4, ("i=%d: %g vs %g"):format(i, out:get(i), s))
    end
  end
end

-- The tutorial's barrier-counting kernel. Each (i, j) iteration touches only c[i, j, :], so the only
-- hazard crossing work-items is the one inside an iteration: exactly one barrier (loopy adds a second,
-- conservative one at the loop top).
do
  local knl = lp.make_kernel("[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}",
    {"c[i,j,k] = 2*a[i,j,k]", "e[i,j,k] = c[i,j,k+1]+c[i,j,k-1]"},
    {lp.TemporaryVariable("c", nil, {shape = {50, 10, 99}}), "..."})
  knl = lp.add_dtypes(knl, {a = "int32"})
  knl = lp.split_iname(knl, "k", 128, {inner_tag = "l.0"})
  knl = lp.set_temporary_address_space(knl, "c", "local")
  local code = lp.generate_code(knl)
  assert(h.count_matches(code, "barrier%(") == 1, code)
  -- The same computation through one row of local memory: now iteration (i, j+1) overwrites what
  -- iteration (i, j) read, and a second barrier at the loop top is required.
  local row = lp.make_kernel("[] -> {[i,k,j]: 0<=i<50 and 1<=k<98 and 0<=j<10}",
    {"c[k] = 2*a[i,j,k]", "e[i,j,k] = c[k+1]+c[k-1]"},
    {lp.TemporaryVariable("c", nil, {shape = {99}}), "..."})
  row = lp.add_dtypes(row, {a = "int32"})
  row = lp.split_iname(row, "k", 128, {inner_tag = "l.0"})
  row = lp.set_temporary_address_space(row, "c", "local")
  local row_code = lp.generate_code(row)
  assert(h.count_matches(row_code, "barrier%(") == 2, row_code)
  assert(row_code:find("rev-depends on", 1, true), row_code)
  for _, ex in ipairs(executors) do
    for _, kn in ipairs{knl, row} do
      local a = lp.rand({50, 10, 98}, "float64", 1)
      local ai = lp.zeros({50, 10, 98}, "int32")
      for i = 0, 49 do for j = 0, 9 do for k = 0, 97 do ai:set(i, j, k, math.floor(a:get(i, j, k) * 100)) end end end
      local e = kn(ex, {a = ai, e = lp.zeros({50, 10, 98}, "int32")})
      for i = 0, 49, 7 do for j = 0, 9, 3 do for k = 2, 96 do
        assert(e:get(i, j, k) == 2 * ai:get(i, j, k + 1) + 2 * ai:get(i, j, k - 1))
      end end end
    end
  end
end

-- Accesses that cannot overlap need no barrier: work-item i writes a[2i] and then a[2i+1].
do
  local knl = lp.make_kernel("{ [i]: 0<=i<16 }",
    {"t[2*i] = x[i] {id=w1}", "t[2*i+1] = 2*t[2*i] {id=w2, dep=w1}", "y[i] = t[2*i+1] {dep=w2}"},
    {lp.TemporaryVariable("t", "float32", {shape = {32}, address_space = "local"}), "..."})
  knl = lp.tag_inames(knl, {i = "l.0"})
  local code = lp.generate_code(lp.add_dtypes(knl, {x = "float32"}))
  assert(h.count_matches(code, "barrier%(") == 0, code)
end

-- A dependency across work-groups cannot be ordered in one kernel (the tutorial's rotate_v1).
do
  local knl = h.rotate_v1()
  local err = h.expect_error("MissingBarrierError", {}, lp.generate_code, knl)
  assert(err.message:find("Dependency 'rotate depends on maketmp' (for variable 'arr')", 1, true), err.message)
  -- As in loopy, preprocessing does not linearize: the error belongs to code generation (and linearization).
  local pre = lp.preprocess_kernel(knl)
  h.check(not tostring(pre):find("LINEARIZATION", 1, true), "preprocess_kernel linearized the kernel")
  h.expect_error("MissingBarrierError", {}, lp.generate_code, pre)
  h.expect_error("MissingBarrierError", {}, lp.get_one_linearized_kernel, knl)
end

-- A global barrier splits the kernel; a private temporary cannot live across it.
do
  local knl = lp.make_kernel("[n] -> {[i] : 0<=i<n}",
    [[
    for i
       <>tmp = arr[i] {id=maketmp,dep=*}
       ... gbarrier {id=bar,dep=*maketmp}
       arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
    end
    ]], {lp.GlobalArg("arr", "int32", {shape = "n"}), "..."}, {name = "rotate_v2", assumptions = "n mod 16 = 0"})
  knl = lp.split_iname(knl, "i", 16, {inner_tag = "l.0", outer_tag = "g.0"})
  local err = h.expect_error("MissingDefinitionError", {}, lp.generate_code, knl)
  assert(err.message:find("temporary variable 'tmp' gets used in subkernel 'rotate_v2_0' without a definition", 1, true),
         err.message)
  -- Through a global array instead, the split kernel rotates correctly on both executors.
  local via = lp.make_kernel("[n] -> {[i] : 0<=i<n}",
    [[
    for i
       tmp[i] = arr[i] {id=maketmp,dep=*}
       ... gbarrier {id=bar,dep=*maketmp}
       arr[(i + 1) % n] = tmp[i] {id=rotate,dep=*bar}
    end
    ]], {lp.GlobalArg("arr", "int32", {shape = "n"}), lp.GlobalArg("tmp", "int32", {shape = "n"}), "..."},
    {name = "rotate_v3", assumptions = "n mod 16 = 0"})
  via = lp.split_iname(via, "i", 16, {inner_tag = "l.0", outer_tag = "g.0"})
  local code, info = lp.generate_code(via)
  assert(#info.kernels == 2 and info.kernels[2] == "rotate_v3_0", code)
  for _, ex in ipairs(executors) do
    local arr = lp.arange(32, "int32")
    local out = via(ex, {arr = arr})
    for i = 0, 31 do assert(out:get((i + 1) % 32) == i) end
  end
end

-- An instruction that reads what a neighbouring work-item wrote in the loop's previous iteration depends on
-- itself, though no one writes that dependency: a barrier at the loop's top (found by the OKL front end, whose
-- scans have this form). In each step the work-items of one parity add their right neighbour, which the other
-- parity updated the step before. The others do not run: written `s[t] = if(..., s[t] + s[t+1], s[t])`, every
-- work-item would write its s[t] while its left neighbour reads it, a race that the dependence check refuses
-- (tests/errors/dependence_violations.lua).
do
  local knl = lp.tag_inames(lp.make_kernel("{[d,t]: 0<=d<4 and 0<=t<8}", {
    "s[t] = a[t]  {id=init}",
    "s[t] = s[t] + s[(t+1) % 8]  {id=mix, dep=init, inames=d:t, if=(t + d) % 2 == 0}",
    "out[t] = s[t]  {dep=mix}" },
    { lp.TemporaryVariable("s", "float32", { shape = "8", address_space = "local" }),
      lp.GlobalArg("a", "float32", { shape = "8" }), lp.GlobalArg("out", "float32", { shape = "8" }) }), { t = "l.0" })
  h.check_contains(lp.generate_code(knl), "for s (mix depends on mix)")
  local want = {}
  for t = 0, 7 do want[t] = t end
  for d = 0, 3 do
    for t = 0, 7 do
      if (t + d) % 2 == 0 then want[t] = want[t] + want[(t + 1) % 8] end
    end
  end
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = lp.arange(8, "float32") }), function(t) return want[t] end, name .. " steps through local memory")
  end)
end


-- Predicates narrow the instances that run where isl can follow them: each work-item (i, j) with i < j swaps
-- a[i,j] and a[j,i], which no other work-item touches, so the swap needs no synchronization between groups.
-- Without the predicates every work-item would swap, and the swap would need a global barrier.
do
  local function swap(predicate)
    local knl = lp.make_kernel("{[i,j]: 0<=i,j<16}", ([[
      <> t = a[i,j] {id=r%s}
      a[i,j] = a[j,i] {id=w1, dep=r%s}
      a[j,i] = t {id=w2, dep=w1%s}
      ]]):format(predicate, predicate, predicate), {lp.GlobalArg("a", "float32", {shape = {16, 16}}), "..."})
    return lp.tag_inames(knl, {i = "g.0", j = "l.0"})
  end
  for _, predicate in ipairs({", if=i < j", ", if=not (i >= j)", ", if=j > i and i >= 0"}) do
    local knl = swap(predicate)
    h.on_each_executor(function(ex, name)
      local a = lp.rand({16, 16}, "float32", 11)
      local before = a:copy()
      knl(ex, {a = a})
      h.check_array(a, function(i, j) return before:get(j, i) end, name .. " in-place transpose" .. predicate)
    end)
  end
  h.expect_error("MissingBarrierError", {"global barrier"}, lp.generate_code, swap(""))
  -- A predicate on data decides nothing: every instance may run, and the barrier is needed.
  local masked = lp.make_kernel("{[i,j]: 0<=i,j<16}", [[
      <> t = a[i,j] {id=r, if=m[i] > 0}
      a[i,j] = a[j,i] {id=w1, dep=r, if=m[i] > 0}
      a[j,i] = t {id=w2, dep=w1, if=m[i] > 0}
      ]], {lp.GlobalArg("a", "float32", {shape = {16, 16}}), lp.GlobalArg("m", "int32", {shape = {16}}), "..."})
  h.expect_error("MissingBarrierError", {"global barrier"}, lp.generate_code, lp.tag_inames(masked, {i = "g.0", j = "l.0"}))
end

-- A flat index with a stride passed to the call (b[i + n*j]) is read in the radix n, where its digit i is
-- within n on every instance: work-items (i, j) then touch different elements, and the read of b after its write
-- needs no barrier between groups. Where the digit can reach n (0 <= i <= n), element n + n*j is also element
-- 0 + n*(j+1), which the next group writes: the same kernel is a MissingBarrierError.
do
  local function kernel(domain)
    local flat = {shape = {"n*4 + 1"}}
    local knl = lp.make_kernel(domain, {
      "b[i + n*j] = 2*a[i + n*j] + j {id=w}",
      "c[i + n*j] = b[i + n*j] + 1 {dep=w}"},
      {lp.GlobalArg("a", "float32", flat), lp.GlobalArg("b", "float32", flat), lp.GlobalArg("c", "float32", flat),
       lp.ValueArg("n", "int32")})
    return lp.tag_inames(knl, {j = "g.0", i = "l.0"})
  end
  local knl = kernel("{[i,j]: 0<=i<n and 0<=j<4}")
  h.on_each_executor(function(ex, name)
    local a = lp.rand({33}, "float32", 12)
    local b, c = lp.zeros({33}, "float32"), lp.zeros({33}, "float32")
    knl(ex, {a = a, b = b, c = c, n = 8})
    local function want(extra) return function(k) return k < 32 and 2 * a:get(k) + k // 8 + extra or 0 end end
    h.check_array(b, want(0), name .. " write through a flat index in the radix n", {rtol = 1e-6})
    h.check_array(c, want(1), name .. " read back through a flat index in the radix n", {rtol = 1e-6})
  end)
  h.expect_error("MissingBarrierError", {"global barrier"}, lp.generate_code, kernel("{[i,j]: 0<=i<=n and 0<=j<4}"))
end

-- A work-item axis over an iname whose domain is empty for some sizes: here k = n - 1 must leave 1 mod 3. The
-- axis spans j's whole range, so j leaves the statements' domains; the condition on n must stay (found by
-- tools/differential.lua: for n = 4 every work-item wrote its out[j], which the kernel must leave alone).
do
  local ref = lp.make_kernel("{[i,j,k]: 0<=i<n and 0<=j<5 and k = n - 1 and k mod 3 = 1}",
    { "<> t = j", "out[j] = sum((i, k), t*(4 + i))" }, { lp.GlobalArg("out", "float64", { shape = "5" }), "..." })
  lp.auto_test_vs_ref(ref, lp.tag_inames(ref, { j = "l.0" }), { parameters = { { n = 4 }, { n = 5 } }, quiet = true,
    timing_seconds = 0 })
end

print("parallel: ok")
