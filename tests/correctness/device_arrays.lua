-- Device arrays (queue:to_device, lp.cl.zeros/empty, d:get/set/copy/release) on both executors: kernels take
-- them in place and return device outputs, calls are enqueued without waiting, and every misuse is an
-- ArgumentError naming what is wrong.
local lp = require("loom")
local h = require("helpers")

local check, check_equal, check_array, expect_error = h.check, h.check_equal, h.check_array, h.expect_error

local axpy = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + b[i]",
  { lp.GlobalArg("a, b, out", "float32", { shape = "n" }), lp.ValueArg("n", "int32") })
local inc = lp.make_kernel("{[i]: 0<=i<n}", "x[i] = x[i] + 1", { lp.GlobalArg("x", "float64", { shape = "n" }), "..." })
-- Written in Fortran order: an output allocated on the device takes that layout.
local scale_f = lp.make_kernel("{[i, j]: 0<=i<n and 0<=j<m}", "out[i, j] = 3*a[i, j]",
  { lp.GlobalArg("a, out", "float64", { shape = "n, m", order = "F" }), "..." })
local untyped = lp.make_kernel("{[i]: 0<=i<n}", "y[i] = x[i] * x[i]")

local function axpy_ref(a, b) return function(i) return 2 * a:get(i) + b:get(i) end end

