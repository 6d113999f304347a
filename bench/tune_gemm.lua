-- tune.search over variants of recipes.gemm: variants per second, compiles included, and where the time goes
-- (code generation on the script's thread, compiles on the workers, timed runs); then the best variant beside
-- the peer (OpenBLAS through numpy on C, cuBLAS through PyTorch on OpenCL). Run with an empty cache directory
-- to count every compile:
--
--   LOOM_CACHE_DIR=$(mktemp -d) build/loom bench/tune_gemm.lua [c|opencl] [--jobs=N] [--n=N] [--budget=N]
--                                                          [--TUNABLE=V1,V2,...]
--
-- On C the space has 100 points (the goal: >= 5 variants/s with 2 jobs); on OpenCL recipes.tunables.gemm.opencl,
-- sampled at random within the budget. --TUNABLE=... replaces one tunable's values (--vec=1,4 --kt=16).
local lp = require("loom")
local tune = require("loom.tune")
local recipes = require("loom.recipes")
package.path = (arg[0]:match("^(.*)/[^/]*$") or ".") .. "/peers/?.lua;" .. package.path
local peers = require("peers")

local target, jobs, n, budget, values = "c", 2, 512, nil, {}
for _, a in ipairs(arg) do
  if a == "c" or a == "opencl" then target = a
  elseif a:match("^%-%-jobs=%d+$") then jobs = tonumber(a:match("%d+"))
  elseif a:match("^%-%-n=%d+$") then n = tonumber(a:match("%d+"))
  elseif a:match("^%-%-budget=%d+$") then budget = tonumber(a:match("%d+"))
  elseif a:match("^%-%-%a+=[%d,]+$") then
    local key, list = a:match("^%-%-(%a+)=([%d,]+)$")
    values[key] = {}
    for v in list:gmatch("%d+") do table.insert(values[key], tonumber(v)) end
  else error("unknown argument " .. a) end
end

local space = {}
for key, vs in pairs(target == "c" and { mr = { 2, 4, 6, 8 }, nr = { 16, 32, 48, 64, 96 }, kc = { 32, 64, 128, 256, 512 } }
  or recipes.tunables.gemm.opencl) do
  space[key] = vs
end
for key, vs in pairs(values) do
  if not space[key] then error("no tunable " .. key .. " on " .. target) end
  space[key] = vs
end
local exec = target == "c" and lp.c.executor { threads = 2 } or lp.cl.queue {}
local a, b = lp.rand({ n, n }, "float32", 1), lp.rand({ n, n }, "float32", 2)
local best, results = tune.search {
  space = space, jobs = jobs, exec = exec, args = { a = a, b = b }, runs = 3,
  strategy = budget and "random" or "grid", budget = budget,
  build = function(p)
    local o = { target = target, n = n, m = n, k = n }
    for k, v in pairs(p) do o[k] = v end
    return recipes.gemm(o)
  end,
}
local s = results.summary
print(string.format("device: %s", exec.device))
print(table.concat({ tune.report(results):match("^([^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*\n[^\n]*)") }, ""))
print(string.format("%d variants (%d failed) in %.1f s: %.2f variants/s; code generation %.1f s, compiles %.1f s of " ..
  "worker time (%.2f s per variant), timed runs %.1f s", s.variants, s.failed, s.wall, s.rate, s.codegen, s.compile,
  s.compile / s.variants, s.timing))
if best then
  local peer, why = peers.seconds(target == "c" and "numpy" or "torch", "gemm", n, 10, 2)
  local params = {}
  for _, k in ipairs { "mr", "nr", "kc", "lx", "ly", "ri", "rj", "kt", "vec" } do
    if best.params[k] then params[#params + 1] = k .. "=" .. best.params[k] end
  end
  print(string.format("best: %s, %.3f ms (%.1f GFLOP/s); peer %s", table.concat(params, " "), best.time * 1e3,
    2 * n ^ 3 / best.time / 1e9, peer and string.format("%.3f ms, ratio %.2f", peer * 1e3, peer / best.time) or why))
end
peers.cleanup()
