-- Iname transformations: every transformed kernel runs on both executors, for sizes its split factors do and
-- do not divide (0 and 1 included), and must give what the untransformed kernel gives and what a plain-Lua
-- loop computes, parallel (g.N, l.N) tags included.
local lp = require("loom")
local h = require("helpers")

local EXECUTORS = h.executors()
local SIZES = { 0, 1, 2, 5, 16, 17, 33, 100 }

local check = h.check

local function check_listing(knl, pieces, what)
  local text = tostring(knl)
  for _, p in ipairs(pieces) do
    check(h.contains(text, p), "%s: listing lacks '%s':\n%s", what, p, text)
  end
end

-- Checks every element of `got` (an n-d host array) against ref(i, j, ...) (0-based indices); elements the
-- kernel does not write (ref gives nil) are not compared.
local function check_array(got, ref, what)
  h.each_index(got.shape, function(...)
    local want, have = ref(...), got:get(...)
    check(want == nil or not (math.abs(have - want) > 1e-5 * math.max(1, math.abs(want))),
      "%s: element [%s] is %s, want %s", what, table.concat({ ... }, ","), tostring(have), tostring(want))
  end)
end

-- Runs `variant` and `base` on `args` (a function of the executor giving fresh inputs) with each executor and
-- checks both against the plain-Lua references `refs` (one function per returned array).
local function compare(what, base, variant, make_args, refs)
  for _, e in ipairs(EXECUTORS) do
    local label = what .. " [" .. e.name .. "]"
    local want = { base(e.exec, make_args()) }
    local got = { variant(e.exec, make_args()) }
    check(#got == #refs and #want == #refs, "%s: %d results, want %d", label, #got, #refs)
    for r = 1, #refs do
      check_array(want[r], refs[r], label .. " (untransformed) result " .. r)
      check_array(got[r], refs[r], label .. " result " .. r)
      check_array(got[r], function(...)
        if refs[r](...) ~= nil then return want[r]:get(...) end
      end, label .. " result " .. r .. " vs the untransformed kernel")
    end
  end
end

-- One-dimensional kernels ------------------------------------------------------------------------------------
local vec = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + 1")
local vec_variants = {
  split16 = lp.split_iname(vec, "i", 16),
  split3_inner_outer = lp.prioritize_loops(lp.split_iname(vec, "i", 3), "i_inner,i_outer"),
  split4_unr = lp.split_iname(vec, "i", 4, { inner_tag = "unr" }),
  split4_slabs = lp.split_iname(vec, "i", 4, { slabs = { 0, 1 }, inner_tag = "unr" }),
  split1 = lp.split_iname(vec, "i", 1),
  split_twice = lp.split_iname(lp.split_iname(vec, "i", 5), "i_inner", 2),
  split_named = vec:split_iname("i", 7, { outer_iname = "io", inner_iname = "ii" }),
  chunk1 = lp.chunk_iname(vec, "i", 1),
  chunk3 = lp.chunk_iname(vec, "i", 3),
  chunk4 = lp.chunk_iname(vec, "i", 4),
  rename = lp.rename_iname(vec, "i", "k"),
  duplicate = lp.duplicate_inames(vec, "i"),
  tag_for = lp.tag_inames(vec, "i:for"),
  tag_ord = lp.tag_inames(vec, { i = "ord" }),
  split_parallel = lp.split_iname(vec, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" }),
  chunk_parallel = lp.chunk_iname(vec, "i", 4, { outer_tag = "g.0" }),
  split_unused_axes = lp.split_iname(vec, "i", 8, { outer_tag = "unused.g", inner_tag = "unused.l" }),
}
for name, variant in pairs(vec_variants) do
  for _, n in ipairs(SIZES) do
    local a = lp.rand({ n }, "float32", n + 1)
    compare(string.format("vec %s n=%d", name, n), vec, variant, function() return { a = a } end,
      { function(i) return 2 * a:get(i) + 1 end })
  end
end

check_listing(vec_variants.split_named, { "[n] -> { [io, ii] :", "out[ii + io*7] = 2*a[ii + io*7] + 1" }, "split names")
check_listing(vec_variants.rename, { "k: None", "out[k] = 2*a[k] + 1" }, "rename")
check_listing(vec_variants.duplicate, { "i_0: None", "out[i_0] = 2*a[i_0] + 1" }, "duplicate")
check(not h.contains(tostring(vec_variants.split16), "[n] -> { [i,"), "split16 kept the old iname")
check(#vec_variants.split16.inames == 2, "split16 has %d inames", #vec_variants.split16.inames)

-- A lower bound other than 0: chunks and splits count from it.
local shifted = lp.make_kernel("{ [i]: 3<=i<n }", "out[i] = 3*a[i]")
for _, variant in ipairs({ lp.chunk_iname(shifted, "i", 3), lp.split_iname(shifted, "i", 4),
                           lp.chunk_iname(shifted, "i", 5, { outer_tag = "for" }) }) do
  for _, n in ipairs(SIZES) do
    local a = lp.rand({ n }, "float32", n + 2)
    compare(string.format("shifted n=%d", n), shifted, variant, function() return { a = a } end,
      { function(i) if i >= 3 then return 3 * a:get(i) end end })
  end
end

-- `within`: only the selected instructions move to the new inames ---------------------------------------------
local two = lp.make_kernel("{ [i]: 0<=i<n }", [[
  out1[i] = a[i] + 1  {id=first, tags=plain}
  out2[i] = 2*a[i]  {id=second}
  ]])
local within_variants = {
  id = lp.split_iname(two, "i", 4, { within = "id:second" }),
  glob = lp.split_iname(two, "i", 3, { within = "id:sec*" }),
  writes = lp.split_iname(two, "i", 3, { within = "writes:out1" }),
  negation = lp.split_iname(two, "i", 3, { within = "not (tag:plain or id:nothing)" }),
  list = lp.split_iname(two, "i", 5, { within = { "second" } }),
  duplicate = lp.duplicate_inames(two, "i", { within = "id:first", new_inames = "i_dup" }),
  rename = lp.rename_iname(two, "i", "j", { within = "reads:a and id:second" }),
  chunk = lp.chunk_iname(two, "i", 2, { within = "id:first" }),
}
for name, variant in pairs(within_variants) do
  for _, n in ipairs(SIZES) do
    local a = lp.rand({ n }, "float32", n + 3)
    compare(string.format("within %s n=%d", name, n), two, variant, function() return { a = a } end,
      { function(i) return a:get(i) + 1 end, function(i) return 2 * a:get(i) end })
  end
end
check_listing(within_variants.id, { "i: None", "i_outer: None", "i_inner: None", "out2[i_inner + i_outer*4]",
                                    "out1[i] = a[i] + 1" }, "split within")
check_listing(within_variants.duplicate, { "out1[i_dup] = a[i_dup] + 1", "out2[i] = 2*a[i]" }, "duplicate within")
check(lp.split_iname(two, "i", 4, { within = "id:none" }) ~= nil, "split within nothing")
check_listing(lp.split_iname(two, "i", 4, { within = "id:none" }), { "i: None", "out2[i] = 2*a[i]" },
  "split selecting nothing")

-- Two dimensions: tiling, joining -------------------------------------------------------------------------------
local transpose = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i,j] = a[j,i]")
local tiled = lp.prioritize_loops(lp.split_iname(lp.split_iname(transpose, "i", 16), "j", 16),
  "i_outer,j_outer,i_inner,j_inner")
local tiled_odd = lp.prioritize_loops(lp.split_iname(lp.split_iname(transpose, "i", 3), "j", 4),
  "j_outer,i_outer,j_inner,i_inner")
local tiled_parallel = lp.split_iname(lp.split_iname(transpose, "j", 16, { inner_tag = "l.1", outer_tag = "g.0" }),
  "i", 16, { inner_tag = "l.0", outer_tag = "g.1" })
for _, n in ipairs({ 0, 1, 5, 16, 17, 33 }) do
  local a = lp.rand({ n, n }, "float32", n + 4)
  local ref = { function(i, j) return a:get(j, i) end }
  compare(string.format("tiled n=%d", n), transpose, tiled, function() return { a = a } end, ref)
  compare(string.format("tiled odd n=%d", n), transpose, tiled_odd, function() return { a = a } end, ref)
  compare(string.format("tiled parallel n=%d", n), transpose, tiled_parallel, function() return { a = a } end, ref)
end
local tiled_assumed = lp.assume(tiled, "n mod 16 = 0 and n >= 1")
for _, n in ipairs({ 16, 32 }) do
  local a = lp.rand({ n, n }, "float32", n + 5)
  compare(string.format("tiled assumed n=%d", n), transpose, tiled_assumed, function() return { a = a } end,
    { function(i, j) return a:get(j, i) end })
end

local rows = lp.make_kernel("{ [i,j]: 0<=i<n and 1<=j<=4 }", "out[i,j] = a[i,j] + 10*j")
local joined = lp.join_inames(rows, { "i", "j" }, "ij")
local join_variants = {
  join = joined,
  join_default_name = lp.join_inames(rows, "i,j"),
  join_split = lp.split_iname(joined, "ij", 3),
  join_within = lp.join_inames(lp.duplicate_inames(rows, "i,j", { new_inames = { "i2", "j2" } }), { "i2", "j2" }),
  join_parallel = lp.split_iname(joined, "ij", 8, { outer_tag = "g.0", inner_tag = "l.0" }),
}
check_listing(joined, { "ij: None", "out[ij // 4, ij % 4 + 1] = a[ij // 4, ij % 4 + 1] + 10*(ij % 4 + 1)" }, "join")
check_listing(join_variants.join_default_name, { "j_and_i: None" }, "join default name")
check(#joined.inames == 1, "join left %d inames", #joined.inames)
for name, variant in pairs(join_variants) do
  for _, n in ipairs({ 0, 1, 2, 7 }) do
    local a = lp.rand({ n, 5 }, "float32", n + 6)
    compare(string.format("rows %s n=%d", name, n), rows, variant, function() return { a = a } end,
      { function(i, j) if j >= 1 then return a:get(i, j) + 10 * j end end })
  end
end

local pair = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<3 }", [[
  out1[i,j] = a[i,j] + j  {id=first}
  out2[i,j] = 2*a[i,j]  {id=second}
  ]])
