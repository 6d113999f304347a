-- Kernels that once computed wrong results without a word (issue 11, point 3).
local lp = require("loom")
local h = require("helpers")

-- A global barrier between a reduction's accumulator init and its update: the init ran in one device kernel,
-- the update in the next on an accumulator it never initialized. As for an explicit temporary, a
-- MissingDefinitionError; the check looks at what a device kernel reads before it writes it.
local function summed(instructions)
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", instructions,
    { lp.GlobalArg("a,b", "float32", { shape = "n" }), lp.GlobalArg("s", "float32", { shape = 1 }), "..." })
  return lp.add_barrier(knl, "id:w", "id:r")
end
local reduction = summed({ "b[j] = 2*a[j] {id=w}", "s[0] = sum(i, b[i]) {id=r, dep=w}" })
local explicit = summed({ "<float32> t = 0 {id=init}", "b[j] = 2*a[j] {id=w}",
  "t = t + b[i] {id=r, dep=w:init}", "s[0] = t {dep=r}" })
for name, knl in pairs({ reduction = reduction, explicit = explicit }) do
  local err = h.expect_error("MissingDefinitionError", { "gets used in subkernel 'loopy_kernel_0' without a definition" },
    lp.generate_code, knl)
  h.check(h.contains(err.message, "'acc_i'") or h.contains(err.message, "'t'"), "%s: %s", name, err.message)
end

print("silent_wrong_results: ok")
