-- Generated C compiles cleanly with -Wall -Wextra -Werror, for sequential, parallel and barrier kernels.
local lp = require("loom")
local strict = lp.c.executor{cflags = {"-Wall", "-Wextra", "-Werror"}}

local kernels = {
  lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]"),
  lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<=i }", "out[i,j] = a[i,j] // 3 + a[i,j] % 5",
                 {lp.GlobalArg("a,out", "int32", {shape = "n,n"}), "..."}),
  lp.make_kernel("{ [i]: 0<=i<n and i mod 3 = 0 }", "out[i] = sqrt(a[i]) + 1",
                 {lp.GlobalArg("a,out", "float64", {shape = "n"}), "..."}),
  lp.split_iname(lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<8 }", "out[i] = sum(k, a[i]*k)"), "i", 16,
                 {outer_tag = "g.0", inner_tag = "l.0"}),
}
for idx, knl in ipairs(kernels) do
  local n = 40
  local a = knl.args[1].name == "a" and lp.rand({n}, "float32", idx) or nil
  local args = {}
  for _, arg in ipairs(knl.args) do
    if arg.name == "a" then
      args.a = (arg.dtype == "int32") and lp.arange(n * n, "int32"):reshape({n, n})
               or (arg.dtype == "float64" and lp.rand({n}, "float64", idx)) or a
    end
  end
  local out = knl(strict, args)
  assert(out ~= nil, "kernel " .. idx .. " produced no output")
end
print("c_warnings: ok")
