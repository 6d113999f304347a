-- What the ported loopy test files share: registering a test under its loopy name, skipping those PENDING on a
-- Loom defect (each with its exact failure, shown on stderr), and loopy's auto_test_vs_ref on every executor.
local lp = require("loom")
local h = require("helpers")

local M = {}

-- Returns test(name, f), which registers a ported test, and run(), which checks that `pending` names only
-- registered tests and then runs the others in order.
function M.suite(pending)
  local tests = {}
  local function test(name, f) tests[#tests + 1] = { name = name, run = f } end
  local function run()
    for name in pairs(pending) do
      local known = false
      for _, t in ipairs(tests) do known = known or t.name == name end
      h.check(known, "PENDING names %s, which is no test here", name)
    end
    for _, t in ipairs(tests) do
      if pending[t.name] then
        io.stderr:write("PENDING ", t.name, ": ", pending[t.name], "\n")
      else
        t.run()
      end
    end
  end
  return test, run
end

-- loopy's lp.auto_test_vs_ref(ref_knl, ctx, knl, ...), once per executor.
function M.auto_test(ref, knl, opts)
  h.on_each_executor(function(exec) lp.auto_test_vs_ref(ref, exec, knl, opts) end)
end

-- A list of names as one sorted, comma-separated string: loopy's frozensets compare as these do.
function M.set_text(list)
  local copy = { table.unpack(list) }
  table.sort(copy)
  return table.concat(copy, ",")
end

-- The instruction `id` of knl.instructions.
function M.instruction(knl, id)
  for _, insn in ipairs(knl.instructions) do
    if insn.id == id then return insn end
  end
  error("no instruction " .. id)
end

-- The temporary `name` of knl.temporaries.
function M.temporary(knl, name)
  for _, t in ipairs(knl.temporaries) do
    if t.name == name then return t end
  end
  error("no temporary " .. name)
end

-- The substitution rules of the listing, by name: "f(x, y) := expression" lines.
function M.substitution_rules(knl)
  local rules = {}
  local section = tostring(knl):match("SUBSTITUTION RULES:\n(.-)%-%-%-") or ""
  for line in section:gmatch("[^\n]+") do
    local name = line:match("^([%w_]+)%(")
    rules[name] = line:match(":= (.*)$")
  end
  return rules
end

return M
