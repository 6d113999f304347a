-- save_and_reload_temporaries: private and local temporaries live across a global barrier (a split into
-- several device kernels) are kept in global save slots. Every kernel runs on OpenCL and on the C executor
-- and is compared with a plain-Lua reference.
local lp = require("loom")
local h = require("helpers")
local executors = {lp.cl.queue{}, lp.c.executor{}}

local function values(a)
  local t = {}
  for i = 0, #a - 1 do t[#t + 1] = a:get(i) end
  return table.concat(t, " ")
end

-- The tutorial's rotate example.
local function rotate_kernel()
  local knl = lp.make_kernel("[n] -> {[i] : 0<=i<n}",
    [[
    for i
       <>tmp = arr[i] {id=maketmp,dep=*}
       ... gbarrier {id=bar,dep=*maketmp}
       arr[(i + 1) % n] = tmp {id=rotate,dep=*bar}
    end
    ]], {lp.GlobalArg("arr", "int32", {shape = "n"}), "..."}, {name = "rotate_v2", assumptions = "n mod 16 = 0"})
  return lp.split_iname(knl, "i", 16, {inner_tag = "l.0", outer_tag = "g.0"})
end

do
  local knl = rotate_kernel()
  local err = h.expect_error("MissingDefinitionError", {}, lp.generate_code_v2, knl)
  h.check_contains(err.message, "temporary variable 'tmp' gets used in subkernel 'rotate_v2_0' without a definition "
      .. "(maybe you forgot to call loopy.save_and_reload_temporaries?)")
  -- As in the tutorial, the split kernel can still be linearized and printed.
  local linear = lp.get_one_linearized_kernel(lp.preprocess_kernel(knl))
  h.check_contains(tostring(linear), "4: CALL KERNEL rotate_v2_0\n5:   arr[(i_inner + i_outer*16 + 1) % n] = tmp  {id=rotate}")

  local saved = lp.get_one_linearized_kernel(lp.save_and_reload_temporaries(linear))
  local listing = tostring(saved)
  h.check_contains(listing, "tmp: type: np:dtype('int32'), shape: () aspace: private\n")
  h.check_contains(listing, "tmp_save_slot: type: np:dtype('int32'), shape: (n // 16, 16), dim_tags: (N1:stride:16, N0:stride:1) "
      .. "aspace: global\n")
  h.check_contains(listing, [[
0: CALL KERNEL rotate_v2
1:   tmp = arr[i_inner + i_outer*16]  {id=maketmp}
2:   tmp_save_slot[tmp_save_hw_dim_0_rotate_v2, tmp_save_hw_dim_1_rotate_v2] = tmp  {id=tmp.save}
3: RETURN FROM KERNEL rotate_v2
4: ... gbarrier  {id=bar}
5: CALL KERNEL rotate_v2_0
6:   tmp = tmp_save_slot[tmp_reload_hw_dim_0_rotate_v2_0, tmp_reload_hw_dim_1_rotate_v2_0]  {id=tmp.reload}
7:   arr[(i_inner + i_outer*16 + 1) % n] = tmp  {id=rotate}
8: RETURN FROM KERNEL rotate_v2_0
]])
  local code = lp.generate_code_v2(saved):device_code()
  h.check_contains(code, "rotate_v2(__global int const *__restrict__ arr, int const n, __global int *__restrict__ tmp_save_slot)\n"
      .. "{\n  int tmp;\n\n  tmp = arr[16 * gid(0) + lid(0)];\n  tmp_save_slot[16 * gid(0) + lid(0)] = tmp;\n}")
  h.check_contains(code, "rotate_v2_0(__global int *__restrict__ arr, int const n, __global int const *__restrict__ tmp_save_slot)\n"
      .. "{\n  int tmp;\n\n  tmp = tmp_save_slot[16 * gid(0) + lid(0)];\n")

  -- The transform also takes a kernel not yet linearized, and is a method; the input stays as it was.
  local direct = knl:save_and_reload_temporaries()
  h.expect_error("MissingDefinitionError", {}, lp.generate_code, knl)
  for _, k in ipairs{saved, direct} do
    for _, ex in ipairs(executors) do
      assert(values(k(ex, {arr = lp.arange(16, "int32")})) == "15 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14")
      local out = k(ex, {arr = lp.arange(64, "int32")})
      for i = 0, 63 do assert(out:get((i + 1) % 64) == i) end
    end
  end
end

