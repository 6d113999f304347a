-- Lesson 5: declaring arguments, array layouts and temporaries (docs/tutorial.md, "Specifying arguments" and
-- "Precomputation, storage and temporaries"). Results are checked against plain Lua on both executors.
--
--   build/loom examples/05_arguments_and_temporaries.lua
local lp = require("loom")
local executors = { lp.cl.queue {}, lp.c.executor {} }

local function close(x, y) return math.abs(x - y) <= 1e-5 * (1 + math.abs(y)) end

-- 1. Declared arguments: a is column-major (order F), w is in constant memory, s a scalar, out's shape is found.
local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = s * a[i,j] + w[j]", {
  lp.GlobalArg("a", "float32", { shape = "n, m", order = "F" }),
  lp.ConstantArg("w", "float32", { shape = "m" }),
  lp.ValueArg("s", "float32"),
  lp.GlobalArg("out", "float32", { shape = lp.auto }),
  "...",
})
print(knl)
local n, m = 5, 3
-- A column-major n x m array is the transpose of a row-major m x n one.
local a = lp.rand({ m, n }, "float32", 1):transpose()
local w = lp.rand({ m }, "float32", 2)
for _, exec in ipairs(executors) do
  local out = knl(exec, { a = a, w = w, s = 2 })
  for i = 0, n - 1 do
    for j = 0, m - 1 do assert(close(out:get(i, j), 2 * a:get(i, j) + w:get(j)), "declared arguments") end
  end
end
print("declared arguments: ok")

-- 2. A private temporary whose type is inferred (float32 from a).
local temps = lp.make_kernel("{ [i]: 0<=i<n }", [[
  <> a_temp = sin(a[i])
  out1[i] = a_temp
  out2[i] = sqrt(1-a_temp*a_temp)
]])
local x = lp.rand({ 20 }, "float32", 3)
for _, exec in ipairs(executors) do
  local out1, out2 = temps(exec, { a = x })
  assert(out1.dtype == "float32" and out2.dtype == "float32", "inferred float32")
  for i = 0, 19 do
    assert(close(out1:get(i), math.sin(x:get(i))) and close(out2:get(i), math.cos(x:get(i))), "temporaries")
  end
end
print("private temporary: ok")

-- 3. A temporary in local memory, shared by the 16 work items of a group, with the barrier Loom inserts.
local loc = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}", [[
  <> a_temp[i_inner] = a[16*i_outer + i_inner] {priority=10}
  out[16*i_outer + i_inner] = sum(k, a_temp[k])
]])
loc = lp.tag_inames(loc, { i_outer = "g.0", i_inner = "l.0" })
loc = lp.set_temporary_address_space(loc, "a_temp", "local")
local code = lp.generate_code(lp.add_dtypes(loc, { a = "float32" }))
assert(code:find("__local float a_temp%[16%]") and code:find("barrier%(CLK_LOCAL_MEM_FENCE%)"))
local v = lp.rand({ 64 }, "float32", 4)
for _, exec in ipairs(executors) do
  local out = loc(exec, { a = v })
  for g = 0, 3 do
    local s = 0
    for k = 0, 15 do s = s + v:get(16 * g + k) end
    for l = 0, 15 do assert(close(out:get(16 * g + l), s), "local temporary") end
  end
end
print("local temporary: ok")
