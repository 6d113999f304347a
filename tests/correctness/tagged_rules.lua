-- Tagged uses of substitution rules (loopy's `g$two(x)`) and expand_subst with a stack match, which expands the
-- uses selected by the uses they are nested in. Every variant computes what the plain rules compute: outputs
-- are compared with a plain-Lua evaluation of the rules, on both executors.
local lp = require("loom")
local h = require("helpers")
local port = require("loopy_port")

local N = 9

-- loopy's test_complicated_subst, writing an output instead of the array the rules read.
local function kernel()
  return lp.make_kernel("{[i]: 0<=i<n}", [[
    f(x) := x*a[x]
    g(x) := 12 + f(x)
    h(x) := 1 + g(x) + 20*g$two(x)

    out[i] = h$one(i) * h$two(i)
    ]], { lp.GlobalArg("a", "float64", { shape = "n" }), "..." })
end

local a = lp.rand({ N }, "float64", 4)
local function g(x) return 12 + x * a:get(x) end
local function rule_h(x) return 1 + g(x) + 20 * g(x) end
local function check_runs(knl, what)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return rule_h(i) * rule_h(i) end, what .. " on " .. name,
      { rtol = 1e-12 })
  end)
end

-- The tags are part of the uses as written.
local knl = kernel()
h.check_contains(tostring(knl), "out[i] = h$one(i)*h$two(i)")
h.check_equal(port.substitution_rules(knl).h, "1 + g(x) + 20*g$two(x)", "h as written")
check_runs(knl, "unexpanded")

-- Rules as a table of expressions by name, and the instruction, after expand_subst(knl, within).
local function expanded(within)
  local k = lp.expand_subst(knl, within)
  return port.substitution_rules(k), tostring(k):match("(out%[i%] = .-)  {id=insn}"), k
end

-- Inside the tag-two use of h, the tag-two use of g (and f within it) is expanded: h's expression changes
-- for that use only, which becomes a use of the new rule h_0; h$one keeps h.
do
  local rules, insn, k = expanded("... > id:h and tag:two > id:g and tag:two")
  h.check_equal(port.set_text((function() local t = {} for n in pairs(rules) do t[#t + 1] = n end return t end)()),
    "f,g,h,h_0", "rules")
  h.check_equal(rules.h, "1 + g(x) + 20*g$two(x)", "h kept")
  h.check_equal(rules.h_0, "1 + g(x) + 20*(12 + x*a[x])", "h for h$two")
  h.check_equal(insn, "out[i] = h$one(i)*h_0$two(i)", "the instruction")
  check_runs(k, "tag-two g in tag-two h")
end

-- A match that ends with `$` expands only uses the stack ends at: g everywhere, but not f inside it. Every use
-- of h then has the same new expression, which keeps the name h (as loopy names it); g is no longer used.
do
  local rules, insn, k = expanded("... > id:g $")
  h.check_equal(rules.g, nil, "g dropped")
  h.check_equal(rules.h, "1 + 12 + f(x) + 20*(12 + f(x))", "h")
  h.check_equal(rules.f, "x*a[x]", "f kept")
  h.check_equal(insn, "out[i] = h$one(i)*h$two(i)", "the instruction")
  check_runs(k, "g $")
end

-- Without `$` a match also selects every use nested in the ones it names: here all of h$one.
do
  local rules, insn, k = expanded("... > tag:one")
  h.check_equal(insn, "out[i] = (1 + 12 + i*a[i] + 20*(12 + i*a[i]))*h$two(i)", "h$one expanded")
  h.check(rules.h and rules.g and rules.f, "the rules h$two uses stay")
  check_runs(k, "tag:one")
end

-- One match expression alone (the instruction) selects every use in the instructions it matches; a match of
-- no instruction expands nothing and returns the kernel as it was.
do
  local rules, insn, k = expanded("id:insn*")
  h.check(next(rules) == nil, "no rules left")
  check_runs(k, "whole instruction")
  h.check_equal(tostring(lp.expand_subst(knl, "id:nothing > ...")), tostring(knl), "nothing selected")
end

-- Instruction selectors do not apply to rule uses.
h.expect_error("LoopyError", { "stack match 'id:insn > writes:out'", "'writes:out' applies to instructions",
  "such as 'h'" }, lp.expand_subst, knl, "id:insn > writes:out")

print("tagged_rules: ok")