local pair_variants = {
  join_within = lp.join_inames(pair, "i,j", "ij", { within = "id:second" }),
  merge = lp.rename_iname(lp.duplicate_inames(pair, "j", { within = "id:first", new_inames = "jj" }), "jj", "j",
    { existing_ok = true }),
}
check_listing(pair_variants.join_within, { "out1[i, j] = a[i, j] + j", "out2[ij // 3, ij % 3] = 2*a[ij // 3, ij % 3]" },
  "join within")
check(#pair_variants.merge.inames == 2, "rename with existing_ok left %d inames", #pair_variants.merge.inames)
for name, variant in pairs(pair_variants) do
  for _, n in ipairs({ 0, 1, 6 }) do
    local a = lp.rand({ n, 3 }, "float32", n + 11)
    compare(string.format("pair %s n=%d", name, n), pair, variant, function() return { a = a } end,
      { function(i, j) return a:get(i, j) + j end, function(i, j) return 2 * a:get(i, j) end })
  end
end

-- Nested domains: a split iname that bounds another loop -------------------------------------------------------
local tri = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }" }, "out[i,j] = a[i,j] + i",
  { lp.GlobalArg("out", "float32", { shape = "n, n" }), lp.GlobalArg("a", "float32", { shape = "n, n" }), "..." })
