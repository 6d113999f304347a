-- Odd and wrong inputs to the newer transformations and entry points that once crashed, raised an
-- InternalError, named the wrong argument or produced code that did not build or computed wrong results.
-- Each is now a typed error naming the problem, or a correct result.
local lp = require("loom")
local h = require("helpers")

-- Kernel names must be identifiers: anything else made code no compiler accepts.
for _, name in ipairs({ "", "1abc", "a-b", "two words" }) do
  h.expect_error("LoopyError", { "kernel name '" .. name .. "' is not an identifier" }, lp.make_kernel,
    "{ [i]: 0<=i<n }", "out[i] = a[i]", nil, { name = name })
end

local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<8}", [[
  f(x, y) := a[x] * y
  out[i, j] = f(i, j) + f(i, j+1)
  ]], { lp.GlobalArg("a", "float32", { shape = "n" }), "..." })
local tiled = lp.split_iname(knl, "i", 8, { outer_tag = "g.0", inner_tag = "l.0" })

-- Option values of the wrong type name the options table's argument and the option (not a stack slot).
h.expect_error("ArgumentError", { "bad argument #4 to 'precompute'", "option 'storage_axes'" }, lp.precompute, tiled,
  "f", "j", { storage_axes = 5 })
h.expect_error("ArgumentError", { "bad argument #4 to 'precompute'", "option 'precompute_inames'" }, lp.precompute,
  tiled, "f", "j", { precompute_inames = { 1 } })
h.expect_error("ArgumentError", { "bad argument #4 to 'precompute'", "option 'dtype': unknown dtype 'bogus'" },
  lp.precompute, tiled, "f", "j", { dtype = "bogus" })
h.expect_error("ArgumentError", { "bad argument #2 to 'precompute'", "string or list of names expected, got number" },
  lp.precompute, tiled, 5, "j")
h.expect_error("ArgumentError", { "bad argument #3 to 'auto_test_vs_ref'", "option 'dtypes': unknown dtype 'bogus'" },
  lp.auto_test_vs_ref, knl, knl, { parameters = { n = 3 }, dtypes = { a = "bogus" } })

-- A use naming an iname the split replaced once matched nothing, yet a compute instruction reading the stale
-- iname was added (the code did not build). As in loopy, the split's rewrite now applies to it; a name that
-- never was an iname is still refused.
do
  local pre = lp.precompute(tiled, "f(i, j+1)", "j")
  lp.auto_test_vs_ref(knl, pre, { parameters = { n = 20 } })
  h.expect_error("LoopyError", "a use of 'f' given refers to 'q', which is neither an iname nor a variable",
    lp.precompute, tiled, "f(q, j+1)", "j")
end

-- A storage axis named twice made a temporary with one axis per mention.
h.expect_error("LoopyError", "precompute: storage axis 'x' is given more than once", lp.precompute, tiled, "f", "j",
  { storage_axes = { "x", "x" } })

-- An empty dim tag list silently reset the array to the default layout.
h.expect_error("LoopyError", "tag_array_axes: no dim tags given for 'a'", lp.tag_array_axes, tiled, "a", "")
h.expect_error("LoopyError", "tag_array_axes: no dim tags given for 'a'", lp.tag_array_axes, tiled, "a", {})

-- A sep axis of length 0 split the array into nothing: an InternalError when called.
local empty = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<0}", "out[i,j] = 2*a[i,j]",
  { lp.GlobalArg("a, out", "float32", { shape = "n, 0" }), "..." })
h.expect_error("LoopyError", "axis 1 of array 'a' is tagged 'sep' with length 0", lp.tag_array_axes, empty, "a", "c,sep")

-- An outer tree reduction over l.0 around an inner one over l.1: the outer stages ran once per l.1
-- work-item and folded partial sums in three times (loopy: "does not use all local hw axes").
local nested = lp.make_kernel("{[i,j,k]: 0<=i<n and 0<=j<4 and 0<=k<3}", "out[i] = sum(j, sum(k, a[i,j]*k))", nil,
  { silenced_warnings = "write_race(insn)" })
h.expect_error("LoopyError", { "tree reduction over 'j' (l.0)", "does not use local axis l.1 of iname 'k'" },
  lp.generate_code, lp.add_dtypes(lp.tag_inames(nested, { j = "l.0", k = "l.1" }), { a = "float32" }))
local a = h.array_from({ 3, 4 }, "float32", function(i, j) return i * 4 + j end)
h.on_each_executor(function(exec, name)
  local out = lp.tag_inames(nested, { j = "l.0" })(exec, { a = a })
  h.check_array(out, function(i) return 3 * (16 * i + 6) end, "nested sums, outer over l.0 on " .. name)
end)

-- Atomic updates of vector components: OpenCL has no address for them (the build failed); the C executor
-- takes them.
local vec_atomic = lp.tag_inames(lp.tag_array_axes(lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<4}",
  "out[j] = out[j] + a[i,j] {atomic}", { lp.GlobalArg("a", "float32", { shape = "n, 4" }),
    lp.GlobalArg("out", "float32", { shape = "4", for_atomic = true }), "..." }, { silenced_warnings = "write_race(insn)" }),
  "out", "vec"), "j:unr, i:g.0")
h.expect_error("LoopyError", { "atomic assignment 'insn' writes 'out'", "tagged 'vec'" }, vec_atomic, lp.cl.queue {},
  { a = a, out = lp.zeros({ 4 }, "float32") })
local sums = vec_atomic(lp.c.executor {}, { a = a, out = lp.zeros({ 4 }, "float32") })
h.check_array(sums, function(j) return 12 + 3 * j end, "vec atomic sums on the C executor")

-- Variables and inames named like keywords or macros of the target language did not build. Names C reserves
-- are refused where they are given (ir/names.h), those only OpenCL C reserves when OpenCL code is generated.
local function reads(name)
  return lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*" .. name .. "[i]",
    { lp.GlobalArg(name, "float32", { shape = "n" }), "..." })
end
for _, name in ipairs({ "float", "NAN", "restrict" }) do
  h.expect_error("LoopyError", { "make_kernel: argument '" .. name .. "' is reserved in C" }, reads, name)
end
for _, name in ipairs({ "kernel", "uint4" }) do
  h.expect_error("LoopyError", { "'" .. name .. "' is reserved in OpenCL C", "cannot name a variable or iname" },
    reads(name), lp.cl.queue {}, { [name] = a })
end
h.expect_error("LoopyError", "rename_iname: iname 'for' is reserved in C", lp.rename_iname, reads("b"), "i", "for")
-- The preamble's lid and gid are function-like macros: as variable names they work.
local v = h.array_from({ 4 }, "float32", function(i) return i + 1 end)
h.on_each_executor(function(exec, name)
  h.check_array(reads("lid")(exec, { lid = v }), function(i) return 2 * (i + 1) end, "array 'lid' on " .. name)
end)

print("robustness: ok")
