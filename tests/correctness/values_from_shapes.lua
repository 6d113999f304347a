-- Value arguments left out of a call are solved from the shapes of the arrays passed, as loopy does: from
-- any axis of any array, including shapes that are affine in the parameter (n + 2, n - 1), quasi-affine
-- (floor divisions, solved by isl from all the shapes at once), or in several parameters that other shapes give.
local lp = require("loom")
local h = require("helpers")

-- n from axis 0, m from axis 1 of the same array.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = a[i,j] + 1")
  local a = h.array_from({ 3, 5 }, "int32", function(i, j) return i * j end)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i, j) return i * j + 1 end, name .. " n and m from a")
  end)
end

-- m only appears in b's shape.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i] = a[i] * b[j]",
    { lp.GlobalArg("out", "float64", { shape = "n" }), "..." }, { silenced_warnings = { "write_race(insn)" } })
  local a, b = lp.arange(4, "float64"), lp.zeros(6, "float64"):fill(2)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a, b = b }), function(i) return 2 * i end, name .. " m from b")
  end)
end

-- a has shape (n + 2): n = 5 for 7 elements.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] + a[i+2]")
  h.check_equal(knl.args[1].shape[1], "n + 2", "the footprint of a[i+2]")
  local a = lp.arange(7, "int64")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i) return 2 * i + 2 end, name .. " n from n + 2", { shape = { 5 } })
  end)
end

-- Two floor divisions that only together fix n: n // 2 = 3 gives 6 or 7, (n + 1) // 2 = 4 gives 7 or 8.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i // 2] + b[(i + 1) // 2]",
    { lp.GlobalArg("a", "int32", { shape = "n // 2 + 1" }), lp.GlobalArg("b", "int32", { shape = "(n + 1) // 2 + 1" }),
      "..." })
  local a, b = lp.arange(4, "int32"), lp.arange(5, "int32")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a, b = b }), function(i) return i // 2 + (i + 1) // 2 end,
      name .. " n from two floor divisions", { shape = { 7 } })
  end)
  -- One of them alone leaves two values: n is not found, and the error says so.
  local alone = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i // 2]",
    { lp.GlobalArg("a", "int32", { shape = "n // 2 + 1" }), "..." })
  h.expect_error("ArgumentError", { "value argument 'n'", "cannot be found" }, alone, lp.c.executor {}, { a = a })
end

-- An extent in two parameters, n + m, once m is known from b; and a product, n*m, once one factor is.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i, j] = a[i + j] * b[j] + c[i*m + j]",
    { lp.GlobalArg("a", "int32", { shape = "n + m" }), lp.GlobalArg("b", "int32", { shape = "m" }),
      lp.GlobalArg("c", "int32", { shape = "n*m" }),
      "..." })
  local a, b, c = lp.arange(7, "int32"), lp.arange(3, "int32"), lp.arange(12, "int32")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a, b = b, c = c }), function(i, j) return (i + j) * j + i * 3 + j end,
      name .. " n from n + m and m from b", { shape = { 4, 3 } })
  end)
end

print("values_from_shapes: ok")
