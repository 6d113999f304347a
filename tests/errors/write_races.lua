-- WriteRaceConditionWarning, as loopy raises it: shown on stderr by default, silenced per kernel by
-- silenced_warnings patterns, turned into errors or ignored by lp.set_warnings.
local lp = require("loom")
local h = require("helpers")

-- The tutorial's transpose whose prefetch runs only across i_inner (written out by hand here): a_fetch is
-- indexed by one local axis but written across both, so it cannot be local.
local TRANSPOSE = [[
local lp = require("loom")
local function transpose(silenced)
  local knl = lp.make_kernel(
    "{ [i_outer,i_inner,j_outer,j_inner,f]: 0<=i_inner,j_inner,f<16 and 0<=16*i_outer<n and 0<=16*j_outer<n }",
    { "a_fetch[f] = a[16*i_outer + f, 16*j_outer + j_inner]  {id=a_fetch_rule, inames=i_outer:j_outer:j_inner:f}",
      "out[16*j_outer + j_inner, 16*i_outer + i_inner] = a_fetch[i_inner]  {dep=a_fetch_rule}" },
    { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n, n" }),
      lp.TemporaryVariable("a_fetch", "float32", { shape = "16" }), "..." },
    { name = "transpose", assumptions = "n mod 16 = 0 and n >= 16", silenced_warnings = silenced })
  return lp.tag_inames(knl, { j_outer = "g.0", i_outer = "g.1", j_inner = "l.1", i_inner = "l.0", f = "l.0" })
end
]]
local MESSAGE = "in kernel transpose: instruction 'a_fetch_rule' looks invalid: it assigns to indices based on local " ..
    "IDs, but its temporary 'a_fetch' cannot be made local because a write race across the iname(s) 'j_inner' " ..
    "would emerge. (Do you need to add an extra iname to your prefetch?) (add 'write_race_local(a_fetch_rule)' " ..
    "to silenced_warnings kernel attribute to disable)"

local transpose = load(TRANSPOSE .. "return transpose")()

-- As an error: the kind is the warning's class.
lp.set_warnings("error")
h.expect_error("WriteRaceConditionWarning", MESSAGE, lp.generate_code, transpose())
-- Silenced by id or by pattern, the kernel builds; a_fetch stays private, as in loopy's output.
for _, silenced in ipairs { { "write_race_local(a_fetch_rule)" }, { "write_race*" } } do
  local text = lp.generate_code(transpose(silenced))
  h.check(string.find(text, "  float a_fetch[16];\n", 1, true), "a_fetch is private:\n%s", text)
  h.check(string.find(text, "a_fetch[lid(0)] = a[n * (16 * gid(1) + lid(0)) + 16 * gid(0) + lid(1)];", 1, true),
    "the tutorial's fetch:\n%s", text)
end
h.expect_error("WriteRaceConditionWarning", MESSAGE, lp.generate_code, transpose({ "write_race(*)" }))

-- check_for_write_races: parallel inames the assignee does not depend on.
-- (j is in the domain whether the instructions use it or not: its UnusedInameWarning is silenced.)
local function racy(insns, tags, args)
  return lp.tag_inames(lp.make_kernel("{ [i,j]: 0<=i,j<16 }", insns, args or
    { lp.GlobalArg("a", "float32", { shape = "16" }), lp.GlobalArg("out", "float32", { shape = "16" }) },
    { silenced_warnings = { "unused_inames" } }), tags)
end
local function race_message(insn, inames)
  return string.format("in kernel loopy_kernel: instruction '%s' contains a write race: instruction will be run " ..
    "across parallel iname(s) '%s', which is/are not referenced in the lhs index (add 'write_race(%s)' to " ..
    "silenced_warnings kernel attribute to disable)", insn, inames, insn)
end
h.expect_error("WriteRaceConditionWarning", race_message("w", "i"), lp.generate_code,
  racy("out[0] = a[i]  {id=w}", { i = "l.0" }))
h.expect_error("WriteRaceConditionWarning", race_message("w", "i"), lp.generate_code,
  racy("out[0] = a[i]  {id=w}", { i = "g.0" }))
h.expect_error("WriteRaceConditionWarning", race_message("w", "j"), lp.generate_code,
  racy("out[i] = a[j]  {id=w}", { i = "l.0", j = "ilp" }))
h.expect_error("WriteRaceConditionWarning", race_message("w", "i,j"), lp.generate_code,
  racy("out[0] = a[i] + a[j]  {id=w}", { i = "l.0", j = "g.0" }))
