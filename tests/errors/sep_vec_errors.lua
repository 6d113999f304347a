-- Misuse of the `sep` and `vec` axis tags and of lp.tag_array_axes: LoopyErrors when the kernel is made, the
-- tags are applied or its code is generated, ArgumentErrors at call time.
local lp = require("loom")
local h = require("helpers")

local DOMAIN = "{ [i,k]: 0<=i<n and 0<=k<4 }"

local function kernel_with(insn, ...)
  return lp.make_kernel(DOMAIN, insn, { ..., "..." })
end

local function arg(name, shape, tags) return lp.GlobalArg(name, "float32", { shape = shape, dim_tags = tags }) end

-- Tags that make no layout.
h.expect_error("LoopyError", { "axis 1 of array 'a' is tagged 'vec'", "does not have constant length (m)" }, kernel_with,
  "out[i,k] = a[i,k]", arg("a", "n, m", "c,vec"))
h.expect_error("LoopyError", { "axis 1 of array 'a' is tagged 'vec' with length 5", "2, 3, 4, 8 or 16" }, kernel_with,
  "out[i,k] = a[i,k]", arg("a", "n, 5", "c,vec"))
h.expect_error("LoopyError", "may only have one axis tagged 'vec'", kernel_with, "out[i,k] = a[i,k,0]",
  arg("a", "n, 4, 2", "c,vec,vec"))
h.expect_error("LoopyError", { "axis 0 of array 'a' is tagged 'sep'", "does not have constant length (n)" }, kernel_with,
  "out[i,k] = a[i,k]", arg("a", "n, 4", "sep,c"))
h.expect_error("LoopyError", { "temporary 't'", "only arguments may be split" }, lp.make_kernel, DOMAIN,
  "t[0,k] = 1", { lp.TemporaryVariable("t", "float32", { shape = "2, 4", dim_tags = "sep,c" }), "..." })
h.expect_error("LoopyError", { "'a'", "complex entries" }, lp.make_kernel, DOMAIN, "out[i,k] = a[i,k]",
  { lp.GlobalArg("a", "complex64", { shape = "n, 4", dim_tags = "c,vec" }), "..." })

-- Subscripts along sep and vec axes must be constants once unrolled loops have their values.
local sep = kernel_with("out[i,k] = a[k,i]", arg("a", "4, n", "sep,c"))
h.expect_error("LoopyError", { "index the array 'a' along axis 0 (tagged 'sep')", "not a compile-time constant",
  "unroll the iname(s) 'k'" }, lp.generate_code, sep)
h.expect_error("LoopyError", { "along axis 0 (tagged 'sep')", "unroll the iname(s) 'k'" }, lp.generate_code,
  lp.set_options(sep, { target = "c" }))
local vec = kernel_with("out[i,k] = a[i,k]", arg("a", "n, 4", "c,vec"))
h.expect_error("LoopyError", { "index the array 'a' along axis 1 (tagged 'vec')", "unroll the iname(s) 'k'" },
  lp.generate_code, vec)
-- Constant indices past a vec or sep axis: the bounds check of every access names them.
h.expect_error("LoopyError", { "accesses 'a[i, 4]' out of the bounds of array 'a' (shape (n, 4)): index 4 on axis 1" },
  lp.generate_code, kernel_with("out[i,k] = a[i,4]", arg("a", "n, 4", "c,vec")))
h.expect_error("LoopyError", { "accesses 'a[2, i]' out of the bounds of array 'a' (shape (2, n)): index 2 on axis 0" },
  lp.generate_code, kernel_with("out[i,k] = a[2,i]", arg("a", "2, n", "sep,c")))
-- Vectors are addressed whole: a fixed stride must be a multiple of the vector size (OpenCL).
h.expect_error("LoopyError", { "array 'a' has a stride or offset of 6", "not a multiple of the size of its vectors (4)" },
  lp.generate_code, kernel_with("out[i,k] = a[i,0]", arg("a", "n, 4", "stride:6,vec")))