h.on_each_executor(function(exec, name)
  local what = name .. ": "
  local a, b = lp.rand(37, "float32", 1), lp.rand(37, "float32", 2)

  -- Round trips keep every element; fields and tostring describe the array.
  local da = exec:to_device(a)
  check_equal(da.dtype, "float32", what .. "dtype")
  check_equal(da.ndim, 1, what .. "ndim")
  check_equal(da.shape[1], 37, what .. "shape")
  check_equal(#da, 37, what .. "#d")
  check(h.contains(tostring(da), "loom.DeviceArray(shape=(37,), dtype=float32"), "%s", tostring(da))
  check_array(da:get(), a, what .. "round trip")
  local m = h.array_from({ 3, 4 }, "int32", function(i, j) return 10 * i + j end)
  check_array(exec:to_device(m:transpose()):get(), m:transpose(), what .. "non-contiguous round trip")
  local zs = lp.array({ { 1, -2 }, { 3.5, 4 }, { 0, 0.25 } }, "complex128")
  check(lp.max_abs_diff(exec:to_device(zs):get(), zs) == 0, "%scomplex round trip", what)
  -- Into a host array given (a host program's buffer): filled in place and returned; it must fit.
  local into = lp.zeros(37, "float32")
  check(da:get(into) == into, "%sd:get(out) returns out", what)
  check_array(into, a, what .. "d:get(out)")
  h.expect_error("ArgumentError", "shape", da.get, da, lp.zeros(36, "float32"))
  h.expect_error("ArgumentError", "contiguous", da.get, da, lp.zeros(74, "float32"):view{ { 0, 74, 2 } })

  -- Device arrays in, device arrays out; the output's values are the kernel's.
  local db = exec:to_device(b)
  local out = axpy(exec, { a = da, b = db })
  check(tostring(out):find("loom.DeviceArray", 1, true) == 1, "%soutput is %s", what, tostring(out))
  check_array(out:get(), axpy_ref(a, b), what .. "axpy", { rtol = 1e-6 })
  -- Without an executor the call runs on the one the device arrays live on.
  check_array(axpy { a = da, b = db }:get(), axpy_ref(a, b), what .. "axpy on the arrays' executor", { rtol = 1e-6 })

  -- A device output passed is written in place and returned itself; zeros/empty are cleared.
  local z = lp.cl.zeros(exec, 37, "float32")
  check_array(z:get(), function() return 0 end, what .. "zeros")
  check_array(lp.cl.empty(exec, { 2, 3 }, "int64"):get(), function() return 0 end, what .. "empty")
  check(rawequal(axpy(exec, { a = da, b = db, out = z }), z), "%sthe output passed is returned", what)
  check_array(z:get(), axpy_ref(a, b), what .. "axpy into zeros", { rtol = 1e-6 })

  -- Mixed: a host input beside a device one still gives a device output.
  check_array(axpy(exec, { a = a, b = db }):get(), axpy_ref(a, b), what .. "mixed", { rtol = 1e-6 })

  -- set replaces the contents; copy is independent of the original.
  local x0 = lp.rand(100, "float64", 3)
  local dx = exec:to_device(lp.zeros(100, "float64"))
  dx:set(x0)
  local snapshot = dx:copy()
  -- Many calls enqueued without waiting, in order: get waits for all of them.
  for _ = 1, 50 do inc(exec, { x = dx }) end
  exec:finish()
  for _ = 1, 50 do inc(exec, { x = dx }) end
  check_array(dx:get(), function(i) return x0:get(i) + 100 end, what .. "100 increments", { rtol = 1e-12 })
  check_array(snapshot:get(), x0, what .. "copy unchanged")

  -- Fortran-order kernels: an F-order output allocated on the device; a C-order device input is refused.
  local f = h.array_from({ 3, 5 }, "float64", function(i, j) return i - 2 * j end, "F")
  expect_error("ArgumentError", { "strides mismatch on argument 'a'", "declared layout" }, scale_f, exec,
    { a = lp.cl.zeros(exec, { 3, 5 }, "float64") })
  local df = lp.cl.zeros(exec, { 3, 5 }, "float64", "F")
  df:set(f:copy()) -- a C-order host array goes into the Fortran-order device array
  local fout = scale_f(exec, { a = df })
  check_array(fout:get(), function(i, j) return 3 * f:get(i, j) end, what .. "F-order output")
  -- get gives a Fortran-order host array: only its transpose is contiguous (reshape raises otherwise).
  check_equal(fout:get():transpose():reshape(15):get(14), 3 * f:get(2, 4), what .. "F-order get")
  -- The untyped kernel takes its types from the device arrays passed.
  local xi = lp.arange(9, "int64")
  check_array(untyped(exec, { x = exec:to_device(xi) }):get(), function(i) return i * i end, what .. "untyped int64")

  -- lp.time runs on device arrays without transfers and leaves the result in them.
  local dt = exec:to_device(lp.zeros(1000, "float64"))
  local seconds = lp.time(inc, exec, { x = dt }, { warmup = 1, runs = 3 })
  check(seconds > 0, "%stime %s", what, seconds)
  check_array(dt:get(), function() return 4 end, what .. "timed increments")

  -- Misuse: shapes, dtypes, released arrays, arrays of another executor, bad arguments.
  expect_error("ArgumentError", { "argument 'b'", "expected shape (37,), got (5,)" }, axpy, exec,
    { a = da, b = exec:to_device(lp.zeros(5, "float32")) })
  expect_error("ArgumentError", { "argument 'b'", "expected a float32 array, got float64" }, axpy, exec,
    { a = da, b = exec:to_device(lp.zeros(37, "float64")) })
  expect_error("ArgumentError", { "arguments 'x' and", "share memory" }, lp.make_kernel("{[i]: 0<=i<100}",
    "x[i] = y[i]"), exec, { x = dx, y = dx })
  expect_error("ArgumentError", "expected a float32 array of shape (37,), got a float32 array of shape (3,)",
    da.set, da, lp.zeros(3, "float32"))
  expect_error("ArgumentError", "loom.Array expected", exec.to_device, exec, {})
  expect_error("ArgumentError", "loom.Executor expected", lp.cl.zeros, {}, 3)
  expect_error("ArgumentError", "unknown dtype", lp.cl.zeros, exec, 3, "float31")
  expect_error("ArgumentError", "negative dimensions", lp.cl.zeros, exec, { -1 })
  local gone = exec:to_device(a)
  gone:release()
  gone:release() -- a second release does nothing
  expect_error("ArgumentError", "has been released", gone.get, gone)
  expect_error("ArgumentError", "has been released", function() return gone.shape end)
  expect_error("ArgumentError", "argument 'a': the device array has been released", axpy, exec, { a = gone, b = db })
  check_equal(tostring(gone), "loom.DeviceArray (released)", what .. "tostring after release")
  getmetatable(gone).__gc(gone) -- finalized twice: still harmless
  expect_error("ArgumentError", "has been released", gone.copy, gone)
end)

-- Arrays of one executor are refused by another that does not share its memory.
local cl, c = h.executors()[1].exec, h.executors()[2].exec
expect_error("ArgumentError", { "argument 'x' is a device array of another executor", "does not share memory" }, inc,
  c, { x = cl:to_device(lp.zeros(3, "float64")) })

-- Queues of one OpenCL platform share a context, so they share device arrays (the queue that wrote one is
-- finished before another reads it). lp.cl.devices lists what lp.cl.queue{device = n} counts.
local devices = lp.cl.devices()
check(#devices >= 1 and h.contains(devices[1], ": "), "lp.cl.devices: %s", table.concat(devices, "; "))
local q1, q2 = lp.cl.queue { device = 1 }, lp.cl.queue { device = 1 }
local shared = q1:to_device(lp.arange(5, "float64"))
q1:finish()
check(rawequal(inc(q2, { x = shared }), shared), "a device array on another queue is written in place")
q2:finish()
check_array(shared:get(), function(i) return i + 1 end, "read back through its own queue")
-- A kernel is built once per device of the context: the second queue uses the first one's program. The kernel is
-- new to this process (its constant) and the disk cache is off, so the first queue compiles it.
lp.set_caching_enabled(false)
local added = os.time() % 100000 + 2
local fresh = lp.make_kernel("{[i]: 0<=i<n}", string.format("x[i] = x[i] + %d", added),
  { lp.GlobalArg("x", "float64", { shape = "n" }), "..." })
local before1, before2 = q1:build_counts(), q2:build_counts()
local x1, x2 = q1:to_device(lp.zeros(4, "float64")), q2:to_device(lp.zeros(4, "float64"))
fresh(q1, { x = x1 })
fresh(q2, { x = x2 })
check_array(x2:get(), function() return added end, "the second queue's result")
local after1, after2 = q1:build_counts(), q2:build_counts()
check_equal(after1.compiled - before1.compiled, 1, "programs compiled for the first queue")
check_equal(after2.compiled - before2.compiled, 0, "programs compiled for the second queue")
check_equal(after2.shared - before2.shared, 1, "programs the second queue took from the first")
lp.set_caching_enabled(true)
expect_error("RuntimeError", "with index " .. (#devices + 1), lp.cl.queue, { device = #devices + 1 })
expect_error("ArgumentError", "a device index counts from 1", lp.cl.queue, { device = 0 })

-- to_device and get copy on every executor (the C one included): a device array never aliases a host array.
local host = lp.zeros(8, "float64")
local dev = c:to_device(host)
local view = dev:get()
inc(c, { x = dev })
check_array(host, function() return 0 end, "c: to_device copies")
check_array(view, function() return 0 end, "c: get copies")
check_array(dev:get(), function() return 1 end, "c: the device array is written")

-- Many short-lived device arrays are collected (their buffers released by __gc) without running out of memory.
for _ = 1, 200 do lp.cl.zeros(cl, 1 << 16, "float64") end
collectgarbage()
print("device_arrays: ok")