-- A private array written before two global barriers and read after both: saved at the end of the first
-- device kernel, untouched by the second, reloaded in the third. The group size does not divide n.
do
  local knl = lp.make_kernel("{[i,k,kk]: 0<=i<n and 0<=k,kk<4}",
    [[
    for i
      for k
        <>t[k] = a[i] + k {id=w, dep=*}
      end
      ... gbarrier {id=b1, dep=w}
      a[i] = 0 {id=clear, dep=b1}
      ... gbarrier {id=b2, dep=clear}
      out[i] = sum(kk, t[kk]*(kk+1)) {dep=b2}
    end
    ]], {lp.GlobalArg("a", "float32", {shape = "n"}), lp.GlobalArg("out", "float32", {shape = "n"}), "..."},
    {assumptions = "n>=1"})
  knl = lp.split_iname(knl, "i", 8, {inner_tag = "l.0", outer_tag = "g.0"})
  h.expect_error("MissingDefinitionError", {}, lp.generate_code, knl)
  local saved = lp.save_and_reload_temporaries(knl)
  local listing = tostring(saved)
  h.check_contains(listing, "t_save_slot: type: np:dtype('float32'), shape: ((n + 7) // 8, 8, 4)")
  h.check_contains(listing, "t_save_slot[t_save_hw_dim_0_loopy_kernel, t_save_hw_dim_1_loopy_kernel, t_save_axis_0_loopy_kernel] = "
      .. "t[t_save_axis_0_loopy_kernel]  {id=t.save}")
  h.check_contains(listing, "t[t_reload_axis_0_loopy_kernel_1] = t_save_slot[t_reload_hw_dim_0_loopy_kernel_1, "
      .. "t_reload_hw_dim_1_loopy_kernel_1, t_reload_axis_0_loopy_kernel_1]  {id=t.reload}")
  local code = lp.generate_code(saved)
  assert(not code:match("loopy_kernel_0%([^)]*t_save_slot"), "the middle kernel does not touch the slot:\n" .. code)
  for _, ex in ipairs(executors) do
    for _, n in ipairs{1, 8, 21} do
      local a, out = saved(ex, {a = lp.arange(n, "float32")})
      for i = 0, n - 1 do
        local want = 0
        for kk = 0, 3 do want = want + (i + kk) * (kk + 1) end
        assert(out:get(i) == want and a:get(i) == 0, ("n=%d i=%d: %g vs %g"):format(n, i, out:get(i), want))
      end
    end
  end
end

