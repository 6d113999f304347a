-- Kernels that once computed wrong results without a word (issue 11, point 3).
local lp = require("loom")
local h = require("helpers")

-- A global barrier between an accumulator's init and its update: an init that runs in one device kernel and an
-- update in the next on an accumulator it never initialized is a MissingDefinitionError (the check looks at what
-- a device kernel reads before it writes it). A reduction's own init waits for the barrier its instruction waits
-- for, so it runs in the update's kernel and the sum is right; an explicit one placed before is refused.
local function summed(instructions)
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", instructions,
    { lp.GlobalArg("a,b", "float32", { shape = "n" }), lp.GlobalArg("s", "float32", { shape = 1 }), "..." })
  return lp.add_barrier(knl, "id:w", "id:r")
end
local reduction = summed({ "b[j] = 2*a[j] {id=w}", "s[0] = sum(i, b[i]) {id=r, dep=w}" })
local explicit = summed({ "<float32> t = 0 {id=init}", "b[j] = 2*a[j] {id=w}",
  "t = t + b[i] {id=r, dep=w:init}", "s[0] = t {dep=r}" })
local err = h.expect_error("MissingDefinitionError", { "gets used in subkernel 'loopy_kernel_0' without a definition" },
  lp.generate_code, explicit)
h.check(h.contains(err.message, "'t'"), "explicit: %s", err.message)
h.on_each_executor(function(exec, name)
  local _, s = reduction(exec, { a = lp.arange(6, "float32") })
  h.check_equal(s:get(0), 30.0, "reduction after a global barrier on " .. name)
end)

-- A reduction iname tagged parallel after realize_reduction (differential case 263): each work-group (or
-- work-item) summed its own part into its own copy of the private accumulator, and 'insn' stored one part as
-- the sum. Before realize_reduction the g.N tag is refused by realize_reduction itself; after it, by the check
-- that no private value written within a hardware-axis iname is read outside that iname. The same holds for an
-- explicit private accumulator.
local function sums_then_tags(tags, realize, insns)
  local knl = lp.make_kernel("{ [i, j]: 0 <= i < n and 0 <= j < n }", insns or "out[j] = sum(i, a[i, j])",
    { lp.GlobalArg("a", "float32", { shape = "n, n" }), "..." })
  if realize then knl = lp.realize_reduction(knl) end
  return lp.tag_inames(knl, tags)
end
h.expect_error("LoopyError", { "'i' tagged 'g.1'", "work-groups cannot combine" }, lp.generate_code,
  sums_then_tags({ i = "g.1" }, false))
for tag, holder in pairs({ ["g.0"] = "work-group", ["l.0"] = "work-item" }) do
  h.expect_error("LoopyError", { "instruction 'insn' reads private variable 'acc_i'", "'insn_i_update' writes within "
    .. "iname 'i' tagged '" .. tag .. "'", "each " .. holder .. " on " .. tag .. " holds only its own part" },
    lp.generate_code, sums_then_tags({ i = tag }, true))
  h.expect_error("LoopyError", { "reads private variable 't'", "writes within iname 'i' tagged '" .. tag .. "'" },
    lp.generate_code, sums_then_tags({ i = tag }, false,
      { "<float32> t = 0 {id=init}", "t = t + a[i, j] {id=upd, dep=init}", "out[j] = t {dep=upd}" }))
end
-- The split of differential case 263 (both halves on group axes) is refused the same way, and a private
-- temporary read within the parallel iname it was written in stays legal.
local split = lp.split_iname(sums_then_tags({}, true), "i", 5, { outer_tag = "g.1", inner_tag = "g.0" })
h.expect_error("LoopyError", { "reads private variable 'acc_i'", "tagged 'g." }, lp.generate_code, split)
local per_item = lp.tag_inames(lp.make_kernel("{ [i]: 0 <= i < n }", { "<float32> t = 2*a[i] {id=w}",
  "out[i] = t + 1 {dep=w}" }, { lp.GlobalArg("a", "float32", { shape = "n" }), "..." }), { i = "g.0" })
local a = lp.rand({ 7 }, "float32")
h.on_each_executor(function(exec, name)
  local out = per_item(exec, { a = a })
  h.check_array(out, function(i) return 2 * a:get(i) + 1 end, name .. " per-item temporary", { rtol = 1e-6 })
end)

-- Array arguments are `restrict`: an output that shares memory with another argument is refused at the call
-- (the same array twice, or overlapping views of one); disjoint views of one array and one array read through
-- two arguments are fine.
local shift = lp.make_kernel("{ [i]: 0 <= i < 6 }", "out[i] = a[i] + b[i]",
  { lp.GlobalArg("a,b,out", "float32", { shape = "6" }) })
local base = lp.arange(12, "float32")
h.on_each_executor(function(exec, name)
  h.expect_error("ArgumentError", { "arguments 'a' and 'out' share memory", "writes 'out'" },
    shift, exec, { a = base:view({ { 0, 6 } }), b = base:view({ { 0, 6 } }), out = base:view({ { 0, 6 } }) })
  h.expect_error("ArgumentError", { "'b' and 'out' share memory" },
    shift, exec, { a = lp.zeros({ 6 }, "float32"), b = base:view({ { 3, 9 } }), out = base:view({ { 6, 12 } }) })
  local out = shift(exec, { a = base:view({ { 0, 6 } }), b = base:view({ { 0, 6 } }), out = base:view({ { 6, 12 } }) })
  h.check_array(out, function(i) return 2 * i end, name .. " disjoint views")
  h.check_array(base, function(i) return i < 6 and i or 2 * (i - 6) end, name .. " written in place")
  base = lp.arange(12, "float32")
end)

print("silent_wrong_results: ok")
