-- Codegen latency: Loom against loopy (bench/loopy_codegen_latency.py, run from here, builds the same kernels with
-- the same transformations), per kernel, with issue 9's goal for each.
--
-- usage: loom bench/codegen_latency.lua [runs [loopy_runs]] [--budget=SECONDS] [--only=k1,k2] [--skip=k1,k2]
--        [--no-loopy]
-- (defaults: 200 runs, 20 loopy runs, a budget of 5 s per kernel and side)
--
-- What is timed: process CPU time (os.clock here, time.process_time in the loopy script; microsecond
-- resolution; codegen is single-threaded, so this equals wall time on an idle machine and is not inflated by
-- load) of one run of make_kernel -> transformations -> add_dtypes -> generate_code (loopy:
-- generate_code_v2(...).device_code(), caching off). Each kernel runs once untimed as a warm-up, unless that run
-- alone exceeded the budget, in which case it is the one sample (the tiled GEMMs can take minutes today); then
-- runs repeat until the run count or the budget is reached, at least one. The table gives the number of timed
-- runs, nearest-rank p50 and p90, loopy's p50, the ratio of the p50s (loopy/loom: how many times faster Loom
-- is), the goal with whether Loom's p50 meets it, and the p50 of the part of Loom's runs spent in isl's AST
-- generator with loopy's p50 over it: the highest ratio Loom could reach while isl's AST generator builds every
-- loop, as issue 9 keeps it. A side that cannot build a kernel shows n/a, and the reason (its error's first line)
-- is listed below the table.
local lp = require("loom")

local function usage_error(msg)
    io.stderr:write(msg, "\nusage: loom bench/codegen_latency.lua [runs [loopy_runs]] [--budget=SECONDS] ",
        "[--only=k1,k2] [--skip=k1,k2] [--no-loopy]\n")
    os.exit(2)
end

local function name_set(list)
    local set = {}
    for name in list:gmatch("[^,%s]+") do set[name] = true end
    return set
end

local function parse_args(args)
    local opts = {runs = 200, loopy_runs = 20, budget = 5.0, skip = {}}
    local counts = {"runs", "loopy_runs"}
    for _, a in ipairs(args) do
        local key, value = a:match("^%-%-([%w-]+)=?(.*)$")
        if not key then
            local field = table.remove(counts, 1)
            local n = math.tointeger(tonumber(a))
            if not field or not n or n < 1 then usage_error("bad argument '" .. a .. "'") end
            opts[field] = n
        elseif key == "budget" and tonumber(value) and tonumber(value) >= 0 then
            opts.budget = tonumber(value)
        elseif key == "only" or key == "skip" then
            opts[key] = name_set(value)
        elseif key == "no-loopy" then
            opts.no_loopy = true
        else
            usage_error("bad option '" .. a .. "'")
        end
    end
    return opts
end

local opts = parse_args(arg)
local f32 = "float32"

-- Goals (issue 9): the tutorial's kernels >= 100x faster than loopy; the tuned ones as listed.
local tutorial_goal = {min_ratio = 100}

local function matmul(options)
    local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", nil, options)
    return lp.add_dtypes(knl, {a = f32, b = f32})
end

-- t x t outputs per work-item of a 16x16 work-group, a and b prefetched into local memory (issue 9's form;
-- loopy refuses it: the fetch of b does not use group axis 0).
local function register_tiled_gemm(t)
    local k = matmul({assumptions = string.format("n mod %d = 0 and n>=%d", 16 * t, 16 * t)})
    k = lp.split_iname(k, "i", 16 * t, {outer_tag = "g.0"})
    k = lp.split_iname(k, "j", 16 * t, {outer_tag = "g.1"})
    k = lp.split_iname(k, "i_inner", 16, {outer_tag = "ilp", inner_tag = "l.0"})
    k = lp.split_iname(k, "j_inner", 16, {outer_tag = "ilp", inner_tag = "l.1"})
    k = lp.split_iname(k, "k", 16)
    k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner", {default_tag = "l.auto"})
    return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner", {default_tag = "l.auto"})
end

local kernels = {
    {name = "double", build = function()
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "transpose_dbl", build = function()
        local knl = lp.make_kernel("{ [i,j,ii,jj]: 0<=i,j,ii,jj<n }",
            {"out[j,i] = a[i,j] {id=transpose}", "out[ii,jj] = 2*out[ii,jj]  {dep=transpose}"},
            {lp.GlobalArg("out", nil, {shape = lp.auto, is_input = false}), "..."})
        knl = lp.prioritize_loops(knl, "i,j")
        knl = lp.prioritize_loops(knl, "ii,jj")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "zero_fill", build = function()
        local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "a[i,j] = 0")
        knl = lp.prioritize_loops(knl, "j,i")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "triangular", build = function()
        local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<=i }", "out[i,j] = 2*a[i,j]")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "matvec", build = function()
        local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i,k]*x[k])")
        return lp.add_dtypes(knl, {a = f32, x = f32})
    end},
    {name = "split_tile", build = function()
        local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[j,i]",
            nil, {assumptions = "n mod 16 = 0 and n >= 1"})
        knl = lp.split_iname(knl, "i", 16)
        knl = lp.split_iname(knl, "j", 16)
        knl = lp.prioritize_loops(knl, "i_outer,j_outer,i_inner,j_inner")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "split_unroll", build = function()
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", nil, {assumptions = "n>=0 and n mod 4 = 0"})
        knl = lp.split_iname(knl, "i", 4)
        knl = lp.tag_inames(knl, {i_inner = "unr"})
        knl = lp.prioritize_loops(knl, "i_outer,i_inner")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "split_gl", build = function()
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", nil, {assumptions = "n>=0"})
        knl = lp.split_iname(knl, "i", 128, {outer_tag = "g.0", inner_tag = "l.0"})
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "gemm_8x8", goal = {max_ms = 50}, build = function() return register_tiled_gemm(8) end},
    {name = "gemm_4x4", goal = {max_ms = 20}, build = function() return register_tiled_gemm(4) end},
    -- A 4x8 tile of consecutive outputs per work-item, 16x16 work-items; both fetches inside every group axis.
    {name = "sgemm_cl_4x8", goal = {min_ratio = 10}, build = function()
        local k = matmul({assumptions = "n mod 128 = 0 and n>=128"})
        k = lp.split_iname(k, "i", 64, {outer_tag = "g.1"})
        k = lp.split_iname(k, "j", 128, {outer_tag = "g.0"})
        k = lp.split_iname(k, "i_inner", 4, {outer_tag = "l.1", inner_tag = "ilp"})
        k = lp.split_iname(k, "j_inner", 8, {outer_tag = "l.0", inner_tag = "ilp"})
        k = lp.split_iname(k, "k", 16)
        local outer = "i_outer, j_outer, k_outer"
        k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner",
            {fetch_outer_inames = outer, default_tag = "l.auto"})
        return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner",
            {fetch_outer_inames = outer, default_tag = "l.auto"})
    end},
    -- A 4x4 register tile on the C target, loops only (loopy's plain C target has no hardware axes).
    {name = "sgemm_c_4x4", goal = {min_ratio = 10}, build = function()
        local k = matmul({assumptions = "n mod 4 = 0 and n>=4", target = "c"})
        k = lp.split_iname(k, "i", 4, {inner_tag = "ilp"})
        k = lp.split_iname(k, "j", 4, {inner_tag = "ilp"})
        return lp.prioritize_loops(k, "i_outer,j_outer,k")
    end},
    {name = "conv", goal = {max_ms = 20, min_ratio = 100}, build = function()
        local knl = lp.make_kernel("{[b,x,fx,c]: 0<=b<2 and 0<=x<8 and 0<=fx<3 and 0<=c<2}",
            "out[b,x] = sum((fx, c), img[b, x+fx, c] * w[fx, c])")
        local k = lp.tag_inames(knl, {x = "l.0"})
        k = lp.add_prefetch(k, "w[:,:]", nil, {default_tag = "l.auto"})
        k = lp.add_prefetch(k, "img", "x, fx", {fetch_outer_inames = "b, c", default_tag = "l.auto"})
        return lp.add_dtypes(k, {img = f32, w = f32})
    end},
    -- 7-point Laplacian on a 4x8x8 work-group, the input's bounding box per work-group in local memory.
    {name = "stencil_3d", goal = {max_ms = 20, min_ratio = 100}, build = function()
        local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}",
            "out[i+1,j+1,k+1] = a[i,j+1,k+1] + a[i+2,j+1,k+1] + a[i+1,j,k+1] + a[i+1,j+2,k+1]"
            .. " + a[i+1,j+1,k] + a[i+1,j+1,k+2] - 6*a[i+1,j+1,k+1]",
            nil, {assumptions = "n mod 8 = 0 and n>=8"})
        local k = lp.split_iname(knl, "i", 4, {outer_tag = "g.2", inner_tag = "l.2"})
        k = lp.split_iname(k, "j", 8, {outer_tag = "g.1", inner_tag = "l.1"})
        k = lp.split_iname(k, "k", 8, {outer_tag = "g.0", inner_tag = "l.0"})
        k = lp.add_prefetch(k, "a", "i_inner,j_inner,k_inner", {fetch_bounding_box = true, default_tag = "l.auto"})
        return lp.add_dtypes(k, {a = f32})
    end},
    {name = "batched_8x8", goal = {max_ms = 20, min_ratio = 100}, build = function()
        local knl = lp.make_kernel("{[e,i,j,k]: 0<=e<nelements and 0<=i,j,k<8}",
            "c[e,i,j] = sum(k, a[e,i,k]*b[e,k,j])", nil, {assumptions = "nelements>=1"})
        local k = lp.split_iname(knl, "e", 32, {outer_tag = "g.0", inner_tag = "l.0"})
        k = lp.tag_inames(k, {i = "ilp"})
        return lp.add_dtypes(k, {a = f32, b = f32})
    end},
}

