-- Reductions over a local (l.N) iname become tree reductions in local memory: one element per work-item,
-- halving stages with the barriers barrier insertion finds. Every kernel runs on OpenCL and on the C
-- executor and is compared with a plain-Lua reference.
local lp = require("loom")
local h = require("helpers")
local executors = {lp.cl.queue{}, lp.c.executor{}}

local function close(a, b) return math.abs(a - b) <= 1e-4 * math.max(1, math.abs(b)) end

local folds = {
  sum = {function(x, y) return x + y end, 0},
  product = {function(x, y) return x * y end, 1},
  max = {math.max, -math.huge},
}

-- One group per output element, n work-items per group, for sizes that are and are not powers of two.
for _, op in ipairs{"sum", "max", "product"} do
  for _, n in ipairs{1, 5, 113, 128} do
    local knl = lp.make_kernel(("{[g,i]: 0<=g<G and 0<=i<%d}"):format(n),
      ("out[g] = %s(i, a[g, i])"):format(op), {lp.GlobalArg("a", "float32", {shape = "G, " .. n}), "..."})
    knl = lp.tag_inames(knl, {g = "g.0", i = "l.0"})
    local code = lp.generate_code(knl)
    h.check_contains(code, ("__local float acc_i[%d];"):format(n))
    h.check_contains(code, ("reqd_work_group_size(%d, 1, 1)"):format(n))
    local stages = 0
    while 2 ^ stages < n do stages = stages + 1 end
    local linearization = tostring(lp.get_one_linearized_kernel(knl)):match("LINEARIZATION:(.*)")
    assert(h.count_matches(linearization, "{id=red_i_stage_%d+}") == stages, linearization)
    for _, ex in ipairs(executors) do
      local G = 3
      -- Products stay near 1 so that 113 factors neither vanish nor overflow.
      local a = lp.rand({G, n}, "float32", n)
      if op == "product" then
        for g = 0, G - 1 do for i = 0, n - 1 do a:set(g, i, 0.995 + 0.01 * a:get(g, i)) end end
      end
      local out = knl(ex, {a = a})
      local f, acc0 = table.unpack(folds[op])
      for g = 0, G - 1 do
        local acc = acc0
        for i = 0, n - 1 do acc = f(acc, a:get(g, i)) end
        assert(close(out:get(g), acc), ("%s n=%d g=%d: %g vs %g"):format(op, n, g, out:get(g), acc))
      end
    end
  end
end

-- A whole reduction in one group, over fewer items than work-items (the rest hold the neutral element),
-- on integers, where max starts from the smallest int32.
do
  local knl = lp.make_kernel("{[i]: 0<=i<m and i<64}", {"s[0] = sum(i, a[i])", "mx[0] = max(i, a[i])"},
    {lp.GlobalArg("a", "int32", {shape = "m"}), lp.GlobalArg("s, mx", "int32", {shape = "1"}), "..."},
    {assumptions = "m>=1"})
  knl = lp.tag_inames(knl, {i = "l.0"})
  local code = lp.generate_code(knl)
  h.check_contains(code, "reqd_work_group_size(64, 1, 1)")
  h.check_contains(code, "-2147483648")
  for _, ex in ipairs(executors) do
    for _, m in ipairs{1, 7, 63, 64} do
      local a = lp.zeros({m}, "int32")
      for i = 0, m - 1 do a:set(i, (i * 37) % 101 - 120) end
      local s, mx = knl(ex, {a = a})
      local want_s, want_mx = 0, -math.huge
      for i = 0, m - 1 do
        want_s = want_s + a:get(i)
        want_mx = math.max(want_mx, a:get(i))
      end
      assert(s:get(0) == want_s and mx:get(0) == want_mx, ("m=%d: %d %d vs %d %d"):format(m, s:get(0), mx:get(0),
        want_s, want_mx))
    end
  end
end

