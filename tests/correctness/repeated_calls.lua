-- Repeated calls with one argument signature take a plan made by the first (backends/invoker.h): each must
-- still read its own arrays and values, allocate fresh outputs, and fall back to the general path (with its
-- checks and errors) whenever anything differs.
local lp = require("loom")
local h = require("helpers")

local check, check_array, expect_error = h.check, h.check_array, h.expect_error

local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = s*a[i] + b[i]",
  { lp.GlobalArg("a, b, out", "float64", { shape = "n" }), lp.ValueArg("s", "float64"), "..." })
-- A global temporary (the save slot) and host loops launching two device kernels (the tutorial's steps).
local steps = lp.make_kernel("{ [k, i]: 0<=k<3 and 0<=i<n }", [[
  for k, i
    <> t = u[(i + 1) % n]  {id=get, dep=*}
    ... gbarrier  {id=wait, dep=get}
    u[i] = t + 1  {id=put, dep=wait}
  end
  ]], { lp.GlobalArg("u", "float32", { shape = "n" }), "..." })
steps = lp.split_iname(steps, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
steps = lp.save_and_reload_temporaries(steps)

h.on_each_executor(function(exec, name)
  local outs = {}
  for k = 1, 6 do
    -- Same signature each time; new data, a new scale and a fresh output on every call.
    local a, b = lp.rand(20, "float64", k), lp.rand(20, "float64", 100 + k)
    local s = k + 0.5
    local out = knl(exec, { a = a, b = b, s = s })
    check_array(out, function(i) return s * a:get(i) + b:get(i) end, name .. " call " .. k, { rtol = 1e-12 })
    for _, earlier in ipairs(outs) do check(not rawequal(earlier, out), "%s: an output was reused", name) end
    outs[#outs + 1] = out
    -- Alternating with another signature (out passed, another length) keeps both plans right.
    local c = lp.zeros(7, "float64")
    check(rawequal(knl(exec, { a = lp.arange(7, "float64"), b = lp.zeros(7), out = c, s = 1.25 }), c), "%s: out passed", name)
    check_array(c, function(i) return 1.25 * i end, name .. " in place " .. k)
  end
  -- The earlier outputs still hold their own results.
  check_array(outs[1], function(i) return 1.5 * lp.rand(20, "float64", 1):get(i) + lp.rand(20, "float64", 101):get(i) end,
    name .. " first output", { rtol = 1e-12 })

  -- After a plan exists, every mismatch still takes the checks of the general path.
  local a = lp.rand(20, "float64", 1)
  expect_error("ArgumentError", "has no argument named 'stray'", knl, exec, { a = a, b = a, s = 1.0, stray = 1 })
  expect_error("ArgumentError", "expected shape (20,), got (3,)", knl, exec, { a = a, b = lp.zeros(3), s = 1.0 })
  expect_error("ArgumentError", "expected a float64 array, got float32", knl, exec,
    { a = a, b = lp.zeros(20, "float32"), s = 1.0 })
  local out = lp.zeros(20)
  expect_error("ArgumentError", "share memory", knl, exec, { a = out, b = a, out = out, s = 1.0 })
  -- An integer for s is another signature (its value is part of it).
  check_array(knl(exec, { a = a, b = a, s = 2 }), function(i) return 3 * a:get(i) end, name .. " integer s")

  -- Temporaries are allocated for each call; device arrays take plans too.
  for k = 1, 3 do
    local u0 = lp.rand(300, "float32", k)
    local u, du = u0:copy(), exec:to_device(u0)
    steps(exec, { u = u })
    steps(exec, { u = du })
    local want = function(i) return u0:get((i + 3) % 300) + 3 end
    check_array(u, want, name .. " host loops " .. k, { rtol = 1e-6 })
    check_array(du:get(), want, name .. " host loops on the device " .. k, { rtol = 1e-6 })
  end
end)
print("repeated_calls: ok")
