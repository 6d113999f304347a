-- Mistakes with precompute and add_prefetch: unknown rules, variables and inames, sweeps that nothing uses,
-- footprints not convex, names already taken, footprint subscripts of the wrong
-- rank. Each is a typed user error; the kernel passed in is left as it was.
local lp = require("loom")
local h = require("helpers")

local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<16}", [[
  f(x) := 2*a[x]
  out[i, j] = f(i) + j
  ]])
local tiled = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })

h.expect_error("LoopyError", "substitution rule 'g' not found", lp.precompute, knl, "g", "i")
h.expect_error("LoopyError", "sweep iname 'q' is not a known iname", lp.precompute, knl, "f", { "q" })
h.expect_error("LoopyError", "unreferenced sweep inames specified: j", lp.precompute, knl, "f", { "j" })
h.expect_error("LoopyError", { "storage axis 'y'", "neither an argument of 'f' nor an iname" }, lp.precompute, knl, "f",
  "i", { storage_axes = { "y" } })
h.expect_error("LoopyError", "new storage axis name 'out' conflicts with existing name", lp.precompute, knl, "f", "i",
  { precompute_inames = { "out" } })
h.expect_error("LoopyError", "temporary name 'out' is already in use", lp.precompute, knl, "f", "i",
  { temporary_name = "out" })
h.expect_error("LoopyError", "not all uses in subst_use agree on rule name", lp.precompute, knl, { "f(i)", "a(i)" })


-- a[i] and a[i+20] leave a hole in each tile's footprint: not convex unless the bounding box is fetched.
local holey = lp.split_iname(lp.make_kernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i+20]"), "i", 16)
h.expect_error("LoopyError", { "the footprint of 'a_fetch_rule' is not convex", "fetch_bounding_box=true" },
  lp.add_prefetch, holey, "a", "i_inner")
lp.add_prefetch(holey, "a", "i_inner", { fetch_bounding_box = true })

h.expect_error("LoopyError", "'a[i_inner' is neither a variable name nor a subscript", lp.add_prefetch, tiled, "a[i_inner")
-- Existing inames as storage axes: over exactly the footprint's extent (not less, not more), and not inames
-- the footprint varies with unless they are swept.
local shifted = lp.split_iname(lp.make_kernel("{[i]: 0<=i<n}", "out[i] = a[i] + a[i+1]"), "i", 16)
h.expect_error("LoopyError", { "existing inames 'i_inner'", "do not range over the footprint",
  "domain of preexisting inames does not match domain needed for precompute" }, lp.add_prefetch,
  shifted, "a", "i_inner", { dim_arg_names = { "i_inner" } })
h.expect_error("LoopyError", "existing iname 'i_outer' in precompute_inames is used by 'a_fetch_rule' or its uses",
  lp.add_prefetch, shifted, "a", "i_inner", { dim_arg_names = { "i_outer" } })
-- b's fetch over j (0..7) into ii, an iname a first fetch made over i (0..15): ii would lose 8..15.
do
  local two = lp.make_kernel("{[i,j]: 0<=i<16 and 0<=j<8}", "out[i, j] = a[i] + b[j]")
  two = lp.add_prefetch(two, "a", "i", { dim_arg_names = { "ii" } })
  h.expect_error("LoopyError", { "existing inames 'ii'", "range beyond the footprint",
    "original domain got shrunk by applying the precompute" }, lp.add_prefetch, two, "b", "j", { dim_arg_names = { "ii" } })
end
-- A second fetch into an existing temporary must agree with it: number of axes, dtype, address space.
do
  local two = lp.make_kernel("{[i,j]: 0<=i<16 and 0<=j<8}", "out[i, j] = a[i] + c[i, j] + d[i, j]")
  two = lp.add_dtypes(two, { a = "float32", c = "float64", d = "float32" })
  two = lp.add_prefetch(two, "a", "i", { temporary_address_space = "private" })
  h.expect_error("LoopyError", "existing and new temporary 'a_fetch' do not have matching number of dimensions (1 vs. 2)",
    lp.add_prefetch, two, "d", "i, j", { temporary_name = "a_fetch" })
  h.expect_error("LoopyError", "existing and new dtype of temporary 'a_fetch' do not match (existing: float32, new: float64)",
    lp.add_prefetch, two, "c", "i", { temporary_name = "a_fetch" })
  h.expect_error("LoopyError",
    "existing and new temporary 'a_fetch' do not have matching address spaces (existing: private, new: local)",
    lp.add_prefetch, two, "d", "i", { temporary_name = "a_fetch", temporary_address_space = "local" })
  h.expect_error("LoopyError", "temporary name 'out' is already in use by an argument", lp.add_prefetch, two, "c", "i",
    { temporary_name = "out" })
end
h.expect_error("LoopyError", "precompute axis 1 (1-based) was eliminated as having length 1 but also mapped to existing iname 'i_inner'",
  lp.add_prefetch, tiled, "a", nil, { dim_arg_names = { "i_inner" } })
h.expect_error("LoopyError", "add_prefetch: no variable named 'b'", lp.add_prefetch, tiled, "b", "i_inner")
h.expect_error("LoopyError", { "sweep index 'a[i_inner, :]'", "wrong number of dimensions" }, lp.add_prefetch, tiled,
  "a[i_inner, :]")
h.expect_error("LoopyError", "no invocations of 'a_fetch_rule' found", lp.add_prefetch, tiled, "a", "i_inner",
  { within = "id:nothing" })
h.expect_error("LoopyError", "sweep iname 'nope' is not a known iname", lp.add_prefetch, tiled, "a", "nope")
h.expect_error("LoopyError", "instruction id 'insn' is already in use", lp.add_prefetch, tiled, "a", "i_inner",
  { prefetch_insn_id = "insn" })
h.expect_error("LoopyError", "unknown iname tag 'l.x'", lp.add_prefetch, tiled, "a", "i_inner", { default_tag = "l.x" })

-- Bad option tables are Lua argument errors.
local ok, err = pcall(lp.add_prefetch, tiled, "a", "i_inner", { fetch_box = true })
h.check(not ok and tostring(err):find("fetch_box", 1, true), "unknown option: %s", tostring(err))
ok, err = pcall(lp.precompute, knl, "f", "i", { temporary_address_space = "shared" })
h.check(not ok and tostring(err):find("shared", 1, true), "unknown address space: %s", tostring(err))

-- The kernels passed in are unchanged.
h.check_equal(#knl.temporaries, 0, "temporaries of the original kernel")
h.check(tostring(knl):find("f(x) := 2*a[x]", 1, true) ~= nil, "the rule is kept")

-- A footprint subscript whose reads go through an index array: whether a read lies in the footprint cannot be
-- told (loopy: ExpressionToAffineConversionError); before, the prefetch filled a temporary nothing read.
do
  local indirect = lp.make_kernel("{ [i, j]: 0 <= i < 10 and 0 <= j < 2 }", "out[i, j] = map1[ind[i], j]",
    { lp.GlobalArg("map1", "int64", { shape = { 10, 2 } }), lp.GlobalArg("ind", "int32", { shape = { 10 } }), "..." })
  h.expect_error("LoopyError", { "the use 'map1_fetch_rule(ind[i], j)'", "not affine in the inames" }, lp.add_prefetch,
    indirect, "map1[:, j]")
end
