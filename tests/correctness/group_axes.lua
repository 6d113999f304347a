-- Several inames on one group axis: on OpenCL they are all the group id; the C executor must run one loop
-- per axis (not one per iname, which would repeat the work), each instruction within its own bounds.
-- Inames on hardware axes count from zero.
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


local h = require("helpers")

-- Hardware axes count from zero, as in loopy: `1 <= k < 98` on l.0 takes 97 work-items and lid(0) + 1, not 98
-- and a guard; a start given by a parameter shifts the same way.
do
  local k = lp.add_dtypes(lp.make_kernel("{ [k]: 1<=k<98 }", "out[k] = 2*a[k]"), { a = "float32" })
  k = lp.split_iname(k, "k", 128, { outer_tag = "g.0", inner_tag = "l.0" })
  local code = lp.generate_code(k)
  h.check_contains(code, "reqd_work_group_size(97, 1, 1)")
  h.check(not h.contains(code, "if ("), "guard left in:\n%s", code)
  local window = lp.add_dtypes(lp.make_kernel("{ [i]: m<=i<m+16 }", "out[i - m] = a[i]",
    { lp.GlobalArg("a", "float32", { shape = "m + 16" }), lp.GlobalArg("out", "float32", { shape = "16" }), "..." },
    { assumptions = "m >= 0" }), {})  -- a[i] is outside a's shape where m < 0
  window = lp.tag_inames(window, { i = "l.0" })
  h.check_contains(lp.generate_code(window), "reqd_work_group_size(16, 1, 1)")
  h.on_each_executor(function(exec, name)
    local a = lp.arange(98, "float32")
    h.check_array(k(exec, { a = a }), function(i) return i >= 1 and 2 * i or nil end, name .. " shifted l.0")
    h.check_array(window(exec, { a = lp.arange(21, "float32"), m = 5 }), function(i) return i + 5 end,
      name .. " l.0 from a parameter")
  end)
end

-- A work-group sized by a parameter (loopy allows it): l.0 over 0 <= i < n gives n work-items per group, no
-- reqd_work_group_size, and nothing to run when n = 0.
do
  local k = lp.tag_inames(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
    { lp.GlobalArg("a,out", "float32", { shape = "n" }), "..." }), { i = "l.0" })
  local code = lp.generate_code(k)
  h.check(not h.contains(code, "reqd_work_group_size"), "no fixed work-group size in:\n%s", code)
  local _, loc = lp.get_grid_size_upper_bounds(k)
  h.check_equal(loc[1], "[n] -> { [(0)] : n <= 0; [(n)] : n > 0 }", "work-group size")
  h.on_each_executor(function(exec, name)
    for _, n in ipairs({ 37, 1 }) do
      h.check_array(k(exec, { a = lp.arange(n, "float32") }), function(i) return 2 * i end,
        name .. " n = " .. n)
    end
    local empty = k(exec, { a = lp.zeros({ 0 }, "float32"), out = lp.zeros({ 0 }, "float32") })
    h.check_equal(#empty, 0, name .. " n = 0")
  end)
end

print("group_axes: ok")
