-- Statistics latency (issue 16's goal: a map for the tutorial's kernels in <= 5 ms, its cost independent of the
-- parameter values): CPU time per map, the median of `runs` runs.
--   usage: loom bench/statistics_latency.lua [runs]   (default 50)
local lp = require("loom")

local runs = math.tointeger(tonumber(arg[1] or "50")) or error("usage: loom bench/statistics_latency.lua [runs]")

local knl = lp.make_kernel("[n,m,l] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<l}", [[
  c[i, j, k] = a[i,j,k]*b[i,j,k]/3.0+a[i,j,k]
  e[i, k] = g[i,k]*(2+h[i,k+1])
]], { name = "stats_knl" })
knl = lp.add_and_infer_dtypes(knl, { a = "float32", b = "float32", g = "float64", h = "float64" })
local consec = lp.split_iname(knl, "k", 128, { outer_tag = "l.1", inner_tag = "l.0" })

local function median_ms(f)
  local times = {}
  for r = 1, runs do
    local t0 = os.clock()
    f()
    times[r] = (os.clock() - t0) * 1e3
  end
  table.sort(times)
  return times[(runs + 1) // 2]
end

print(string.format("%-10s %10s %8s %4s", "map", "p50", "goal", "met"))
for _, case in ipairs({
  { "op_map", function() lp.get_op_map(knl, { subgroup_size = 32 }) end },
  { "mem_map", function() lp.get_mem_access_map(consec, { subgroup_size = 32 }) end },
  { "sync_map", function() lp.get_synchronization_map(consec) end },
}) do
  local ms = median_ms(case[2])
  print(string.format("%-10s %7.3f ms %5g ms %4s", case[1], ms, 5, ms <= 5 and "yes" or "NO"))
end
