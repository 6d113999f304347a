-- Codegen latency: milliseconds from lp.make_kernel to device code (lp.generate_code after lp.add_dtypes) for
-- the tutorial's kernels, against loopy (bench/loopy_codegen_latency.py builds the same kernels). The goal is
-- two orders of magnitude.
--
-- usage: loom bench/codegen_latency.lua [runs [loopy_runs]]   (defaults 200 and 20)
--
-- Times are process CPU time (os.clock here, time.process_time in the loopy helper; microsecond resolution;
-- codegen is single-threaded, so they equal wall time on an idle machine and are not inflated by load), one
-- sample per make-transform-generate run; p50/p90 are nearest-rank percentiles.
local lp = require("loom")

local runs = math.tointeger(tonumber(arg[1])) or 200
local loopy_runs = math.tointeger(tonumber(arg[2])) or 20
assert(runs > 0 and loopy_runs > 0, "usage: loom bench/codegen_latency.lua [runs [loopy_runs]]")

local f32 = "float32"

-- Each entry builds the kernel with its transformations and types; `needs` lists the lp functions it uses
-- beyond the basics (absent ones make it n/a), `may_fail` marks features that may not be implemented yet.
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
    {name = "matvec", may_fail = true, build = function()
        local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i,k]*x[k])")
        return lp.add_dtypes(knl, {a = f32, x = f32})
    end},
    {name = "split_tile", needs = {"split_iname"}, build = function()
        local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[j,i]",
            nil, {assumptions = "n mod 16 = 0 and n >= 1"})
        knl = lp.split_iname(knl, "i", 16)
        knl = lp.split_iname(knl, "j", 16)
        knl = lp.prioritize_loops(knl, "i_outer,j_outer,i_inner,j_inner")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "split_unroll", needs = {"split_iname", "tag_inames"}, build = function()
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", nil, {assumptions = "n>=0 and n mod 4 = 0"})
        knl = lp.split_iname(knl, "i", 4)
        knl = lp.tag_inames(knl, {i_inner = "unr"})
        knl = lp.prioritize_loops(knl, "i_outer,i_inner")
        return lp.add_dtypes(knl, {a = f32})
    end},
    {name = "split_gl", needs = {"split_iname"}, build = function()
        local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 0", nil, {assumptions = "n>=0"})
        knl = lp.split_iname(knl, "i", 128, {outer_tag = "g.0", inner_tag = "l.0"})
        return lp.add_dtypes(knl, {a = f32})
    end},
}

local function percentile(sorted, q)
    return sorted[math.max(1, math.ceil(q * #sorted))]
end

local function generate(build)
    local code = lp.generate_code(build())
    assert(code:find("__kernel", 1, true), "no device kernel in the generated code")
end

-- The reason a kernel cannot be measured (a missing transformation, or the first run's error), or nil.
local function unavailable(k)
    for _, f in ipairs(k.needs or {}) do
        if lp[f] == nil then return "lp." .. f .. " missing" end
    end
    local ok, err = pcall(generate, k.build)
    if ok then return nil end
    if not k.may_fail then error(err, 0) end
    return tostring(err)
end

-- p50 and p90 in milliseconds; the availability check above was the warm-up run.
local function measure(build)
    local times = {}
    for r = 1, runs do
        local start = os.clock()
        generate(build)
        times[r] = (os.clock() - start) * 1e3
    end
    table.sort(times)
    return percentile(times, 0.5), percentile(times, 0.9)
end

local function script_dir()
    return arg[0]:match("^(.*)/[^/]*$") or "."
end

local function shell_quote(s)
    return "'" .. s:gsub("'", "'\\''") .. "'"
end

-- loopy's p50 per kernel name, or nil and a note saying why there are none.
local function loopy_latencies(skip)
    local cmd = string.format("python3 %s %d %s 2>&1", shell_quote(script_dir() .. "/loopy_codegen_latency.py"),
        loopy_runs, table.concat(skip, " "))
    local pipe = assert(io.popen(cmd))
    local p50, last = {}, nil
    for line in pipe:lines() do
        local name, ms = line:match("^(%S+) (%S+) %S+$")
        if name and tonumber(ms) then p50[name] = tonumber(ms) else last = line end
    end
    if not pipe:close() then return nil, last or "python3 failed" end
    return p50
end

local function fmt(v, pattern)
    return v and string.format(pattern, v) or "n/a"
end

local results, skip = {}, {}
for _, k in ipairs(kernels) do
    local why = unavailable(k)
    local r = {name = k.name, why = why}
    if why then
        skip[#skip + 1] = k.name
    else
        r.p50, r.p90 = measure(k.build)
    end
    results[#results + 1] = r
end

local loopy, note = loopy_latencies(skip)

print(string.format("codegen latency, make_kernel to device code (loom: %d runs, loopy: %d runs)", runs,
    loopy_runs))
print(string.format("%-14s %10s %10s %12s %14s", "kernel", "loom p50", "loom p90", "loopy p50", "loopy/loom"))
local log_sum, count = 0, 0
for _, r in ipairs(results) do
    local theirs = loopy and loopy[r.name]
    local ratio = theirs and r.p50 and theirs / r.p50
    if ratio then log_sum, count = log_sum + math.log(ratio), count + 1 end
    print(string.format("%-14s %10s %10s %12s %14s", r.name, fmt(r.p50, "%.3f ms"), fmt(r.p90, "%.3f ms"),
        fmt(theirs, "%.2f ms"), fmt(ratio, "%.1fx")))
end
for _, r in ipairs(results) do
    if r.why then print(string.format("  %s: n/a (%s)", r.name, r.why)) end
end
if count > 0 then print(string.format("geometric mean loopy/loom: %.1fx (goal: 100x)", math.exp(log_sum / count))) end
if not loopy then print("note: loopy numbers unavailable (python3 with loopy is needed): " .. note) end
