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

print("loop_tags: ok")
