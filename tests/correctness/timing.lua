-- lp.time: the kernel alone, repeated (warmup untimed, runs timed) on both executors. Timings themselves
-- depend on the machine's load, so the checks are on their structure, on the outputs left by the timed
-- runs, and on the rejected options.
local lp = require("loom")
local h = require("helpers")

-- Checks that `median` is the median of the list `runs` of `count` positive seconds.
local function check_timings(median, runs, count, what)
  h.check_equal(#runs, count, what .. ": number of runs")
  local sorted = {}
  for i, t in ipairs(runs) do
    h.check(math.type(t) == "float" and t > 0, "%s: run %d took %s seconds", what, i, h.show(t))
    sorted[i] = t
  end
  table.sort(sorted)
  local mid = (count + 1) // 2
  local want = count % 2 == 1 and sorted[mid] or (sorted[mid] + sorted[mid + 1]) / 2
  h.check_equal(median, want, what .. ": median")
end

local n = 4096

-- One device kernel: outputs passed in are written by the timed runs.
local scale = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + 1", nil, {assumptions = "n>=1"})
scale = lp.split_iname(scale, "i", 64, {outer_tag = "g.0", inner_tag = "l.0"})

-- Two device kernels (a global barrier splits it): each timed run covers both, and `out` is only right if
-- the second ran after the first.
local shift = lp.make_kernel("[n] -> {[i] : 0<=i<n}",
  [[
  for i
     tmp[i] = 3*a[i] {id=maketmp}
     ... gbarrier {id=bar,dep=maketmp}
     out[i] = tmp[(i + 1) % n] {id=shift,dep=bar}
  end
  ]], {lp.GlobalArg("a", "float32", {shape = "n"}), lp.GlobalArg("tmp", "float32", {shape = "n"}),
       lp.GlobalArg("out", "float32", {shape = "n"}), "..."}, {name = "shift", assumptions = "n mod 64 = 0"})
shift = lp.split_iname(shift, "i", 64, {inner_tag = "l.0", outer_tag = "g.0"})
local start = os.clock()
local _, info = lp.generate_code(shift)
local whole = os.clock() - start
h.check_equal(#info.kernels, 2, "device kernels of shift")
-- isl's AST generator built loops for both device kernels, within generate_code's CPU time.
h.check(math.type(info.isl_ast_seconds) == "float" and info.isl_ast_seconds > 0 and info.isl_ast_seconds <= whole,
  "isl_ast_seconds %s for a generate_code of %s s", h.show(info.isl_ast_seconds), h.show(whole))

h.on_each_executor(function(exec, name)
  local a = lp.arange(n, "float32")

  local out = lp.zeros({n}, "float32")
  local median, runs = lp.time(scale, exec, {a = a, out = out})
  check_timings(median, runs, 10, name .. " scale, default options")
  h.check_array(out, function(i) return 2 * i + 1 end, name .. " scale out")

  out = lp.zeros({n}, "float32")
  median, runs = scale:time(exec, {a = a, out = out}, {warmup = 0, runs = 1})
  check_timings(median, runs, 1, name .. " scale, one run")
  h.check_array(out, function(i) return 2 * i + 1 end, name .. " scale out after one run")

  out = lp.zeros({n}, "float32")
  median, runs = lp.time(shift, exec, {a = a, out = out}, {warmup = 1, runs = 4})
  check_timings(median, runs, 4, name .. " shift")
  h.check_array(out, function(i) return 3 * ((i + 1) % n) end, name .. " shift out")

  -- The arguments are checked as in a call, the options before anything is built or run.
  h.expect_error("ArgumentError", "has no argument named 'b'", lp.time, scale, exec, {a = a, b = out})
  h.expect_error("ArgumentError", "unknown option 'repeat'", lp.time, scale, exec, {a = a}, {['repeat'] = 3})
  h.expect_error("ArgumentError", "option 'runs' must be an integer >= 1, got 0", lp.time, scale, exec, {a = a},
                 {runs = 0})
  h.expect_error("ArgumentError", "option 'warmup' must be an integer >= 0, got -1", lp.time, scale, exec, {a = a},
                 {warmup = -1})
  h.expect_error("ArgumentError", "runs", lp.time, scale, exec, {a = a}, {runs = 2.5})
  h.expect_error("ArgumentError", "bad argument #4 to 'time'", lp.time, scale, exec, {a = a}, 3)
end)

-- Without an executor, the kernel's default one times it, as a call would run it.
do
  local median, runs = lp.time(scale, {a = lp.arange(n, "float32")}, {runs = 3})
  check_timings(median, runs, 3, "default executor")
end

-- lp.auto_test_vs_ref times test_knl as loopy does (tests/correctness/auto_test.lua) and, unless quiet, prints
-- loopy's "elapsed:" lines for it and for ref_knl.
do
  local code = "local lp = require('loom'); lp.auto_test_vs_ref(lp.make_kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i]'), "
    .. "nil, { parameters = { n = 3 }, exec = lp.c.executor {}, timing_seconds = 0%s })"
  local out = h.run_child(code:format(""))
  h.check(out:match("^elapsed: [%d.e+-]+ s wall %(2 rounds%) on the c executor %(n=3%)\nref: elapsed: [%d.e+-]+ s wall\n$"),
    "printed:\n%s", out)
  h.check_equal(h.run_child(code:format(", quiet = true")), "", "quiet")
  -- loopy's op_count and op_label add rates: operations per second of each run.
  local rated = h.run_child(code:format(", op_count = { 3, 6 }, op_label = { 'mul', 'flop' }"))
  local seconds, mul, flop = rated:match("^elapsed: ([%d.e+-]+) s wall %(2 rounds%) ([%d.e+-]+) mul/s ([%d.e+-]+) flop/s on ")
  h.check(seconds and math.abs(tonumber(mul) * tonumber(seconds) / 3 - 1) < 1e-4
    and math.abs(tonumber(flop) / tonumber(mul) - 2) < 1e-4, "rates:\n%s", rated)
  h.check(rated:match("\nref: elapsed: [%d.e+-]+ s wall [%d.e+-]+ mul/s [%d.e+-]+ flop/s\n$"), "ref rates:\n%s", rated)
  local ref = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
  h.expect_error("ArgumentError", "'op_count' and 'op_label' must have as many entries", lp.auto_test_vs_ref, ref, nil,
    { parameters = { n = 3 }, op_count = 3 })
  h.expect_error("ArgumentError", "option 'op_count': a list of numbers expected", lp.auto_test_vs_ref, ref, nil,
    { parameters = { n = 3 }, op_count = { "3" }, op_label = "x" })
end

print("timing: ok")
