-- Checked kernels (issue 34; a sandbox's always, or lp.set_options{checked = true}): every access isl cannot
-- prove inside its array is guarded where it runs, on every executor. Out of bounds, a read gives 0 and a write
-- is skipped, and the call raises an IndexError naming the instruction, the array, the axis and the index. Each
-- reproducer here read or wrote host memory before (another array found at a[648] and overwritten, a far write
-- a SIGSEGV); the results of the accesses inside are compared with plain Lua.
local lp = require("loom")
local h = require("helpers")

local function checked(knl) return lp.set_options(knl, { checked = true }) end

-- A gather through data: in bounds it computes what the unchecked kernel does; index 648 of an 8-element array
-- is refused, and nothing outside `b` was read.
local gather = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = b[idx[i]]  {id=g}",
  { lp.GlobalArg("b", "float64", { shape = "m" }), lp.GlobalArg("idx", "int32", { shape = "n" }),
    lp.GlobalArg("out", "float64", { shape = "n" }), lp.ValueArg("n, m", "int32") })
-- A scatter through data: the write to -5 is skipped, the others land.
local scatter = lp.make_kernel("{ [i]: 0<=i<n }", "out[idx[i]] = 2*i + 1  {id=s}",
  { lp.GlobalArg("idx", "int32", { shape = "n" }), lp.GlobalArg("out", "float64", { shape = "m" }),
    lp.ValueArg("n, m", "int32") })
-- Not affine: i*i of a one-element array (accepted unchecked: a 1-element b was read at 4).
local square = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = b[i*i]  {id=sq}",
  { lp.GlobalArg("b", "float64", { shape = 1 }), lp.GlobalArg("out", "float64", { shape = "n" }), lp.ValueArg("n", "int32") })
-- A guarded branch: where the kernel itself tests the index, the untaken branch reports nothing.
local safe = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = if(idx[i] >= 0, b[idx[i]], -1)  {id=t}",
  { lp.GlobalArg("b", "float64", { shape = "m" }), lp.GlobalArg("idx", "int32", { shape = "n" }),
    lp.GlobalArg("out", "float64", { shape = "n" }), lp.ValueArg("n, m", "int32") })

h.on_each_executor(function(exec, name)
  local b = lp.arange(8, "float64")
  local out = checked(gather)(exec, { b = b, idx = lp.array({ 0, 3, 7 }, "int32"), out = lp.zeros({ 3 }, "float64") })
  h.check_array(out, function(i) return ({ 0, 3, 7 })[i + 1] end, "checked gather in bounds on " .. name)
  h.expect_error("IndexError", { "kernel 'loopy_kernel': instruction 'g' reads b[idx[i]] (array 'b' of shape (m)) out of bounds",
    "index 648 on axis 0" }, checked(gather), exec, { b = b, idx = lp.array({ 0, 648, 7 }, "int32"), out = lp.zeros({ 3 }, "float64") })

  local target = lp.zeros({ 4 }, "float64")
  h.expect_error("IndexError", { "instruction 's' writes out[idx[i]]", "index -5 on axis 0" }, checked(scatter), exec,
    { idx = lp.array({ 1, -5, 3 }, "int32"), out = target })
  h.check_array(target, function(i) return ({ [1] = 1, [3] = 5 })[i] or 0 end, "scatter around the skipped write on " .. name)

  h.expect_error("IndexError", { "instruction 'sq' reads b[i*i] (array 'b' of shape (1))", "index 4 on axis 0" },
    checked(square), exec, { b = lp.zeros({ 1 }, "float64"), out = lp.zeros({ 3 }, "float64") })

  local picked = checked(safe)(exec, { b = b, idx = lp.array({ 2, -1, 5 }, "int32"), out = lp.zeros({ 3 }, "float64") })
  h.check_array(picked, function(i) return ({ 2, -1, 5 })[i + 1] end, "a branch the kernel guards on " .. name)
end)

-- OKL pointers have no extent: in a checked kernel each is as long as the buffer passed for it, and pointer
-- arithmetic is checked the same way (`out[i - 100000000] = 1` crashed the host; `*(out + 3*i)` wrote silently).
local ks = lp.parse_okl([[
  @kernel void poke(const int n, float *out) {
    for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
      out[i - 100000000] = 1;
    }
  }
  @kernel void stride3(const int n, float *out) {
    for (int i = 0; i < n; ++i; @tile(16, @outer, @inner)) {
      *(out + i * 3) = 2;
    }
  }]])
h.on_each_executor(function(exec, name)
  h.expect_error("IndexError", { "kernel 'poke'", "without a shape: the buffer passed for it", "index -99999991" },
    checked(ks.poke), exec, { n = 10, out = lp.zeros({ 10 }, "float32") })
  local out = lp.zeros({ 10 }, "float32")
  h.expect_error("IndexError", { "kernel 'stride3'", "index 12 on axis 0" }, checked(ks.stride3), exec, { n = 5, out = out })
  h.check_array(out, function(i) return i % 3 == 0 and 2 or 0 end, "the writes inside the buffer on " .. name)
  local fits = lp.zeros({ 13 }, "float32")
  checked(ks.stride3)(exec, { n = 5, out = fits })
  h.check_array(fits, function(i) return i % 3 == 0 and 2 or 0 end, "a buffer long enough on " .. name)
end)

-- Accesses isl proves cost nothing: the checked kernel's code is the unchecked one's.
local affine = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
  { lp.GlobalArg("a, out", "float64", { shape = "n" }), lp.ValueArg("n", "int32") })
h.check_equal(lp.generate_code(checked(affine)), lp.generate_code(affine), "code of a kernel with only proven accesses")
h.check_contains((lp.generate_code(checked(gather))), "_loom_violations")

-- Guarding an access does not exempt its instruction from the dependence check: a recurrence whose index a
-- chunk over a parametric length makes non-affine stays refused on g.0 when checked (it ran wrong on PoCL:
-- tools/differential.lua --checked, seed 104 case 75).
do
  local rec = lp.make_kernel("{ [i, j]: 1 <= i < n - 2 and 1 <= j < 9 }", "c[i + 1] = 0.5*c[i + 2] + b[j + 1, i + 1]  {inames=i:j}",
    { lp.GlobalArg("b", "float64", { shape = "2*(n + 9) + 3, 2*(n + 9) + 3" }), lp.GlobalArg("c", "float64", { shape = "2*(n + 9) + 3" }), "..." })
  local par = lp.split_iname(lp.chunk_iname(checked(rec), "i", 4), "i_inner", 8, { outer_tag = "g.0" })
  h.expect_error("DependenceViolationError", { "'insn' reads and writes c", "not affine in its inames" }, lp.generate_code, par)
end

print("checked_accesses: ok")
