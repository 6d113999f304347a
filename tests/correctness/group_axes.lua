-- Several inames on one group axis: on OpenCL they are all the group id; the C executor must run one loop
-- per axis (not one per iname, which would repeat the work), each instruction within its own bounds.
local lp = require("loom")
local executors = {lp.cl.queue{}, lp.c.executor{}}

local knl = lp.make_kernel({"{ [i]: 0<=i<n }", "{ [j]: 0<=j<m }"}, {"a[i] = a[i] + 1", "b[j] = b[j] + 2*j"})
knl = lp.split_iname(knl, "i", 16, {outer_tag = "g.0", inner_tag = "l.0"})
knl = lp.split_iname(knl, "j", 16, {outer_tag = "g.0", inner_tag = "l.0"})
knl = lp.add_dtypes(knl, {a = "int32", b = "int32"})
for _, ex in ipairs(executors) do
  for _, nm in ipairs{{5, 40}, {40, 5}, {33, 33}, {0, 17}} do
    local n, m = nm[1], nm[2]
    local a, b = knl(ex, {a = lp.zeros({n}, "int32"), b = lp.zeros({m}, "int32")})
    for i = 0, n - 1 do assert(a:get(i) == 1, ("n=%d m=%d a[%d]=%d"):format(n, m, i, a:get(i))) end
    for j = 0, m - 1 do assert(b:get(j) == 2 * j, ("n=%d m=%d b[%d]=%d"):format(n, m, j, b:get(j))) end
  end
end

print("group_axes: ok")
