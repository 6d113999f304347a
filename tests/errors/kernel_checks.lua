-- loopy's structural checks before linearization (loopy/check.py): each kernel below used to give wrong or
-- uncompilable code, and now is a LoopyError naming the instruction or domain and the inames at fault.
local lp = require("loom")
local h = require("helpers")

-- Two inames of one instruction on one hardware axis: both would read lid(0).
for _, tag in ipairs({ "l.0", "g.0" }) do
  local k = lp.tag_inames(lp.make_kernel("{[i,j]: 0<=i,j<16}", "out[16*i+j] = 1"), { i = tag, j = tag })
  h.expect_error("LoopyError", { "instruction 'insn' has multiple inames tagged '" .. tag .. "'", "'i' and 'j'" },
    lp.generate_code, k)
end

-- A work-group size cannot come from a value the kernel computes.
local csr = lp.make_kernel({ "{[i]: 0<=i<n}", "{[jj]: 0<=jj<row_len}" },
  { "<> row_len = rl[i] {id=w}", "out[i,jj] = 1 {dep=w}" },
  { lp.GlobalArg("out", "float32", { shape = "n, 16" }), lp.GlobalArg("rl", "int32", { shape = "n" }), "..." })
h.expect_error("LoopyError", "Domain number 1 has a data-dependent parameter 'row_len' and contains parallel inames 'jj'",
  lp.generate_code, lp.tag_inames(csr, { jj = "l.0" }))

-- A prefetch whose footprint needs an iname that is neither swept nor named in fetch_outer_inames.
local conv = lp.add_dtypes(lp.make_kernel("{[b,x,fx,c]: 0<=b<2 and 0<=x<8 and 0<=fx<3 and 0<=c<2}",
  "out[b,x] = sum((fx, c), img[b, x+fx, c] * w[fx, c])"), { img = "float32", w = "float32" })
local fetched = lp.add_prefetch(conv, "img", "x, fx", { fetch_outer_inames = "b" })
for _, target in ipairs({ "opencl", "c" }) do
  h.expect_error("LoopyError", "instruction 'img_fetch_rule' references inames 'c' that the instruction does not depend on",
    lp.generate_code, lp.set_options(fetched, { target = target }))
end

-- Inside a `for` block an instruction still runs in the inames it uses (loopy's add_used_inames): only an
-- iname a transformation brings in can be out of scope.
do
  local knl = lp.add_dtypes(lp.make_kernel("{[k, i]: 0<=k<3 and 0<=i<4}", "for k\n  b[i] = a[i] + k {id=w}\nend"),
    { a = "float32" })
  h.check_contains(tostring(knl), "for i\n  for k\n    b[i] = a[i] + k")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = lp.arange(4, "float32") }), function(i) return i + 2 end, name .. " b[i] = a[i] + k")
  end)
end

-- A domain parameter left out of a final argument list may still be fixed later, as in loopy; code generation
-- names it if it is not.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 1", { lp.GlobalArg("out", "float32", { shape = "n" }) })
  h.expect_error("LoopyError", "parameter 'n' of kernel 'loopy_kernel' is not an argument", lp.generate_code, knl)
  local fixed = lp.fix_parameters(knl, { n = 4 })
  h.on_each_executor(function(exec, name)
    h.check_array(fixed(exec, {}), function() return 1 end, name .. " fixed n")
  end)
end
