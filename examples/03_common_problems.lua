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

-- 3. The two writes of out[0] are unordered: which one wins would be the linearizer's choice, so running the
-- kernel is a VariableAccessNotOrdered error (loopy's check_variable_access_ordered).
local ran, unordered = pcall(knl, lp.c.executor {}, { n = 4, out = lp.zeros(4, "int32") })
assert(not ran and unordered.kind == "VariableAccessNotOrdered", "expected a VariableAccessNotOrdered")
print(unordered.kind)

-- 4. A dependency orders them: out[0] is 6, every other element 5.
knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
  out[i] = 5  {id=fill}
  out[0] = 6  {dep=fill}
  ]], nil, { assumptions = "n>=1" })
local out = knl(lp.c.executor {}, { n = 4, out = lp.zeros(4, "int32") })
assert(out:get(0) == 6)
for i = 1, 3 do assert(out:get(i) == 5) end
print(out)
