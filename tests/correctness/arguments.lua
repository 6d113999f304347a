-- Declaring and passing arguments on both executors: explicit lp.GlobalArg/lp.ValueArg in each shape form,
-- "..." guessing the rest, value arguments found from shapes or passed, fixed dtypes, outputs passed in or
-- allocated, and the return_dict and write_code options.
local lp = require("loom")
local h = require("helpers")

local N, M = 6, 4

-- Every argument declared: shapes as a string, a list of strings and integers, and value arguments typed.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = a[i,j] + s*b[j] + w[0]", {
    lp.GlobalArg("a", "float64", { shape = "n, m" }),
    lp.GlobalArg("b", "float64", { shape = { "m" } }),
    lp.GlobalArg("w", "float64", { shape = 3 }),
    lp.ValueArg("s", "float64"),
    lp.GlobalArg("out", "float64", { shape = { "n", "m" } }),
    lp.ValueArg("n, m", "int32"),
  })
  local names = {}
  for _, arg in ipairs(knl.args) do names[#names + 1] = arg.name end
  h.check_equal(table.concat(names, " "), "a b w s out n m", "declared argument order")
  local a = lp.rand({ N, M }, "float64", 1)
  local b = lp.rand(M, "float64", 2)
  local w = lp.array({ 0.25, 7, 7 })
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, b = b, w = w, s = 3 })
    h.check_array(out, function(i, j) return a:get(i, j) + 3 * b:get(j) + 0.25 end, name .. " declared args",
      { rtol = 1e-15, dtype = "float64", shape = { N, M } })
  end)
end

-- A declared shape wins over the (smaller) access footprint, in each form.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = u[2] + v[1] + w[0]", {
    lp.GlobalArg("u", "int32", { shape = "10" }),
    lp.GlobalArg("v", "int32", { shape = { 5 } }),
    lp.GlobalArg("w", "int32", { shape = 4 }),
    lp.GlobalArg("out", "int32", { shape = "n + 1" }),
    "...",
  })
  local u, v, w = lp.arange(10, "int32"), lp.arange(5, "int32"), lp.arange(4, "int32")
  h.on_each_executor(function(exec, name)
    local out = lp.zeros(N + 1, "int32"):fill(-1)
    knl(exec, { u = u, v = v, w = w, out = out, n = N })
    h.check_array(out, function(i) return i < N and 3 or nil end, name .. " declared shapes")
  end)
end

-- Some declared, "..." guesses the rest: out keeps its declared dtype whatever the inputs are.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] * b[i]",
    { lp.GlobalArg("out", "float64", { shape = lp.auto }), "..." })
  local a = lp.arange(N, "int32")
  local b = lp.arange(N, "int64")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, b = b })
    h.check_array(out, function(i) return i * i end, name .. " guessed inputs", { dtype = "float64" })
  end)
end

-- n found from a's shape, or passed: a larger n than the data is an ArgumentError, a consistent one runs.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] - 1")
  local a = lp.arange(N, "int64")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return i - 1 end, name .. " n from the shape")
    h.check_array(knl(exec, { a = a, n = N }), function(i) return i - 1 end, name .. " n passed")
    h.expect_error("ArgumentError", "expected shape (7,), got (6,)", knl, exec, { a = a, n = N + 1 })
  end)
end

-- A parameter that bounds no array is passed; the output's shape follows from it.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = i * i")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { n = 5 }), function(i) return i * i end, name .. " n only", { shape = { 5 } })
  end)
end

-- An output passed in is written and returned; one not passed is allocated.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
  local a = lp.arange(N, "float32")
  h.on_each_executor(function(exec, name)
    local mine = lp.zeros(N, "float32")
    local got = knl(exec, { a = a, out = mine })
    h.check_array(mine, function(i) return 2 * i end, name .. " output written in place")
    h.check_array(got, function(i) return 2 * i end, name .. " output returned")
    got:set(0, -1)
    h.check_equal(mine:get(0), -1.0, name .. " the returned array is the one passed")
    local fresh = knl(exec, { a = a })
    h.check_array(fresh, function(i) return 2 * i end, name .. " output allocated")
    h.check_equal(mine:get(0), -1.0, name .. " a later call allocates a new array")
  end)
end

