-- Loop tags and slabs: every tagged or slab-split kernel runs on both executors, for sizes its factors do and
-- do not divide (0 and 1 included), and must give what the untagged kernel gives and what plain Lua computes.
local lp = require("loom")
local h = require("helpers")

local SIZES = { 0, 1, 2, 5, 15, 16, 17, 33, 100 }

-- Runs `variant` and `base` with inputs(n) on each executor and checks every result against ref(n, r) (a
-- function of the 0-based indices) and against the base kernel's.
local function compare(what, base, variant, inputs, ref)
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SIZES) do
      local label = string.format("%s [%s, n=%d]", what, name, n)
      local want = { base(exec, inputs(n)) }
      local got = { variant(exec, inputs(n)) }
      h.check_equal(#got, #want, label .. " result count")
      for r = 1, #want do
        h.check_array(want[r], ref(n, r), label .. " untagged result " .. r, { rtol = 1e-5 })
        h.check_array(got[r], want[r], label .. " result " .. r, { rtol = 1e-5 })
      end
    end
  end)
end

local function vector_inputs(n) return { a = h.array_from({ n }, "float32", function(i) return i % 7 - 3 end) } end
local function doubled(_, _) return function(i) return 2 * (i % 7 - 3) end end

local scale = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." })

-- Slabs: head and tail iterations of the outer loop run in loops of their own.
for _, slabs in ipairs { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 2, 3 } } do
  local what = string.format("split 16 slabs={%d,%d}", slabs[1], slabs[2])
  compare(what, scale, lp.split_iname(scale, "i", 16, { slabs = slabs }), vector_inputs, doubled)
  compare(what .. " inner l.0", scale, lp.split_iname(scale, "i", 16, { slabs = slabs, inner_tag = "l.0" }),
    vector_inputs, doubled)
  compare(what .. " outer g.0 (no slabs on hardware axes)", scale,
    lp.split_iname(scale, "i", 16, { slabs = slabs, outer_tag = "g.0" }), vector_inputs, doubled)
end

