-- An instruction may not assign to an iname (loopy: "variable 'i' not declared or not allowed for writing"):
-- the generated loop would assign its own counter.
local lp = require("loom")
local h = require("helpers")

h.expect_error("LoopyError", "'i'", lp.make_kernel, "{ [i]: 0<=i<n }", "i = 5")
h.expect_error("LoopyError", "'j'", lp.make_kernel, "{ [i,j]: 0<=i,j<n }", "out[i] = a[i] {id=x}\nj = i {dep=x}")

print("iname_writes: ok")
