-- What checked kernels (a sandbox's, or checked = true) cost: a gather through data, whose reads are guarded,
-- and a GEMM, whose accesses isl proves and whose code is the unchecked one's. Each kernel runs checked and
-- unchecked on the same executor; the ratio is checked / unchecked time, the median of 5 runs each.
--
--   build/loom bench/checked_accesses.lua [c|opencl] [--n=N]
local lp = require("loom")
local target = arg[1] == "opencl" and "opencl" or "c"
local n = tonumber((table.concat(arg, " "):match("%-%-n=(%d+)"))) or 1 << 22
local exec = target == "opencl" and lp.cl.queue {} or lp.c.executor {}

local function median_seconds(f)
  local times = {}
  f()  -- the build, and a warm cache
  for r = 1, 5 do
    local start = lp.wall_time()
    f()
    if exec.finish then exec:finish() end
    times[r] = lp.wall_time() - start
  end
  table.sort(times)
  return times[3]
end

local gather = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*b[idx[i]]",
  { lp.GlobalArg("b", "float32", { shape = "m" }), lp.GlobalArg("idx", "int32", { shape = "n" }),
    lp.GlobalArg("out", "float32", { shape = "n" }), lp.ValueArg("n, m", "int32") })
gather = lp.split_iname(gather, "i", 256, { outer_tag = "g.0", inner_tag = "l.0" })
local m = 1 << 20
local idx = lp.array({}, "int32")
do
  local values = {}
  for i = 1, n do values[i] = (i * 7919) % m end
  idx = lp.array(values, "int32")
end
local b, out = lp.rand({ m }, "float32", 1), lp.zeros({ n }, "float32")

local size = 512
local gemm = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "c[i,j] = sum(k, a[i,k]*bb[k,j])",
  { lp.GlobalArg("a, bb, c", "float32", { shape = "n, n" }), lp.ValueArg("n", "int32") })
gemm = lp.split_iname(lp.split_iname(gemm, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" }), "j", 16,
  { outer_tag = "g.0", inner_tag = "l.0" })
local ga, gb, gc = lp.rand({ size, size }, "float32", 2), lp.rand({ size, size }, "float32", 3), lp.zeros({ size, size }, "float32")

print(string.format("checked accesses on %s (%s)", target, exec.device or exec:description()))
print(string.format("%-8s %12s %12s %8s", "kernel", "unchecked", "checked", "ratio"))
for _, case in ipairs {
  { "gather", gather, { b = b, idx = idx, out = out } },
  { "gemm", gemm, { a = ga, bb = gb, c = gc } },
} do
  local plain = median_seconds(function() case[2](exec, case[3]) end)
  local checked_knl = lp.set_options(case[2], { checked = true })
  local checked = median_seconds(function() checked_knl(exec, case[3]) end)
  print(string.format("%-8s %10.3f ms %10.3f ms %8.2f", case[1], plain * 1e3, checked * 1e3, checked / plain))
end
