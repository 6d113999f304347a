-- Misuse of linear subscripts (a[[e]]) and of arguments without a shape (lp.none): each a typed error that
-- names the array and the problem.
local lp = require("loom")
local h = require("helpers")

local DOMAIN = "{ [i]: 0<=i<n }"

-- Syntax.
h.expect_error("ParseError", "unclosed '[' in instruction 'a[[i] = 1'", lp.make_kernel, DOMAIN, "a[[i] = 1")
h.expect_error("ParseError", "unexpected token ',' in instruction 'a[[i, i]] = 1'", lp.make_kernel, DOMAIN, "a[[i, i]] = 1")

-- lp.auto cannot find a shape from a linear subscript (as loopy), nor from a non-affine index of several axes.
h.expect_error("LoopyError", { "cannot find the shape of 'a'", "linear subscript 'a[[i*n + i]]'", "lp.none" },
  lp.make_kernel, DOMAIN, "a[[i*n + i]] = 1")
h.expect_error("StaticValueFindingError", { "cannot find the shape of 'a'", "'i*i'", "declare its shape" },
  lp.make_kernel, DOMAIN, "out[i] = a[i*i, i]")

-- Only array arguments can be declared without a shape, and then without a layout of several axes.
h.expect_error("ArgumentError", "only array arguments can be declared without a shape", lp.make_kernel, DOMAIN,
  "out[i] = t", { lp.TemporaryVariable("t", "float32", { shape = lp.none }), "..." })
h.expect_error("ArgumentError", "only array arguments can be declared without a shape", lp.make_kernel, DOMAIN,
  "out[i] = s", { lp.ValueArg("s", "float32", { shape = lp.none }), "..." })
h.expect_error("LoopyError", { "array 'a' has no shape (lp.none)", "one contiguous axis" }, lp.make_kernel, DOMAIN,
  "out[i] = a[i]", { lp.GlobalArg("a", "float32", { shape = lp.none, dim_tags = "c,c" }), "..." })
