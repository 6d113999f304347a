-- add_prefetch: the tutorial's prefetches, tiled transpose and matmul, a stencil fetched by its bounding box and
-- footprint subscripts. Each transformed kernel runs on OpenCL and on the C executor (local memory and barriers
-- included) and is compared with the untransformed kernel on the same random inputs, for sizes the tiles do
-- and do not divide.
local lp = require("loom")
local h = require("helpers")

-- Runs `ref` and `knl` on each executor with make_args(n) for each n in `sizes`; every output must agree.
local function check_same(ref, knl, make_args, sizes, what)
  h.on_each_executor(function(exec, ename)
    for _, n in ipairs(sizes) do
      local args = make_args(n)
      local want = { ref(exec, args) }
      local got = { knl(exec, args) }
      h.check_equal(#got, #want, what .. " output count")
      for o = 1, #want do
        h.check(lp.allclose(got[o], want[o], { rtol = 1e-5, atol = 1e-6 }), "%s on %s, n=%d, output %d: max diff %g",
          what, ename, n, o, lp.max_abs_diff(got[o], want[o]))
      end
    end
  end)
end

local function code_of(knl) return (lp.generate_code(knl)) end

local function lacks(text, piece) h.check(text:find(piece, 1, true) == nil, "unexpected %q in:\n%s", piece, text) end

local function vec(n) return { a = lp.rand({ n }, "float32", 11) } end
local function mat(n) return { a = lp.rand({ n, n }, "float32", 12) } end

-- The tutorial's "Prefetching": first without sweeping (a private scalar fetched per work-item), then the
-- footprint of i_inner into local memory, one work-item per element.
do
  local knl = lp.make_kernel("{ [i_outer,i_inner, k]: 0<= 16*i_outer + i_inner <n and 0<= i_inner,k <16}",
    "out[16*i_outer + i_inner] = sum(k, a[16*i_outer + i_inner])")
  knl = lp.add_dtypes(lp.tag_inames(knl, { i_outer = "g.0", i_inner = "l.0" }), { a = "float32" })

  local scalar = lp.add_prefetch(knl, "a")
  local code = code_of(scalar)
  h.check_contains(code, "  float a_fetch;\n")
  h.check_contains(code, "a_fetch = a[16 * gid(0) + lid(0)];")
  h.check_contains(code, "acc_k = acc_k + a_fetch;")
  h.check_equal(scalar.instructions[1].id, "a_fetch_rule", "fetch instruction id")
  check_same(knl, scalar, vec, { 16, 37 }, "scalar prefetch")

  local shared = lp.add_prefetch(knl, "a", { "i_inner" }, { default_tag = "l.0" })
  code = code_of(shared)
  h.check_contains(code, "__local float a_fetch[16];")
  h.check_contains(code, "    a_fetch[lid(0)] = a[16 * gid(0) + lid(0)];")
  h.check_contains(code, "acc_k = acc_k + a_fetch[lid(0)];")
  -- Each work-item reads only the element it fetched: no barrier is needed.
  lacks(code, "barrier")
  h.check(tostring(shared):find("a_dim_0: l.0", 1, true) ~= nil, "a_dim_0 tagged l.0")
  check_same(knl, shared, vec, { 16, 37, 50 }, "local prefetch")

  -- Names and ids given by the caller; the same result.
  local named = lp.add_prefetch(knl, "a", "i_inner",
    { default_tag = "l.0", temporary_name = "tile", dim_arg_names = { "t0" }, prefetch_insn_id = "fetch" })
  code = code_of(named)
  h.check_contains(code, "tile[lid(0)] = a[16 * gid(0) + lid(0)];")
  h.check_equal(named.instructions[1].id, "fetch", "fetch instruction id")
  h.check(tostring(named):find("t0: l.0", 1, true) ~= nil, "fetch iname named t0")
  check_same(knl, named, vec, { 37 }, "named prefetch")

  -- The fetch may use the swept iname itself as its storage axis: it then runs in i_inner's work-items.
  local same_lanes = lp.add_prefetch(knl, "a", "i_inner", { dim_arg_names = { "i_inner" } })
  code = code_of(same_lanes)
  h.check_contains(code, "__local float a_fetch[16];")
  h.check_contains(code, "    a_fetch[lid(0)] = a[16 * gid(0) + lid(0)];\n    acc_k = 0.0f;")
  h.check(tostring(same_lanes):find("a_dim_0", 1, true) == nil, "no new iname")
  check_same(knl, same_lanes, vec, { 16, 37 }, "prefetch into an existing iname")

  -- The fetch's loops given explicitly, and the prefetch limited by `within` to one instruction.
  local outer = lp.add_prefetch(knl, "a", "i_inner",
    { default_tag = "l.0", fetch_outer_inames = { "i_outer" }, within = "id:insn" })
  h.check_contains(code_of(outer), "    a_fetch[lid(0)] = a[16 * gid(0) + lid(0)];")
  check_same(knl, outer, vec, { 37 }, "prefetch with fetch_outer_inames")
end

-- Tiled transpose: the whole 16x16 tile goes through local memory (l.auto gives the fetch the work-group's
-- axes, fastest array axis on l.0); a barrier separates the fetch from the transposed reads.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[j,i] = a[i,j]", nil, { name = "transpose" })
  knl = lp.add_dtypes(knl, { a = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.1", inner_tag = "l.0" })

  local tiled = lp.add_prefetch(knl, "a", { "i_inner", "j_inner" }, { default_tag = "l.auto" })
  local code = code_of(tiled)
  h.check_contains(code, "__local float a_fetch[16 * 16];")
  h.check_contains(code, "a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(1) + lid(1)) + 16 * gid(0) + lid(0)];")
  h.check_contains(code, "barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn depends on a_fetch_rule) */;")
  h.check_contains(code, "= a_fetch[16 * lid(0) + lid(1)];")
  check_same(ref, tiled, mat, { 16, 40 }, "tiled transpose")

  -- The tutorial's "Write races": sweeping only i_inner leaves j_inner's work-items writing the same
  -- elements, so the fetch stays private (one copy per work-item) and no barrier is needed.
  local racy = lp.add_prefetch(knl, "a", "i_inner", { default_tag = "l.auto" })
  code = code_of(racy)
  h.check_contains(code, "  float a_fetch[16];\n")
  h.check_contains(code, "a_fetch[lid(0)] = a[n * (16 * gid(1) + lid(0)) + 16 * gid(0) + lid(1)];")
  h.check_contains(code, "out[n * (16 * gid(0) + lid(1)) + 16 * gid(1) + lid(0)] = a_fetch[lid(0)];")
  lacks(code, "barrier")
  check_same(ref, racy, mat, { 16, 40 }, "private transpose prefetch")
end

-- Matrix multiplication with both operands prefetched in 16x16 tiles per k_outer step: barriers before the
-- fetches (the previous step's reads) and after them.
do
  local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}", "c[i, j] = sum(k, a[i, k]*b[k, j])")
  knl = lp.add_dtypes(knl, { a = "float32", b = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.1", inner_tag = "l.0" })
  knl = lp.split_iname(knl, "k", 16)
  knl = lp.add_prefetch(knl, "a", { "k_inner", "i_inner" }, { default_tag = "l.auto" })
  knl = lp.add_prefetch(knl, "b", { "j_inner", "k_inner" }, { default_tag = "l.auto" })
  local code = code_of(knl)
  h.check_contains(code, "__local float a_fetch[16 * 16];")
  h.check_contains(code, "__local float b_fetch[16 * 16];")
  h.check_contains(code, "a_fetch[16 * lid(1) + lid(0)] = a[n * (16 * gid(0) + lid(1)) + 16 * k_outer + lid(0)];")
  h.check_contains(code, "b_fetch[16 * lid(1) + lid(0)] = b[n * (16 * k_outer + lid(1)) + 16 * gid(1) + lid(0)];")
  h.check_contains(code, "a_fetch[16 * lid(1) + k_inner] * b_fetch[16 * k_inner + lid(0)]")
  local _, barriers = code:gsub("barrier%(CLK_LOCAL_MEM_FENCE%)", "")
  h.check_equal(barriers, 2, "barriers in the k_outer loop")
  check_same(ref, knl, function(n)
    return { a = lp.rand({ n, n }, "float32", 1), b = lp.rand({ n, n }, "float32", 2) }
  end, { 16, 37 }, "matmul")
end

-- The 5-point stencil on the interior: an 18x18 halo tile per 16x16 work-group, fetched by its bounding box
-- (the footprint is the square without its corners); l.auto splits the fetch inames to the group's 16
-- work-items per axis.
do
  local args = { lp.GlobalArg("a", "float32", { shape = "n, n" }), lp.GlobalArg("out", "float32", { shape = "n, n" }), "..." }
  local knl = lp.make_kernel("{[i,j]: 1<=i,j<n-1}",
    "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]", args)
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local st = lp.add_prefetch(knl, "a", { "i_inner", "j_inner" }, { default_tag = "l.auto", fetch_bounding_box = true })
  local code = code_of(st)
  h.check_contains(code, "__local float a_fetch[18 * 18];")
  h.check_contains(code, "barrier(CLK_LOCAL_MEM_FENCE) /* for a_fetch (insn depends on a_fetch_rule) */;")
  h.check_contains(code, "a_fetch[1 + 18 * lid(1) + lid(0)] + a_fetch[37 + 18 * lid(1) + lid(0)]")
  check_same(ref, st, function(n) return { a = lp.rand({ n, n }, "float32", 7), out = lp.zeros({ n, n }, "float32") } end,
    { 18, 45 }, "stencil")
end

-- A footprint with a hole (a[i] and a[i+20] for a tile of 16) is not convex: the bounding box fetches the
-- 36 elements from the first to the last.
do
  local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = a[i] + 2*a[i+20]",
    { lp.GlobalArg("a", "float32", { shape = "n+20" }), "..." })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local boxed = lp.add_prefetch(knl, "a", "i_inner", { default_tag = "l.auto", fetch_bounding_box = true })
  local code = code_of(boxed)
  h.check_contains(code, "__local float a_fetch[36];")
  check_same(ref, boxed, function(n) return { a = lp.rand({ n + 20 }, "float32", 4) } end, { 16, 30 }, "holey footprint")
end

-- Footprint subscripts: "x[:]" fetches all of x (one fetch per work-group, split over its 16 work-items),
-- "a[i,:]" one row per work-item; only the reads inside the footprint are replaced, the rest read the array.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", "y[i] = sum(j, a[i,j]*x[j]) + x[i]")
  knl = lp.add_dtypes(lp.fix_parameters(knl, { n = 40 }), { a = "float32", x = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local function mv() return { a = lp.rand({ 40, 40 }, "float32", 5), x = lp.rand({ 40 }, "float32", 6) } end

  local whole = lp.add_prefetch(knl, "x[:]", nil, { default_tag = "l.auto" })
  local code = code_of(whole)
  h.check_contains(code, "__local float x_fetch[40];")
  h.check_contains(code, "+ x_fetch[16 * gid(0) + lid(0)]")
  lacks(tostring(whole), "x_fetch_axis_0")
  check_same(ref, whole, mv, { 40 }, "x[:] prefetch")

  local row = lp.add_prefetch(knl, "a[i_inner + 16*i_outer, :]")
  code = code_of(row)
  h.check_contains(code, "  float a_fetch[40];\n")
  check_same(ref, row, mv, { 40 }, "a[i,:] prefetch")

  -- Swept by j without a tag: every work-item fetches all of x into its own private copy.
  local private = lp.add_prefetch(knl, "x", "j")
  code = code_of(private)
  h.check_contains(code, "  float x_fetch[40];\n")
  h.check_contains(code, "x_fetch[x_dim_0] = x[x_dim_0];")
  check_same(ref, private, mv, { 40 }, "private x prefetch")

  -- A footprint that does not cover every read: x[i]'s single element serves the read x[i]; x[j] stays.
  local part = lp.add_prefetch(knl, "x[i_inner + 16*i_outer]")
  code = code_of(part)
  h.check_contains(code, "x_fetch = x[16 * gid(0) + lid(0)];")
  h.check_contains(code, "* x[j];")
  h.check_contains(code, "acc_j + x_fetch;")
  check_same(ref, part, mv, { 40 }, "x[i] prefetch")
end

-- A triangular loop nest: the footprint of j (0..i) grows with i, so the fetch is sized by its largest
-- extent (loopy's rule), 20 elements once n is fixed; each i fetches only the elements it reads.
do
  local knl = lp.make_kernel({ "{[i]: 0<=i<n}", "{[j]: 0<=j<=i}" }, "out[i] = sum(j, a[j]*a[i-j])")
  knl = lp.add_dtypes(lp.fix_parameters(knl, { n = 20 }), { a = "float32" })
  local pf = lp.add_prefetch(knl, "a", "j")
  local code = code_of(pf)
  h.check_contains(code, "  float a_fetch[20];\n")
  h.check_contains(code, "for (int a_dim_0 = 0; a_dim_0 <= i; ++a_dim_0)")
  check_same(knl, pf, function() return { a = lp.rand({ 20 }, "float32", 13) } end, { 20 }, "triangular prefetch")
end

-- A footprint subscript written in the original inames after they were split: loopy's applied_iname_rewrites
-- turn x[j,k] into x[j_inner + 16*j_outer, k_inner + 16*k_outer].
do
  local ref = lp.add_dtypes(lp.make_kernel("{ [j,k]: 0<=j,k<n }", "out[j] = sum(k, x[j,k]*v[k])", nil,
    { assumptions = "n mod 16 = 0 and n >= 16" }), { x = "float32", v = "float32" })
  local knl = lp.split_iname(lp.split_iname(ref, "j", 16), "k", 16)
  knl = lp.add_prefetch(knl, "x[j,k]", { "k_inner" })
  h.check_contains(tostring(knl), "x_fetch[x_dim_1] = x[16*j_outer + j_inner, x_dim_1 + 16*k_outer]")
  lp.auto_test_vs_ref(ref, knl, { parameters = { n = 32 } })
end

-- A quasi-affine read (i % 3) reads the fetch at i - 3*(i // 3) (found by fuzz/fuzz_pipeline: simplifying that
-- index was an InternalError).
do
  local ref = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i % 3]")
  local knl = lp.add_prefetch(ref, "a", { "i" })
  h.check_contains(tostring(knl), "out[i] = a_fetch[i - 3*(i // 3)]")
  h.check(lp.auto_test_vs_ref(ref, knl, { parameters = { n = 10 } }), "prefetch of a[i %% 3]")
end

-- Two prefetches into one temporary (loopy's test_prefetch_to_same_temp_var, with footprints of different
-- sizes): A_fetch is widened to the larger one, 20, and both fills run before both reads.
do
  local ref = lp.make_kernel("{[i0, i1, j0, j1]: 0<=i0, i1<6 and 0<=j0<10 and 0<=j1<20}", [[
    y0[i0] = sum(j0, A[j0] * x0[i0, j0])
    y1[i1] = sum(j1, A[j1] * x1[i1, j1])
    ]])
  ref = lp.add_dtypes(ref, { A = "float32", x0 = "float32", x1 = "float32" })
  local knl = lp.add_prefetch(ref, "A", { "j0" }, { within = "iname:i0", temporary_name = "A_fetch",
    prefetch_insn_id = "first_fetch" })
  knl = lp.add_prefetch(knl, "A", { "j1" }, { within = "iname:i1", temporary_name = "A_fetch",
    prefetch_insn_id = "second_fetch" })
  knl = lp.add_dependency(knl, "writes:y1 or writes:y0", "id:second_fetch or id:first_fetch")
  knl = lp.add_dependency(knl, "id:first_fetch", "id:second_fetch")
  h.check_equal(#knl.temporaries, 1, "temporaries")
  h.check_equal(table.concat(knl.temporaries[1].shape, ","), "20", "shape of the shared A_fetch")
  check_same(ref, knl, function()
    return { A = lp.rand({ 20 }, "float32", 13), x0 = lp.rand({ 6, 10 }, "float32", 14),
      x1 = lp.rand({ 6, 20 }, "float32", 15) }
  end, { 0 }, "two prefetches into one temporary")
end

-- l.auto axes are assigned by the prefetch itself (as loopy's precompute does): the 18-element rows of a
-- stencil's bounding box are split to the group's 16 work-items at once, so the outer parts can be
-- prioritized; with no local axes yet, the fetch inames become loops.
do
  local ref = lp.make_kernel("{[i,j]: 0<=i,j<32}", "z[i,j] = a[i+2,j+1] + a[i,j+1] + a[i+1,j] + a[i+1,j+2]")
  ref = lp.add_dtypes(ref, { a = "float32" })
  local knl = lp.split_iname(ref, "i", 16, { outer_tag = "g.1", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local fetched = lp.add_prefetch(knl, "a", { "i_inner", "j_inner" }, { fetch_bounding_box = true, default_tag = "l.auto" })
  local listing = tostring(fetched)
  for _, iname in ipairs({ "a_dim_0_outer", "a_dim_0_inner", "a_dim_1_outer", "a_dim_1_inner" }) do
    h.check_contains(table.concat(fetched.inames, ","), iname)
  end
  h.check_contains(listing, "a_dim_0_inner: l.1")
  h.check_contains(listing, "a_dim_1_inner: l.0")
  lacks(listing, "l.auto")
  check_same(ref, lp.prioritize_loops(fetched, "a_dim_0_outer,a_dim_1_outer"), function()
    return { a = lp.rand({ 34, 34 }, "float32", 16) }
  end, { 0 }, "stencil prefetch with l.auto, prioritized")

  local early = lp.add_prefetch(ref, "a", { "i", "j" }, { fetch_bounding_box = true, default_tag = "l.auto" })
  lacks(tostring(early), "l.auto")
  check_same(ref, early, function() return { a = lp.rand({ 34, 34 }, "float32", 17) } end, { 0 },
    "l.auto prefetch before any local axis")
end

do
  -- A footprint whose fixed-box offset has an integer division (its iname from chunk_iname, found by
  -- fuzz_pipeline: printing that offset was an InternalError): x[i_inner + 2*i_outer] over i_inner, per i_outer.
  local ref = lp.make_kernel("{[i]: 0<=i<10}", "y[i] = 3*x[i]")
  local k = lp.chunk_iname(ref, "i", 5)
  k = lp.split_iname(k, "i_outer", 16, { outer_tag = "g.0", inner_tag = "unr" })
  k = lp.add_prefetch(k, "x", { "i_inner" })
  check_same(ref, k, function() return { x = lp.rand({ 10 }, "float32", 18) } end, { 0 },
    "prefetch over the inner iname of chunk_iname")
end

-- Footprints sized by the parameters (loopy's test_variable_size_temporary): a private temporary whose shape is
-- in the parameters, a variable-length array. Its size is the largest footprint of one outer iteration: all of
-- a for a[:,:]; a row for a sweep of j inside a g.0 row loop (threads of the C executor each with their own);
-- i + 1 elements, at most n, for a[j] swept in a triangle. The C executor runs them; OpenCL C has no
-- variable-length arrays, and its compiler says so.
do
  local sum_rows = lp.add_dtypes(lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i] = sum(j, a[i,j]*j)"), { a = "float32" })
  local whole = lp.add_prefetch(sum_rows, "a[:,:]", nil, { default_tag = nil })
  h.check_contains(code_of(whole), "float a_fetch[n * n];")
  local rows = lp.add_prefetch(lp.tag_inames(sum_rows, { i = "g.0" }), "a", { "j" }, { default_tag = nil })
  h.check_contains(code_of(rows), "float a_fetch[n];")
  local triangle = lp.add_dtypes(lp.make_kernel("{ [i,j]: 0<=j<=i<n }", "out[i] = sum(j, a[j]*j)"), { a = "float32" })
  local prefix = lp.add_prefetch(triangle, "a", { "j" }, { default_tag = nil })
  h.check_contains(code_of(prefix), "float a_fetch[n];")
  local c = lp.c.executor { threads = 3 }
  for _, case in ipairs({ { sum_rows, whole, "a[:,:]" }, { sum_rows, rows, "rows" }, { triangle, prefix, "prefix" } }) do
    local ref, knl, what = case[1], case[2], case[3]
    for _, n in ipairs({ 1, 7, 40 }) do
      local a = what == "prefix" and lp.rand({ n }, "float32", n) or lp.rand({ n, n }, "float32", n)
      local want = what == "prefix"
        and function(i) local s = 0 for j = 0, i do s = s + a:get(j) * j end return s end
        or function(i) local s = 0 for j = 0, n - 1 do s = s + a:get(i, j) * j end return s end
      h.check_array(knl(c, { a = a }), want, what .. ", n=" .. n, { rtol = 1e-5 })
      h.check_array(ref(c, { a = a }), want, what .. " reference, n=" .. n, { rtol = 1e-5 })
    end
    h.expect_error("BuildError", "variable length arrays", knl, lp.cl.queue(),
      { a = lp.rand(what == "prefix" and { 3 } or { 3, 3 }, "float32") })
  end
  -- In global memory such a temporary is allocated for each call, on both executors; local memory needs a
  -- constant size.
  local global = lp.add_prefetch(sum_rows, "a[:,:]", nil, { default_tag = nil, temporary_address_space = "global" })
  local a = lp.rand({ 9, 9 }, "float32", 9)
  h.on_each_executor(function(exec, name)
    h.check_array(global(exec, { a = a }), function(i)
      local s = 0
      for j = 0, 8 do s = s + a:get(i, j) * j end
      return s
    end, "global a[:,:] on " .. name, { rtol = 1e-5 })
  end)
  h.expect_error("StaticValueFindingError", { "temporary 'a_fetch'", "(n, n)" }, lp.generate_code,
    lp.add_prefetch(lp.tag_inames(sum_rows, { i = "l.0" }), "a[:,:]", nil, { temporary_address_space = "local" }))
end
