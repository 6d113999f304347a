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