-- A local temporary: one slot row per group (no local axis), copied back before the group reads it.
do
  local knl = lp.make_kernel("{[g,l]: 0<=g<G and 0<=l<16}",
    [[
    <> s[l] = a[16*g + l] {id=w}
    ... gbarrier {id=b1, dep=w}
    out[16*g+l] = s[15 - l] {dep=b1}
    ]], {lp.GlobalArg("a", "float32", {shape = "16*G"}), lp.GlobalArg("out", "float32", {shape = "16*G"}), "..."})
  knl = lp.tag_inames(knl, {g = "g.0", l = "l.0"})
  knl = lp.set_temporary_address_space(knl, "s", "local")
  h.expect_error("MissingDefinitionError", {}, lp.generate_code, knl)
  local saved = lp.save_and_reload_temporaries(knl)
  h.check_contains(tostring(saved), "s_save_slot: type: np:dtype('float32'), shape: (G, 16)")
  local code = lp.generate_code(saved)
  h.check_contains(code, "barrier(CLK_LOCAL_MEM_FENCE) /* for s (insn depends on s.reload) */;")
  for _, ex in ipairs(executors) do
    local out = saved(ex, {a = lp.arange(48, "float32")})
    for i = 0, 47 do assert(out:get(i) == 16 * (i // 16) + 15 - i % 16, i) end
  end
end

-- Without hardware axes, a scalar gets a slot of one element.
do
  local knl = lp.make_kernel("{[i,j] : 0<=i,j<n}",
    [[
    <float32>s = 0 {id=z}
    for i
      s = s + a[i] {id=add, dep=z}
    end
    ... gbarrier {id=bar, dep=add}
    for j
      out[j] = s * j {dep=bar}
    end
    ]], {lp.GlobalArg("a", "float32", {shape = "n"}), lp.GlobalArg("out", "float32", {shape = "n"}), "..."})
  local saved = lp.save_and_reload_temporaries(knl)
  h.check_contains(tostring(saved), "s_save_slot: type: np:dtype('float32'), shape: (1), dim_tags: (N0:stride:1) aspace: global")
  h.check_contains(tostring(saved), "s_save_slot[0] = s  {id=s.save}")
  for _, ex in ipairs(executors) do
    local out = saved(ex, {a = lp.arange(6, "float32")})
    for j = 0, 5 do assert(out:get(j) == 15 * j) end
  end
end

-- The slot is indexed by the hardware axes: every instruction using the temporary must run on the same ones.
do
  local knl = lp.make_kernel("{[i,j] : 0<=i,j<16}",
    [[
    <>t = a[i] {id=w}
    ... gbarrier {id=bar, dep=w}
    out[j] = t {dep=bar, inames=j}
    ]], {lp.GlobalArg("a", "float32", {shape = "16"}), "..."})
  knl = lp.tag_inames(knl, {i = "l.0"})
  local err = h.expect_error("LoopyError", {}, lp.save_and_reload_temporaries, knl)
  h.check_contains(err.message, "inconsistent parallel tags across instructions that access 't' (instruction 'w' has tags 'l.0' "
      .. "but instruction 'insn' has tags '')")
end

-- The insert_gbarriers option: a global barrier (a `... gbarrier` instruction) wherever a dependency
-- crosses work-groups on global memory, instead of a MissingBarrierError.
do
  local knl = h.rotate_v1()
  h.expect_error("MissingBarrierError", {}, lp.generate_code, knl)
  local split = lp.set_options(knl, {insert_gbarriers = true})
  h.expect_error("MissingDefinitionError", {}, lp.generate_code, split)
  local saved = lp.save_and_reload_temporaries(split)
  local _, info = lp.generate_code(saved)
  assert(#info.kernels == 2, #info.kernels)
  for _, ex in ipairs(executors) do
    assert(values(saved(ex, {arr = lp.arange(16, "int32")})) == "15 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14")
  end

  local shift = lp.make_kernel("{[i, j] : 0<=i, j<n}",
    {"b[i] = 2*a[i] {id=w}", "c[j] = b[(j + 1) % n] {id=r, dep=w}"},
    {lp.GlobalArg("a, b, c", "float32", {shape = "n"}), "..."}, {assumptions = "n >= 1"})
  shift = lp.split_iname(shift, "i", 8, {inner_tag = "l.0", outer_tag = "g.0"})
  shift = lp.split_iname(shift, "j", 8, {inner_tag = "l.0", outer_tag = "g.0"})
  h.expect_error("MissingBarrierError", {}, lp.generate_code, shift)
  shift = lp.set_options(shift, {insert_gbarriers = true})
  for _, ex in ipairs(executors) do
    local _, c = shift(ex, {a = lp.arange(21, "float32")})
    for j = 0, 20 do assert(c:get(j) == 2 * ((j + 1) % 21)) end
  end

  -- Inside a shared sequential loop no split is possible: the error stays.
  local looped = lp.make_kernel("{[k, i, j] : 0<=k<3 and 0<=i, j<n}",
    [[
    for k
      for i
        b[i] = a[i] + k {id=w}
      end
      for j
        c[j] = b[(j + 1) % n] {id=r, dep=w}
      end
    end
    ]], {lp.GlobalArg("a, b, c", "float32", {shape = "n"}), "..."}, {assumptions = "n >= 1"})
  looped = lp.split_iname(looped, "i", 8, {inner_tag = "l.0", outer_tag = "g.0"})
  looped = lp.split_iname(looped, "j", 8, {inner_tag = "l.0", outer_tag = "g.0"})
  h.expect_error("MissingBarrierError", {}, lp.generate_code, lp.set_options(looped, {insert_gbarriers = true}))
end

-- Nothing crosses a split: the kernel comes back linearized and unchanged in what it computes.
do
  local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", {lp.GlobalArg("a", "float32", {shape = "n"}), "..."})
  local saved = lp.save_and_reload_temporaries(knl)
  assert(not tostring(saved):find("save_slot", 1, true))
  for _, ex in ipairs(executors) do
    local out = saved(ex, {a = lp.arange(5, "float32")})
    assert(values(out) == "0.0 2.0 4.0 6.0 8.0" or values(out) == "0 2 4 6 8", values(out))
  end
end

-- Reductions after a global barrier: their accumulators start after the barrier, in the device kernel that
-- uses them (they were initialized before it, and would have had to live across it), sequential and over a
-- local axis alike.
for _, tag in ipairs {"for", "l.0"} do
  local knl = lp.make_kernel({"{[g,l,r]: 0<=g<4 and 0<=l<4 and 0<=r<2}", "{[q,u]: 0<=q<2 and 0<=u<2}"}, {
    "part[g] = sum(l, sum(r, a[8*g + 4*r + l])) {id=partial}",
    "... gbarrier {id=bar, dep=partial}",
    "s[0] = sum(q, sum(u, part[2*u + q])) {dep=bar}",
  }, {lp.GlobalArg("a", "float32", {shape = "32"}), lp.GlobalArg("s", "float32", {shape = "1"}),
      lp.TemporaryVariable("part", "float32", {shape = "4", address_space = "global"})})
  knl = lp.tag_inames(knl, {g = "g.0", l = "l.0", q = tag})
  for _, ex in ipairs(executors) do
    h.check_equal(knl(ex, {a = lp.arange(32, "float32")}):get(0), 496.0, "sum after a global barrier, q:" .. tag)
  end
end

print("save_reload: ok")
