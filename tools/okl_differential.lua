-- Differential testing of the OKL front end's control flow against C itself: random work-item bodies of nested
-- `for` loops, `if`/`else`, `switch` (cases ending in break, continue or a block, defaults), and `break` and
-- `continue` at random points, over an int array. Each body runs as an OKL kernel (its work-items an
-- @outer/@inner tile) on the OpenCL and the C executor, and as plain C compiled by the system's compiler (the
-- work-items one loop); every output must be equal. A body the front end refuses with an OKLError is counted
-- as rejected; any other error or a different output fails the case, whose body is printed.
--   loom tools/okl_differential.lua [--cases=N] [--seed=S] [--first=K] [--verbose]
-- Case K of seed S is the same on every run: --first=K --cases=1 replays it alone (--verbose prints the body
-- and the reasons of rejections).
package.path = (arg[0]:match("^(.*)/tools/[^/]*$") or ".") .. "/tests/?.lua;" .. package.path
local lp = require("loom")
local T = require("helpers")

local options = T.tool_options(arg, { cases = 100, seed = 1, first = 1, verbose = false },
  "usage: loom tools/okl_differential.lua [--cases=N] [--seed=S] [--first=K] [--verbose]")

local R = math.random
local function pick(list) return list[R(#list)] end

local block  -- forward: a block of statements

-- One statement at nesting `depth`; `ctx` says how many loops and switches are around it and which loop
-- variables are in scope.
local function statement(depth, ctx)
  local kinds = { "add", "add", "if" }
  if ctx.loops > 0 or ctx.switches > 0 then kinds[#kinds + 1] = "break" end
  if ctx.loops > 0 then kinds[#kinds + 1] = "continue" end
  if depth < 3 then
    kinds[#kinds + 1] = "for"
    kinds[#kinds + 1] = "switch"
  end
  local function value()
    local v = pick(ctx.vars)
    return pick({ v, "a[r*8 + (" .. v .. ") % 8]", tostring(R(0, 9)), v .. " + " .. R(1, 3) })
  end
  local function condition()
    return pick({ value() .. " > " .. R(0, 9), value() .. " % " .. R(2, 4) .. " == 0", value() .. " == " .. value(),
      "t > " .. R(10, 400) })
  end
  local kind = pick(kinds)
  if kind == "add" then return "t += " .. value() .. ";" end
  if kind == "break" or kind == "continue" then return "if (" .. condition() .. ") " .. kind .. ";" end
  if kind == "if" then
    local s = "if (" .. condition() .. ") { " .. block(depth + 1, ctx, 2) .. " }"
    return R(2) == 1 and s .. " else { " .. block(depth + 1, ctx, 2) .. " }" or s
  end
  if kind == "for" then
    local v = "v" .. depth .. "_" .. R(1000)
    local inner = { loops = ctx.loops + 1, switches = 0, vars = { table.unpack(ctx.vars) } }
    inner.vars[#inner.vars + 1] = v
    return string.format("for (int %s = %d; %s < %d; ++%s) { %s }", v, R(0, 2), v, R(3, 6), v, block(depth + 1, inner, 3))
  end
  local inner = { loops = ctx.loops, switches = ctx.switches + 1, vars = ctx.vars }
  local s = "switch ((" .. value() .. ") % 4) { "
  local labels = { 0, 1, 2, 3 }
  local endings = ctx.loops > 0 and { "break;", "break;", "continue;", "{ t += 1; break; }" } or { "break;", "{ t += 1; break; }" }
  for _ = 1, R(1, 3) do
    s = s .. "case " .. table.remove(labels, R(#labels)) .. ": " .. block(depth + 1, inner, 2) .. " " .. pick(endings) .. " "
  end
  if R(2) == 1 then s = s .. "default: " .. block(depth + 1, inner, 2) .. " " end
  return s .. "}"
end

block = function(depth, ctx, most)
  local parts = {}
  for _ = 1, R(1, most) do parts[#parts + 1] = statement(depth, ctx) end
  return table.concat(parts, " ")
end

local n = 16
local executors = { { "c", lp.c.executor {} } }
if pcall(lp.cl.queue, {}) then table.insert(executors, 1, { "opencl", lp.cl.queue {} }) end
-- The outputs of `body` compiled as C over `values`: one call over the n work-items.
local function c_outputs(body, values)
  return T.c_program_numbers("#include <stdio.h>\nstatic void k(int n, const int *a, int *out) { for (int r = 0; r < n; ++r) { "
    .. body .. " } }\nint main(void) { static const int a[] = {" .. table.concat(values, ",") .. "}; int out[" .. n
    .. "]; k(" .. n .. ", a, out); for (int i = 0; i < " .. n .. "; ++i) printf(\"%d\\n\", out[i]); return 0; }\n", "-O0 -w")
end

-- nil where the case passed, "rejected", or the reason it failed.
local function run_case(body, values)
  local want = c_outputs(body, values)
  local ok, knl = pcall(function()
    return lp.parse_okl("@kernel void k(const int n, const int *a, int *out) { for (int r = 0; r < n; ++r; "
      .. "@tile(4, @outer, @inner)) { " .. body .. " } }").k
  end)
  if not ok then
    if type(knl) == "table" and knl.kind == "OKLError" then
      if options.verbose then print("  rejected: " .. tostring(knl.message):match("[^\n]*")) end
      return "rejected"
    end
    return "parse_okl: " .. tostring(knl)
  end
  for _, e in ipairs(executors) do
    local a = lp.zeros({ n * 8 }, "int32")
    for i = 1, n * 8 do a:set(i - 1, values[i]) end
    local out = lp.zeros({ n }, "int32")
    local ran, err = pcall(knl, e[2], { n = n, a = a, out = out })
    if not ran then return e[1] .. ": " .. tostring(err):match("[^\n]*") end
    for i = 0, n - 1 do
      if out:get(i) ~= want[i + 1] then
        return string.format("%s: work-item %d gives %d, C %d", e[1], i, out:get(i), want[i + 1])
      end
    end
  end
  return nil
end

local passed, rejected, failed = 0, 0, 0
for case = options.first, options.first + options.cases - 1 do
  math.randomseed(options.seed * 1000003 + case)
  local values = {}
  for i = 1, n * 8 do values[i] = R(0, 11) end
  local body = "int t = 0; " .. block(0, { loops = 0, switches = 0, vars = { "r" } }, 4) .. " out[r] = t;"
  if options.verbose then print(string.format("case %d: %s", case, body)) end
  local outcome = run_case(body, values)
  if outcome == nil then
    passed = passed + 1
  elseif outcome == "rejected" then
    rejected = rejected + 1
  else
    failed = failed + 1
    print(string.format("case %d FAILED (%s)\n  body: %s", case, outcome, body))
  end
end
print(string.format("okl differential: %d cases (seed %d): %d passed, %d rejected, %d failed", options.cases,
  options.seed, passed, rejected, failed))
os.exit(failed == 0 and 0 or 1)