-- Inside a sequential loop: the tree's local array is reused every iteration, with a sequential reduction
-- nested in each term; a second local axis keeps one tree per work-item on it.
do
  local knl = lp.make_kernel("{[j,i,k,r]: 0<=j<4 and 0<=i<10 and 0<=k<3 and 0<=r<2}",
    "out[r, j] = sum(i, sum(k, a[r, j, i, k]) * (i + 1))",
    {lp.GlobalArg("a", "float32", {shape = "2, 4, 10, 3"}), "..."})
  knl = lp.tag_inames(knl, {i = "l.0", r = "l.1"})
  local code = lp.generate_code(knl)
  h.check_contains(code, "__local float acc_i[2 * 10];")
  -- The next iteration's init must wait until work-item 0 has read the last stage's elements.
  h.check_contains(code, "barrier(CLK_LOCAL_MEM_FENCE) /* for acc_i (insn_i_init rev-depends on red_i_stage_3) */;")
  for _, ex in ipairs(executors) do
    local a = lp.rand({2, 4, 10, 3}, "float32", 3)
    local out = knl(ex, {a = a})
    for r = 0, 1 do
      for j = 0, 3 do
        local want = 0
        for i = 0, 9 do for k = 0, 2 do want = want + a:get(r, j, i, k) * (i + 1) end end
        assert(close(out:get(r, j), want), ("r=%d j=%d: %g vs %g"):format(r, j, out:get(r, j), want))
      end
    end
  end
end

-- argmax/argmin in a tree: the first extreme element wins, as in the sequential realization.
for _, op in ipairs{"argmax", "argmin"} do
  local knl = lp.make_kernel("{[g,i]: 0<=g<G and 0<=i<37}",
    ("v[g], idx[g] = %s(i, a[g, i], i)"):format(op),
    {lp.GlobalArg("a", "float32", {shape = "G, 37"}), lp.GlobalArg("v", "float32", {shape = "G"}),
     lp.GlobalArg("idx", "int32", {shape = "G"}), "..."})
  knl = lp.tag_inames(knl, {g = "g.0", i = "l.0"})
  for _, ex in ipairs(executors) do
    local G = 4
    local a = lp.zeros({G, 37}, "float32")
    for g = 0, G - 1 do for i = 0, 36 do a:set(g, i, ((i * (g + 5)) % 11)) end end
    local v, idx = knl(ex, {a = a})
    for g = 0, G - 1 do
      local best, at = nil, -1
      for i = 0, 36 do
        local x = a:get(g, i)
        if best == nil or (op == "argmax" and x > best) or (op == "argmin" and x < best) then best, at = x, i end
      end
      assert(v:get(g) == best and idx:get(g) == at, ("%s g=%d: %g@%d vs %g@%d"):format(op, g, v:get(g), idx:get(g),
        best, at))
    end
  end
end

-- Reductions over a group axis need two stages; over a local and a sequential iname at once, a split.
do
  local knl = lp.make_kernel("{[g,i]: 0<=g<4 and 0<=i<16}", "out[0] = sum(g, a[g])", {lp.GlobalArg("a", "float32",
    {shape = "4"}), "..."})
  knl = lp.tag_inames(knl, {g = "g.0"})
  local err = h.expect_error("LoopyError", {}, lp.generate_code, knl)
  h.check_contains(err.message, "over iname 'g' tagged 'g.0': work-groups cannot combine their results within one device kernel")
  h.check_contains(err.message, "Reduce in two stages")
  local mixed = lp.make_kernel("{[i,k]: 0<=i<16 and 0<=k<4}", "out[0] = sum((i, k), a[i, k])",
    {lp.GlobalArg("a", "float32", {shape = "16, 4"}), "..."})
  mixed = lp.tag_inames(mixed, {i = "l.0"})
  err = h.expect_error("LoopyError", {}, lp.generate_code, mixed)
  h.check_contains(err.message, "a parallel reduction runs over exactly one l.N iname")
  local same_axis = lp.make_kernel("{[j,i]: 0<=j,i<16}", "out[j] = sum(i, a[j, i])",
    {lp.GlobalArg("a", "float32", {shape = "16, 16"}), "..."})
  same_axis = lp.tag_inames(same_axis, {i = "l.0", j = "l.0"})
  err = h.expect_error("LoopyError", {}, lp.generate_code, same_axis)
  h.check_contains(err.message, "instruction 'insn' runs on iname 'j' tagged 'l.0', the axis its reduction over 'i' needs")
end

print("local_reductions: ok")
