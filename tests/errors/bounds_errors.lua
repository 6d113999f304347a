-- Accesses outside an array's declared shape (issue 11, point 2; loopy's check_bounds): the code does not check
-- indices, so `out[i+8]` with shape n corrupted memory. Code generation now proves every quasi-affine access
-- inside the shape under the assumptions, predicates and `if` conditions, or raises a LoopyError naming the
-- instruction, the access and an offending index.
local lp = require("loom")
local h = require("helpers")

local function kernel(insns, args, options)
  return lp.make_kernel("{ [i, j]: 0<=i<n and 0<=j<4 }", insns, args, options)
end
local a = h.array_from({ 6, 4 }, "float32", function(i, j) return 10 * i + j end)

-- Writes past the end: the error names the instruction, the access, the array and an index that gets there.
local past = kernel("out[i+8, j] = a[i, j]", { lp.GlobalArg("out", "float32", { shape = "n, 4" }), "..." })
local texts = { "instruction 'insn' accesses 'out[i + 8, j]' out of the bounds of array 'out' (shape (n, 4))",
  "on axis 0" }
h.expect_error("LoopyError", texts, lp.generate_code, lp.add_dtypes(past, { a = "float32" }))
h.on_each_executor(function(exec)
  h.expect_error("LoopyError", texts, past, exec, { a = a, out = lp.zeros({ 6, 4 }, "float32") })
end)

-- Reads too, on any axis, before the start as past the end.
h.expect_error("LoopyError", { "'a[i, j + 1]' out of the bounds of array 'a'", "index 4 on axis 1" },
  lp.generate_code, lp.add_dtypes(kernel("out[i, j] = a[i, j+1]", { lp.GlobalArg("a", "float32", { shape = "n, 4" }),
    "..." }), { a = "float32" }))
h.expect_error("LoopyError", { "'a[i - 1, j]' out of the bounds of array 'a'", "index -1 on axis 0 where i = 0" },
  lp.generate_code, lp.add_dtypes(kernel("out[i, j] = a[i-1, j]", { lp.GlobalArg("a", "float32", { shape = "n, 4" }),
    "..." }), { a = "float32" }))

-- What the assumptions, an `if=` predicate or an if-expression guarantee is in bounds, and computes. As in
-- loopy, a check uses what the instruction's domain, the assumptions and the instruction itself name: an
-- extent m named nowhere else is not checked.
local function guarded(insn, assumptions)
  return kernel(insn, { lp.GlobalArg("a", "float32", { shape = "m, 4" }), lp.ValueArg("m", "int32"), "..." },
    { assumptions = assumptions })
end
h.expect_error("LoopyError", { "'a[i + 1, j]' out of the bounds of array 'a' (shape (m, 4))", "where i = " },
  lp.generate_code, lp.add_dtypes(guarded("out[i, j] = a[i+1, j]", "m >= n"), { a = "float32" }))
local cases = {
  { guarded("out[i, j] = a[i+1, j]", "m >= n + 1"), function(i, j) return 10 * (i + 1) + j end, 5 },
  { guarded("out[i, j] = a[i+1, j] {if=i+1 < m}", "m >= 1"), function(i, j) return i < 5 and 10 * (i + 1) + j or nil end, 6 },
  { guarded("out[i, j] = if(i+1 < m, a[i+1, j], 0)", "m >= 1"), function(i, j) return i < 5 and 10 * (i + 1) + j or 0 end, 6 },
}
for n, c in ipairs(cases) do
  h.on_each_executor(function(exec, name)
    local out = c[1](exec, { a = a, m = 6, n = c[3], out = lp.zeros({ c[3], 4 }, "float32") })
    h.check_array(out, c[2], "guarded case " .. n .. " on " .. name)
  end)
end

-- Data-dependent indices cannot be decided and are not checked (as in loopy).
local gather = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[idx[i]]",
  { lp.GlobalArg("a", "float32", { shape = "m" }), lp.GlobalArg("idx", "int32", { shape = "n" }), lp.ValueArg("m", "int32"),
    "..." })
local idx = h.array_from({ 3 }, "int32", function(i) return 2 - i end)
local v = h.array_from({ 3 }, "float32", function(i) return i + 1 end)
h.on_each_executor(function(exec, name)
  h.check_array(gather(exec, { a = v, idx = idx }), function(i) return 3 - i end, "gather on " .. name)
end)

print("bounds_errors: ok")
