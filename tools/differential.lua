-- Differential testing of the transformations: random affine kernels, each with a random sequence of
-- transformations that Loom accepts, checked by lp.auto_test_vs_ref against the untransformed kernel on the
-- OpenCL and the C executor. A transformation or a check that Loom refuses with a typed user error, or warns
-- about (a write race: warnings are errors here, lp.set_warnings("error")), is a legal answer (counted as
-- rejected); an InternalError, a BuildError (generated code that does not compile), an error that is not
-- Loom's or different results fail the case, which is then shrunk (steps, then instructions) to a minimal Lua
-- reproducer, printed.
-- With --checked, kernels are checked (set_options{checked = true}) and also read `a` through an index array
-- (`a[idx[i] - 1]`, idx of 1..16: in bounds or not) and at non-affine indices (`a[i*i]`): each case is refused
-- (an IndexError is a typed answer) or equal to the reference, and never crashes.
--   loom tools/differential.lua [--cases=N] [--seed=S] [--first=K] [--steps=M] [--checked] [--verbose]
-- Each case draws 1 to M transformations (4 unless --steps says). Case K of seed S is the same on every run
-- (with the same M): --first=K --cases=1 replays it alone.
package.path = (arg[0]:match("^(.*)/tools/[^/]*$") or ".") .. "/tests/?.lua;" .. package.path
local lp = require("loom")
local T = require("helpers")

lp.set_warnings("error")

local options = T.tool_options(arg, { cases = 300, seed = 1, first = 1, steps = 4, checked = false, verbose = false },
  "usage: loom tools/differential.lua [--cases=N] [--seed=S] [--first=K] [--steps=M] [--checked] [--verbose]")

