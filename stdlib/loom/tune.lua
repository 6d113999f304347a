-- loom.tune: autotuning over a space of kernel variants (SPEC "Lua standard library"). Uses only the public
-- `loom` API. A variant is one point of the space: `build(params)` makes its kernel; workers compile variants
-- while the next ones are generated (code generation stays on this thread: the engine is not thread-safe);
-- each built variant runs once to have its results checked, then its kernel alone is timed (warm-up, then
-- the median of several runs, with a noise estimate); the leaders are timed again until their order holds.
local lp = require("loom")

local M = {}

-- {{{ errors, keys, hashing

-- Errors are objects as the engine raises them: err.kind, err.message, tostring "KIND: message".
local ErrorMeta = { __tostring = function(e) return e.kind .. ": " .. e.message end }

local function raise(kind, fmt, ...)
  error(setmetatable({ kind = kind, message = string.format(fmt, ...) }, ErrorMeta), 0)
end

local function describe_error(err)
  if type(err) == "table" and err.kind then return err.kind .. ": " .. tostring(err.message) end
  return tostring(err)
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end

-- "name=value,..." in name order: the identity of a point of the space.
local function point_key(names, p)
  local parts = {}
  for i, name in ipairs(names) do parts[i] = name .. "=" .. tostring(p[name]) end
  return table.concat(parts, ",")
end

-- 64-bit FNV-1a: fingerprints of variants in the cache file, short and stable across runs.
local function fnv1a(text)
  local h = -3750763034362895579 -- 0xcbf29ce484222325
  for i = 1, #text do h = (h ~ text:byte(i)) * 1099511628211 end
  return string.format("%016x", h)
end

-- What the arguments look like (names, dtypes, shapes, values): a variant timed on other data is another one.
local function args_signature(args)
  local parts = {}
  for _, name in ipairs(sorted_keys(args)) do
    local v = args[name]
    local shape = type(v) == "userdata" and v.shape
    parts[#parts + 1] = name .. ":" .. (shape and (v.dtype .. "(" .. table.concat(shape, ",") .. ")") or tostring(v))
  end
  return table.concat(parts, ";")
end

-- }}}

-- {{{ statistics

local function quantile(sorted, q)
  local pos = 1 + (#sorted - 1) * q
  local lo = math.floor(pos)
  local hi = math.min(lo + 1, #sorted)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo)
end

-- The median of the samples, and the noise: half the interquartile range relative to the median.
local function summarize(samples)
  local s = table.move(samples, 1, #samples, 1, {})
  table.sort(s)
  local median = quantile(s, 0.5)
  return median, median > 0 and (quantile(s, 0.75) - quantile(s, 0.25)) / (2 * median) or 0
end

-- }}}

-- {{{ the space

local function check_space(space)
  if type(space) ~= "table" or next(space) == nil then raise("ArgumentError", "tune.search: 'space' must be a non-empty table {name = {values...}}") end
  for name, values in pairs(space) do
    if type(name) ~= "string" or type(values) ~= "table" or #values == 0 then
      raise("ArgumentError", "tune.search: space entry '%s' must be a non-empty list of values", tostring(name))
    end
  end
  return sorted_keys(space)
end

local function space_size(space, names)
  local n = 1
  for _, name in ipairs(names) do n = n * #space[name] end
  return n
end

-- The point number `index` (0-based) in the grid's order: the last name varies fastest.
local function grid_point(space, names, index)
  local p = {}
  for i = #names, 1, -1 do
    local values = space[names[i]]
    p[names[i]] = values[index % #values + 1]
    index = index // #values
  end
  return p
end

-- The points that differ from `p` in one parameter, by one step in its list of values.
local function neighbors(space, names, p)
  local out = {}
  for _, name in ipairs(names) do
    local values = space[name]
    for i, v in ipairs(values) do
      if v == p[name] then
        for _, j in ipairs { i - 1, i + 1 } do
          if values[j] ~= nil then
            local q = {}
            for k, x in pairs(p) do q[k] = x end
            q[name] = values[j]
            out[#out + 1] = q
          end
        end
      end
    end
  end
  return out
end

-- }}}

-- {{{ the cache file: a Lua table of results by point, each with the fingerprint of the variant it describes

local function load_cache(path)
  local f = io.open(path, "r")
  if not f then return {} end
  local chunk = load(f:read("a"), "=" .. path, "t", {})
  f:close()
  local ok, entries = pcall(chunk or error)
  return ok and type(entries) == "table" and entries or {}
end

local function serialize(v)
  if type(v) == "string" then return string.format("%q", v) end
  if math.type(v) == "float" then return string.format("%.17g", v) end
  if type(v) ~= "table" then return tostring(v) end
  local parts = {}
  for _, k in ipairs(sorted_keys(v)) do parts[#parts + 1] = "[" .. serialize(k) .. "]=" .. serialize(v[k]) end
  return "{" .. table.concat(parts, ",") .. "}"
end

-- Written whole to a new file, then renamed over the old one: an interrupted run leaves the old cache.
local function save_cache(path, entries)
  local tmp = path .. ".tmp"
  local f = assert(io.open(tmp, "w"))
  f:write("return {\n")
  for _, key in ipairs(sorted_keys(entries)) do f:write("[", serialize(key), "]=", serialize(entries[key]), ",\n") end
  f:write("}\n")
  f:close()
  assert(os.rename(tmp, path))
end

-- What a re-run takes from the cache (the time and noise follow from the samples).
local CACHED_FIELDS = { "samples", "error", "stage", "codegen", "compile" }

-- }}}

-- {{{ progress

local function progress_stream(option)
  if option == nil then return lp.isatty(io.stderr) and io.stderr or nil end
  if option == true then return io.stderr end
  return option or nil
end

local function format_seconds(s)
  if s >= 60 then return string.format("%dm%02ds", s // 60, math.floor(s % 60)) end
  return string.format("%.0fs", s)
end

-- Redraws the bar at most ten times a second, and always for the last variant.
local function draw_progress(run)
  local out = run.progress
  if not out then return end
  local done, total = run.finished, math.max(run.total, run.finished)
  local now = lp.wall_time()
  if done < total and now - (run.drawn_at or 0) < 0.1 then return end
  run.drawn_at = now
  local elapsed = now - run.started
  local rate = done / math.max(elapsed, 1e-9)
  local width = 30
  local filled = math.floor(width * done / math.max(total, 1))
  local best = run.best and string.format("  best %.4g ms", run.best.time * 1e3) or ""
  out:write(string.format("\r[%s%s] %d/%d%s  %.1f/s  ETA %s%s", string.rep("#", filled), string.rep("-", width - filled),
    done, total, run.failed > 0 and string.format(" (%d failed)", run.failed) or "", rate,
    format_seconds(rate > 0 and (total - done) / rate or 0), best))
  if done == total then out:write("\n") end
  out:flush()
end

-- }}}

-- {{{ one search

-- A search's state: its options, devices and workers, and every variant seen so far.
local function new_run(o)
  local devices = {}
  for i, exec in ipairs(o.devices) do devices[i] = { exec = exec, name = exec.device, waiting = {} } end
  local run = {
    o = o, names = check_space(o.space), devices = devices, results = {}, by_key = {},
    builders = lp.workers(o.jobs), timers = lp.workers(#devices),
    building = {}, top = {}, next_device = 0, finished = 0, failed = 0, total = 0,
    cache = o.cache and load_cache(o.cache) or nil,
    totals = { codegen = 0, compile = 0, timing = 0 },
    progress = progress_stream(o.progress), started = lp.wall_time(),
  }
  return run
end

-- A variant leaves the pipeline: timed, failed or found in the cache.
local function finish(run, r)
  run.finished = run.finished + 1
  if r.error then
    run.failed = run.failed + 1
  elseif not run.best or r.time < run.best.time then
    run.best = r
  end
  if run.cache and r.fingerprint then
    local entry = { fingerprint = r.fingerprint }
    for _, field in ipairs(CACHED_FIELDS) do entry[field] = r[field] end
    run.cache[r.key] = entry
  end
  draw_progress(run)
end

local function fail(run, r, stage, err)
  r.stage, r.error = stage, describe_error(err)
  r.kernel, r.args = nil, nil
  finish(run, r)
end

-- Keeps the kernels (and their builds) of the `leaders` fastest variants only, which are timed again at the end:
-- a variant that is not among them now never will be.
local function keep_if_leader(run, r)
  local top = run.top
  local at = #top + 1
  for i, other in ipairs(top) do
    if r.time < other.time then
      at = i
      break
    end
  end
  table.insert(top, at, r)
  if #top > run.o.leaders then
    local out = table.remove(top)
    out.kernel, out.args = nil, nil
  end
end

-- The call's arguments for variant `r` on its device.
local function call_args(run, r)
  local args = run.o.args
  if type(args) == "function" then return args(r.params, r.device.exec) end
  return args or {}
end

-- Makes the kernel, reuses a cached result, or generates the code and hands the compile to a worker.
local function start_variant(run, r)
  local ok, knl = pcall(run.o.build, r.params)
  if not ok or knl == nil then return fail(run, r, "build", knl or "build returned nil") end
  run.next_device = run.next_device % #run.devices + 1
  r.device = run.devices[run.next_device]
  local args_ok, args = pcall(call_args, run, r)
  if not args_ok then return fail(run, r, "args", args) end
  r.fingerprint = fnv1a(tostring(knl) .. "\0" .. r.device.name .. "\0" .. args_signature(args))
  local cached = run.cache and run.cache[r.key]
  if cached and cached.fingerprint == r.fingerprint then
    for _, field in ipairs(CACHED_FIELDS) do r[field] = cached[field] end
    r.cached = true
    if not r.error then r.time, r.noise = summarize(r.samples) end
    return finish(run, r)
  end
  r.kernel, r.args = knl, args
  local start = lp.wall_time()
  local built, job = pcall(run.builders.build, run.builders, knl, r.device.exec, args)
  r.codegen = lp.wall_time() - start
  run.totals.codegen = run.totals.codegen + r.codegen
  if not built then return fail(run, r, "codegen", job) end
  r.job = job
  run.building[#run.building + 1] = r
end

-- Host copies of a call's outputs (device arrays are fetched; host arrays may be overwritten by later calls).
local function host_copies(outputs)
  local out = {}
  for i, a in ipairs(outputs) do out[i] = a.release and a:get() or a:copy() end
  return out
end

-- Runs variant `r` once: its outputs must pass the user's check and match the first correct variant's.
local function check_results(run, r)
  local outputs = host_copies(table.pack(r.kernel(r.device.exec, r.args)))
  if run.o.check and not run.o.check(outputs, r.params) then error("the check function rejected the results", 0) end
  if not run.reference then
    run.reference = outputs
    return
  end
  if #outputs ~= #run.reference then error(string.format("%d outputs, the reference has %d", #outputs, #run.reference), 0) end
  for i, a in ipairs(outputs) do
    if not lp.allclose(a, run.reference[i], { rtol = run.o.rtol, atol = run.o.atol }) then
      error(string.format("output %d differs from the first correct variant's (max abs diff %g)", i,
        lp.max_abs_diff(a, run.reference[i])), 0)
    end
  end
end

-- The device's next variant: checked here, then timed by the device's timer worker.
local function start_timing(run, dev)
  while #dev.waiting > 0 and not dev.timing do
    local r = table.remove(dev.waiting, 1)
    local ok, err = pcall(check_results, run, r)
    if not ok then
      fail(run, r, "check", err)
    else
      local started, job = pcall(run.timers.time, run.timers, r.kernel, dev.exec, r.args, { warmup = run.o.warmup, runs = run.o.runs })
      if not started then
        fail(run, r, "run", job)
      else
        r.job, dev.timing = job, r
      end
    end
  end
end

local function end_timing(run, dev)
  local r = dev.timing
  dev.timing = nil
  local ok, _, samples = pcall(r.job.wait, r.job)
  r.job = nil
  if not ok then return fail(run, r, "run", _) end
  r.samples = samples
  r.time, r.noise = summarize(samples)
  for _, s in ipairs(samples) do run.totals.timing = run.totals.timing + s end
  keep_if_leader(run, r)
  finish(run, r)
end

local function end_build(run, r)
  local ok, seconds = pcall(r.job.wait, r.job)
  r.job = nil
  if not ok then return fail(run, r, "compile", seconds) end
  r.compile = seconds
  run.totals.compile = run.totals.compile + seconds
  table.insert(r.device.waiting, r)
end

-- Whether timing may start: on the C target only once no compile runs, since compiles and the timed kernel
-- would share the CPU cores.
local function may_time(run, pending)
  return run.o.overlap or (#run.building == 0 and pending == 0)
end

-- Waits for the oldest work under way (a timing, else a build): the thread sleeps instead of polling.
local function wait_oldest(run)
  for _, dev in ipairs(run.devices) do
    if dev.timing then return end_timing(run, dev) end
  end
  end_build(run, table.remove(run.building, 1))
end

-- Moves every variant of `points` through the pipeline; returns their results.
local function evaluate(run, points)
  local batch, queue = {}, {}
  for _, p in ipairs(points) do
    local key = point_key(run.names, p)
    if not run.by_key[key] then
      local r = { params = p, key = key }
      run.by_key[key] = r
      run.results[#run.results + 1] = r
      queue[#queue + 1] = r
    end
    batch[#batch + 1] = run.by_key[key]
  end
  local next_point = 1
  local function busy()
    if next_point <= #queue or #run.building > 0 then return true end
    for _, dev in ipairs(run.devices) do
      if dev.timing or #dev.waiting > 0 then return true end
    end
    return false
  end
  while busy() do
    -- Finished builds go to their device's queue; idle devices start the next timing.
    while #run.building > 0 and run.building[1].job:ready() do end_build(run, table.remove(run.building, 1)) end
    for _, dev in ipairs(run.devices) do
      if dev.timing and dev.timing.job:ready() then end_timing(run, dev) end
      if may_time(run, #queue - next_point + 1) then start_timing(run, dev) end
    end
    -- Generate the next variant's code while the workers compile, keeping a few builds queued per worker.
    if next_point <= #queue and #run.building < 2 * run.o.jobs then
      start_variant(run, queue[next_point])
      next_point = next_point + 1
    else
      local timing = false
      for _, dev in ipairs(run.devices) do timing = timing or dev.timing ~= nil end
      if timing or #run.building > 0 then wait_oldest(run) end
    end
  end
  return batch
end

local function order_of(list)
  local keys = {}
  for i, r in ipairs(list) do keys[i] = r.key end
  return table.concat(keys, "|")
end

-- Times each variant of `list` once more on its device, the devices in parallel, adding to its samples.
local function time_again(run, list)
  local queues, running = {}, {}
  for _, r in ipairs(list) do
    queues[r.device] = queues[r.device] or {}
    table.insert(queues[r.device], r)
  end
  repeat
    for dev, queue in pairs(queues) do
      if not running[dev] and #queue > 0 then
        local r = table.remove(queue, 1)
        running[dev] = { r = r, job = run.timers:time(r.kernel, dev.exec, r.args, { warmup = run.o.warmup, runs = run.o.runs }) }
      end
    end
    local dev, item = next(running)
    if dev then
      running[dev] = nil
      local ok, _, samples = pcall(item.job.wait, item.job)
      if ok then
        table.move(samples, 1, #samples, #item.r.samples + 1, item.r.samples)
        item.r.time, item.r.noise = summarize(item.r.samples)
        item.r.retimed = (item.r.retimed or 0) + 1
      end
    end
  until not dev
end

-- Times the leaders again, until two rounds in a row rank them alike: one timing on a loaded machine can put
-- any variant first, the order of the medians of many holds.
local function retime_leaders(run)
  local top = run.top
  local previous = order_of(top)
  for _ = 1, run.o.rounds do
    if #top < 2 then break end
    time_again(run, top)
    table.sort(top, function(a, b) return a.time < b.time end)
    local order = order_of(top)
    if order == previous then break end
    previous = order
  end
end

-- }}}

-- {{{ strategies: which points to evaluate

local function best_of(list)
  local best
  for _, r in ipairs(list) do
    if r.time and (not best or r.time < best.time) then best = r end
  end
  return best
end

-- `count` distinct points drawn at random (all of them when the space is no larger).
local function random_points(run, count)
  local size = space_size(run.o.space, run.names)
  if count >= size then
    local all = {}
    for i = 0, size - 1 do all[#all + 1] = grid_point(run.o.space, run.names, i) end
    return all
  end
  local seen, out = {}, {}
  while #out < count do
    local i = run.random(0, size - 1)
    if not seen[i] then
      seen[i] = true
      out[#out + 1] = grid_point(run.o.space, run.names, i)
    end
  end
  return out
end

local strategies = {}

function strategies.grid(run)
  run.total = space_size(run.o.space, run.names)
  local points = {}
  for i = 0, run.total - 1 do points[#points + 1] = grid_point(run.o.space, run.names, i) end
  evaluate(run, points)
end

function strategies.random(run)
  run.total = math.min(run.o.budget, space_size(run.o.space, run.names))
  evaluate(run, random_points(run, run.total))
end

-- A random sample of a quarter of the budget, then steps from the best point to its best neighbor while that
-- is faster and the budget lasts.
strategies["local"] = function(run)
  local budget = math.min(run.o.budget, space_size(run.o.space, run.names))
  run.total = budget
  local current = best_of(evaluate(run, random_points(run, math.max(1, budget // 4))))
  while current and #run.results < budget do
    local fresh = {}
    for _, q in ipairs(neighbors(run.o.space, run.names, current.params)) do
      if not run.by_key[point_key(run.names, q)] and #run.results + #fresh < budget then fresh[#fresh + 1] = q end
    end
    if #fresh == 0 then break end
    local step = best_of(evaluate(run, fresh))
    if not step or step.time >= current.time then break end
    current = step
  end
  run.total = #run.results
end

-- }}}

-- {{{ options

local OPTIONS = {
  space = true, build = true, args = true, exec = true, devices = true, check = true, warmup = true, runs = true,
  jobs = true, strategy = true, budget = true, seed = true, leaders = true, rounds = true, rtol = true, atol = true,
  cache = true, progress = true, overlap = true,
}

-- All GPUs of the OpenCL platforms whose names contain `pattern`.
local function platform_queues(pattern)
  local queues, count = {}, 0
  for _, name in ipairs(lp.cl.devices()) do
    if name:lower():match("^[^:]*"):find(pattern:lower(), 1, true) then count = count + 1 end
  end
  for i = 1, count do queues[i] = lp.cl.queue { platform = pattern, device = i } end
  return queues
end

local function read_options(opts)
  if type(opts) ~= "table" then raise("ArgumentError", "tune.search: expected a table of options, got %s", type(opts)) end
  for k in pairs(opts) do
    if not OPTIONS[k] then raise("ArgumentError", "tune.search: unknown option '%s'", tostring(k)) end
  end
  if type(opts.build) ~= "function" then raise("ArgumentError", "tune.search: 'build' must be a function(params) returning a kernel") end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.devices = type(opts.devices) == "string" and platform_queues(opts.devices) or opts.devices or { opts.exec }
  if #o.devices == 0 then raise("ArgumentError", "tune.search: give 'exec' (an executor) or 'devices' (a list of them, or a platform name)") end
  o.warmup, o.runs, o.jobs = opts.warmup or 1, opts.runs or 5, opts.jobs or 2
  o.leaders, o.rounds = opts.leaders or 3, opts.rounds or 4
  o.rtol, o.atol = opts.rtol or 1e-4, opts.atol or 1e-6
  o.strategy = opts.strategy or "grid"
  if not strategies[o.strategy] then raise("ArgumentError", "tune.search: unknown strategy '%s' (grid, random, local)", tostring(o.strategy)) end
  if o.strategy ~= "grid" and type(opts.budget) ~= "number" then raise("ArgumentError", "tune.search: strategy '%s' needs a 'budget' (variants to try)", o.strategy) end
  if o.overlap == nil then
    o.overlap = true
    for _, exec in ipairs(o.devices) do o.overlap = o.overlap and exec.target ~= "c" end
  end
  return o
end

-- }}}

-- tune.search{space=, build=, args=, exec= | devices=, check=, warmup=1, runs=5, jobs=2, strategy="grid" |
-- "random" | "local", budget=, seed=, leaders=3, rounds=4, rtol=, atol=, cache=, progress=, overlap=}:
-- returns best = {params=, time=, noise=, kernel=} (nil when no variant ran) and the list of every variant
-- with `params` and `time` (median seconds), `noise`, `samples` or `error` (and `stage`: where it failed),
-- plus `results.summary`.
function M.search(opts)
  local o = read_options(opts)
  local run = new_run(o)
  local seed = o.seed or 1
  local state = seed
  -- A generator of our own: math.random's state belongs to the script.
  run.random = function(lo, hi)
    state = (state * 6364136223846793005 + 1442695040888963407)
    return lo + ((state >> 33) % (hi - lo + 1))
  end
  strategies[o.strategy](run)
  retime_leaders(run)
  if run.cache then save_cache(o.cache, run.cache) end
  local results = run.results
  local best = best_of(results)
  for _, r in ipairs(results) do r.kernel, r.args, r.device, r.key, r.fingerprint, r.job = nil, nil, r.device and r.device.name, nil, nil, nil end
  local wall = lp.wall_time() - run.started
  results.summary = {
    variants = #results, failed = run.failed, wall = wall, rate = #results / math.max(wall, 1e-9),
    codegen = run.totals.codegen, compile = run.totals.compile, timing = run.totals.timing,
  }
  local cached = 0
  for _, r in ipairs(results) do cached = cached + (r.cached and 1 or 0) end
  results.summary.cached = cached
  if not best then return nil, results end
  return { params = best.params, time = best.time, noise = best.noise, kernel = o.build(best.params) }, results
end

-- {{{ report and plot

local function params_text(names, p)
  local parts = {}
  for _, name in ipairs(names) do parts[#parts + 1] = name .. "=" .. tostring(p[name]) end
  return table.concat(parts, " ")
end

local function param_names(results)
  for _, r in ipairs(results) do return sorted_keys(r.params) end
  return {}
end

-- tune.report(results): a text table, fastest first, failures last with their first line of error.
function M.report(results)
  local names = param_names(results)
  local rows = table.move(results, 1, #results, 1, {})
  table.sort(rows, function(a, b)
    if (a.time ~= nil) ~= (b.time ~= nil) then return a.time ~= nil end
    return a.time and a.time < b.time or false
  end)
  local header = {}
  for i, name in ipairs(names) do header[i] = name end
  header[#header + 1] = "time (ms)"
  header[#header + 1] = "noise"
  header[#header + 1] = "status"
  local lines, widths = { header }, {}
  for _, r in ipairs(rows) do
    local row = {}
    for i, name in ipairs(names) do row[i] = tostring(r.params[name]) end
    row[#row + 1] = r.time and string.format("%.4f", r.time * 1e3) or "-"
    row[#row + 1] = r.noise and string.format("%.1f%%", r.noise * 100) or "-"
    row[#row + 1] = r.error and (r.stage .. ": " .. r.error:match("[^\n]*")) or (r.cached and "ok (cached)" or "ok")
    lines[#lines + 1] = row
  end
  for _, row in ipairs(lines) do
    for i, cell in ipairs(row) do widths[i] = math.max(widths[i] or 0, #cell) end
  end
  local out = {}
  for _, row in ipairs(lines) do
    local cells = {}
    for i, cell in ipairs(row) do cells[i] = i == #row and cell or string.format("%-" .. widths[i] .. "s", cell) end
    out[#out + 1] = table.concat(cells, "  ")
  end
  local s = results.summary
  if s then
    out[#out + 1] = string.format("%d variants (%d failed, %d cached) in %.2f s: %.1f variants/s; code generation %.2f s, " ..
      "compiles %.2f s (worker time), timed runs %.2f s", s.variants, s.failed, s.cached, s.wall, s.rate, s.codegen,
      s.compile, s.timing)
  end
  return table.concat(out, "\n") .. "\n"
end

local function xml_escape(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

-- Round tick values covering [0, top]: 1, 2 or 5 times a power of ten apart.
local function ticks(top)
  local raw = top / 5
  local power = 10 ^ math.floor(math.log(raw, 10))
  local step = power
  for _, m in ipairs { 2, 5, 10 } do
    if step < raw then step = power * m end
  end
  local out = {}
  for v = 0, top + step / 2, step do out[#out + 1] = v end
  return out
end

-- tune.plot(results, path [, {title=}]): an SVG of the time of each variant in the order they ran, the best
-- marked and named; failed variants are marked on the axis. Returns `path`.
function M.plot(results, path, opts)
  opts = opts or {}
  local W, H, left, right, top, bottom = 720, 420, 70, 20, 40, 50
  local names = param_names(results)
  local slowest, best = 0, nil
  for _, r in ipairs(results) do
    if r.time then
      slowest = math.max(slowest, r.time * 1e3)
      if not best or r.time < best.time then best = r end
    end
  end
  local yt = ticks(slowest > 0 and slowest or 1)
  local ymax = yt[#yt]
  local n = math.max(#results, 1)
  local function x(i) return left + (W - left - right) * (i - 0.5) / n end
  local function y(ms) return H - bottom - (H - top - bottom) * ms / ymax end
  local svg = {
    string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">', W, H, W, H),
    string.format('<text x="%d" y="20" font-size="14">%s</text>', left, xml_escape(opts.title or "tune.search: time per variant")),
    string.format('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>', left, H - bottom, W - right, H - bottom),
    string.format('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>', left, top, left, H - bottom),
    string.format('<text class="label" x="%d" y="%d" text-anchor="middle">variant (in the order tried)</text>', (left + W - right) // 2, H - 12),
    string.format('<text class="label" x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">time (ms)</text>', (top + H - bottom) // 2, (top + H - bottom) // 2),
  }
  for _, v in ipairs(yt) do
    svg[#svg + 1] = string.format('<text class="tick" x="%d" y="%.1f" text-anchor="end">%.4g</text>', left - 6, y(v) + 4, v)
    svg[#svg + 1] = string.format('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>', left, y(v), W - right, y(v))
  end
  local step = math.max(1, #results // 10)
  for i = 1, #results, step do
    svg[#svg + 1] = string.format('<text class="tick" x="%.1f" y="%d" text-anchor="middle">%d</text>', x(i), H - bottom + 16, i)
  end
  for i, r in ipairs(results) do
    local what = xml_escape(params_text(names, r.params))
    if r.time then
      local is_best = r == best
      svg[#svg + 1] = string.format('<circle class="%s" cx="%.1f" cy="%.1f" r="%d" fill="%s"><title>%s: %.4g ms</title></circle>',
        is_best and "best" or "variant", x(i), y(r.time * 1e3), is_best and 6 or 3, is_best and "red" or "steelblue", what, r.time * 1e3)
    else
      svg[#svg + 1] = string.format('<text class="failed" x="%.1f" y="%d" text-anchor="middle" fill="gray">×<title>%s: %s</title></text>',
        x(i), H - bottom - 4, what, xml_escape(r.error))
    end
  end
  if best then
    local bi
    for i, r in ipairs(results) do if r == best then bi = i end end
    svg[#svg + 1] = string.format('<text class="best-label" x="%.1f" y="%.1f" fill="red">best: %s (%.4g ms)</text>',
      math.min(x(bi) + 8, W - right - 250), y(best.time * 1e3) - 8, xml_escape(params_text(names, best.params)), best.time * 1e3)
  end
  svg[#svg + 1] = "</svg>\n"
  local f = assert(io.open(path, "w"))
  f:write(table.concat(svg, "\n"))
  f:close()
  return path
end

-- }}}

return M
