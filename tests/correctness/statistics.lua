-- Statistics (docs/statistics.md): counts of kernels on triangular, strided, split and nested domains against
-- enumeration in plain Lua; work-item, sub-group and work-group counts and redundant work; printing; map and
-- count arithmetic; access footprints; errors (bench/statistics_latency.lua times the tutorial's maps).
local lp = require("loom")
local h = require("helpers")

local CG = lp.CountGranularity

-- The number of (i, j) with lo <= i, j < hi for which `inside(i, j, params)` holds.
local function enumerate(inside, params, lo, hi)
  local n = 0
  for i = lo, hi do
    for j = lo, hi do
      if inside(i, j, params) then n = n + 1 end
    end
  end
  return n
end

-- The multiplications of `knl` (one per point of its instruction's domain) against enumeration.
local function check_points(what, knl, inside, param_sets)
  local muls = lp.get_op_map(knl, { subgroup_size = 32 }):filter_by { name = "mul", dtype = "float32" }:sum()
  for _, p in ipairs(param_sets) do
    h.check_equal(muls:eval(p), enumerate(inside, p, -5, 45), string.format("%s at n=%s, m=%s", what, p.n, p.m))
  end
end

local param_sets = {}
for _, n in ipairs({ 0, 1, 2, 5, 7, 13, 20 }) do
  for _, m in ipairs({ 0, 1, 3, 4, 11, 16 }) do param_sets[#param_sets + 1] = { n = n, m = m } end
end

local function one_mul(domain, opts)
  local knl = lp.make_kernel(domain, "out[i, j] = 2*b[i, j]", opts)
  return lp.add_and_infer_dtypes(knl, { b = "float32" })
end

-- Domains of several shapes; the split ones count the same points after split_iname and tags.
check_points("triangle", one_mul("{[i,j]: 0<=i<n and 0<=j<=i and j<m}"),
  function(i, j, p) return 0 <= i and i < p.n and 0 <= j and j <= i and j < p.m end, param_sets)
check_points("strided", one_mul("{[i,j]: 0<=i<n and 0<=j<m and exists k: i = 3k + 1}"),
  function(i, j, p) return 0 <= i and i < p.n and 0 <= j and j < p.m and i % 3 == 1 end, param_sets)
check_points("modular", one_mul("{[i,j]: 0<=i<n and 0<=j<m and (i + 2j) mod 3 = 0}"),
  function(i, j, p) return 0 <= i and i < p.n and 0 <= j and j < p.m and (i + 2 * j) % 3 == 0 end, param_sets)
check_points("nested", one_mul({ "{[i]: 0<=i<n}", "{[j]: i<=j<i+m and j < n}" }),
  function(i, j, p) return 0 <= i and i < p.n and i <= j and j < i + p.m and j < p.n end, param_sets)
check_points("skewed", one_mul("{[i,j]: 0<=i<n and 0<=j and 2j<=i+m}"),
  function(i, j, p) return 0 <= i and i < p.n and 0 <= j and 2 * j <= i + p.m end, param_sets)
local tri = one_mul("{[i,j]: 0<=i<n and 0<=j<=i and j<m}")
local split = lp.split_iname(lp.split_iname(tri, "i", 4), "j", 3, { inner_tag = "unr" })
check_points("split triangle", split,
  function(i, j, p) return 0 <= i and i < p.n and 0 <= j and j <= i and j < p.m end, param_sets)

-- Hardware axes: per work-item every point counts; per sub-group the points without the local inames, times
-- the sub-groups of a group (10 work-items in sub-groups of 8: two); with redundant work, the group axes an
-- instruction does not use multiply its count by their sizes (`t[j]` is written by each of the n groups).
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<10}", [[
    out[i, j] = 2*b[i, j]      {id=both}
    s[i] = 3*c[i]              {id=outer}
    t[j] = 4*d[j]              {id=inner}
  ]])
  knl = lp.add_and_infer_dtypes(knl, { b = "float32", c = "float32", d = "float32" })
  knl = lp.tag_inames(knl, { j = "l.0" })
  local p = { n = 7 }
  local mem = lp.get_mem_access_map(knl, { subgroup_size = 8 })
  local function count(m, var, lid, gid, g)
    return m[lp.MemAccess("global", "float32", lid, gid, "load", var, { count_granularity = g, kernel_name = "loopy_kernel" })]:eval(p)
  end
  h.check_equal(count(mem, "b", { [0] = 1 }, {}, CG.WORKITEM), 70, "work-item loads of b")
  h.check_equal(count(mem, "c", {}, {}, CG.SUBGROUP), 7 * 2, "sub-group loads of c")
  h.check_equal(count(mem, "d", { [0] = 1 }, {}, CG.WORKITEM), 10, "work-item loads of d")
  local ops = lp.get_op_map(knl, { subgroup_size = 8 })
  h.check_equal(ops:filter_by { name = "mul" }:eval_and_sum(p), (7 + 7 + 1) * 2, "sub-group muls (without local inames)")
  local grid = lp.tag_inames(knl, { i = "g.0" })
  local redundant = lp.get_mem_access_map(grid, { subgroup_size = 8, count_redundant_work = true })
  h.check_equal(count(redundant, "d", { [0] = 1 }, {}, CG.WORKITEM), 10 * 7, "loads of d by every group")
  h.check_equal(count(redundant, "b", { [0] = 1 }, { [0] = 10 }, CG.WORKITEM), 70, "loads of b, no redundancy")
  local wg = lp.get_op_map(grid, { subgroup_size = 8, count_redundant_work = true })
  h.check_equal(wg:filter_by { name = "mul" }:eval_and_sum(p), (7 + 7 + 7) * 2, "redundant sub-group muls")
  h.check_equal(lp.MemAccess { count_granularity = CG.WORKGROUP }.count_granularity, "workgroup", "granularity field")
