-- Call overhead: a built kernel (out[i] = 2*a[i] on n float32 elements) called again and again, from Loom and from
-- loopy/PyOpenCL (bench/loopy_call_overhead.py, run from here with the same counts), with issue 13's goals:
--   C executor, host arrays:          <= 3 us per call (n = 16)
--   OpenCL, device arrays:            <= PyOpenCL's bare launch (arguments set once) + 2 us
--   OpenCL, host arrays:              <= a PyOpenCL round trip (copy in, launch, copy out) + 5 us
--   lp.array of a 1M-element table:   <= 20 ms
--
-- usage: loom bench/call_overhead.lua [calls [n]] [--no-loopy]   (defaults 20000 calls, n = 16)
--
-- What is timed: `calls` calls after a warm-up, divided by `calls`. On the C executor and for lp.array, process
-- CPU time (os.clock; time.process_time in the loopy script): the work is on the calling thread, and CPU time is
-- not inflated by other processes' load. On OpenCL, wall-clock time (date +%s%N around the loop, which lasts long
-- enough for that to be exact to far better than a percent), as the driver's threads do part of the work; calls
-- on device arrays are enqueued and the queue is waited for once at the end. Host-array calls on OpenCL run
-- calls/10 times. The ratio is loopy's time over Loom's (how many times faster Loom is).
local lp = require("loom")

local positional, no_loopy = {}, false
for _, a in ipairs(arg) do
  if a == "--no-loopy" then no_loopy = true else positional[#positional + 1] = tonumber(a) end
end
local CALLS, N = positional[1] or 20000, positional[2] or 16

local function wall()
  local p = assert(io.popen("date +%s%N"))
  local ns = assert(tonumber(p:read("l")))
  p:close()
  return ns / 1e9
end

-- Microseconds per call of `call` on `clock`; `finish` waits for what the calls enqueued.
local function per_call_us(clock, call, finish, calls)
  calls = calls or CALLS
  for _ = 1, 3 do call() end
  if finish then finish() end
  local start = clock()
  for _ = 1, calls do call() end
  if finish then finish() end
  return (clock() - start) / calls * 1e6
end

local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]",
  { lp.GlobalArg("a, out", "float32", { shape = "n" }), lp.ValueArg("n", "int32") })
local a, out = lp.rand(N, "float32", 1), lp.zeros(N, "float32")

local loom = {}
local c = lp.c.executor()
loom.c_host = per_call_us(os.clock, function() knl(c, { a = a, out = out }) end)
local q = lp.cl.queue()
local da, dout = q:to_device(a), q:to_device(out)
loom.opencl_device = per_call_us(wall, function() knl(q, { a = da, out = dout }) end, function() q:finish() end)
loom.opencl_host = per_call_us(wall, function() knl(q, { a = a, out = out }) end, nil, math.max(CALLS // 10, 1))
do
  local t = {}
  for i = 1, 1000000 do t[i] = i * 0.5 end
  local start = os.clock()
  lp.array(t, "float32")
  loom.array_1m_ms = (os.clock() - start) * 1e3
end

local loopy, reasons = {}, {}
if not no_loopy then
  local p = io.popen(string.format("python3 bench/loopy_call_overhead.py %d %d 2>&1", CALLS, N))
  for line in p:lines() do
    local name, rest = line:match("^(%S+) (.*)$")
    if name and tonumber(rest) then loopy[name] = tonumber(rest)
    elseif name and rest:match("^n/a") then reasons[name] = rest end
  end
  p:close()
end

local function cell(x, fmt) return x and string.format(fmt or "%.2f", x) or "n/a" end
local rows = {
  { "C executor, host arrays", "c_host", loom.c_host, 3 },
  { "OpenCL, device arrays", "opencl_device", loom.opencl_device, loopy.raw_enqueue and loopy.raw_enqueue + 2 },
  { "OpenCL, host arrays", "opencl_host", loom.opencl_host, loopy.raw_round_trip and loopy.raw_round_trip + 5 },
}
print(string.format("call overhead, n = %d, %d calls (us per call)", N, CALLS))
print(string.format("%-26s %10s %10s %8s %10s %5s", "case", "Loom", "loopy", "ratio", "goal", "met"))
for _, r in ipairs(rows) do
  local theirs = loopy[r[2]]
  print(string.format("%-26s %10s %10s %8s %10s %5s", r[1], cell(r[3]), cell(theirs),
    theirs and cell(theirs / r[3], "%.1fx") or "n/a", cell(r[4]), r[4] and (r[3] <= r[4] and "yes" or "no") or "n/a"))
end
print(string.format("%-26s %10s %10s %8s %10s %5s", "lp.array, 1M float32 (ms)", cell(loom.array_1m_ms), "", "", "20",
  loom.array_1m_ms <= 20 and "yes" or "no"))
print(string.format("PyOpenCL floors: bare launch %s us, round trip %s us", cell(loopy.raw_enqueue), cell(loopy.raw_round_trip)))
for name, why in pairs(reasons) do print(name .. ": " .. why) end