local function pick(list) return list[math.random(#list)] end

local function chance(p) return math.random() < p end

-- A random subset of `list` (in its order), never empty when `list` is not.
local function subset(list)
  local out = {}
  for _, x in ipairs(list) do
    if chance(0.5) then out[#out + 1] = x end
  end
  if #out == 0 and #list > 0 then out[1] = pick(list) end
  return out
end

local function quote_list(list)
  local q = {}
  for i, s in ipairs(list) do q[i] = string.format("%q", s) end
  return "{" .. table.concat(q, ", ") .. "}"
end

-- ---------------------------------------------------------------------------------------------------------
-- Random kernels. Inames i, j, k over boxes (bounds a parameter or a constant, with offsets, strides, or one
-- value tied to a parameter) or a triangle (j <= i);
-- arrays a (rank 1) and b (rank 2) read at affine indices, declared with extents that hold every index form
-- (2*x and x + y need twice the largest bound); one output indexed by some inames, summed over the others;
-- optionally a temporary, a substitution rule, a second output and an in-place recurrence on c.

local function affine_index(inames)
  local x = pick(inames)
  local form = math.random(4)
  if form == 1 then return x end
  if form == 2 then return x .. " + " .. math.random(2) end
  if form == 3 then return "2*" .. x end
  return x .. " + " .. pick(inames)
end

-- A random arithmetic expression over the arrays (and the rule f, when there is one) at affine indices.
local function expression(inames, depth, has_rule)
  if depth == 0 or chance(0.3) then
    local leaf = math.random(has_rule and 5 or 4)
    if leaf == 1 and options.checked and chance(0.4) then
      local x = pick(inames)
      return chance(0.5) and string.format("a[idx[%s] - 1]", x) or string.format("a[%s*%s]", x, x)
    end
    if leaf == 1 then return string.format("a[%s]", affine_index(inames)) end
    if leaf == 2 then return string.format("b[%s, %s]", affine_index(inames), affine_index(inames)) end
    if leaf == 3 then return chance(0.5) and tostring(math.random(5)) or pick(inames) end
    if leaf == 4 then return string.format("%d.5", math.random(0, 3)) end
    return string.format("f(%s)", affine_index(inames))
  end
  return string.format("(%s %s %s)", expression(inames, depth - 1, has_rule), pick({ "+", "-", "*" }),
    expression(inames, depth - 1, has_rule))
end

local function random_kernel()
  local all = { "i", "j", "k" }
  local inames = { table.unpack(all, 1, math.random(3)) }
  local constraints, params, bounds = {}, {}, {}
  for idx, x in ipairs(inames) do
    -- Lower bounds above 0, upper bounds below a parameter, strides and inames tied to a parameter: the
    -- bounds with divisions and offsets under which unrolled copies once went wrong (reliability.md 36).
    local low = chance(0.7) and "0" or tostring(math.random(2))
    if idx > 1 and chance(0.2) then
      constraints[#constraints + 1] = string.format("0 <= %s <= %s", x, inames[idx - 1])
    elseif chance(0.5) then
      local p = pick({ "n", "m" })
      params[p] = true
      bounds[#bounds + 1] = p
      local high = chance(0.7) and p or string.format("%s - %d", p, math.random(2))
      if chance(0.1) then
        constraints[#constraints + 1] = string.format("%s = %s - 1 and %s >= 1", x, p, p)
      else
        constraints[#constraints + 1] = string.format("%s <= %s < %s", low, x, high)
      end
    else
      local c = math.random(tonumber(low) + 1, 9)
      bounds[#bounds + 1] = tostring(c)
      constraints[#constraints + 1] = string.format("%s <= %s < %d", low, x, c)
    end
    if chance(0.15) then
      local m = math.random(2, 3)
      constraints[#constraints + 1] = string.format("%s mod %d = %d", x, m, math.random(0, m - 1))
    end
  end
  local extent = string.format("2*(%s) + 3", table.concat(bounds, " + "))
  local free = subset(inames)
  local reduced = {}
  for _, x in ipairs(inames) do
    local is_free = false
    for _, y in ipairs(free) do is_free = is_free or x == y end
    if not is_free then reduced[#reduced + 1] = x end
  end
  local has_rule = chance(0.3)
  local insns = {}
  if has_rule then insns[#insns + 1] = "f(x) := 2*a[x] + 1" end
  local body = expression(inames, 2, has_rule)
  if chance(0.3) then
    insns[#insns + 1] = string.format("<> t = %s", expression(free, 1, has_rule))
    body = string.format("t*(%s)", body)
  end
  if #reduced > 0 then body = string.format("sum((%s), %s)", table.concat(reduced, ", "), body) end
  insns[#insns + 1] = string.format("out[%s] = %s", table.concat(free, ", "), body)
  if chance(0.3) then
    insns[#insns + 1] = string.format("out2[%s] = %s", table.concat(free, ", "), expression(free, 1, has_rule))
  end
  -- An in-place recurrence over every iname: c at one of them is updated from a neighbour (left, itself or
  -- right), the others repeating it like a time loop. Its dependences on its own instances make most parallel
  -- tags illegal: each must be refused (DependenceViolationError, a write race) or compute the same.
  local recurrence = chance(0.35)
  if recurrence then
    local x = pick(inames)
    insns[#insns + 1] = string.format("c[%s + 1] = 0.5*c[%s + %d] + %s  {inames=%s}", x, x, math.random(0, 2),
      expression(inames, 1, has_rule), table.concat(inames, ":"))
  end
  -- Two sizes for each parameter, small (3 at least: a bound n - 2 gives no negative shape) and large; one run
  -- without parameters.
  local param_sets = next(params) and { {}, {} } or { {} }
  for _, p in ipairs({ "m", "n" }) do
    if params[p] then param_sets[1][p], param_sets[2][p] = math.random(3, 6), math.random(7, 17) end
  end
  return {
    domain = string.format("{ [%s]: %s }", table.concat(inames, ", "), table.concat(constraints, " and ")),
    instructions = insns,
    args = {
      string.format('lp.GlobalArg("a", "float64", {shape = %q})', extent),
      string.format('lp.GlobalArg("b", "float64", {shape = %q})', extent .. ", " .. extent),
      string.format('lp.GlobalArg("c", "float64", {shape = %q})', recurrence and extent or "1"),
      options.checked and string.format('lp.GlobalArg("idx", "int32", {shape = %q})', extent) or '"..."',
      '"..."',
    },
    params = param_sets,
  }
end

-- ---------------------------------------------------------------------------------------------------------
-- Random transformations: each a function of the current kernel returning the Lua text of a call that
-- transforms `knl`, or nil where the kernel offers nothing to apply it to.

local tags = { "g.0", "g.1", "l.0", "l.1", "unr", "ilp", "ilp.seq", "vec", "for" }

local function maybe_tag() return chance(0.6) and string.format("%q", pick(tags)) or "nil" end

local function has_name(list, name)
  for _, v in ipairs(list) do
    if v.name == name then return true end
  end
  return false
end

local transformations = {
  function(k)
    -- slabs: the outer loop's first and last iterations apart, the rest without the remainder's guards.
    local slabs = chance(0.25) and string.format(", slabs = {%d, %d}", math.random(0, 1), math.random(0, 1)) or ""
    return string.format("lp.split_iname(knl, %q, %d, {outer_tag = %s, inner_tag = %s%s})", pick(k.inames),
      math.random(2, 8), maybe_tag(), maybe_tag(), slabs)
  end,
  -- A register tile as recipes.gemm builds one: x split into tiles of r*l*v (the outer part a group or a loop),
  -- each into runs of v (ILP) strided by l work-items or loop steps, r runs (ILP) a work-item. Its bounds divide
  -- by the sizes at three levels (finding 42 was in such a bound).
  function(k)
    local x = pick(k.inames)
    local r, l, v = math.random(1, 3), math.random(2, 4), math.random(2, 4)
    return string.format(
      "lp.split_iname(lp.split_iname(lp.split_iname(knl, %q, %d, {outer_tag = %s}), %q, %d, {inner_tag = %q}), %q, %d, " ..
      "{outer_tag = %q, inner_tag = %s})", x, r * l * v, pick({ '"g.0"', '"g.1"', "nil" }), x .. "_inner", v,
      pick({ "ilp", "unr", "ilp.seq" }), x .. "_inner_outer", l, pick({ "ilp", "unr" }), pick({ '"l.0"', '"l.1"', "nil" }))
  end,
  function(k) return string.format("lp.chunk_iname(knl, %q, %d)", pick(k.inames), math.random(2, 4)) end,
  function(k) return string.format("lp.tag_inames(knl, {[%q] = %q})", pick(k.inames), pick(tags)) end,
  function(k)
    if #k.inames < 2 then return nil end
    local order = { pick(k.inames), pick(k.inames) }
    if chance(0.3) then order[3] = pick(k.inames) end
    return string.format("lp.prioritize_loops(knl, %q)", table.concat(order, ","))
  end,
  function(k)
    if #k.inames < 2 then return nil end
    return string.format("lp.join_inames(knl, %s)", quote_list({ pick(k.inames), pick(k.inames) }))
  end,
  function(k)
    local array = pick({ "a", "b" })
    if not has_name(k.args, array) then return nil end
    return string.format("lp.add_prefetch(knl, %q, %s, {default_tag = %s})", array, quote_list(subset(k.inames)),
      chance(0.5) and '"l.auto"' or "nil")
  end,
  function(k)
    return string.format("lp.precompute(knl, \"f\", %s, {fetch_bounding_box = %s})", quote_list(subset(k.inames)),
      tostring(chance(0.5)))
  end,
  function() return "lp.realize_reduction(knl)" end,
  function(k)
    if not has_name(k.temporaries, "t") then return nil end
    return "lp.assignment_to_subst(knl, \"t\")"
  end,
  function(k)
    if not has_name(k.temporaries, "t") then return nil end
    return string.format("lp.privatize_temporaries_with_inames(knl, %s)", quote_list(subset(k.inames)))
  end,
  function(k) return string.format("lp.rename_iname(knl, %q, %q)", pick(k.inames), "r" .. math.random(9)) end,
  function(k)
    local p = pick({ "n", "m" })
    if not has_name(k.args, p) then return nil end
    return string.format("lp.assume(knl, %q)", string.format("%s >= %d", p, math.random(3)))
  end,
}

-- ---------------------------------------------------------------------------------------------------------
-- A case is a kernel and its steps; its script (what a reproducer prints) makes both kernels and checks them.

local function script(case, with_check)
  -- A warning (a write race the steps made) is the user's answer to take, as an error is.
  local lines = {
    'local lp = require("loom")',
    'lp.set_warnings("error")',
    string.format('local ref = lp.make_kernel(%q, %s, {%s}, {name = "diff"})', case.kernel.domain,
      quote_list(case.kernel.instructions), table.concat(case.kernel.args, ", ")),
    "local knl = ref",
  }
  if options.checked then table.insert(lines, #lines, "ref = lp.set_options(ref, {checked = true})") end
  for _, s in ipairs(case.steps) do lines[#lines + 1] = "knl = " .. s end
  if with_check then
    local sets = {}
    for i, p in ipairs(case.kernel.params) do
      local kv = {}
      for name, v in pairs(p) do kv[#kv + 1] = string.format("%s = %d", name, v) end
      table.sort(kv)
      sets[i] = "{" .. table.concat(kv, ", ") .. "}"
    end
    lines[#lines + 1] = string.format(
      "assert(lp.auto_test_vs_ref(ref, knl, {parameters = {%s}, exec = {lp.cl.queue{}, lp.c.executor{}}, " ..
      "warmup_rounds = 0, timing_seconds = 0, quiet = true}))",
      table.concat(sets, ", "))
  end
  lines[#lines + 1] = "return knl"
  return table.concat(lines, "\n")
end

-- The kind of a Loom error, "not a Loom error" for anything else.
local function error_kind(err)
  return type(err) == "table" and err.kind or "not a Loom error"
end

-- Errors that are Loom's fault here: a bug, a wrong result, generated code the compiler refuses.
local failures = { InternalError = true, AutomaticTestFailure = true, BuildError = true, ["not a Loom error"] = true }

-- "ok", "rejected" (a typed user error) or "failed", and the error.
local function outcome(ok, err)
  if ok then return "ok" end
  return failures[error_kind(err)] and "failed" or "rejected", err
end

local function run_script(text)
  local chunk = assert(load(text, "=differential", "t"))
  return outcome(pcall(chunk))
end

local function random_case()
  local case = { kernel = random_kernel(), steps = {} }
  local made, knl = pcall(load(script(case, false), "=differential", "t"))
  if not made then return case, outcome(false, knl) end
  for _ = 1, math.random(options.steps) do
    local text = pick(transformations)(knl)
    if text then
      local ok, result = pcall(load("local lp, knl = ...; return " .. text, "=step", "t"), lp, knl)
      local verdict, err = outcome(ok, result)
      if verdict == "failed" then
        case.steps[#case.steps + 1] = text
        return case, verdict, err
      end
      if ok then
        knl = result
        case.steps[#case.steps + 1] = text
      end
    end
  end
  return case, run_script(script(case, true))
end

-- Drops steps, then instructions, while the case still fails with an error of the same kind.
local function shrink(case, kind)
  local function still_fails(candidate)
    local verdict, err = run_script(script(candidate, true))
    return verdict == "failed" and error_kind(err) == kind
  end
  for _, field in ipairs({ "steps", "instructions" }) do
    local i = 1
    while true do
      local list = field == "steps" and case.steps or case.kernel.instructions
      if i > #list then break end
      local fewer = { table.unpack(list) }
      table.remove(fewer, i)
      local candidate = { kernel = case.kernel, steps = case.steps }
      if field == "steps" then
        candidate.steps = fewer
      else
        candidate.kernel = { domain = case.kernel.domain, instructions = fewer, args = case.kernel.args,
          params = case.kernel.params }
      end
      if #fewer > 0 and still_fails(candidate) then case = candidate else i = i + 1 end
    end
  end
  return case
end

local counts = { ok = 0, rejected = 0, failed = 0 }
local rejected_kinds = {}
for n = options.first, options.first + options.cases - 1 do
  math.randomseed(options.seed, n)
  local case, verdict, err = random_case()
  counts[verdict] = counts[verdict] + 1
  if verdict == "rejected" then
    local kind = error_kind(err)
    rejected_kinds[kind] = (rejected_kinds[kind] or 0) + 1
  end
  if options.verbose or verdict == "failed" then
    print(string.format("case %d (seed %d): %s%s", n, options.seed, verdict, err and (": " .. tostring(err)) or ""))
  end
  if options.verbose then print(script(case, true) .. "\n") end
  if verdict == "failed" then
    print("minimal reproducer:\n" .. script(shrink(case, error_kind(err)), true) .. "\n")
  end
end

local kinds = {}
for kind, c in pairs(rejected_kinds) do kinds[#kinds + 1] = string.format("%s %d", kind, c) end
table.sort(kinds)
print(string.format("differential: %d cases (seed %d): %d passed, %d rejected (%s), %d failed", options.cases,
  options.seed, counts.ok, counts.rejected, table.concat(kinds, ", "), counts.failed))
os.exit(counts.failed == 0 and 0 or 1)
