-- lp.auto_test_vs_ref: it passes for correct transformations and fails, with an AutomaticTestFailure naming
-- the variable, the first differing element, both values and the parameters, for wrong ones.
local lp = require("loom")
local h = require("helpers")

local ref = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")

-- A passing test returns loopy's timings, one per parameter set and executor: test_knl's seconds per timed
-- run, over rounds that took at least `seconds` in all (loopy's 0.3 s unless the call set timing_seconds), and
-- one run of ref_knl.
local function check_timings(result, count, what, seconds)
  seconds = seconds or 0.3
  h.check(type(result) == "table" and #result == count, "%s: %d timings expected, got %s", what, count, h.show(result))
  for _, t in ipairs(result) do
    h.check(t.elapsed_wall > 0 and t.ref_elapsed_wall > 0 and t.timing_rounds >= 1, "%s: timing %s", what, h.show(t))
    h.check(t.elapsed_wall * t.timing_rounds >= seconds * (1 - 1e-9), "%s: %d rounds of %g s are under %g s", what,
      t.timing_rounds, t.elapsed_wall, seconds)
  end
  -- loopy's result dict: the first timing's fields on the result itself.
  h.check_equal(result.elapsed_wall, result[1].elapsed_wall, what .. ": elapsed_wall")
  h.check_equal(result.timing_rounds, result[1].timing_rounds, what .. ": timing_rounds")
  return result
end

-- Correct transformations pass, on both executors (the default), on one, or on a list; for one or several
-- sets of parameters; for the default float64 and for a dtype given.
do
  local split = lp.split_iname(ref, "i", 4, { inner_tag = "l.0", outer_tag = "g.0" })
  check_timings(lp.auto_test_vs_ref(ref, split, { parameters = { n = 10 } }), #h.executors(), "split_iname")
  local two = check_timings(lp.auto_test_vs_ref(ref, split, { parameters = { { n = 1 }, { n = 33 } },
    dtypes = "float32", exec = lp.c.executor {}, timing_seconds = 0.01 }), 2, "split_iname, two parameter sets, float32",
    0.01)
  h.check_equal(two[1].parameters .. " " .. two[2].parameters .. " " .. two[2].target, "n=1 n=33 c", "timings' order")
  local execs = {}
  for _, e in ipairs(h.executors()) do execs[#execs + 1] = e.exec end
  check_timings(ref:auto_test_vs_ref(lp.chunk_iname(ref, "i", 3), { parameters = { n = 11 }, exec = execs,
    timing_seconds = 0.01 }), #execs, "chunk_iname as a method, executor list", 0.01)
  -- loopy's argument order, (ref_knl, queue, test_knl, {...}), runs on that executor.
  for _, e in ipairs(h.executors()) do
    local t = check_timings(lp.auto_test_vs_ref(ref, e.exec, split, { parameters = { n = 7 }, timing_seconds = 0.01 }), 1,
      "loopy's order", 0.01)
    h.check_equal(t[1].target, e.name, "loopy's order: the executor timed")
    h.expect_error("AutomaticTestFailure", "on the " .. e.name .. " executor", lp.auto_test_vs_ref, ref, e.exec,
      lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i]"), { parameters = { n = 7 } })
  end
  -- Without a test kernel the reference is compared with itself.
  check_timings(lp.auto_test_vs_ref(ref, nil, { parameters = { n = 5 }, timing_seconds = 0.01 }), #h.executors(),
    "reference alone", 0.01)
end

-- loopy's timing options: with warmup_rounds=0 there is no warm-up run and the first round times one run
-- (loopy's max(warmup_rounds, 1)); the rounds only ever grow fourfold from there, until they take
-- timing_seconds (0: the first round alone). quiet=true prints nothing.
do
  local function rounds_from(first, rounds)
    while first < rounds do first = first * 4 end
    return first == rounds
  end
  for _, warmup in ipairs({ 0, 1, 3 }) do
    local t = check_timings(lp.auto_test_vs_ref(ref, ref, { parameters = { n = 12 }, warmup_rounds = warmup,
      quiet = true, timing_seconds = 0.01 }), #h.executors(), "warmup_rounds=" .. warmup, 0.01)
    for _, one in ipairs(t) do
      h.check(rounds_from(math.max(warmup, 1), one.timing_rounds), "warmup_rounds=%d: %d timing rounds", warmup,
        one.timing_rounds)
    end
    local first = lp.auto_test_vs_ref(ref, ref, { parameters = { n = 12 }, warmup_rounds = warmup, quiet = true,
      timing_seconds = 0 })
    for _, one in ipairs(first) do
      h.check_equal(one.timing_rounds, math.max(warmup, 1), "timing_seconds=0, warmup_rounds=" .. warmup)
    end
  end
  local short = lp.auto_test_vs_ref(ref, ref, { parameters = { n = 12 }, quiet = true, timing_seconds = 0.05 })
  for _, one in ipairs(short) do
    h.check(one.elapsed_wall * one.timing_rounds >= 0.05 and rounds_from(2, one.timing_rounds),
      "timing_seconds=0.05: %s", h.show(one))
  end
  for _, bad in ipairs({ -1, 1e9 }) do
    h.expect_error("ArgumentError", "timing_seconds", lp.auto_test_vs_ref, ref, ref, { parameters = { n = 3 },
      timing_seconds = bad })
  end
  for _, bad in ipairs({ -1, 1.5 }) do
    h.expect_error("ArgumentError", "warmup_rounds", lp.auto_test_vs_ref, ref, ref, { parameters = { n = 3 },
      warmup_rounds = bad })
  end
end

-- The message of a failure; its values are returned for checks.
local function failure(test, opts, texts)
  local err = h.expect_error("AutomaticTestFailure", texts, lp.auto_test_vs_ref, ref, test, opts)
  local expected, got = err.message:match("expected ([-%d.e+]+) %(ref_knl%), got ([-%d.e+]+) %(test_knl%)")
  h.check(expected ~= nil, "the message gives both values: %s", err.message)
  return tonumber(expected), tonumber(got), err.message
end

-- 3*a instead of 2*a: every element differs, the first is reported with both values.
do
  local wrong = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 3*a[i]")
  for _, e in ipairs(h.executors()) do
    local expected, got = failure(wrong, { parameters = { n = 10 }, exec = e.exec },
      { "results do not match for 'out'", "on the " .. e.name .. " executor", "(n=10)", "at out[0]",
        "10 of 10 elements differ" })
    h.check(math.abs(got - 1.5 * expected) <= 1e-6 * got, "%s: got %s is 3/2 of expected %s", e.name, got, expected)
  end
end

-- A kernel that writes one element fewer: only the last element differs (the outputs start out equal).
do
  local args = { lp.GlobalArg("a", { shape = "n" }), lp.ValueArg("n", "int32"), lp.GlobalArg("out", { shape = "n" }) }
  local short = lp.make_kernel("{ [i]: 0<=i<n-1 }", "out[i] = 2*a[i]", args)
  failure(short, { parameters = { n = 10 } }, { "at out[9]", "1 of 10 elements differ" })
  -- Two kernels that both leave the last element alone agree.
  h.check(lp.auto_test_vs_ref(short, lp.split_iname(short, "i", 4), { parameters = { n = 10 }, timing_seconds = 0 }),
    "outputs not fully written compare equal")
end

-- Tolerances: a relative error of 1e-4 passes loopy's default (1e-3) and fails a tighter rtol.
do
  local close = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2.0002*a[i]")
  h.check(lp.auto_test_vs_ref(ref, close, { parameters = { n = 8 }, atol = 0, timing_seconds = 0 }), "within rtol 1e-3")
  failure(close, { parameters = { n = 8 }, rtol = 1e-5, atol = 0 }, "rtol=1e-05")
end

-- Integer and multi-dimensional arguments, with dtypes by name; the reported index has every axis. The wrong
-- kernel runs its updates in the other order (a priority), so only where both write does it differ.
do
  local base = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }",
    { "out[i,j] = a[i,j]  {id=copy}", "out[i,1] = 7  {id=mark}" },
    { lp.GlobalArg("a", { shape = "n, 3" }), lp.GlobalArg("out", "int32", { shape = "n, 3" }), "..." })
  base = lp.add_dependency(base, "id:mark", "copy")
  h.check(lp.auto_test_vs_ref(base, lp.prioritize_loops(base, "j,i"), { parameters = { n = 5 }, dtypes = { a = "int32" },
    timing_seconds = 0 }),
    "integer arrays")
  local swapped = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }",
    { "out[i,j] = a[i,j]  {id=copy}", "out[i,1] = 7  {id=mark}" },
    { lp.GlobalArg("a", { shape = "n, 3" }), lp.GlobalArg("out", "int32", { shape = "n, 3" }), "..." })
  swapped = lp.add_dependency(swapped, "id:copy", "mark")
  local err = h.expect_error("AutomaticTestFailure", { "at out[0, 1] expected 7 (ref_knl)", "n=5" },
    lp.auto_test_vs_ref, base, swapped, { parameters = { n = 5 }, dtypes = { a = "int32" } })
  local got = tonumber(err.message:match("got (%d+) %(test_knl%)"))
  h.check(got >= 1 and got <= 16, "random integers lie in 1..16: %s", err.message)
end

-- A kernel that writes outside an argument fails, on the C executor, where such a write lands in the host's
-- memory: each array lies between guard zones that no run may change. Indirect subscripts are not checked
-- against the shape at code generation, and the random integers (1..16) overrun out (10 elements) or, less 17,
-- underrun it.
do
  local function scatter(subscript)
    return lp.make_kernel("{[i]: 0<=i<n}", "out[" .. subscript .. "] = 2*a[i]",
      { lp.GlobalArg("a", "float64", { shape = "n" }), lp.GlobalArg("idx", "int32", { shape = "n" }),
        lp.GlobalArg("out", "float64", { shape = "n", is_output = true }), lp.ValueArg("n", "int32") }, { target = "c" })
  end
  local c = { exec = lp.c.executor {}, parameters = { n = 10 }, quiet = true }
  h.expect_error("AutomaticTestFailure", { "ref_knl wrote outside argument 'out' on the c executor (n=10)", "bytes past its end" },
    lp.auto_test_vs_ref, scatter("idx[i]"), nil, c)
  h.expect_error("AutomaticTestFailure", { "wrote outside argument 'out'", "bytes before its first element" },
    lp.auto_test_vs_ref, scatter("idx[i] - 17"), nil, c)
  -- In bounds (n = 20 holds every index), the guards stay whole.
  lp.auto_test_vs_ref(scatter("idx[i]"), nil, { exec = c.exec, parameters = { n = 20 }, quiet = true })
end

print("auto_test: ok")
