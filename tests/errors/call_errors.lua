-- Mistakes in calling a kernel, on both executors: ArgumentErrors that name the argument.
local lp = require("loom")
local h = require("helpers")

local knl = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]"), { a = "float32" })
local a = lp.zeros(4, "float32")

h.on_each_executor(function(exec)
  h.expect_error("ArgumentError", { "'a'", "float32", "float64" }, knl, exec, { a = lp.zeros(4, "float64") })
  h.expect_error("ArgumentError", { "'a'", "expected shape (5,), got (4,)" }, knl, exec, { a = a, n = 5 })
  h.expect_error("ArgumentError", { "'a'", "expected shape (4,), got (4, 2)" }, knl, exec,
    { a = lp.zeros({ 4, 2 }, "float32") })
  h.expect_error("ArgumentError", { "'out'", "expected shape (4,), got (3,)" }, knl, exec,
    { a = a, out = lp.zeros(3, "float32") })
  h.expect_error("ArgumentError", { "'a'", "loom.Array or loom.DeviceArray expected, got number" }, knl, exec, { a = 5 })
  h.expect_error("ArgumentError", { "'a'", "loom.Array or loom.DeviceArray expected, got table" }, knl, exec, { a = { 1, 2 } })
  h.expect_error("ArgumentError", { "'a'", "loom.Array or loom.DeviceArray expected, got string" }, knl, exec, { a = "a" })
  h.expect_error("ArgumentError", { "'b'", "no argument" }, knl, exec, { a = a, b = a })
  h.expect_error("ArgumentError", { "'n'", "number expected, got string" }, knl, exec, { a = a, n = "4" })
  h.expect_error("ArgumentError", "given by name", knl, exec, { a })
  h.expect_error("ArgumentError", "table expected, got number", knl, exec, 5)

  -- n is not in any shape passed: nothing to find it from.
  h.expect_error("ArgumentError", { "'n'", "not given" }, knl, exec, {})

  -- A read-only input is never made up: only written arrays are allocated (loopy's rule).
  local fixed = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<4 }", "g[i] = f[i] + 1.5"), { f = "float32" })
  h.expect_error("ArgumentError", { "'f'", "read by the kernel but was not passed" }, fixed, exec, {})
  local in_place = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<4 }", { "t[i] = f[i] {id=w}", "g[i] = t[i] {dep=w}" }),
    { f = "float32", t = "float32" })
  h.check_equal(in_place(exec, { f = lp.arange(4, "float32") }):get(3), 3.0, "a written-then-read array is allocated")

  -- An output must be contiguous: the kernel writes its memory directly.
  local square = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[i,j]")
  h.expect_error("ArgumentError", { "'out'", "contiguous" }, square, exec,
    { a = lp.zeros({ 3, 3 }), out = lp.zeros({ 3, 3 }):transpose() })
end)

-- Not an executor where one is expected.
h.expect_error("ArgumentError", "table expected, got number", knl, 5, { a = a })

print("call_errors: ok")
