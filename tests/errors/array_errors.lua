-- Mistakes with arrays: arrays passed at call time that do not match the declared dtype, shape or strides
-- (ArgumentError, on both executors), dim tags and layout options that make no layout (LoopyError), temporaries
-- whose size is not a constant (StaticValueFindingError), and misuse of initializers and read_only.
local lp = require("loom")
local h = require("helpers")

local DOMAIN = "{ [i,j]: 0<=i<n and 0<=j<m }"

local function kernel_with(decl, insn)
  return lp.make_kernel(DOMAIN, insn or "out[i,j] = 2*a[i,j]", { decl, "..." })
end

-- Call time.
do
  local fortran = kernel_with(lp.GlobalArg("a", "float32", { shape = "n, m", order = "F" }))
  local writes_f = kernel_with(lp.GlobalArg("b", "float32", { shape = "n, m", order = "F" }), "b[i,j] = i + j")
  local c_out = lp.make_kernel(DOMAIN, "out[i,j] = a[i,j]")
  local f_array = lp.zeros({ 3, 4 }, "float32", "F")
  h.on_each_executor(function(exec)
    h.expect_error("ArgumentError", { "'a'", "expected a float32 array, got float64" }, fortran, exec,
      { a = lp.zeros({ 3, 4 }, "float64", "F") })
    h.expect_error("ArgumentError", { "'a'", "expected shape (3, 5), got (3, 4)" }, fortran, exec,
      { a = f_array, m = 5 })
    h.expect_error("ArgumentError", { "strides mismatch on argument 'a'", "got (4, 1), expected (1, 3)" }, fortran,
      exec, { a = lp.zeros({ 3, 4 }, "float32") })
    h.expect_error("ArgumentError", { "strides mismatch on argument 'b'", "got (4, 1), expected (1, 3)" }, writes_f,
      exec, { b = lp.zeros({ 3, 4 }, "float32") })
    -- A C-order output cannot be a Fortran-order array: the kernel writes its memory in place.
    h.expect_error("ArgumentError", { "'out'", "contiguous" }, c_out, exec,
      { a = lp.zeros({ 3, 4 }, "float32"), out = f_array })
  end)
end

-- Dim tags and layout options.
local function expect_layout_error(texts, decl)
  h.expect_error("LoopyError", texts, kernel_with, decl)
end

expect_layout_error({ "invalid dim tag 'x'", "'a'" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "c,x" }))
expect_layout_error("invalid dim tag 'N0:c'", lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "N0:c,N1" }))
expect_layout_error({ "'a'", "2 axes but 3 dim tags" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "c,c,c" }))
expect_layout_error({ "'a'", "2 axes but 1 dim tags" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "c" }))
expect_layout_error({ "'a'", "mixes c/f" }, lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "N0,c" }))
expect_layout_error({ "'a'", "mixes c/f" }, lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "N0,stride:4" }))
expect_layout_error({ "'a'", "N1 is given to more than one axis" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "N1,N1" }))
expect_layout_error({ "'a'", "not contiguous" }, lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "N0,N2" }))
expect_layout_error({ "'a'", "axis 1", "tagged 'vec'", "does not have constant length (m)" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "c,vec" }))
expect_layout_error({ "'a'", "axis 0", "tagged 'sep'", "does not have constant length (n)" },
  lp.GlobalArg("a", "float32", { shape = "n, m", dim_tags = "sep,c" }))
expect_layout_error({ "'a'", "only one of order, dim_tags and strides" },
  lp.GlobalArg("a", "float32", { shape = "n, m", order = "F", dim_tags = "c,c" }))
expect_layout_error({ "'a'", "only one of order, dim_tags and strides" },
  lp.GlobalArg("a", "float32", { shape = "n, m", strides = "1, n", dim_tags = "c,c" }))
expect_layout_error({ "order of array 'a'", "\"X\"" }, lp.GlobalArg("a", "float32", { shape = "n, m", order = "X" }))
h.expect_error("LoopyError", "default_order", lp.make_kernel, DOMAIN, "out[i,j] = a[i,j]", nil, { default_order = "K" })
h.expect_error("ArgumentError", { "alignment of 'a'", "power of two" }, kernel_with,
  lp.GlobalArg("a", "float32", { shape = "n, m", alignment = 12 }))
h.expect_error("ArgumentError", { "offset of 'a'" }, kernel_with,
  lp.GlobalArg("a", "float32", { shape = "n, m", offset = 1.5 }))

