-- Every transformation against the untransformed kernel: lp.auto_test_vs_ref runs both on both executors for a
-- few sizes, among them sizes the split factors do not divide, and compares every output. A transformation
-- that changes a result fails here with the variable, the element and the parameters.
local lp = require("loom")
local h = require("helpers")

local execs = {}
for _, e in ipairs(h.executors()) do execs[#execs + 1] = e.exec end

-- Checks that `test` computes what `ref` computes for every parameter set in `params` (a table of name ->
-- list of values, combined elementwise: {n = {5, 16}, m = {3, 7}} gives (5, 3) and (16, 7)).
local function same(ref, test, params, what, opts)
  local sets = {}
  for name, values in pairs(params) do
    for k, v in ipairs(values) do
      sets[k] = sets[k] or {}
      sets[k][name] = v
    end
  end
  local options = { parameters = sets, exec = execs, timing_seconds = 0 }
  for k, v in pairs(opts or {}) do options[k] = v end
  h.check(lp.auto_test_vs_ref(ref, test, options), "%s", what)
end

local matvec = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "y[i] = sum(j, a[i,j]*x[j])", nil, { name = "matvec" })
local matmul = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "c[i,j] = sum(k, a[i,k]*b[k,j])", nil, { name = "matmul" })
local scale = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + 1", nil, { name = "scale" })
local stencil = lp.make_kernel("{ [i,j]: 1<=i,j<n-1 }",
  "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]",
  { lp.GlobalArg("a", { shape = "n, n" }), lp.GlobalArg("out", { shape = "n, n" }), "..." }, { name = "stencil" })
local mv_sizes = { n = { 1, 13, 32 }, m = { 5, 7, 17 } }
local odd = { n = { 3, 19 } }

-- split_iname: tags, slabs, within, explicit names; chunk_iname.
do
  same(scale, lp.split_iname(scale, "i", 4), odd, "split_iname")
  same(scale, lp.split_iname(scale, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" }), odd, "split_iname g.0/l.0")
  same(scale, lp.split_iname(scale, "i", 4, { slabs = { 1, 1 } }), { n = { 3, 9, 20 } }, "split_iname slabs={1,1}")
  same(matvec, lp.split_iname(matvec, "j", 4, { inner_tag = "unr", inner_iname = "jj", outer_iname = "jo" }), mv_sizes,
    "split_iname of a reduction iname, unrolled, named")
  same(matvec, lp.split_iname(matvec, "i", 8, { outer_tag = "g.0", inner_tag = "l.0" }), mv_sizes, "matvec over groups")
  local two = lp.make_kernel("{ [i]: 0<=i<n }", { "out[i] = 2*a[i]  {id=first}", "out2[i] = a[i] - 1  {id=second}" })
  same(two, lp.split_iname(two, "i", 4, { within = "id:first", outer_tag = "g.0", inner_tag = "l.0" }), odd,
    "split_iname within")
  same(scale, lp.chunk_iname(scale, "i", 4), { n = { 3, 10, 21 } }, "chunk_iname")
  same(matvec, lp.chunk_iname(matvec, "i", 3, { outer_tag = "g.0" }), mv_sizes, "chunk_iname g.0")
end

-- join_inames over a box; the joined iname parallel.
do
  local rows = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<8 }", "out[i,j] = a[i,j]*(j+1)")
  same(rows, lp.join_inames(rows, { "i", "j" }, "ij"), odd, "join_inames")
  same(rows, lp.join_inames(rows, { "i", "j" }, "ij", { tag = "g.0" }), odd, "join_inames tagged g.0")
end

-- tag_inames: every kind of tag on split inames (the inner loops have a fixed length, as unrolling needs).
do
  for _, tag in ipairs({ "unr", "unr_hint", "ilp", "ilp.seq", "l.0" }) do
    local knl = lp.split_iname(scale, "i", 4, { outer_tag = "g.0" })
    same(scale, lp.tag_inames(knl, { i_inner = tag }), odd, "tag_inames " .. tag)
  end
  -- ILP over the rows of a matvec privatizes the accumulator.
  local mv = lp.split_iname(matvec, "i", 4)
  same(matvec, lp.tag_inames(mv, "i_inner:ilp"), mv_sizes, "tag_inames ilp reduction")
  same(matvec, lp.tag_inames(mv, "i_inner:ilp.seq, i_outer:g.0"), mv_sizes, "tag_inames ilp.seq reduction")
  same(matvec, lp.tag_inames(matvec, { i = "g.0" }), mv_sizes, "tag_inames g.0")
  local grid = lp.split_iname(lp.split_iname(matmul, "i", 8), "j", 8)
  same(matmul, lp.tag_inames(grid, { i_outer = "g.1", j_outer = "g.0", i_inner = "l.1", j_inner = "l.0" }), odd,
    "tag_inames 2-d grid")
  same(matmul, lp.tag_inames(grid, { i_outer = "g.0", j_inner = "l.auto", i_inner = "l.auto" }), odd,
    "tag_inames l.auto")
end

-- Loop order, duplication and renaming.
do
  same(matmul, lp.prioritize_loops(matmul, "j,k,i"), odd, "prioritize_loops")
  same(matvec, lp.prioritize_loops(lp.split_iname(matvec, "i", 4), "i_inner,i_outer"), mv_sizes,
    "prioritize_loops split")
  local two = lp.make_kernel("{ [i]: 0<=i<n }", { "out[i] = 2*a[i]  {id=first}", "out2[i] = a[n-1-i]  {id=second}" })
  local dup = lp.duplicate_inames(two, "i", { within = "id:second", new_inames = "i2" })
  same(two, dup, odd, "duplicate_inames within")
  same(two, lp.split_iname(dup, "i2", 4, { outer_tag = "g.0", inner_tag = "l.0" }), odd, "duplicate then split")
  same(matvec, lp.duplicate_inames(matvec, "j"), mv_sizes, "duplicate_inames of a reduction iname")
  same(matvec, lp.rename_iname(matvec, "j", "col"), mv_sizes, "rename_iname")
  same(two, lp.rename_iname(dup, "i2", "i", { existing_ok = true }), odd, "rename_iname merging")
  local extra = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<3 }", "out[i] = a[i]")
  same(extra, lp.remove_unused_inames(extra), odd, "remove_unused_inames")
