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

-- loopy's lp.auto_test_vs_ref(ref_knl, ctx, knl, ...), once per executor. Its timing stops after loopy's first
-- round (timing_seconds = 0) unless the test asks for more: the suite tests results, and loopy's 0.3 s of
-- timed runs per call would double its time.
function M.auto_test(ref, knl, opts)
  local with = { timing_seconds = 0 }
  for k, v in pairs(opts or {}) do with[k] = v end
  h.on_each_executor(function(exec) lp.auto_test_vs_ref(ref, exec, knl, with) end)
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

-- loopy's kernel.parents_per_domain(), read from the listing's DOMAINS section, which indents a domain two
-- spaces under its parent: a list with, per domain, the 0-based index of its parent, or false for a root.
function M.parents_per_domain(knl)
  local section = tostring(knl):match("DOMAINS:\n(.-)%-%-%-")
  h.check(section ~= nil, "no DOMAINS section in the listing")
  local parents, open = {}, {} -- open[depth + 1]: the index of the last domain seen at that depth
  for line in section:gmatch("[^\n]+") do
    local depth = #line:match("^( *)") // 2
    local index = #parents
    parents[index + 1] = depth > 0 and open[depth] or false
    open[depth + 1] = index
  end
  return parents
end

return M
