-- Lesson 4: transformations and loop axes (docs/tutorial.md, "Introduction to kernel transformations" and
-- "Implementing loop axes"). Each transformation returns a new kernel; every variant below computes the
-- same result as the original, on OpenCL and on the C target.
--
--   build/loom examples/04_transformations.lua
local lp = require("loom")
local queue, cpu = lp.cl.queue {}, lp.c.executor {}

-- Runs `knl` on both executors for each n and checks a[i] == i.
local function check_fill(knl, label, sizes)
  for _, exec in ipairs({ queue, cpu }) do
    for _, n in ipairs(sizes) do
      local a = knl(exec, { a = lp.zeros(n, "float32") })
      for i = 0, n - 1 do assert(a:get(i) == i, string.format("%s: a[%d] = %s for n = %d", label, i, a:get(i), n)) end
    end
  end
  print(label .. ": ok")
end

local fill = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = i", { assumptions = "n>=1" })

-- 1. split_iname: i = i_inner + 16*i_outer; the loop order is advisory (prioritize_loops).
local split = lp.split_iname(fill, "i", 16)
check_fill(lp.prioritize_loops(split, "i_outer,i_inner"), "split, outer first", { 1, 15, 16, 33 })
check_fill(lp.prioritize_loops(split, "i_inner,i_outer"), "split, inner first", { 1, 15, 16, 33 })
assert(fill.inames[1] == "i", "the original kernel is unchanged")

-- 2. Unrolling: with n a multiple of 4 the copies need no guards; without, each checks the bound.
local unrolled = lp.split_iname(fill, "i", 4, { inner_tag = "unr" })
local divisible = lp.assume(unrolled, "n mod 4 = 0")
local code = lp.generate_code(lp.add_dtypes(divisible, { a = "float32" }))
assert(not code:find("if %("), "no conditionals when n mod 4 = 0")
print(code)
check_fill(divisible, "unrolled, n mod 4 = 0", { 4, 12 })
check_fill(unrolled, "unrolled, any n", { 1, 5, 7, 12 })

-- Slabs: the last iteration of i_outer is coded apart, so the bulk loop has no guards.
local slabs = lp.split_iname(fill, "i", 4, { slabs = { 0, 1 }, inner_tag = "unr" })
local slab_code = lp.generate_code(lp.add_dtypes(slabs, { a = "float32" }))
local bulk = slab_code:match("bulk slab.-final slab")
assert(bulk and not bulk:find("if %("), "the bulk slab has no conditionals")
check_fill(slabs, "slabs", { 1, 5, 7, 12 })

-- 3. Parallelization: groups of 128 work items; the grid follows n.
local parallel = lp.split_iname(fill, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
local glob, loc = lp.get_grid_size_upper_bounds(lp.add_dtypes(parallel, { a = "float32" }))
print("groups: " .. glob[1], "work items: " .. loc[1])
check_fill(parallel, "parallel", { 1, 127, 128, 300 })

-- 4. fix_parameters: constant bounds, and n is no longer an argument.
local fixed = lp.fix_parameters(unrolled, { n = 64 })
for _, arg in ipairs(fixed.args) do assert(arg.name ~= "n", "n is fixed") end
local a = fixed(cpu, { a = lp.zeros(64, "float32") })
assert(a:get(63) == 63)
print("fix_parameters: ok")
