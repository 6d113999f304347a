-- Lesson 3: a common problem, "a static maximum was not found". Loom finds array shapes from the accesses;
-- when no single expression bounds them for every value of the parameters, it says so, and an assumption
-- fixes it.
--
--   build/loom examples/03_common_problems.lua
local lp = require("loom")

-- 1. out is accessed at i and at 0. For n >= 2 its length is n, but for n <= 1 it is 1: no single shape.
local ok, err = pcall(lp.make_kernel, "{ [i]: 0<=i<n }", [[
  out[i] = 5
  out[0] = 6
  ]])
assert(not ok and err.kind == "StaticValueFindingError", "expected a StaticValueFindingError")
print(tostring(err))

-- 2. Loom cannot know that n <= 0 makes no sense. Telling it gives out the shape (n).
local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
  out[i] = 5
  out[0] = 6
  ]], nil, { assumptions = "n>=1" })
print(knl)

-- 3. The two writes of out[0] are unordered, so out[0] is 5 or 6; every other element is 5.
local out = knl(lp.c.executor {}, { n = 4, out = lp.zeros(4, "int32") })
assert(out:get(0) == 5 or out:get(0) == 6)
for i = 1, 3 do assert(out:get(i) == 5) end
print(out)