end

-- Parameters and assumptions.
do
  -- auto_test_vs_ref needs the same arguments: the reference has 7 written in.
  local mv7 = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<7 }", "y[i] = sum(j, a[i,j]*x[j])", nil, { name = "matvec" })
  same(mv7, lp.fix_parameters(matvec, { m = 7 }), odd, "fix_parameters")
  local assumed = lp.assume(scale, "n mod 4 = 0 and n >= 4")
  same(scale, lp.split_iname(assumed, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" }), { n = { 4, 24 } },
    "assume then split")
end

-- Temporaries: address spaces and types.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<4 }", {
    "<> t[j] = a[i]*(j+1)",
    "out[i] = t[0] + t[1]*t[2] - t[3]",
  })
  for _, space in ipairs({ "private", "global" }) do
    same(knl, lp.set_temporary_address_space(knl, "t", space), odd, "set_temporary_address_space " .. space)
  end
  -- A local tile: one work-group writes it, a barrier, then every lane reads its own and the mirrored element.
  local tile = lp.make_kernel("{ [g,l,r]: 0<=g<n and 0<=l,r<16 }", {
    "<> t[l] = a[16*g + l]  {id=w}",
    "out[16*g + r] = t[15 - r] + t[r]  {id=r}",
  }, { lp.GlobalArg("a", { shape = "16*n" }), lp.GlobalArg("out", { shape = "16*n" }), "..." })
  local par = lp.tag_inames(lp.set_temporary_address_space(tile, "t", "local"), { g = "g.0", l = "l.0", r = "l.0" })
  same(tile, par, odd, "set_temporary_address_space local, with a barrier")
  same(lp.add_dtypes(scale, { a = "float64" }), lp.add_dtypes(scale, { a = "float64", out = "float64" }), odd,
    "add_dtypes")
  same(scale, lp.add_dtypes(scale, { a = "float32" }), odd, "add_dtypes float32", { dtypes = "float32" })
end