-- Slabs on a loop whose bounds depend on the loop around it (a triangle), and on a reduction's iname.
local tri = lp.make_kernel("{ [i,j]: 0<=j<=i<n }", "out[i,j] = a[i,j] + 1",
  { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n, n" }), "..." })
local function square_inputs(n)
  return { a = h.array_from({ n, n }, "float32", function(i, j) return i - 2 * j end),
    out = lp.zeros({ n, n }, "float32") }
end
local function tri_ref() return function(i, j) if j <= i then return i - 2 * j + 1 end end end
compare("triangle split j 4 slabs={1,1}", tri, lp.split_iname(tri, "j", 4, { slabs = { 1, 1 } }), square_inputs, tri_ref)

local rowsum = lp.make_kernel("{ [i,k]: 0<=i,k<n }", "out[i] = sum(k, a[i,k])",
  { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." })
local function rowsum_ref(n)
  return function(i)
    local s = 0
    for k = 0, n - 1 do s = s + (i - 2 * k) end
    return s
  end
end
compare("row sum split k 4 slabs={0,1}", rowsum, lp.split_iname(rowsum, "k", 4, { slabs = { 0, 1 } }),
  function(n) return { a = square_inputs(n).a } end, rowsum_ref)

-- Slabs of a loop around barriers: each slab keeps its barriers (OpenCL) or phases (C).
local reverse_tiles = lp.tag_inames(lp.make_kernel("{ [o,l,m]: 0<=o<nt and 0<=l,m<16 }",
  { "tmp[l] = a[16*o + l]  {id=w}", "out[16*o + m] = tmp[15 - m]  {dep=w}" },
  { lp.GlobalArg("a", "float32", { shape = "16*nt" }), lp.GlobalArg("out", "float32", { shape = "16*nt" }),
    lp.TemporaryVariable("tmp", "float32", { shape = "16", address_space = "local" }), lp.ValueArg("nt", "int32") }),
  { l = "l.0", m = "l.0" })
compare("tile reversal through local memory, o split 3 slabs={1,1}", reverse_tiles,
  lp.split_iname(reverse_tiles, "o", 3, { slabs = { 1, 1 } }),
  function(nt) return { a = lp.arange(16 * nt, "float32") } end,
  function() return function(i) return 16 * (i // 16) + 15 - i % 16 end end)

-- Unroll hints keep the loop and ask the device compiler to unroll it.
for _, tag in ipairs { "unr_hint", "unr_hint.4" } do
  compare("split 16, inner " .. tag, scale, lp.split_iname(scale, "i", 16, { inner_tag = tag }), vector_inputs, doubled)
  compare("split 16 slabs={0,1}, inner " .. tag, scale,
    lp.split_iname(scale, "i", 16, { inner_tag = tag, slabs = { 0, 1 } }), vector_inputs, doubled)
  compare("row sum, k " .. tag, rowsum, lp.tag_inames(rowsum, { k = tag }),
    function(n) return { a = square_inputs(n).a } end, rowsum_ref)
end

-- ILP: unrolled ("ilp", "ilp.unr") or looped ("ilp.seq"), with the temporaries written inside privatized so
-- that the iterations are independent: a private temporary, and a reduction's accumulator.
local with_temp = lp.make_kernel("{ [i]: 0<=i<n }", { "<> t = 2*a[i]", "out[i] = t + 1" },
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." })
local function temp_ref() return function(i) return 2 * (i % 7 - 3) + 1 end end
for _, tag in ipairs { "ilp", "ilp.unr", "ilp.seq", "unr" } do
  for _, outer in ipairs { "for", "g.0", "l.0" } do
    local factor = outer == "l.0" and 4 or 3
    local variant = outer == "l.0"
        and lp.split_iname(lp.split_iname(with_temp, "i", 16, { outer_tag = "g.0" }), "i_inner", 4,
          { outer_tag = "l.0", inner_tag = tag })
        or lp.split_iname(with_temp, "i", factor, { outer_tag = outer, inner_tag = tag })
    compare(string.format("temporary, split, inner %s, outer %s", tag, outer), with_temp, variant, vector_inputs, temp_ref)
  end
  compare("row sum, i split 3 inner " .. tag, rowsum, lp.split_iname(rowsum, "i", 3, { inner_tag = tag }),
    function(n) return { a = square_inputs(n).a } end, rowsum_ref)
  compare("row sum, i split 4 g.0/" .. tag, rowsum,
    lp.split_iname(rowsum, "i", 4, { outer_tag = "g.0", inner_tag = tag }),
    function(n) return { a = square_inputs(n).a } end, rowsum_ref)
end

-- ILP loops on both sides of a barrier: the barrier goes between them, never inside.
do
  local swap = lp.tag_inames(lp.make_kernel("{ [l,j,j2]: 0<=l<16 and 0<=j,j2<4 }",
    { "<> t = 2*a[16*j + l]  {id=r}", "tmp[l, j] = t  {id=w, dep=r}", "out[16*j2 + l] = tmp[15 - l, j2]  {dep=w}" },
    { lp.GlobalArg("a", "float32", { shape = "64" }), lp.GlobalArg("out", "float32", { shape = "64" }),
      lp.TemporaryVariable("tmp", "float32", { shape = "16, 4", address_space = "local" }) }), { l = "l.0" })
  for _, tag in ipairs { "ilp", "ilp.seq" } do
    h.on_each_executor(function(exec, name)
      local a = lp.arange(64, "float32")
      local want = swap(exec, { a = a })
      h.check_array(want, function(i) return 2 * (16 * (i // 16) + 15 - i % 16) end, "ILP around a barrier, untagged")
      h.check_array(lp.tag_inames(swap, { j = tag, j2 = tag })(exec, { a = a }), want,
        string.format("ILP (%s) around a barrier [%s]", tag, name))
    end)
  end
end

-- Address spaces as loopy decides them: a temporary indexed by every group and local axis its writer runs
-- in is global (a parameter the caller allocates, shared by the C target's threads).
do
  local function through(space)
    return lp.make_kernel("{ [i]: 0<=i<n }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[i] + 1  {dep=w}" },
      { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = "n" }),
        lp.TemporaryVariable("t", "float32", { shape = "n", address_space = space }), "..." })
  end
  local par = lp.split_iname(through(nil), "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  h.check(string.find((lp.generate_code(par)), "__global float *__restrict__ t)", 1, true), "t becomes global")
  compare("global temporary", through("global"), par, vector_inputs,
    function() return function(i) return 2 * (i % 7 - 3) + 1 end end)
end

-- "l.auto": concrete local axes at preprocessing, as loopy assigns them.
local function transpose_kernel(tags, fetch)
  local insns = fetch
      and { "a_fetch[f0, f1] = a[16*i_outer + f0, 16*j_outer + f1]  {id=fetch, inames=i_outer:j_outer:f0:f1}",
        "out[16*j_outer + j_inner, 16*i_outer + i_inner] = a_fetch[i_inner, j_inner]  {dep=fetch}" }
      or { "out[16*j_outer + j_inner, 16*i_outer + i_inner] = a[16*i_outer + i_inner, 16*j_outer + j_inner]" }
  local args = { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n, n" }),
    "..." }
  if fetch then table.insert(args, 3, lp.TemporaryVariable("a_fetch", "float32", { shape = "16, 16" })) end
  local knl = lp.make_kernel(
    "{ [i_outer,i_inner,j_outer,j_inner,f0,f1]: 0<=i_inner,j_inner,f0,f1<16 and 0<=16*i_outer<n and 0<=16*j_outer<n }",
    insns, args, { name = "transpose", assumptions = "n mod 16 = 0" })
  return lp.tag_inames(knl, tags)
end
local grid = { j_outer = "g.0", i_outer = "g.1", j_inner = "l.1", i_inner = "l.0" }
local auto_tags = { f0 = "l.auto", f1 = "l.auto" }
for k, v in pairs(grid) do auto_tags[k] = v end
local SQUARE = { 0, 16, 48 }
local function compare_square(what, base, variant)
  h.on_each_executor(function(exec, name)
    for _, n in ipairs(SQUARE) do
      local a = h.array_from({ n, n }, "float32", function(i, j) return i * 100 + j end)
      local want = base(exec, { a = a })
      h.check_array(want, function(i, j) return j * 100 + i end, string.format("%s [%s, n=%d] untagged", what, name, n))
      h.check_array(variant(exec, { a = a }), want, string.format("%s [%s, n=%d]", what, name, n))
    end
  end)
end
compare_square("transpose, prefetch over l.auto inames", transpose_kernel(grid, false), transpose_kernel(auto_tags, true))

-- An l.auto iname longer than the axis it gets is split to fit; with no axis free it becomes a loop.
local wide = lp.make_kernel("{ [i,j,k]: 0<=i<n and 0<=j<40 and 0<=k<4 }",
  { "out[i,k] = a[i,k]", "b[i,j] = 2*c[i,j]" },
  { lp.GlobalArg("a", "float32", { shape = "n, 4" }), lp.GlobalArg("out", "float32", { shape = "n, 4" }),
    lp.GlobalArg("c", "float32", { shape = "n, 40" }), lp.GlobalArg("b", "float32", { shape = "n, 40" }), "..." })
local wide_base = lp.split_iname(wide, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
local function wide_inputs(n)
  return { a = h.array_from({ n, 4 }, "float32", function(i, k) return i - k end),
    c = h.array_from({ n, 40 }, "float32", function(i, j) return i + j end) }
end
local function wide_ref(_, r)
  if r == 1 then return function(i, k) return i - k end end
  return function(i, j) return 2 * (i + j) end
end
compare("l.auto split to the axis size", wide_base, lp.tag_inames(wide_base, { k = "l.1", j = "l.auto" }), wide_inputs,
  wide_ref)
compare("l.auto without a free axis", wide_base, lp.tag_inames(wide_base, { j = "l.auto" }), wide_inputs, wide_ref)
compare("l.auto alone", scale, lp.tag_inames(lp.split_iname(scale, "i", 16), { i_inner = "l.auto" }), vector_inputs,
  doubled)

-- A work-group larger than the OpenCL device allows is an error at launch naming the limit; the C executor,
-- which runs work-items as loops, has no such limit.
do
  local big = lp.split_iname(lp.split_iname(tri, "i", 8192, { outer_tag = "g.0", inner_tag = "l.0" }), "j", 2,
    { outer_tag = "g.1", inner_tag = "l.1" })
  local inputs = square_inputs(5)
  h.expect_error("RuntimeError", { "needs work-groups of", "CL_DEVICE_MAX_WORK_" }, big, h.executors()[1].exec, inputs)
  h.check_array(big(h.executors()[2].exec, inputs), tri_ref(), "8192 x 2 work-group on the C executor")
end

print("loop_tags: ok")
