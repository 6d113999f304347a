-- Type mistakes: each a TypeInferenceError (or LoopyError) naming the variable, function or operator, raised
-- when code is generated and when the kernel is called on either executor.
local lp = require("loom")
local h = require("helpers")

-- Code for `insn` with the dtypes of `dtypes` that name its arguments.
local function generate(insn, dtypes, target)
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", insn, nil, { target = target })
  local given = {}
  for _, arg in ipairs(knl.args) do given[arg.name] = dtypes[arg.name] end
  return lp.generate_code(lp.add_dtypes(knl, given))
end

local F = { x = "float32", y = "float32" }
local Z = { z = "complex64", w = "complex64" }

-- A variable whose type nothing determines, named with the way out.
h.expect_error("TypeInferenceError", { "'a'", "add_dtypes" }, lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]"))
-- A temporary written only from an untyped argument.
h.expect_error("TypeInferenceError", "'b'", lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<n }", { "<> t = b[i]", "out[i] = t" }))

-- Functions: unknown names, argument counts, argument types.
h.expect_error("TypeInferenceError", { "unknown function", "'frobnicate'" }, generate, "out[i] = frobnicate(x[i])", F)
h.expect_error("LoopyError", { "'sin'", "takes 1 argument", "not 2" }, generate, "out[i] = sin(x[i], y[i])", F)
h.expect_error("LoopyError", { "'atan2'", "takes 2 arguments", "not 1" }, generate, "out[i] = atan2(x[i])", F)
h.expect_error("TypeInferenceError", { "'floor'", "complex64" }, generate, "out[i] = floor(z[i])", Z)
h.expect_error("TypeInferenceError", { "'max'", "complex64" }, generate, "out[i] = max(z[i], w[i])", Z)

-- Operators on operand types they do not accept.
h.expect_error("TypeInferenceError", { "'&'", "float32", "x[i] & 1" }, generate, "out[i] = x[i] & 1", F)
h.expect_error("TypeInferenceError", { "'<<'", "float32" }, generate, "out[i] = 1 << x[i]", F)
h.expect_error("TypeInferenceError", { "'~'", "float32" }, generate, "out[i] = ~x[i]", F)
h.expect_error("TypeInferenceError", { "'<'", "complex64" }, generate, "out[i] = z[i] < w[i]", Z)
h.expect_error("TypeInferenceError", { "'//'", "complex64" }, generate, "out[i] = z[i] // 2", Z)
h.expect_error("TypeInferenceError", { "'%'", "complex64" }, generate, "out[i] = z[i] % w[i]", Z)

-- A complex value does not silently lose its imaginary part.
h.expect_error("TypeInferenceError", { "'out'", "complex64", "float32", "real()" }, generate, "out[i] = z[i]",
  { z = "complex64", out = "float32" })
h.expect_error("TypeInferenceError", { "cast", "complex64", "float32" }, generate, "out[i] = cast(float32, z[i])", Z)

-- Complex numbers need a target that has them.
h.expect_error("LoopyError", { "complex", "cuda" }, generate, "out[i] = 2 * z[i]", Z, "cuda")

-- The same errors when the kernel is called with arrays of those types.
local bad = {
  { "TypeInferenceError", "'frobnicate'", "out[i] = frobnicate(x[i])", { x = lp.zeros(4, "float32") } },
  { "TypeInferenceError", "'&'", "out[i] = x[i] & 1", { x = lp.zeros(4, "float64") } },
  { "TypeInferenceError", "'<'", "out[i] = z[i] < 1j", { z = lp.zeros(4, "complex128") } },
}
h.on_each_executor(function(exec)
  for _, b in ipairs(bad) do
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", b[3])
    h.expect_error(b[1], b[2], knl, exec, b[4])
  end
end)

-- add_and_infer_dtypes names a variable that does not exist.
h.expect_error("LoopyError", "'nosuch'", lp.add_and_infer_dtypes, lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = x[i]"),
  { nosuch = "float32" })

-- An untyped sum over an untyped argument: the accumulator's `acc = 0` must not decide int32 alone (the sum of
-- float64 values came out 0 on both executors). preprocess_kernel refuses, as loopy; a call types it from the
-- arguments.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out = sum(i, a[i])")
  h.expect_error("TypeInferenceError", { "could not determine the type of 'a'", "add_dtypes" }, lp.preprocess_kernel, knl)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = lp.array({ 0.5, 0.25, 1.5 }, "float64") })
    h.check(out.dtype == "float64" and out:get() == 2.25, "untyped sum on %s: %s", name, tostring(out))
  end)
end

-- An integer parameter given as a Lua float: an integral value is that integer, another an ArgumentError naming it
-- (before, 2^2 made C that did not compile and an OpenCL build error).
do
  local typed = lp.make_kernel("{ [i]: 0<=i<m }", "out[i] = 2*a[i]",
    { lp.GlobalArg("a, out", "float64", { shape = "m" }), lp.ValueArg("m", "int32") })
  local auto = lp.make_kernel("{ [i]: 0<=i<m }", "out[i] = 2*i")
  h.on_each_executor(function(exec, name)
    local a = lp.array({ 1, 2, 3, 4 }, "float64")
    h.check_array(typed(exec, { a = a, m = 2 ^ 2 }), function(i) return 2 * (i + 1) end, "m = 2^2 on " .. name)
    h.check_array(auto(exec, { m = 8 / 2 }), function(i) return 2 * i end, "untyped m = 8/2 on " .. name)
    h.expect_error("ArgumentError", "argument 'm' is an integer value (int32): 2.5 is not an integer", typed, exec,
      { a = a, m = 2.5 })
    h.expect_error("ArgumentError", "argument 'm' is an integer value (a parameter of the domains): 0.5 is not an integer",
      auto, exec, { m = 0.5 })
  end)
end

print("type_errors: ok")
