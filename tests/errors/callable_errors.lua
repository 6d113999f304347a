-- Mistakes with callable kernels: LoopyErrors naming the call and the problem, never a crash.
local lp = require("loom")
local h = require("helpers")

local twice = lp.make_function("{[i]: 0<=i<10}", "b[i] = 2*a[i]", { name = "twice" })
local function caller(insn, args)
  return lp.make_kernel("{[i, j]: 0<=i<10 and 0<=j<4}", insn,
    args or { lp.GlobalArg("x, y", "float64", { shape = 10 }), lp.GlobalArg("M", "float64", { shape = "10, 4" }) })
end
local function code(insn, callee, args) return lp.generate_code(lp.merge { caller(insn, args), callee or twice }) end

h.expect_error("LoopyError", { "call to 'twice'", "takes 1 argument(s), got 2" }, code, "y[:] = twice(x[:], x[:])")
h.expect_error("LoopyError", { "call to 'twice'", "returns 1 result(s), assigned to 2" }, code,
  "y[:], x[:] = twice(x[:])")
h.expect_error("LoopyError", { "call to 'twice'", "shape mismatch", "extent 10", "sweeps 4" }, code,
  "y[:] = twice(M[0, :])")
h.expect_error("LoopyError", { "call to 'twice'", "shape mismatch", "has 1 axes", "sweeps 2" }, code,
  "y[:] = twice(M[:, :])")
h.expect_error("LoopyError", { "'a' is an array of 1 axes", "pass a sub-array" }, code, "y[:] = twice(x[0])")
h.expect_error("LoopyError", { "unknown function 'thrice'" }, code, "y[:] = thrice(x[:])")
h.expect_error("LoopyError", { "slices and sub-arrays are only allowed" }, caller, "y[:] = 2*x[:]")
h.expect_error("LoopyError", { "instruction 'insn'", "'y[:]'", "needs the shape of 'y'" }, caller, "y[:] = twice(x[:])", { "..." })
h.expect_error("LoopyError", { "exactly one entrypoint", "got 0" }, lp.merge, { twice })
h.expect_error("LoopyError", { "exactly one entrypoint", "got 2" }, lp.merge, { caller("y[i] = x[i]"), caller("y[i] = x[i]") })
h.expect_error("LoopyError", { "no callable named 'twice'" }, lp.inline_callable_kernel, caller("y[i] = x[i]"), "twice")
h.expect_error("LoopyError", { "redefining function identifier 'twice'" }, lp.register_callable,
  lp.register_callable(caller("y[i] = x[i]"), "twice", twice), "twice",
  lp.make_function("{[i]: 0<=i<10}", "b[i] = 3*a[i]", { name = "twice" }))

-- loopy's test_different_index_dtypes lives in tests/loopy/test_loopy.lua; a recursive call must end too.
local rec = lp.make_function("{[i]: 0<=i<10}", "[i]: b[i] = rec([i]: a[i])", { lp.GlobalArg("a, b", "float64", { shape = 10 }) }, { name = "rec" })
h.expect_error("LoopyError", { "'rec' calls itself" }, code, "y[:] = rec(x[:])", rec)

print("callable_errors: ok")