-- Fixed strides give it axes (loopy's shape=None with strides), an index for each.
h.expect_error("LoopyError", { "'a' has 2 axes but is indexed with 1 indices in instruction 'insn'" }, lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = a[i]", { lp.GlobalArg("a", "float32", { strides = { 3, 1 } }), "..." }))
h.expect_error("LoopyError", { "add_prefetch: 'a' has no shape (lp.none)" }, lp.add_prefetch,
  lp.make_kernel(DOMAIN, "out[i] = a[i, 0]", { lp.GlobalArg("a", "float32", { strides = { 3, 1 } }), "..." }), "a", "i")

-- Indexing: one index into the storage, an integer.
local no_shape = { lp.GlobalArg("a", "float32", { shape = lp.none }), "..." }
h.expect_error("LoopyError", { "array 'a' has no shape", "only one index", "'a[i, i]' has 2" }, lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = a[i, i]", no_shape))
h.expect_error("LoopyError", { "index '0.5*i' of 'a[0.5*i]' is a float", "array indices must be integers" }, lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = a[0.5*i]", no_shape))
h.expect_error("LoopyError", { "the linear subscript 'a[[i]]'", "sep or vec axes" }, lp.generate_code,
  lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = a[[i]]", { lp.GlobalArg("a", "float32", { shape = "2, 4", dim_tags = "sep,c" }), "..." }))

-- So do its dim tags, given to tag_array_axes as in a declaration (found by fuzz_pipeline on the lent machine:
-- `c` or `f` on an array without a shape computed strides from the extents it lacks, a crash): one contiguous
-- axis, or fixed strides; `sep` and `vec` need an extent (a declaration dropped them silently before).
h.expect_error("LoopyError", { "array 'a' has no shape (lp.none)", "one contiguous axis" }, lp.make_kernel, DOMAIN,
  "out[i] = a[i]", { lp.GlobalArg("a", "float32", { shape = lp.none, dim_tags = "sep" }), "..." })
for _, tags in ipairs({ "c,c", "sep", "vec" }) do
  h.expect_error("LoopyError", { "array 'a' has no shape (lp.none)", "one contiguous axis" }, lp.tag_array_axes,
    lp.make_kernel(DOMAIN, "out[i] = 2*a[i]", no_shape), "a", tags)
end
for _, case in ipairs({ { "c", "a[i]" }, { "f", "a[i]" }, { "stride:2", "a[2 * i]" } }) do
  local tagged = lp.tag_array_axes(lp.make_kernel(DOMAIN, "out[i] = 2*a[i]", no_shape), "a", case[1])
  h.check_contains(lp.generate_code(tagged), "out[i] = 2.0f * " .. case[2])
end
-- lp.auto finds no shape for an index isl cannot follow (the fuzzer's kernel).
local divided = lp.tag_array_axes(lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<16 }", "out[i // m] = a[i]"),
  { a = "float32", m = "int32" }), "out", "f")
h.check_contains(lp.generate_code(divided), "out[loopy_floor_div_int32(i, m)] = a[i];")
local twice = lp.tag_array_axes(lp.make_kernel(DOMAIN, "out[i] = 2*a[i]",
  { lp.GlobalArg("a", "float32", { shape = lp.none }), lp.GlobalArg("out", "float32", { shape = "n" }), "..." }), "a", "c")
local data = lp.rand(8, "float32", 1)
h.on_each_executor(function(exec, name)
  h.check_array(twice(exec, { a = data, n = 8 }), function(i) return 2 * data:get(i) end,
    name .. ": array without a shape, tagged c")
end)

-- Transformations that need the axes of an array refuse one without them.
h.expect_error("LoopyError", { "add_prefetch: 'a' has no shape (lp.none)" }, lp.add_prefetch,
  lp.make_kernel(DOMAIN, "out[i] = a[i]", no_shape), "a", "i")
h.expect_error("LoopyError", { "add_prefetch: 'a' is indexed with a linear subscript" }, lp.add_prefetch,
  lp.make_kernel(DOMAIN, "out[i] = a[[i]]", { lp.GlobalArg("a", "float32", { shape = "n" }), "..." }), "a", "i")
h.expect_error("LoopyError", { "cannot add axes to 't'", "linear subscript 't[[k]]'" }, lp.privatize_temporaries_with_inames,
  lp.make_kernel("{ [i,k]: 0<=i<3 and 0<=k<4 }", { "t[[k]] = i + k", "out[i, k] = t[[k]]" },
    { lp.TemporaryVariable("t", "int32", { shape = 4 }), "..." }), "i")

-- Call time: the array must be passed, with the dtype declared, and contiguous where the kernel writes it.
local reads = lp.make_kernel(DOMAIN, "out[i] = 2*a[i]", no_shape)
local writes = lp.make_kernel(DOMAIN, "a[i] = 2", { lp.GlobalArg("a", "float32", { shape = lp.none }), lp.ValueArg("n", "int32") })
h.on_each_executor(function(exec)
  h.expect_error("ArgumentError", { "argument 'a' has no shape (lp.none), so it cannot be allocated" }, writes, exec,
    { n = 3 })
  h.expect_error("ArgumentError", { "'a'", "expected a float32 array, got float64" }, reads, exec,
    { a = lp.zeros(4, "float64"), n = 4 })
  h.expect_error("ArgumentError", { "argument 'a' is written by the kernel and must be a contiguous array" }, writes,
    exec, { a = lp.zeros({ 3, 3 }, "float32"):transpose(), n = 3 })
end)

-- auto_test_vs_ref makes random data from the shapes: it cannot for an argument without one.
local ref = lp.make_kernel(DOMAIN, "out[i] = 2*a[i]", { lp.GlobalArg("a", "float32", { shape = lp.none }), "..." })
h.expect_error("LoopyError", { "argument 'a' has no shape (lp.none), so no test data can be made" },
  lp.auto_test_vs_ref, ref, ref, { parameters = { n = 4 } })