-- Temporaries need a constant size, but for private arrays of the default layout, which may have one in the
-- parameters (loopy's variable-size temporaries, C99 variable-length arrays; OpenCL C has none, and its
-- compiler refuses them: tests/correctness/prefetch.lua).
do
  local function declared(opts)
    local k = lp.make_kernel("{ [i]: 0<=i<n }", { "t[i] = a[i]  {id=w}", "out[i] = t[i]  {dep=w}" },
      { lp.TemporaryVariable("t", "float32", opts), "..." })
    return lp.add_dtypes(k, { a = "float32" })
  end
  h.expect_error("StaticValueFindingError", { "temporary 't'", "constant size", "(n)", "only a private array" },
    lp.generate_code, declared({ shape = "n", address_space = "local" }))
  h.expect_error("StaticValueFindingError", { "temporary 't'", "constant size", "(n)" }, lp.generate_code,
    declared({ shape = "n", address_space = "private", dim_tags = "stride:2" }))
  h.check_contains(lp.generate_code(declared({ shape = "n" })), "float t[n];")
  local unbounded = lp.make_kernel("{ [i]: 0<=i<n }", { "<> t[i] = a[i]", "out[i] = t[i]" })
  h.check_contains(lp.generate_code(lp.add_dtypes(unbounded, { a = "float32" })), "float t[n];")
  -- Once the parameter is fixed, the size is known.
  local fixed = lp.fix_parameters(lp.add_dtypes(unbounded, { a = "float32" }), { n = 6 })
  h.check(lp.generate_code(fixed):find("float t[6];", 1, true), "fixed parameter gives a constant size")
end

-- Initializers and read_only.
do
  local function with_table(opts, insn)
    return lp.make_kernel("{ [i]: 0<=i<4 }", insn or "out[i] = tab[i]",
      { lp.TemporaryVariable("tab", "int32", opts), "..." })
  end
  h.expect_error("LoopyError", { "'tab'", "initializer", "read_only" }, with_table, { initializer = { 1, 2, 3, 4 } })
  h.expect_error("LoopyError", { "'tab'", "read_only", "needs an initializer" }, with_table,
    { shape = 4, read_only = true })
  h.expect_error("LoopyError", { "initializer of 'tab'", "3 values", "holds 4" }, with_table,
    { shape = 4, initializer = { 1, 2, 3 }, read_only = true })
  h.expect_error("LoopyError", { "writes read-only temporary 'tab'" }, with_table,
    { initializer = { 1, 2, 3, 4 }, read_only = true }, "tab[i] = 2  {id=w}\nout[i] = tab[i]  {dep=w}")
  h.expect_error("LoopyError", { "'tab'", "local memory cannot be initialized" }, with_table,
    { initializer = { 1, 2, 3, 4 }, read_only = true, address_space = "local" })
  -- On the C target, as in loopy, a local temporary is an ordinary array, so an initialized one is a table;
  -- generating OpenCL code for that kernel is still refused.
  local on_c = lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = tab[i]", { lp.TemporaryVariable("tab", "int32",
    { initializer = { 1, 2, 3, 4 }, read_only = true, address_space = "local" }), "..." }, { target = "c" })
  h.expect_error("LoopyError", { "'tab'", "local memory cannot be initialized on opencl" }, lp.generate_code,
    lp.set_options(on_c, { target = "opencl" }))
  h.check(lp.generate_code(on_c):find("static int const tab[4] = { 1, 2, 3, 4 };", 1, true), "C table:\n%s",
    lp.generate_code(on_c))
  h.check_array(on_c(lp.c.executor(), {}), function(i) return i + 1 end, "local table on the C executor")
  h.expect_error("LoopyError", { "argument 'a'", "only temporaries" }, lp.make_kernel, "{ [i]: 0<=i<4 }",
    "out[i] = a[i]", { lp.GlobalArg("a", "int32", { initializer = { 1, 2, 3, 4 }, read_only = true }), "..." })
  h.expect_error("ArgumentError", { "initializer of 'tab'", "declare the dtype" }, lp.make_kernel, "{ [i]: 0<=i<4 }",
    "out[i] = tab[i]", { lp.TemporaryVariable("tab", { initializer = { 1, 2, 3, 4 }, read_only = true }), "..." })
  h.expect_error("ArgumentError", "ragged", with_table, { initializer = { { 1, 2 }, { 3 } }, read_only = true })
  h.expect_error("ArgumentError", "lists of numbers of one shape", with_table,
    { initializer = { { 1, 2 }, { 3, { 4 } } }, read_only = true })
end

print("array_errors: ok")