end

-- The accesses of ir/access: a predicate's loads count, a load in an assignee's subscript is a load.
do
  local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[idx[i]] = 2*a[i]  {if=c[i] > 0}",
    { lp.GlobalArg("out", "float32", { shape = "n" }), "..." })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", c = "float32", idx = "int32" })
  local by = lp.get_mem_access_map(knl, { subgroup_size = 32 }):group_by("variable", "direction")
  for _, v in ipairs({ { "a", "load" }, { "c", "load" }, { "idx", "load" }, { "out", "store" } }) do
    h.check_equal(by[lp.MemAccess { variable = v[1], direction = v[2] }]:eval { n = 9 }, 9, v[1] .. " " .. v[2])
  end
  h.check_equal(#by, 4, "accesses")
end

-- A global barrier in a loop: the loop runs on the host, each iteration launches both device kernels.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<m}", [[
    for j
      a[i, j] = 2*b[i, j] {id=w}
      ... gbarrier {id=g, dep=w}
      c[i, j] = a[n - 1 - i, j] {dep=g}
    end
  ]])
  knl = lp.tag_inames(lp.add_and_infer_dtypes(knl, { b = "float32" }), { i = "g.0" })
  local sync = lp.get_synchronization_map(knl)
  h.check_equal(sync[lp.Sync("barrier_global", "loopy_kernel")]:eval { n = 4, m = 6 }, 6, "global barriers")
  h.check_equal(sync[lp.Sync("kernel_launch", "loopy_kernel")]:eval { n = 4, m = 6 }, 12, "launches")
end

-- Printing: keys as loopy prints them (numpy type names), counts as isl does.
do
  h.check_equal(tostring(lp.Op("float32", "add", CG.SUBGROUP, "k")), 'Op(float32, add, subgroup, "k")', "Op text")
  h.check_equal(tostring(lp.Op { dtype = "double" }), "Op(float64, None, None)", "Op text without kernel")
  h.check_equal(tostring(lp.MemAccess("global", "float64", { [0] = "m*ell", [1] = 16 }, {}, "load", "g", { count_granularity = CG.WORKITEM, kernel_name = "k" })),
    "MemAccess(global, float64, {0: ell * m, 1: 16}, {}, load, g, None, workitem, 'k')", "MemAccess text")
  h.check_equal(tostring(lp.Sync("barrier_local", "k")), "Sync(barrier_local, k)", "Sync text")
  h.check(lp.MemAccess { lid_strides = { [0] = "2*m" } } == lp.MemAccess { lid_strides = { [0] = "m + m" } }, "strides compare as polynomials")
end

-- Counts are isl quasi-polynomials: exact at any parameter values, as cheap to evaluate at large ones.
do
  local knl = lp.make_kernel("[n,m,l] -> {[i,k,j]: 0<=i<n and 0<=k<m and 0<=j<l}", "c[i, j, k] = a[i,j,k]*b[i,j,k]")
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", b = "float32" })
  local muls = lp.get_op_map(knl, { subgroup_size = 32 })[lp.Op("float32", "mul", CG.SUBGROUP, "loopy_kernel")]
  h.check_equal(tostring(muls), "[l, m, n] -> { l * m * n : l > 0 and m > 0 and n > 0 }", "count text")
  h.check_equal(muls:eval { n = 1 << 20, m = 1 << 20, l = 1 << 20 }, 1 << 60, "count at 2^20 cubed")
  h.check_equal(muls:eval { n = -3, m = 5, l = 5 }, 0, "count of an empty domain")
  h.check_equal((muls + muls):eval { n = 2, m = 3, l = 4 }, 48, "count + count")
  h.check_equal((2 * muls - 1):eval { n = 2, m = 3, l = 4 }, 47, "2 * count - 1")
  h.check_equal(lp.get_op_map(knl, { subgroup_size = 32 }):filter_by { name = "add" }:eval_and_sum { n = 3, m = 1, l = 1 }, 0, "an empty sum")
  h.expect_error("ArgumentError", "no value for the parameter 'l'", function() return muls:eval { n = 2, m = 3 } end)
end

