-- Illegal uses of loop tags: each must raise a user error naming the problem.
local lp = require("loom")
local h = require("helpers")

local vec = lp.make_kernel("{ [i]: 0<=i<n }", { "<> t = 2*a[i]", "out[i] = t + 1" },
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." })

-- Unrolling needs a bounded number of iterations; so does privatizing over an ILP iname.
h.expect_error("LoopyError", "length of unrolled loop 'i' is not a constant, cannot unroll", lp.generate_code,
  lp.tag_inames(vec, { i = "unr" }))
h.expect_error("LoopyError", "privatizing 't' over iname 'i' needs a bounded length", lp.generate_code,
  lp.tag_inames(vec, { i = "ilp" }))
h.expect_error("LoopyError", "privatizing 't' over iname 'i' needs a bounded length", lp.generate_code,
  lp.tag_inames(vec, { i = "ilp.seq" }))

-- No barrier can go inside an ILP loop: here one work-item reads what its neighbour wrote in the same ILP
-- iteration.
local shift = lp.make_kernel("{ [i,j]: 0<=i<16 and 0<=j<4 }",
  { "tmp[i,j] = a[i,j]  {id=w}", "out[i,j] = tmp[(i+1) % 16, j]  {id=r, dep=w}" },
  { lp.GlobalArg("a", "float32", { shape = "16, 4" }), lp.GlobalArg("out", "float32", { shape = "16, 4" }),
    lp.TemporaryVariable("tmp", "float32", { shape = "16, 4", address_space = "local" }) })
h.expect_error("LoopyError", { "barrier is needed inside the loop over ILP iname 'j'", "for tmp (r depends on w)" },
  lp.generate_code, lp.tag_inames(shift, { i = "l.0", j = "ilp" }))
h.expect_error("LoopyError", "barriers cannot be placed inside ILP loops", lp.generate_code,
  lp.tag_inames(shift, { i = "l.0", j = "ilp.seq" }))
-- Nor inside a `vec` loop, whose lanes run at once: this was an InternalError from isl in code generation
-- (isl's "NULL input"), for a barrier between two instructions of the loop as for one the loop carries.
h.expect_error("LoopyError", { "barrier is needed inside the loop over vec iname 'j'", "for tmp (r depends on w)",
  "barriers cannot be placed inside vec loops" }, lp.generate_code, lp.tag_inames(shift, { i = "l.0", j = "vec" }))
h.expect_error("LoopyError", "barriers cannot be placed inside vec loops", lp.generate_code,
  lp.tag_inames(shift, { i = "l.0", j = "vec" }), { target = "c" })
-- Found by fuzz_pipeline: a scalar written in a `vec` loop (a write race) needs a barrier the loop carries,
-- once a local axis is left over after duplicate_inames moved the instructions off it.
do
  local knl = lp.make_kernel("{ [i]: 0<9i<20 }", { "z[i] = x[i] if i < 10 else y[i-10]", "zint = x[i] if 0 else 2.0f" })
  knl = lp.add_dtypes(knl, { x = "float32", y = "float32", z = "float32", zint = "float32" })
  knl = lp.split_iname(knl, "i", 1)
  knl = lp.split_iname(knl, "i_outer", 7, { outer_tag = "l.1", inner_tag = "vec" })
  knl = lp.duplicate_inames(knl, "i_outer_outer")
  h.expect_error("LoopyError", { "barrier is needed inside the loop over vec iname 'i_outer_inner'",
    "for zint (insn_0 depends on insn_0)" }, lp.generate_code, knl)
  local scalar = lp.make_kernel("{ [i,j]: 0<=i<3 and 0<=j<4 }", "zint = x[i]")
  scalar = lp.add_dtypes(scalar, { x = "float32", zint = "float32" })
  h.expect_error("LoopyError", "barrier is needed inside the loop over vec iname 'i'", lp.generate_code,
    lp.tag_inames(scalar, { i = "vec", j = "l.0" }))
end
-- The same kernel with j a plain loop gets its barrier.
h.check(string.find((lp.generate_code(lp.tag_inames(shift, { i = "l.0" }))), "barrier(CLK_LOCAL_MEM_FENCE)", 1, true),
  "a plain loop takes the barrier")

-- Privatization: writers that need different inames, an instruction outside the privatizing iname.
local two = lp.make_kernel("{ [i,j]: 0<=i,j<4 }", { "<> t = a[i,j]  {id=w1}", "t = 2*a[i,0]  {id=w2, dep=w1, inames=i}",
  "out[i,j] = t  {dep=w2}" })
h.expect_error("LoopyError", "requires adding indices for privatizing var 't' on iname(s) 'i'",
  lp.privatize_temporaries_with_inames, two, "i,j")
local outside = lp.make_kernel("{ [i]: 0<=i<4 }", { "<> t = 0  {id=z}", "t = t + a[i]  {id=u, dep=z}",
  "out[0] = t  {dep=u}" })
h.expect_error("LoopyError", "required iname(s) 'i', but that the instruction was not previously within",
  lp.privatize_temporaries_with_inames, outside, "i")
h.expect_error("LoopyError", "variable 'nope' is not used", lp.privatize_temporaries_with_inames, vec, "i", "nope")

print("loop_tag_errors: ok")
