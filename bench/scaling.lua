-- Seconds make_kernel + generate_code take as kernels grow: operands of one sum, chained substitution rules,
-- statements in one loop (tests/scaling_kernels.lua builds them). Near-linear growth is the goal; the budgets
-- are 10,000 operands or 2,000 statements in under a second.
--
--   LUA_PATH='tests/?.lua;;' build/loom bench/scaling.lua
local lp = require("loom")
local K = require("scaling_kernels")

local function seconds(f)
  local start = os.clock()
  f()
  return os.clock() - start
end

local series = {
  { "operands", K.sum, { 10, 40, 100, 1000, 10000 } },
  { "substitution rules", K.rules, { 10, 40, 100, 300 } },
  { "statements", K.statements, { 100, 200, 400, 800, 1600, 2000 } },
  { "output arrays", K.outputs, { 100, 200, 400, 800, 1600, 2000 } },
}
for _, s in ipairs(series) do
  for _, n in ipairs(s[3]) do
    local t = seconds(function() lp.generate_code(s[2](n)) end)
    print(string.format("%-20s %6d  %8.3f s", s[1], n, t))
  end
end