-- A local temporary is shared by the work-group only: group axes do not race on it, local ones do.
local with_local = { lp.GlobalArg("a", "float32", { shape = "16" }), lp.GlobalArg("out", "float32", { shape = "16" }),
  lp.TemporaryVariable("t", "float32", { shape = "16", address_space = "local" }) }
h.expect_error("WriteRaceConditionWarning", race_message("w", "j"), lp.generate_code,
  racy({ "t[i] = a[j]  {id=w}", "out[i] = t[i]  {dep=w}" }, { i = "g.0", j = "l.0" }, with_local))
-- None of these race: indexed by every parallel iname, a private temporary per work-item, ILP privatized.
for _, ok in ipairs {
  racy("out[i] = a[i]", { i = "l.0" }),
  racy({ "<> t = a[i]  {id=w}", "out[i] = t  {dep=w}" }, { i = "l.0" }),
  racy({ "<> t = a[i]  {id=w}", "out[i] = t  {dep=w}" }, { i = "ilp" }),
  racy({ "t[0] = a[i]  {id=w}", "out[i] = t[0]  {dep=w}" }, { i = "g.0" },
    { lp.GlobalArg("a", "float32", { shape = "16" }), lp.GlobalArg("out", "float32", { shape = "16" }),
      lp.TemporaryVariable("t", "float32", { shape = "1", address_space = "local" }) }),
} do
  lp.generate_code(ok)
end

-- A race across ILP iterations read after the ILP loop leaves which iteration's value the read sees to the
-- kernel: the warning, not an InternalError of the linearization's verifier (found by fuzz_pipeline).
local ilp_race = lp.make_kernel("{ [i,k,l]: 0<=i<10 and 0<=k,l<2 }",
  { "t[k, l] = a[i, 2*k + l]  {id=w}", "out[i] = t[0, 1] + 10*t[1, 0]  {dep=w, inames=i}" },
  { lp.GlobalArg("a", "float32", { shape = "10, 4" }), lp.GlobalArg("t", "float32", { shape = "2, 2" }), "..." })
ilp_race = lp.split_iname(lp.split_iname(ilp_race, "k", 1), "i", 5, { outer_tag = "ilp", inner_tag = "ilp" })
h.expect_error("WriteRaceConditionWarning", race_message("w", "i_inner,i_outer"), lp.generate_code, ilp_race)

lp.set_warnings("ignore")
lp.generate_code(transpose())
lp.generate_code(ilp_race)
lp.set_warnings("default")
h.expect_error("ArgumentError", "unknown action 'loud'", lp.set_warnings, "loud")

-- By default the warning is shown on stderr, once, and the kernel still builds and runs; "ignore" and
-- silenced_warnings keep stderr quiet.
local RUN = TRANSPOSE .. [[
local knl = transpose(SILENCED)
lp.generate_code(knl)
local a = lp.rand({ 16, 16 }, "float32")
local out = knl(lp.c.executor {}, { a = a })
assert(out:get(3, 5) == a:get(5, 3))
print("built")
]]
local shown = h.run_child((RUN:gsub("SILENCED", "nil")))
h.check_equal(shown, "WriteRaceConditionWarning: " .. MESSAGE .. "\nbuilt\n", "stderr by default")
h.check_equal(h.run_child("require('loom').set_warnings('ignore')\n" .. (RUN:gsub("SILENCED", "nil"))), "built\n",
  "output with set_warnings('ignore')")
h.check_equal(h.run_child((RUN:gsub("SILENCED", "{ 'write_race_local(*)' }"))), "built\n", "output when silenced")

-- A local tree reduction's own stages never race (its last stage runs on one work-item): no warning, even as
-- errors; a real race on a user's instruction still is one.
lp.set_warnings("error")
local tree = lp.add_dtypes(lp.tag_inames(lp.make_kernel("{ [i]: 0<=i<128 }", "out[0] = sum(i, a[i])"), { i = "l.0" }),
  { a = "float32" })
lp.generate_code(tree)
h.expect_error("WriteRaceConditionWarning", "instruction 'insn' contains a write race", lp.generate_code,
  lp.add_dtypes(lp.tag_inames(lp.make_kernel("{ [i]: 0<=i<128 }", "out[0] = a[i]"), { i = "l.0" }), { a = "float32" }))
lp.set_warnings("default")

print("write_races: ok")
