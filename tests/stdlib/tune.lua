-- loom.tune: searches that record failures and go on, check results against the first correct variant, cache
-- per variant, draw a progress bar only where asked or on a terminal, and plot an SVG. No timing is asserted:
-- only that every variant was timed.
local lp = require("loom")
local tune = require("loom.tune")
local h = require("helpers")

local n = 4096
local a = lp.rand({ n }, "float32", 7)
local base = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + 1",
  { lp.GlobalArg("a,out", "float32", { shape = "n" }), "..." }, { target = "c" })
local wrong = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 3*a[i] + 1",
  { lp.GlobalArg("a,out", "float32", { shape = "n" }), "..." }, { target = "c" })

-- Variants of the scaling kernel; some fail at each stage the search goes through.
local function build(p)
  if p.kind == "wrong" then return lp.split_iname(wrong, "i", p.split) end
  local k = lp.split_iname(base, "i", p.split, { inner_tag = p.kind == "unr" and "unr" or nil })
  if p.kind == "badflag" then k = lp.set_options(k, { build_options = { "-fno-such-option-at-all" } }) end
  if p.kind == "badtag" then k = lp.tag_inames(k, { i_inner = "nonsense" }) end
  return k
end

local function by_params(results)
  local out = {}
  for _, r in ipairs(results) do out[r.params.kind .. "/" .. r.params.split] = r end
  return out
end

local function temp_path(suffix)
  local path = os.tmpname()
  os.remove(path)
  return path .. suffix
end