for _, variant in ipairs({ lp.split_iname(tri, "i", 3), lp.split_iname(tri, "j", 2),
                           lp.rename_iname(tri, "i", "r") }) do
  for _, n in ipairs({ 0, 1, 4, 9 }) do
    local a = lp.rand({ n, n }, "float32", n + 7)
    compare(string.format("triangle n=%d", n), tri, variant, function() return { a = a } end,
      { function(i, j) if j <= i then return a:get(i, j) + i end end })
  end
end

-- Reductions follow their inames --------------------------------------------------------------------------------
local rowsum = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i,k])")
local red_variants = {
  split_k = lp.split_iname(rowsum, "k", 4),
  chunk_k = lp.chunk_iname(rowsum, "k", 3),
  rename_k = lp.rename_iname(rowsum, "k", "kk"),
  split_i = lp.split_iname(rowsum, "i", 2),
}
check_listing(red_variants.split_k, { "sum((k_outer, k_inner), a[i, k_inner + k_outer*4])" }, "split reduction")
for name, variant in pairs(red_variants) do
  for _, size in ipairs({ { 0, 3 }, { 1, 1 }, { 3, 7 }, { 4, 16 } }) do
    local a = lp.rand(size, "float32", size[1] + size[2])
    local function ref(i)
      local s = 0
      for k = 0, size[2] - 1 do s = s + a:get(i, k) end
      return s
    end
    compare(string.format("rowsum %s %dx%d", name, size[1], size[2]), rowsum, variant,
      function() return { a = a } end, { ref })
  end
end

