-- Instructions whose loops admit no common nest (loopy's has_schedulable_iname_nesting) are a LoopyError
-- listing duplicate_inames options; following one gives a kernel that runs right on both executors.
local lp = require("loom")
local h = require("helpers")

-- loopy's get_iname_duplication_options example: i1 runs in i and j, i2 in j, i3 in i.
local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", {
  "mat1[i,j] = mat1[i,j] + 1  {inames=i:j, id=i1}",
  "mat2[j] = mat2[j] + 1  {inames=j, id=i2}",
  "mat3[i] = mat3[i] + 1  {inames=i, id=i3}",
}, { lp.GlobalArg("mat1", "int32", { shape = "n, n" }), lp.GlobalArg("mat2, mat3", "int32", { shape = "n" }), "..." })
h.expect_error("LoopyError", { "Kernel does not have a schedulable iname nesting", "call duplicate_inames",
  "* Duplicate i within instructions (id:i1)", "* Duplicate i within instructions (id:i3)" }, lp.generate_code, knl)

-- Parallel inames do not nest: with i a group axis the loops are fine, but i2, outside g.0, would run in every
-- work-group and add 1 to mat2 once per group: a DependenceViolationError now (generated silently before).
h.expect_error("DependenceViolationError", { "'i2' reads and writes mat2 but has no iname on g.0" }, lp.generate_code,
  lp.tag_inames(knl, { i = "g.0" }))

local fixed = lp.duplicate_inames(knl, "i", { within = "id:i3" })
h.on_each_executor(function(exec, name)
  local m1, m2, m3 = lp.zeros({ 4, 4 }, "int32"), lp.zeros({ 4 }, "int32"), lp.zeros({ 4 }, "int32")
  fixed(exec, { mat1 = m1, mat2 = m2, mat3 = m3 })
  h.check_array(m1, function() return 1 end, name .. " mat1")
  h.check_array(m2, function() return 1 end, name .. " mat2")
  h.check_array(m3, function() return 1 end, name .. " mat3")
end)

print("iname_nesting: ok")
