-- Mistakes in building, transforming and generating a kernel: each a typed error naming the culprit.
local lp = require("loom")
local h = require("helpers")

local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")

-- Transformations naming something that does not exist.
h.expect_error("LoopyError", { "prioritize_loops", "'q'" }, lp.prioritize_loops, knl, "j,q")
h.expect_error("LoopyError", { "add_dtypes", "'zz'" }, lp.add_dtypes, knl, { zz = "float32" })
h.expect_error("ArgumentError", "unknown dtype 'flaot32'", lp.add_dtypes, knl, { a = "flaot32" })

-- Without "...", every variable must be declared.
h.expect_error("LoopyError", { "'a'", "'insn'", "..." }, lp.make_kernel, "{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
  { lp.GlobalArg("out", "float32", { shape = "n" }), lp.ValueArg("n", "int32") })

-- Instruction ids and dependencies.
h.expect_error("LoopyError", { "'nosuch'", "'insn'" }, lp.make_kernel, "{ [i]: 0<=i<n }", "out[i] = a[i] {dep=nosuch}")
h.expect_error("LoopyError", { "'x'", "more than once" }, lp.make_kernel, "{ [i]: 0<=i<n }",
  "out[i] = a[i] {id=x}\nb[i] = a[i] {id=x}")

-- The tutorial's "A static maximum was not found", word for word.
h.expect_error("StaticValueFindingError",
  "a static maximum was not found for PwAff '[n] -> { [(1)] : n <= 1; [(n)] : n >= 2 }'",
  lp.make_kernel, "{ [i]: 0<=i<n }", [[
    out[i] = 5
    out[0] = 6
    ]])

-- Generating code needs every type.
local untyped = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
for _, f in ipairs({ lp.generate_code, lp.generate_code_v2, lp.generate_header }) do
  h.expect_error("TypeInferenceError", "'a'", f, untyped)
end
-- A value argument that is only read may stay untyped through preprocessing and linearization (as in
-- loopy); generating code still needs its type.
local scaled = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = t*a[i]"), { a = "float32", out = "float32" })
lp.get_one_linearized_kernel(lp.preprocess_kernel(scaled))
h.expect_error("TypeInferenceError", { "could not determine the type of 't'", "add_dtypes" }, lp.generate_code, scaled)
h.expect_error("TypeInferenceError", "'t'", lp.generate_code, lp.preprocess_kernel(scaled))
h.expect_error("TypeInferenceError", "'nosuchfn'", lp.generate_code,
  lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = nosuchfn(a[i])"), { a = "float32" }))

-- Options: unknown keys and bad values.
h.expect_error("ArgumentError", { "set_options", "'no_such'" }, lp.set_options, untyped, { no_such = true })
-- loopy's options for its Python wrapper would do nothing here: they are refused by name.
for _, opt in ipairs({ "no_numpy", "cl_exec_manage_array_events", "trace_assignments" }) do
  h.expect_error("ArgumentError", { "set_options", "'" .. opt .. "'", "Python/PyOpenCL wrapper" }, lp.set_options, untyped,
    { [opt] = true })
end
h.expect_error("ArgumentError", { "make_kernel", "'bogus'" }, lp.make_kernel, "{ [i]: 0<=i<n }", "out[i] = a[i]",
  nil, { bogus = 1 })
h.expect_error("ArgumentError", { "GlobalArg", "'bogus'" }, lp.GlobalArg, "a", "float32", { bogus = 1 })
h.expect_error("ArgumentError", "unknown dtype 'flaot32'", lp.GlobalArg, "a", "flaot32")
h.expect_error("ArgumentError", "neither an lp.*Arg declaration", lp.make_kernel, "{ [i]: 0<=i<n }", "out[i] = a[i]", { 5 })

-- Targets.
h.expect_error("LoopyError", "'fortran'", lp.make_kernel, "{ [i]: 0<=i<n }", "out[i] = a[i]", nil,
  { target = "fortran" })
h.expect_error("LoopyError", "'fortran'", lp.set_options, untyped, { target = "fortran" })

print("kernel_errors: ok")