-- Substitution rules.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "<> t = a[i]*a[i] + 1",
    "out[i] = t*(a[i]*a[i]) - a[n-1-i]*a[n-1-i]",
  }, { lp.GlobalArg("a", { shape = "n" }), lp.GlobalArg("out", { shape = "n" }), "..." })
  local extracted = lp.extract_subst(knl, "square", "a[j]*a[j]", "j")
  same(knl, extracted, odd, "extract_subst")
  same(knl, lp.expand_subst(extracted), odd, "expand_subst")
  same(knl, lp.assignment_to_subst(knl, "t"), odd, "assignment_to_subst")
  local rule = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<8 }", [[
    f(x) := 2*a[x, j] + x
    out[i, j] = f(i)*f(i) - j
    ]])
  same(rule, lp.expand_subst(rule), odd, "expand_subst of a written rule")
  -- The pattern is extracted from assignee subscripts too (the written array itself stays an array), so a
  -- prefetch of an index array serves the write through it as well.
  local scatter = lp.make_kernel("{ [i]: 0<=i<n }", "out[perm[i]] = 2*a[perm[i]]",
    { lp.GlobalArg("a, out", "float32", { shape = "n" }), lp.GlobalArg("perm", "int32", { shape = "n" }), "..." })
  local perm_rule = lp.extract_subst(scatter, "p", "perm[x]", "x")
  h.check_contains(tostring(perm_rule), "out[p(i)] = 2*a[p(i)]")
  local perm_fetched = lp.add_prefetch(lp.split_iname(scatter, "i", 4), "perm", "i_inner")
  h.check(not tostring(perm_fetched):find("out[perm[", 1, true), "the write reads perm_fetch:\n%s", tostring(perm_fetched))
  for _, knl in ipairs({ perm_rule, perm_fetched }) do
    h.on_each_executor(function(exec, ename)
      local n = 10
      local a = lp.rand({ n }, "float32", 7)
      local perm = lp.array({ 3, 0, 9, 1, 8, 2, 7, 4, 6, 5 }, "int32")
      local want = scatter(exec, { a = a, perm = perm })
      h.check(lp.allclose(knl(exec, { a = a, perm = perm }), want), "subst in assignee subscripts on %s", ename)
    end)
  end
end

-- precompute: a rule over a split row loop, into private and local memory.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<8 }", [[
    f(x) := 2*a[x, j] + x
    out[i, j] = f(i)*f(i) - j
    ]])
  local split = lp.split_iname(knl, "i", 16, { outer_tag = "g.0" })
  same(knl, lp.precompute(split, "f", { "i_inner", "j" }), odd, "precompute")
  same(knl, lp.precompute(split, "f"), odd, "precompute without sweep")
  local shifted = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<16 }", [[
    g(p, q) := a[p, q] * b[q]
    out[i, j] = g(i, j) + g(i+1, j)
    ]], { lp.GlobalArg("a", { shape = "n+1, 16" }), "..." })
  local par = lp.tag_inames(lp.split_iname(shifted, "i", 16, { outer_tag = "g.0", inner_tag = "l.1" }), { j = "l.0" })
  same(shifted, lp.precompute(par, "g", { "i_inner", "j" }, { default_tag = "l.auto" }), odd, "precompute local")
end

