-- Lesson 2: ordering. Loom, like loopy, is unordered by default: instructions and loop iterations run in any
-- order unless dependencies say otherwise, and dependencies act within the inames two instructions share.
--
--   build/loom examples/02_ordering.lua
local lp = require("loom")

local n = 8
local a = lp.rand({ n, n }, "float32", 1)
local queue = lp.cl.queue {}

-- True when out is 2 * the transpose of a.
local function is_doubled_transpose(out)
  for i = 0, n - 1 do
    for j = 0, n - 1 do
      if out:get(i, j) ~= 2 * a:get(j, i) then return false end
    end
  end
  return true
end

-- 1. Transpose a, then double the result. {id=transpose} names the first instruction and {dep=transpose}
--    makes the second depend on it. out is declared write-only; "..." lets Loom find the other arguments.
local knl = lp.make_kernel(
  "{ [i,j]: 0<=i,j<n }",
  [[
  out[j,i] = a[i,j] {id=transpose}
  out[i,j] = 2*out[i,j]  {dep=transpose}
  ]],
  { lp.GlobalArg("out", { shape = lp.auto, is_input = false }), "..." },
  { name = "transpose_and_dbl" })

-- 2. The dependency shows in the listing, as "dependent : prerequisite".
print(knl:stringify { with_dependencies = true })

-- 3. Both instructions share i and j, so the dependency holds only within one (i, j) iteration: the
--    doubling of out[i,j] runs before the transpose has written it. The result is wrong.
knl = lp.prioritize_loops(knl, "i,j")
print((lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))))
local wrong = knl(queue, { a = a })
print("fused loops give 2*a^T: " .. tostring(is_doubled_transpose(wrong)))
assert(not is_doubled_transpose(wrong))

-- 4. The fix: give the doubling its own loops ii, jj. Every transpose iteration now completes first.
knl = lp.make_kernel(
  "{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }",
  [[
  out[j,i] = a[i,j] {id=transpose}
  out[ii,jj] = 2*out[ii,jj]  {dep=transpose}
  ]],
  { lp.GlobalArg("out", { shape = lp.auto, is_input = false }), "..." })
knl = lp.prioritize_loops(knl, "i,j")
knl = lp.prioritize_loops(knl, "ii,jj")
print((lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))))
assert(is_doubled_transpose(knl(queue, { a = a })), "separate loops on OpenCL")
assert(is_doubled_transpose(knl(lp.c.executor {}, { a = a })), "separate loops on C")
print("separate loops give 2*a^T: true")

-- 5. Loop nesting: a zero fill is correct in either order; prioritize_loops picks j outside i.
local fill = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
fill = lp.prioritize_loops(fill, "j,i")
local code = lp.generate_code(lp.add_dtypes(fill, { a = "float32" }))
print(code)
assert(code:find("for (int j", 1, true) < code:find("for (int i", 1, true), "j is the outer loop")
local target = lp.rand({ n, n }, "float32", 2)
fill(queue, { a = target })
for i = 0, n - 1 do
  for j = 0, n - 1 do assert(target:get(i, j) == 0, "the zero fill writes the array passed in") end
end
print("zero fill: ok")