-- {{{ failures are recorded with their stage, and the search goes on

local space = { split = { 4, 16 }, kind = { "for", "unr", "wrong", "badflag", "badtag" } }
local best, results = tune.search { space = space, build = build, args = { a = a }, exec = lp.c.executor { threads = 1 },
  runs = 3, progress = false }
h.check_equal(#results, 10, "one result per point of the grid")
local r = by_params(results)
for _, split in ipairs { 4, 16 } do
  for _, kind in ipairs { "for", "unr" } do
    local v = r[kind .. "/" .. split]
    h.check(v.error == nil and v.time > 0 and #v.samples >= 3, "%s/%d was timed: %s", kind, split, tostring(v.error))
    h.check(v.noise >= 0 and v.compile >= 0 and v.codegen >= 0, "%s/%d has its noise and build times", kind, split)
  end
  h.check_equal(r["wrong/" .. split].stage, "check", "a variant computing something else fails its check")
  h.check(r["wrong/" .. split].error:find("differs from the first correct variant", 1, true), "the check's message")
  h.check_equal(r["badflag/" .. split].stage, "compile", "a compiler error is recorded")
  h.check(r["badflag/" .. split].error:find("BuildError", 1, true), "as a BuildError")
  h.check_equal(r["badtag/" .. split].stage, "build", "an error of build() is recorded")
end
h.check(best.params.kind == "for" or best.params.kind == "unr", "the best variant is a correct one")
h.check(best.kernel ~= nil and best.time == best.time, "best has its kernel and time")
h.check_equal(results.summary.failed, 6, "failures counted")

-- A variant whose tags would run dependent instances unordered is refused when its code is generated
-- (DependenceViolationError, issue 33): recorded with its stage, never timed, and the search goes on. What is
-- timed is legal.
do
  local scan = lp.make_kernel("{ [i]: 1<=i<n }", "a[i] = a[i-1] + a[i]  {id=upd}",
    { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n", "int32") }, { target = "c" })
  local tags = { seq = {}, groups = { outer_tag = "g.0", inner_tag = "l.0" }, lanes = { inner_tag = "vec" },
                 unrolled = { inner_tag = "unr" } }
  local _, scans = tune.search { space = { tags = { "seq", "groups", "lanes", "unrolled" } },
    build = function(p) return lp.split_iname(scan, "i", 16, tags[p.tags]) end,
    args = function() return { a = lp.rand({ 1000 }, "float64", 3) } end, exec = lp.c.executor { threads = 1 },
    runs = 1, progress = false }
  for _, v in ipairs(scans) do
    if v.params.tags == "groups" or v.params.tags == "lanes" then
      h.check_equal(v.stage, "codegen", v.params.tags .. " is refused at code generation")
      h.check(v.error:find("DependenceViolationError: ", 1, true) and v.error:find("of 'upd' reads a[", 1, true),
        "with the dependence it breaks: %s", v.error)
      h.check(v.time == nil and v.samples == nil, "%s was not timed", v.params.tags)
    else
      h.check(v.error == nil and v.time > 0, "%s is legal and timed: %s", v.params.tags, tostring(v.error))
    end
  end
end

-- The user's check decides what is correct: rejecting every result makes every variant fail.
do
  local _, rejected = tune.search { space = { split = { 4, 8 }, kind = { "for" } }, build = build, args = { a = a },
    exec = lp.c.executor {}, progress = false, check = function(outputs, p)
      h.check_equal(outputs[1].shape[1], n, "check gets the outputs")
      h.check(p.split == 4 or p.split == 8, "check gets the params")
      return false
    end }
  for _, v in ipairs(rejected) do h.check_equal(v.stage, "check", "rejected by the check function") end
end

-- }}}

-- {{{ the report

do
  local text = tune.report(results)
  local lines = {}
  for line in text:gmatch("[^\n]+") do lines[#lines + 1] = line end
  h.check(lines[1]:find("kind", 1, true) and lines[1]:find("time (ms)", 1, true), "header: %s", lines[1])
  h.check(lines[2]:find(" ok", 1, true), "the fastest variant comes first: %s", lines[2])
  h.check(lines[#lines]:find("10 variants (6 failed, 0 cached)", 1, true), "summary: %s", lines[#lines])
  h.check(text:find("compile: BuildError", 1, true), "failures show their stage and error")
end

-- }}}

-- {{{ the plot: parsed as XML, one point per timed variant, the best marked, axes labelled

local function parse_svg(text)
  local stack, elements = {}, {}
  for close, name, attrs, self_closing in text:gmatch("<(/?)([%w:-]+)([^>]-)(/?)>") do
    if close == "/" then
      h.check_equal(table.remove(stack), name, "closing tag")
    else
      local e = { name = name, attrs = {} }
      for k, v in attrs:gmatch('([%w:-]+)="([^"]*)"') do e.attrs[k] = v end
      elements[#elements + 1] = e
      if self_closing == "" then stack[#stack + 1] = name end
    end
  end
  h.check_equal(#stack, 0, "every element closed")
  return elements
end

do
  local path = temp_path(".svg")
  h.check_equal(tune.plot(results, path, { title = "scale <test>" }), path, "plot returns the path")
  local f = assert(io.open(path))
  local text = f:read("a")
  f:close()
  os.remove(path)
  local elements = parse_svg(text)
  h.check_equal(elements[1].name, "svg", "the root element")
  local points, best_y, lowest_y, failed, axes = 0, nil, math.huge, 0, 0
  for _, e in ipairs(elements) do
    if e.name == "circle" then
      points = points + 1
      lowest_y = math.min(lowest_y, -tonumber(e.attrs.cy))
      if e.attrs.class == "best" then
        h.check(best_y == nil, "one best point")
        best_y = -tonumber(e.attrs.cy)
      end
    end
    if e.attrs.class == "failed" then failed = failed + 1 end
    if e.attrs.class == "axis" then axes = axes + 1 end
  end
  h.check_equal(points, 4, "one point per timed variant")
  h.check_equal(failed, 6, "one mark per failed variant")
  h.check_equal(axes, 2, "two axes")
  h.check(best_y ~= nil and best_y <= lowest_y, "the best point is the lowest time")
  h.check_contains(text, ">time (ms)<")
  h.check_contains(text, ">variant (in the order tried)<")
  h.check_contains(text, "scale &lt;test&gt;")
  h.check_contains(text, "best: kind=")
end

-- }}}

-- {{{ the cache: a re-run builds only the variants it has not seen

do
  local path = temp_path(".tune")
  local function search(splits)
    local builds = 0
    local _, res = tune.search { space = { split = splits, kind = { "for" } }, build = function(p)
      builds = builds + 1
      return build(p)
    end, args = { a = a }, exec = lp.c.executor {}, cache = path, progress = false }
    return res
  end
  local first = search { 4, 8 }
  h.check_equal(first.summary.cached, 0, "nothing cached at first")
  local again = search { 4, 8 }
  h.check_equal(again.summary.cached, 2, "all cached on a re-run")
  h.check_equal(again.summary.codegen + again.summary.compile, 0, "no code generated or compiled on a re-run")
  h.check_equal(again[1].time, first[1].time, "the cached time")
  local more = search { 4, 8, 32 }
  h.check_equal(more.summary.cached, 2, "the known variants come from the cache")
  h.check(not more[3].cached and more[3].time > 0, "the new variant is built and timed")
  -- A changed kernel for the same point is another variant.
  local _, changed = tune.search { space = { split = { 4 }, kind = { "for" } }, args = { a = a }, exec = lp.c.executor {},
    cache = path, progress = false, build = function(p) return lp.split_iname(base, "i", p.split, { inner_tag = "unr" }) end }
  h.check_equal(changed.summary.cached, 0, "a different kernel is not taken from the cache")
  os.remove(path)
end

-- }}}

-- {{{ strategies

do
  local big = { split = { 2, 4, 8, 16, 32, 64 }, kind = { "for", "unr" } }
  local _, sampled = tune.search { space = big, build = build, args = { a = a }, exec = lp.c.executor {},
    strategy = "random", budget = 5, seed = 3, progress = false }
  h.check_equal(#sampled, 5, "random sampling tries the budget")
  local seen = {}
  for _, v in ipairs(sampled) do
    local key = v.params.kind .. v.params.split
    h.check(not seen[key], "distinct points")
    seen[key] = true
  end
  local best_local, walked = tune.search { space = big, build = build, args = { a = a }, exec = lp.c.executor {},
    strategy = "local", budget = 8, seed = 3, progress = false }
  h.check(#walked >= 2 and #walked <= 8, "local search stays within the budget: %d", #walked)
  h.check(best_local ~= nil, "local search finds a best point")
end

-- }}}

-- {{{ several devices: variants spread over them, checked against one reference

do
  local devices = { lp.c.executor { threads = 1 }, lp.cl.queue {} }
  local _, spread = tune.search { space = { split = { 4, 8, 16, 32 }, kind = { "for", "wrong" } }, build = build,
    args = { a = a }, devices = devices, progress = false }
  local on = {}
  for _, v in ipairs(spread) do on[v.device] = true end
  h.check(on[devices[1].device] and on[devices[2].device], "both devices used")
  for _, v in ipairs(spread) do
    h.check_equal(v.error == nil, v.params.kind == "for", "correctness of " .. v.params.kind .. " on " .. v.device)
  end
end

-- }}}

-- {{{ the progress bar: on stderr when asked or on a terminal, never on a pipe otherwise

do
  local code = [[
    local lp = require("loom")
    local tune = require("loom.tune")
    local base = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i]", { lp.GlobalArg("a,out", "float32", { shape = "n" }), "..." }, { target = "c" })
    tune.search { space = { split = { 4, 8 } }, build = function(p) return lp.split_iname(base, "i", p.split) end,
      args = { a = lp.rand({ 64 }, "float32") }, exec = lp.c.executor {}, progress = PROGRESS }
    io.write("done")
  ]]
  local quiet = h.run_child((code:gsub("PROGRESS", "nil")))
  h.check_equal(quiet, "done", "no progress bar when stderr is not a terminal")
  local shown = h.run_child((code:gsub("PROGRESS", "true")))
  h.check(shown:find("] 2/2", 1, true) and shown:find("ETA", 1, true), "a progress bar when asked: %q", shown)
end

-- }}}

-- {{{ lp.workers: jobs and workers collected while their work is under way break nothing

do
  local workers = lp.workers(2)
  local exec = lp.c.executor {}
  for split = 2, 5 do
    local k = lp.split_iname(base, "i", split)
    workers:time(k, exec, { a = a }, { runs = 2 }) -- dropped at once
    workers:build(lp.split_iname(base, "i", split + 10), exec, { a = a })
  end
  collectgarbage()
  local job = workers:time(lp.split_iname(base, "i", 3), exec, { a = a }, { runs = 2 })
  local median, all = job:wait()
  h.check(median > 0 and #all == 2, "a job's results")
  h.check(job:ready(), "a finished job is ready")
  workers = nil
  collectgarbage()
  local bad = lp.set_options(base, { build_options = { "-fno-such-option-at-all" } })
  h.expect_error("BuildError", "C compilation failed", function() return lp.workers(1):build(bad, exec, { a = a }):wait() end)
  h.expect_error("ArgumentError", "jobs must be from 1 to 256", lp.workers, 0)
end

-- }}}

-- {{{ errors

h.expect_error("ArgumentError", "unknown option 'spaces'", tune.search, { spaces = {}, build = build, exec = lp.c.executor {} })
h.expect_error("ArgumentError", "'build' must be a function", tune.search, { space = space, exec = lp.c.executor {} })
h.expect_error("ArgumentError", "needs a 'budget'", tune.search, { space = space, build = build, exec = lp.c.executor {}, strategy = "random" })
h.expect_error("ArgumentError", "space entry 'split'", tune.search, { space = { split = {} }, build = build, exec = lp.c.executor {} })
h.expect_error("ArgumentError", "give 'exec'", tune.search, { space = space, build = build })

-- }}}