h.expect_error("LoopyError", { "iname 'k' is tagged 'vec'", "no constant bound" }, lp.generate_code,
  lp.tag_inames(lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i,k] = 2*a[i,k]",
    { arg("a,out", "n, m"), "..." }), { k = "vec" }))

-- A reduction over a vec iname (loopy allows only local parallelism in reductions).
h.expect_error("LoopyError", { "over iname 'k' tagged 'vec'", "only sequential reductions" }, lp.generate_code,
  lp.tag_inames(kernel_with("out[i] = sum(k, a[i,k])", arg("a", "n, 4", "c,vec")), { k = "vec" }))

-- privatize_temporaries_with_inames (as vec loops apply it).
local private = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }", { "<> t = a[i,j] {id=w}", "out[i] = t {dep=w, inames=i}" },
  { arg("a", "n, 3"), "..." })
h.expect_error("LoopyError", { "Instruction '", "required iname(s) 'j'", "not previously within the iname(s)" },
  lp.privatize_temporaries_with_inames, private, "j")
h.expect_error("LoopyError", "no iname named 'q'", lp.privatize_temporaries_with_inames, private, "q")
h.expect_error("LoopyError", "'z' is not used in kernel", lp.privatize_temporaries_with_inames, private, "j", "z")
local two_writers = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }",
  { "<> t = a[i,j] {id=w}", "t = 1 {id=v, dep=w, inames=i}", "out[i,j] = t {dep=v}" }, { arg("a", "n, 3"), "..." })
h.expect_error("LoopyError", { "instruction 'v' requires adding indices for privatizing var 't' on iname(s) 'i'",
  "previous instructions required different inames 'i, j'" }, lp.privatize_temporaries_with_inames, two_writers, "i,j")

-- tag_array_axes.
local plain = kernel_with("out[i,k] = a[i,k]", arg("a", "n, 4"))
h.expect_error("LoopyError", "tag_array_axes: no array named 'b'", lp.tag_array_axes, plain, "b", "c,c")
h.expect_error("LoopyError", "tag_array_axes: no array named 'n'", lp.tag_array_axes, plain, "n", "c")
h.expect_error("LoopyError", { "'a'", "2 axes but 3 dim tags" }, lp.tag_array_axes, plain, "a", "c,c,vec")
h.expect_error("LoopyError", "invalid dim tag 'vector'", lp.tag_array_axes, plain, "a", { "c", "vector" })
h.expect_error("LoopyError", "does not have constant length (n)", lp.tag_array_axes, plain, "a", "vec,c")

-- At call time the caller passes the full array of a sep argument.
h.on_each_executor(function(exec)
  local knl = lp.tag_inames(kernel_with("out[i,k] = a[k,i]", arg("a", "4, n", "sep,c")), { k = "unr" })
  h.expect_error("ArgumentError", { "argument 'a'", "expected shape (4, 3), got (3,)" }, knl, exec,
    { a = lp.zeros({ 3 }, "float32"), n = 3 })
  h.expect_error("ArgumentError", { "argument 'a'", "expected a float32 array" }, knl, exec,
    { a = lp.zeros({ 4, 3 }, "float64") })
  -- or its separate arrays, one per index along the sep axis.
  local three = { lp.zeros({ 3 }, "float32"), lp.zeros({ 3 }, "float32"), lp.zeros({ 3 }, "float32") }
  h.expect_error("ArgumentError", { "argument 'a'", "a list of 4 separate arrays along sep axis 0" }, knl, exec,
    { a = three })
  three[4] = "x"
  h.expect_error("ArgumentError", { "argument 'a'", "holds a string, not a loom.Array" }, knl, exec, { a = three })
  three[4] = lp.zeros({ 2 }, "float32")
  h.expect_error("ArgumentError", { "argument 'a_s3'", "expected shape (3,), got (2,)" }, knl, exec, { a = three })
end)
