-- Register tiles on the C target, unrolled against looped: issue 9's register-tiled GEMM (c = a@b, float32,
-- n x n; 16x16 work-items per work-group, each computing a tile x tile block of c, a and b prefetched into local
-- memory) with the tile inames tagged "ilp" (unrolled copies) or "ilp.seq" (loops). The C executor runs the group
-- axes on OpenMP threads and the local axes as loops. Issue 9: the unrolled copies ran at 5-7 GFLOP/s against
-- 45-88 GFLOP/s as ilp.seq; the goal is that unrolled is not slower.
--
-- usage: loom bench/unrolled_tiles.lua [n [tiles [runs [threads]]]]
--        (defaults 512, "4" (e.g. "4,8"; n must be a multiple of 16*tile), 10, 0 = OpenMP's default)
--
-- What is timed: lp.time's median of the kernel alone on lp.c.executor (Loom's C flags, -O3 -march=native),
-- after one warm-up run. GFLOP/s counts 2*n^3 operations. Each variant's output is checked against the untiled
-- kernel's (rtol 1e-4); a wrong one is reported in the last column and fails the goal. Building the unrolled
-- variant is itself slow today (tens of seconds for 4x4, minutes for 8x8: see bench/codegen_latency.lua).
local lp = require("loom")

local n = math.tointeger(tonumber(arg[1] or 512))
local tiles = arg[2] or "4"
local runs = math.tointeger(tonumber(arg[3] or 10))
local threads = math.tointeger(tonumber(arg[4] or 0))
assert(n and runs and runs > 0 and threads and threads >= 0,
    "usage: loom bench/unrolled_tiles.lua [n [tiles [runs [threads]]]]")

local function matmul(assumptions)
    local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", nil,
        {assumptions = assumptions, target = "c"})
    return lp.add_dtypes(knl, {a = "float32", b = "float32"})
end

local function tiled(tile, tag)
    local k = matmul(string.format("n mod %d = 0 and n>=%d", 16 * tile, 16 * tile))
    k = lp.split_iname(k, "i", 16 * tile, {outer_tag = "g.0"})
    k = lp.split_iname(k, "j", 16 * tile, {outer_tag = "g.1"})
    k = lp.split_iname(k, "i_inner", 16, {outer_tag = tag, inner_tag = "l.0"})
    k = lp.split_iname(k, "j_inner", 16, {outer_tag = tag, inner_tag = "l.1"})
    k = lp.split_iname(k, "k", 16)
    k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner", {default_tag = "l.auto"})
    return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner", {default_tag = "l.auto"})
end

local exec = lp.c.executor{threads = threads}
local a, b = lp.rand({n, n}, "float32", 1), lp.rand({n, n}, "float32", 2)
local reference = matmul("n>=1")(exec, {a = a, b = b})

-- GFLOP/s of one variant, and nil or the largest difference from the untiled kernel's result.
local function measure(knl)
    local c = knl(exec, {a = a, b = b})
    local wrong = not lp.allclose(c, reference, {rtol = 1e-4}) and lp.max_abs_diff(c, reference) or nil
    local seconds = lp.time(knl, exec, {a = a, b = b, c = c}, {warmup = 1, runs = runs})
    return 2 * n ^ 3 / seconds / 1e9, wrong
end

print(string.format("register-tiled matmul n=%d on the C target (tile per work-item, %s threads), median of %d runs",
    n, threads == 0 and "OpenMP's default" or tostring(threads), runs))
local row = "%-6s %13s %17s %12s  %-21s %-4s %s"
print(string.format(row, "tile", "ilp GFLOP/s", "ilp.seq GFLOP/s", "ilp/ilp.seq", "goal", "met", "result vs untiled"))
for tile in tiles:gmatch("%d+") do
    tile = math.tointeger(tonumber(tile))
    assert(n % (16 * tile) == 0, string.format("n=%d is not a multiple of 16*%d", n, tile))
    local unrolled, unrolled_wrong = measure(tiled(tile, "ilp"))
    local looped, looped_wrong = measure(tiled(tile, "ilp.seq"))
    local ratio = unrolled / looped
    local wrong = {}
    if unrolled_wrong then wrong[#wrong + 1] = string.format("ilp off by %.3g", unrolled_wrong) end
    if looped_wrong then wrong[#wrong + 1] = string.format("ilp.seq off by %.3g", looped_wrong) end
    -- Timing noise of a few percent must not read as a failure; wrong results fail whatever their speed.
    local met = #wrong == 0 and ratio >= 0.95
    print(string.format(row, string.format("%dx%d", tile, tile), string.format("%.2f", unrolled),
        string.format("%.2f", looped), string.format("%.2fx", ratio), ">=0.95x (not slower)", met and "yes" or "NO",
        #wrong == 0 and "ok" or "WRONG: " .. table.concat(wrong, ", ")))
end