-- Unused inames, fixed parameters -------------------------------------------------------------------------------
local extra = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<n }", "out[i] = a[i] - 1")
local pruned = lp.remove_unused_inames(extra)
check(#pruned.inames == 1 and pruned.inames[1] == "i", "remove_unused_inames left %d inames", #pruned.inames)
check(#lp.remove_unused_inames(extra, "i").inames == 2, "remove_unused_inames removed a used iname")
for _, n in ipairs(SIZES) do
  local a = lp.rand({ n }, "float32", n + 8)
  compare(string.format("pruned n=%d", n), extra, pruned, function() return { a = a } end,
    { function(i) return a:get(i) - 1 end })
end

local scaled = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = m*a[i,j] + alpha",
  { lp.ValueArg("alpha", "float32"), "..." })
local fixed_m = lp.fix_parameters(scaled, { m = 3 })
local fixed_all = lp.fix_parameters(scaled, { m = 3, n = 4, alpha = 0.5 })
check_listing(fixed_all, { "{ [i, j] : 0 <= i <= 3 and 0 <= j <= 2 }", "out[i, j] = 3*a[i, j] + 0.5" }, "fixed")
for _, arg in ipairs(fixed_all.args) do
  check(arg.name ~= "m" and arg.name ~= "n" and arg.name ~= "alpha", "fix_parameters kept argument %s", arg.name)
end
for _, n in ipairs({ 0, 1, 4, 9 }) do
  local a = lp.rand({ n, 3 }, "float32", n + 9)
  compare(string.format("fixed m n=%d", n), scaled, fixed_m, function() return { a = a, alpha = 0.5 } end,
    { function(i, j) return 3 * a:get(i, j) + 0.5 end })
end
do
  local a = lp.rand({ 4, 3 }, "float32", 10)
  for _, e in ipairs(EXECUTORS) do
    check_array(fixed_all(e.exec, { a = a }), function(i, j) return 3 * a:get(i, j) + 0.5 end, "fixed all " .. e.name)
  end
end

-- make_kernel's fixed_parameters option is fix_parameters on the new kernel.
do
  local made = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = m*a[i,j] + alpha",
    { lp.ValueArg("alpha", "float32"), "..." }, { fixed_parameters = { m = 3, n = 4, alpha = 0.5 } })
  check_listing(made, { "{ [i, j] : 0 <= i <= 3 and 0 <= j <= 2 }", "out[i, j] = 3*a[i, j] + 0.5" }, "fixed_parameters")
  h.expect_error("ArgumentError", "option 'fixed_parameters': table expected", lp.make_kernel, "{ [i]: 0<=i<n }",
    "out[i] = 1", nil, { fixed_parameters = 3 })
end

-- Tags: validation happens in tests/errors; here the listing and the bookkeeping --------------------------------
local tagged = lp.split_iname(vec, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
check_listing(tagged, { "i_outer: g.0", "i_inner: l.0" }, "split tags")
local many = lp.split_iname(lp.split_iname(transpose, "i", 16), "j", 16)
many = lp.tag_inames(many, { i_inner = "l.0", j_inner = "like.i_inner" })
many = lp.tag_inames(many, "i_outer:unused.g, j_outer:unused.g")
check_listing(many, { "i_inner: l.0", "j_inner: l.0", "i_outer: g.0", "j_outer: g.1" }, "like/unused tags")
many = lp.tag_inames(many, { ["*_inner"] = false })
check_listing(many, { "i_inner: None", "j_inner: None", "i_outer: g.0" }, "glob untag")
check_listing(lp.tag_inames(vec, { i = "unr_hint.4" }), { "i: unr_hint.4" }, "unr_hint.N")
check_listing(lp.tag_inames(vec, { { "i", "ilp.seq" } }), { "i: ilp.seq" }, "pair list")
check_listing(lp.tag_inames(lp.tag_inames(vec, "i:vec"), "i:vec"), { "i: vec" }, "same tag twice")
check_listing(lp.join_inames(rows, { "i", "j" }, "ij", { tag = "g.0" }), { "ij: g.0" }, "join tag")
check_listing(lp.duplicate_inames(vec, "i", { tags = { i = "l.1" } }), { "i_0: l.1" }, "duplicate tag")
check_listing(lp.rename_iname(tagged, "i_inner", "lane"), { "lane: l.0" }, "rename keeps the tag")

-- Every transformation leaves the input kernel alone and drops any linearization.
local before = tostring(vec)
lp.split_iname(vec, "i", 4)
lp.tag_inames(vec, "i:unr")
lp.fix_parameters(vec, { n = 5 })
check(tostring(vec) == before, "a transformation changed its input kernel")
local linear = lp.get_one_linearized_kernel(lp.add_dtypes(vec, { a = "float32" }))
check(h.contains(tostring(linear), "LINEARIZATION"), "get_one_linearized_kernel gave no linearization")
check(not h.contains(tostring(lp.split_iname(linear, "i", 4)), "LINEARIZATION"), "split kept the linearization")

print("iname_transforms: ok")