-- return_dict: one table of outputs by name.
do
  local knl = lp.set_options(lp.make_kernel("{ [i]: 0<=i<n }", { "x[i] = a[i] + 1", "y[i] = a[i] * 3" }),
    { return_dict = true })
  local a = lp.arange(N, "int32")
  h.on_each_executor(function(exec, name)
    local result = knl(exec, { a = a })
    h.check_equal(type(result), "table", name .. " return_dict result")
    h.check_equal(select("#", knl(exec, { a = a })), 1, name .. " return_dict returns one value")
    h.check_array(result.x, function(i) return i + 1 end, name .. " return_dict x")
    h.check_array(result.y, function(i) return 3 * i end, name .. " return_dict y")
    local count = 0
    for _ in pairs(result) do count = count + 1 end
    h.check_equal(count, 2, name .. " return_dict holds the outputs only")
  end)
end

-- write_code only prints: the results are those of the same kernel without it.
do
  local knl = lp.set_options(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] * a[i]"), { write_code = true })
  local a = lp.arange(N, "int64")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return i * i end, name .. " write_code")
  end)
end

-- write_wrapper prints the host code (the launches of the device kernels) when the kernel is built for a call,
-- on stdout as write_code does.
do
  local out = h.run_child([[
    local lp = require("loom")
    local knl = lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]"), "i", 16, { outer_tag = "g.0" })
    knl = lp.set_options(knl, { write_wrapper = true })
    knl(lp.c.executor {}, { a = lp.arange(40, "float32") })
    print("-- ran")
  ]])
  h.check_contains(out, "void _lpy_host_loopy_kernel(float const *__restrict__ a, int const n, float *__restrict__ out)")
  h.check_contains(out, "-- ran")
end

-- Complex value arguments: a {re, im} table, or a real number (imaginary part 0), on both executors.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "z[i] = a*x[i] + b*y[i]",
    { lp.ValueArg("a", "complex64"), lp.ValueArg("b", "complex128"), lp.GlobalArg("x,y", "complex64", { shape = "n" }),
      "..." })
  local x = lp.array({ { 1, 2 }, { 3, 4 } }, "complex64")
  local y = lp.array({ { 0, 1 }, { 2, 0 } }, "complex64")
  -- (1+1j)(1+2j) + 2*1j = -1+5j and (1+1j)(3+4j) + 2*2 = 3+7j
  local want = { { -1, 5 }, { 3, 7 } }
  h.on_each_executor(function(exec, name)
    local z = knl(exec, { a = { 1, 1 }, b = 2, x = x, y = y })
    for i = 0, 1 do
      local got = z:get(i)
      h.check(got[1] == want[i + 1][1] and got[2] == want[i + 1][2], "%s complex z[%d]: got {%s, %s}", name, i,
        h.show(got[1]), h.show(got[2]))
    end
  end)
  h.expect_error("ArgumentError", { "'a' is a value argument", "{re, im} table" }, knl, lp.c.executor {},
    { a = { 1, 2, 3 }, b = 2, x = x, y = y })
end

-- Transformations return new kernels: the original is unchanged and still runs.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] + 2")
  local typed = lp.add_dtypes(knl, { a = "int32" })
  h.check_equal(knl.args[1].dtype, nil, "add_dtypes leaves the original untyped")
  h.check_equal(typed.args[1].dtype, "int32", "add_dtypes types the copy")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = lp.arange(N, "float64") }), function(i) return i + 2 end, name .. " untyped")
    h.check_array(typed(exec, { a = lp.arange(N, "int32") }), function(i) return i + 2 end, name .. " typed",
      { dtype = "int32" })
  end)
end

-- Options may stand in place of the declaration list (loopy's keyword arguments); a declaration list with
-- named entries as well as options is an error.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 3", { assumptions = "n >= 1", name = "fill" })
  h.check_equal(knl.name, "fill", "options in third position")
  h.check_equal(knl.args[1].name, "a", "arguments guessed when no declaration list is given")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = lp.zeros(N, "float32") }), function() return 3 end, name .. " options only",
      { dtype = "float32" })
  end)
  local ok, err = pcall(lp.make_kernel, "{ [i]: 0<=i<n }", "a[i] = 3", { assumptions = "n >= 1" }, {})
  h.check_equal(ok, false, "named entries in the declaration list")
  h.check_equal(err.kind, "ArgumentError", "named entries in the declaration list: kind")
end

print("arguments: ok")