-- Errors.
do
  local knl = one_mul("{[i,j]: 0<=i<n and 0<=j<n}")
  h.expect_error("LoopyError", "no sub-group size", lp.get_op_map, knl)
  h.expect_error("ArgumentError", "unknown option 'subgroupsize'", lp.get_op_map, knl, { subgroupsize = 32 })
  h.expect_error("ArgumentError", "unknown option 'count_within_subscripts'", lp.get_mem_access_map, knl, { count_within_subscripts = true })
  h.expect_error("ArgumentError", "unknown field 'dtpye'", lp.Op, { dtpye = "float32" })
  h.expect_error("ArgumentError", "unknown dtype 'float33'", lp.Op, { dtype = "float33" })
  h.expect_error("LoopyError", "has no dtype", function() return lp.get_synchronization_map(knl):to_bytes() end)
  local par = lp.split_iname(knl, "i", 16, { inner_tag = "l.0", outer_tag = "l.1" })
  h.expect_error("LoopyError", "is not a constant", lp.get_op_map, par, { subgroup_size = 32 })
end

-- Access footprints: the elements touched, against enumeration, on a triangle with overlapping reads, and an
-- array indexed both ways (its footprint in flat storage); uncountable accesses; the loom.Set methods.
do
  local tri = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<=i}", [[
    out[i, j] = b[i + j] + b[2*j] {if=mask[i]}
  ]])
  tri = lp.add_and_infer_dtypes(tri, { b = "float64", mask = "int32" })
  local fp = lp.gather_access_footprints(tri)
  local bytes = lp.gather_access_footprint_bytes(tri)
  for _, n in ipairs({ 0, 1, 2, 7, 30 }) do
    local elements = {}
    local count = 0
    for i = 0, n - 1 do
      for j = 0, i do
        for _, e in ipairs({ i + j, 2 * j }) do
          if not elements[e] then elements[e], count = true, count + 1 end
        end
      end
    end
    h.check_equal(fp.b.read:count():eval { n = n }, count, "b's footprint at n=" .. n)
    h.check_equal(bytes.b.read:eval { n = n }, 8 * count, "b's bytes at n=" .. n)
    h.check_equal(fp.out.write:count():eval { n = n }, n * (n + 1) // 2, "out's footprint at n=" .. n)
    h.check_equal(fp.mask.read:count():eval { n = n }, n, "the condition's footprint at n=" .. n)
  end
  h.check(fp.out.read == nil and fp.b.write == nil, "no footprint without accesses")

  local flat = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<4}", "out[[4*i + j]] = 2*out[i, j]",
    { lp.GlobalArg("out", "float32", { shape = "n, 4" }), "..." })
  local out = lp.gather_access_footprints(flat).out
  h.check_equal(tostring(out.write), "[n] -> { out[i0] : 0 <= i0 < 4n }", "a linearly indexed footprint")
  h.check_equal(tostring(out.read), tostring(out.write), "the other accesses in flat storage")

  local irregular = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = b[i*i] + c[i]")
  irregular = lp.add_and_infer_dtypes(irregular, { b = "float32", c = "float32" })
  h.expect_error("LoopyError", "failed to gather footprint: b[i*i] in instruction", lp.gather_access_footprints, irregular)
  h.expect_error("LoopyError", "failed to gather footprint: b[i*i]", lp.gather_access_footprint_bytes, irregular)
  local rest = lp.gather_access_footprint_bytes(irregular, { ignore_uncountable = true })
  h.check(rest.b == nil and rest.c.read:eval { n = 5 } == 20, "ignore_uncountable leaves b out")
  local scalar_index = lp.make_kernel("{[i]: 0<=i<n}", "<int32> t = 2*i {id=t}\nout[i] = c[t] {dep=t}")
  scalar_index = lp.add_and_infer_dtypes(scalar_index, { c = "float32" })
  h.expect_error("LoopyError", "failed to gather footprint: c[t]", lp.gather_access_footprints, scalar_index)

  h.expect_error("ArgumentError", "unknown option 'ignore'", lp.gather_access_footprints, irregular, { ignore = true })
  h.expect_error("ArgumentError", "option 'ignore_uncountable': boolean expected", lp.gather_access_footprint_bytes,
    irregular, { ignore_uncountable = 1 })
  h.expect_error("ArgumentError", "loom.Kernel expected", lp.gather_access_footprints, "knl")
  h.expect_error("ArgumentError", "loom.Set expected", fp.b.read.count, 3)
  h.expect_error("ArgumentError", "loom.Set expected", fp.b.read.remove_divs, bytes.b.read)
end

-- A count past 64 bits (n = 3e6 cubed) is a LoopyError naming it, not a wrapped number; the same map still
-- evaluates where the count fits.
do
  local cube = lp.add_dtypes(lp.make_kernel("{[i,j,l]: 0<=i,j,l<n}", "out[i,j,l] = 2*a[i,j,l]"), { a = "float32" })
  local map = lp.get_op_map(cube, { subgroup_size = 32 })
  h.expect_error("LoopyError", "the integer 27000000000000000000 does not fit in 64 bits",
    function() return map:eval_and_sum { n = 3000000 } end)
  h.check_equal(map:eval_and_sum { n = 100 }, 1000000, "a cube's multiplications")
end

print("statistics: ok")
