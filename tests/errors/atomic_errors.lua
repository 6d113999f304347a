-- Atomic assignments that cannot be: each a typed error naming the instruction and the reason.
local lp = require("loom")
local h = require("helpers")

local function generate(insns, args, target)
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", insns, args)
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  return lp.generate_code(lp.set_options(knl, { target = target or "opencl" }))
end

-- Syntax: `atomic` alone or `atomic=init`, on an assignment to one left-hand side.
h.expect_error("ParseError", "atomicity directive 'sometimes' not understood", lp.make_kernel, "{ [i]: 0<=i<n }",
  "a[i] = a[i] + 1 {atomic=sometimes}")
h.expect_error("ParseError", "exactly one left-hand side", lp.make_kernel, "{ [i]: 0<=i<n }", "... nop {atomic}")

-- Private memory is per work-item: atomics there make no sense (and OpenCL has none).
h.expect_error("LoopyError", { "'insn_0'", "private variable 'acc'" }, generate,
  { "<int32> acc = 0", "acc = acc + a[i] {atomic}", "out[i] = acc" }, { lp.GlobalArg("a", "int32", { shape = "n" }), "..." })

-- Types without atomics on the target: complex numbers anywhere, 8-bit integers on OpenCL and CUDA.
for _, target in ipairs { "opencl", "cuda" } do
  h.expect_error("LoopyError", { "'insn'", target, "int8" }, generate, "c[i % 4] = c[i % 4] * 3 {atomic}",
    { lp.GlobalArg("c", "int8", { shape = 4 }), "..." }, target)
end
h.expect_error("LoopyError", { "'insn'", "complex64" }, generate, "z[0] = z[0] * z[0] {atomic}",
  { lp.GlobalArg("z", "complex64", { shape = 1 }), "..." }, "c")

-- The compare-and-swap loops' scratch names are reserved.
h.expect_error("LoopyError", "'loopy_old_val' is reserved", generate,
  { "s[0] = s[0] * loopy_old_val[i] {atomic}" }, { lp.GlobalArg("s, loopy_old_val", "float32", { shape = lp.auto }), "..." })
