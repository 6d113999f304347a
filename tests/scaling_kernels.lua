-- Kernels whose size grows with one number, shared by tests/correctness/scaling.lua (correctness at the sizes
-- the budgets name) and bench/scaling.lua (times for growing sizes).
local lp = require("loom")

local M = {}

-- out[i] = a[i] + a[i] + ... (n operands): a left-deep chain n levels deep.
function M.sum(n)
  return lp.make_kernel("{ [i]: 0<=i<m }", "out[i] = " .. string.rep("a[i]", n, " + "),
    { lp.GlobalArg("a", "float64", { shape = "m" }), "..." })
end

-- r1(x) := a[x] + 1, r2(x) := r1(x) + 1, ..., out[i] = rn(i): n substitution rules, each using the last.
function M.rules(n)
  local lines = { "r1(x) := a[x] + 1" }
  for r = 2, n do lines[r] = string.format("r%d(x) := r%d(x) + 1", r, r - 1) end
  lines[#lines + 1] = string.format("out[i] = r%d(i)", n)
  return lp.make_kernel("{ [i]: 0<=i<m }", table.concat(lines, "\n"),
    { lp.GlobalArg("a", "float64", { shape = "m" }), "..." })
end

-- out[i, s] = a[i] + s for s = 0 .. n-1: n statements in one loop.
function M.statements(n)
  local lines = {}
  for s = 1, n do lines[s] = string.format("out[i, %d] = a[i] + %d", s - 1, s - 1) end
  return lp.make_kernel("{ [i]: 0<=i<m }", table.concat(lines, "\n"),
    { lp.GlobalArg("a", "float64", { shape = "m" }), lp.GlobalArg("out", "float64", { shape = { "m", n } }), "..." })
end

-- out1[i] = a[i] + 1, ..., outn[i] = a[i] + n: n statements, each writing an array of its own whose shape is
-- found from its accesses (finding n shapes once scanned all n statements for each).
function M.outputs(n)
  local lines = {}
  for s = 1, n do lines[s] = string.format("out%d[i] = a[i] + %d", s, s) end
  return lp.make_kernel("{ [i]: 0<=i<m }", table.concat(lines, "\n"),
    { lp.GlobalArg("a", "float64", { shape = "m" }), "..." })
end

return M