local function selected(k)
    return not opts.skip[k.name] and (not opts.only or opts.only[k.name])
end

local function percentile(sorted, q)
    return sorted[math.max(1, math.ceil(q * #sorted))]
end

-- Seconds of CPU time for one make-transform-generate run, and of it those isl's AST generator took and those
-- the dependence check took (the generate_code info's isl_ast_seconds and legality_seconds).
local function timed_run(build)
    local start = os.clock()
    local knl = build()
    local code, info = lp.generate_code(knl)
    local seconds = os.clock() - start
    assert(code:find(knl.name, 1, true), "the generated code lacks the kernel " .. knl.name)
    -- The same kernel again: its stages are kept with it (ir/derived.h), so this costs about nothing.
    local again_start = os.clock()
    assert(lp.generate_code(knl) == code, "a second generate_code gave other code")
    return seconds, info.isl_ast_seconds, info.legality_seconds, os.clock() - again_start
end

local function first_line(err)
    return (tostring(err):match("^[^\n]*"))
end

-- Sorted samples in milliseconds (whole runs, and isl's AST generator's and the dependence check's parts of
-- them), or nil and the first run's error.
local function measure(build)
    local ok, first, first_ast, first_check, first_again = pcall(timed_run, build)
    if not ok then return nil, nil, nil, nil, first_line(first) end
    if first > opts.budget then return {first * 1e3}, {first_ast * 1e3}, {first_check * 1e3}, {first_again * 1e3} end
    local times, ast_times, check_times, again_times, spent = {}, {}, {}, {}, 0
    while #times < opts.runs and (#times == 0 or spent < opts.budget) do
        local t, ast, check, again = timed_run(build)
        times[#times + 1], ast_times[#ast_times + 1], check_times[#check_times + 1] = t * 1e3, ast * 1e3, check * 1e3
        again_times[#again_times + 1] = again * 1e3
        spent = spent + t
    end
    table.sort(times)
    table.sort(ast_times)
    table.sort(check_times)
    table.sort(again_times)
    return times, ast_times, check_times, again_times
end

local function script_dir()
    return arg[0]:match("^(.*)/[^/]*$") or "."
end

local function shell_quote(s)
    return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- loopy's results by kernel name ({runs=, p50=} or {why=}), or nil and a note saying why there are none.
local function loopy_latencies(skip)
    local cmd = string.format("python3 %s %d %s %s 2>&1", shell_quote(script_dir() .. "/loopy_codegen_latency.py"),
        opts.loopy_runs, opts.budget, table.concat(skip, " "))
    local pipe = assert(io.popen(cmd))
    local results, last = {}, nil
    for line in pipe:lines() do
        local name, runs, p50 = line:match("^(%S+) (%d+) (%S+) %S+$")
        local failed, why = line:match("^(%S+) n/a (.*)$")
        if name and tonumber(p50) then
            results[name] = {runs = tonumber(runs), p50 = tonumber(p50)}
        elseif failed then
            results[failed] = {why = why}
        else
            last = line
        end
    end
    if not pipe:close() then return nil, last or "python3 failed" end
    return results
end

local function goal_text(goal)
    local parts = {}
    if goal.max_ms then parts[#parts + 1] = string.format("<=%g ms", goal.max_ms) end
    if goal.min_ratio then parts[#parts + 1] = string.format(">=%gx", goal.min_ratio) end
    return table.concat(parts, ", ")
end

-- "yes", "NO", or "?" when the ratio the goal needs is unknown. A ratio goal holds "where loopy can build the
-- kernel", so it is waived when loopy cannot, if the goal also has a time bound.
local function goal_met(goal, p50, ratio, loopy_failed)
    if not p50 then return "NO" end
    if goal.max_ms and p50 > goal.max_ms then return "NO" end
    if goal.min_ratio then
        if ratio then return ratio >= goal.min_ratio and "yes" or "NO" end
        if not (goal.max_ms and loopy_failed) then return "?" end
    end
    return "yes"
end

local function fmt(v, pattern)
    return v and string.format(pattern, v) or "n/a"
end

-- Milliseconds, as seconds from 10 s on, so that the slow kernels keep the columns aligned.
local function duration(ms)
    if not ms then return "n/a" end
    return ms < 1e4 and string.format("%.3f ms", ms) or string.format("%.2f s", ms / 1e3)
end

local results, skip = {}, {}
for _, k in ipairs(kernels) do
    if selected(k) then
        local times, ast_times, check_times, again_times, why = measure(k.build)
        local r = {name = k.name, goal = k.goal or tutorial_goal, tutorial = k.goal == nil, why = why}
        if times then
            r.runs, r.p50, r.p90 = #times, percentile(times, 0.5), percentile(times, 0.9)
            r.ast, r.check, r.again = percentile(ast_times, 0.5), percentile(check_times, 0.5), percentile(again_times, 0.5)
        end
        results[#results + 1] = r
    else
        skip[#skip + 1] = k.name
    end
end

local loopy, note
if not opts.no_loopy then loopy, note = loopy_latencies(skip) end

print(string.format("codegen latency, CPU time per make_kernel -> generate_code (up to %d runs for loom, %d for "
    .. "loopy, %g s budget per kernel and side)", opts.runs, opts.loopy_runs, opts.budget))
local row = "%-13s %5s %12s %12s %5s %12s %10s  %-15s %-4s %11s %10s %10s %6s"
print(string.format(row, "kernel", "runs", "loom p50", "loom p90", "runs", "loopy p50", "loopy/loom", "goal", "met",
    "isl AST", "loopy/AST", "dep check", "share"))
local log_sum, count, met, worst_share = 0, 0, 0, 0
local reasons = {}
for _, r in ipairs(results) do
    local theirs = loopy and loopy[r.name] or {}
    local ratio = theirs.p50 and r.p50 and theirs.p50 / r.p50
    if ratio and r.tutorial then log_sum, count = log_sum + math.log(ratio), count + 1 end
    local ok = goal_met(r.goal, r.p50, ratio, theirs.why ~= nil)
    if ok == "yes" then met = met + 1 end
    local ast_ratio = theirs.p50 and r.ast and r.ast > 0 and theirs.p50 / r.ast
    local share = r.check and r.p50 and r.p50 > 0 and 100 * r.check / r.p50
    if share then worst_share = math.max(worst_share, share) end
    print(string.format(row, r.name, fmt(r.runs, "%d"), duration(r.p50), duration(r.p90),
        fmt(theirs.runs, "%d"), duration(theirs.p50), fmt(ratio, "%.2fx"), goal_text(r.goal), ok, duration(r.ast),
        fmt(ast_ratio, "%.1fx"), duration(r.check), fmt(share, "%.1f%%")))
    if r.why then reasons[#reasons + 1] = string.format("  %s, loom: %s", r.name, r.why) end
    if theirs.why then reasons[#reasons + 1] = string.format("  %s, loopy: %s", r.name, theirs.why) end
end
if #reasons > 0 then
    print("n/a:")
    for _, line in ipairs(reasons) do print(line) end
end
if count > 0 then
    print(string.format("geometric mean loopy/loom over %d tutorial kernels: %.2fx (goal: >=100x each)", count,
        math.exp(log_sum / count)))
end
print(string.format("goals met: %d of %d", met, #results))
print("isl AST: the p50 of the CPU time isl's AST generator took in Loom's runs (generate_code's isl_ast_seconds);")
print("loopy/AST: loopy's p50 over it, the most loopy/loom can be while isl's AST generator builds the loops")
print(string.format("dep check: the p50 of the dependence check's CPU time (generate_code's legality_seconds), share: "
    .. "of loom's p50; the largest share %.1f%% (goal: <= 10%% on every kernel, issue 33)", worst_share))
local slowest_again = 0
for _, r in ipairs(results) do slowest_again = math.max(slowest_again, r.again or 0) end
print(string.format("again: a second generate_code of the same kernel, whose stages it keeps: at most %.4f ms "
    .. "(p50 per kernel; goal: <= 0.1 ms, issue 35)", slowest_again))

-- The floor: isl's AST generator alone on the loop of `double`, the schedule and context Loom hands it, compiled
-- here with the system compiler (bench/isl_ast_floor.c). Loom keeps isl's AST generator for every loop (issue 9),
-- so no kernel can be generated faster than this.
-- It links the isl .ci/setup builds for Loom (tools/build_isl.sh, small integers) where there is one, else the system's.
local function isl_for_floor()
    local root = script_dir() .. "/../build-deps/isl"
    local archive = io.open(root .. "/lib/libisl.a", "rb")
    if not archive then return "-lisl", "the system's isl" end
    archive:close()
    return string.format("-I%s %s", shell_quote(root .. "/include"), shell_quote(root .. "/lib/libisl.a")),
        "build-deps/isl"
end

local function isl_ast_floor_ms()
    local exe = os.tmpname()
    local flags, which = isl_for_floor()
    local built = os.execute(string.format("cc -O2 -o %s %s %s 2>/dev/null", shell_quote(exe),
        shell_quote(script_dir() .. "/isl_ast_floor.c"), flags))
    if not built then
        os.remove(exe)
        return nil
    end
    local pipe = io.popen(string.format("%s %s %s", shell_quote(exe), shell_quote("[n] -> { S[i] -> [i] : 0 <= i < n }"),
        shell_quote("[n] -> { : n >= 0 }")))
    local ms = tonumber(pipe:read("a"))
    pipe:close()
    os.remove(exe)
    return ms, which
end

local floor, floor_isl = isl_ast_floor_ms()
if floor then
    local double = loopy and loopy.double and loopy.double.p50
    print(string.format("isl's AST generator alone (%s) on double's one loop: %.3f ms per build%s", floor_isl, floor,
        double and string.format(" = loopy's double / %.0f (>=100x would need <= %.3f ms for the whole codegen)",
            double / floor, double / 100) or ""))
else
    print("note: isl's AST floor not measured (cc with libisl-dev is needed)")
end
if note then print("note: loopy numbers unavailable (python3 with loopy is needed): " .. note) end
