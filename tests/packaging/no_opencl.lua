-- A Loom built without OpenCL (LOOM_WITH_OPENCL=OFF; tests/CMakeLists.txt links one from the usual build's
-- objects): it has no OpenCL device, a queue is a RuntimeError naming the option, and kernels run on the C target,
-- through an executor or as kernels made for that target.
local lp = require("loom")
local h = require("helpers")

h.check_equal(#lp.cl.devices(), 0, "OpenCL devices")
h.expect_error("RuntimeError", {"LOOM_WITH_OPENCL=OFF", "lp.c.executor"}, lp.cl.queue, {})
h.check_equal(#h.executors(), 1, "executors of the tests")
h.check_equal(h.executors()[1].name, "c", "the executor of the tests")

local n = 37
local a = h.array_from({n}, "float32", function(i) return i * 0.5 end)

local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + 1")
local out = knl(lp.c.executor {}, {a = a})
h.check_array(out, h.array_from({n}, "float32", function(i) return 2 * (i * 0.5) + 1 end), "out on lp.c.executor")

-- A kernel made for the C target runs without an executor being named.
local summed = lp.make_kernel("{ [i]: 0<=i<n }", "s = sum(i, a[i])", nil, {target = "c"})
local s = summed({a = a})
local want = 0
for i = 0, n - 1 do want = want + i * 0.5 end
h.check(math.abs(s:get() - want) < 1e-3, "sum on the C target: %s, want %s", tostring(s:get()), want)

print("without OpenCL: ok")