-- add_prefetch: tiled matmul with both operands in local memory (barriers around every tile), and a
-- stencil whose tile plus halo is fetched as a bounding box.
do
  local tiled = lp.split_iname(matmul, "i", 16, { outer_tag = "g.0", inner_tag = "l.1" })
  tiled = lp.split_iname(tiled, "j", 16, { outer_tag = "g.1", inner_tag = "l.0" })
  tiled = lp.split_iname(tiled, "k", 16)
  tiled = lp.add_prefetch(tiled, "a", { "k_inner", "i_inner" }, { default_tag = "l.auto" })
  tiled = lp.add_prefetch(tiled, "b", { "j_inner", "k_inner" }, { default_tag = "l.auto" })
  same(matmul, tiled, { n = { 16, 21 } }, "tiled matmul with two prefetches")
  -- A chunk of x fetched in the j_outer loop of a matvec whose row loop is sequential: the fetch runs in
  -- j_outer only, the reduction in i and j_outer, its initialization in i only, so no loop nest holds all
  -- three (loopy's has_schedulable_iname_nesting); fetched in every row instead, it is right.
  local chunked = lp.split_iname(matvec, "j", 8)
  h.expect_error("LoopyError", { "does not have a schedulable iname nesting", "* Duplicate i within instructions" },
    lp.generate_code, lp.add_dtypes(lp.add_prefetch(chunked, "x", { "j_inner" }), { a = "float64", x = "float64" }))
  same(matvec, lp.add_prefetch(chunked, "x", { "j_inner" }, { fetch_outer_inames = "i,j_outer" }), mv_sizes,
    "prefetch of a vector chunk in every row, private")

  local st = lp.split_iname(stencil, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  st = lp.split_iname(st, "j", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  st = lp.add_prefetch(st, "a", { "i_inner", "j_inner" }, { default_tag = "l.auto", fetch_bounding_box = true })
  same(stencil, st, { n = { 5, 18 } }, "stencil with fetch_bounding_box")
end

-- Instruction ordering: dependencies, priorities, barriers and nosync.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "out[i] = a[i]  {id=first}",
    "out[i] = 2*out[i] + 1  {id=second, dep=first}" })
  same(knl, lp.set_instruction_priority(knl, "id:first", 5), odd, "set_instruction_priority")
  local indep = lp.make_kernel("{ [i]: 0<=i<n }", { "out[i] = a[i]  {id=first}", "out2[i] = 3*a[i]  {id=second}" })
  same(indep, lp.set_instruction_priority(indep, "id:second", 9), odd, "set_instruction_priority, independent")
  same(indep, lp.add_dependency(indep, "id:first", "id:second"), odd, "add_dependency")

  -- Two stages through global memory with a reversal in between: add_barrier splits the device kernel.
  local stages = lp.make_kernel("{ [i,j]: 0<=i,j<n }", { "tmp[i] = 2*a[i]  {id=w}", "out[j] = tmp[n-1-j]  {id=r}" },
    { lp.GlobalArg("a", { shape = "n" }), lp.GlobalArg("tmp", { shape = "n" }), lp.GlobalArg("out", { shape = "n" }),
      "..." })
  local par = lp.split_iname(stages, "i", 8, { outer_tag = "g.0", inner_tag = "l.0" })
  par = lp.split_iname(par, "j", 8, { outer_tag = "g.0", inner_tag = "l.0" })
  same(stages, lp.add_barrier(par, "id:w", "id:r"), odd, "add_barrier global")

  -- Each lane reads back only what it wrote itself: no barrier is needed, add_nosync drops it.
  local lanes = lp.make_kernel("{ [i]: 0<=i<16 }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[i] + a[i]  {id=r}" },
    { lp.TemporaryVariable("t", { shape = { 16 }, address_space = "local" }), lp.GlobalArg("a", { shape = 16 }),
      "..." })
  local tagged = lp.tag_inames(lanes, { i = "l.0" })
  same(lanes, lp.add_nosync(tagged, "local", "w", "r"), {}, "add_nosync")
  local rev = lp.make_kernel("{ [i]: 0<=i<16 }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[15-i]  {id=r}" },
    { lp.TemporaryVariable("t", { shape = { 16 }, address_space = "local" }), lp.GlobalArg("a", { shape = 16 }),
      "..." })
  -- The reference is the reversal with the barrier the analysis inserts; the test drops that and adds its own.
  local auto = lp.tag_inames(rev, { i = "l.0" })
  local bar = lp.add_nosync(auto, "local", "w", "r")
  same(auto, lp.add_barrier(bar, "id:w", "id:r", { synchronization_kind = "local" }), {}, "add_barrier local")
end

-- Reductions and temporaries across barriers.
do
  same(matvec, lp.realize_reduction(matvec), mv_sizes, "realize_reduction")
  same(matmul, lp.realize_reduction(lp.split_iname(matmul, "k", 4)), odd, "realize_reduction split")
  -- max and min need the type for their neutral element.
  local rowmax = lp.add_dtypes(lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i] = max(j, a[i,j]) + min(j, a[i,j])"),
    { a = "float64" })
  same(rowmax, lp.realize_reduction(rowmax), mv_sizes, "realize_reduction max/min")

  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "<> t = 2*a[i]  {id=w}",
    "... gbarrier  {id=bar, dep=w}",
    "out[i] = t + a[i]  {id=r, dep=bar}",
  }, { lp.GlobalArg("a", { shape = "n" }), lp.GlobalArg("out", { shape = "n" }), "..." })
  local ref = lp.make_kernel("{ [i]: 0<=i<n }", { "<> t = 2*a[i]", "out[i] = t + a[i]" },
    { lp.GlobalArg("a", { shape = "n" }), lp.GlobalArg("out", { shape = "n" }), "..." })
  -- The save slots need the types.
  ref = lp.add_dtypes(ref, { a = "float64" })
  local par = lp.split_iname(lp.add_dtypes(knl, { a = "float64" }), "i", 8, { outer_tag = "g.0", inner_tag = "l.0" })
  same(ref, lp.save_and_reload_temporaries(par), odd, "save_and_reload_temporaries")

  local priv = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<4 }", {
    "<> acc = a[i]  {id=init}",
    "acc = acc*2 + j  {id=upd, dep=init}",
    "out[i] = acc  {dep=upd}",
  })
  local split = lp.split_iname(priv, "i", 4)
  local privatized = lp.privatize_temporaries_with_inames(split, "i_inner", "acc")
  same(priv, privatized, odd, "privatize_temporaries_with_inames")
  same(priv, lp.tag_inames(privatized, { i_inner = "ilp.seq" }), odd, "privatize_temporaries_with_inames then ilp.seq")
end

print("transform_equivalence: ok")
