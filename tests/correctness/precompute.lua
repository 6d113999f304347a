-- precompute: substitution rules stored in temporaries, with the default and given storage axes, named
-- inames, footprint generators and local temporaries. Each result is compared, on OpenCL and on the C
-- executor, with the untransformed kernel on the same random inputs.
local lp = require("loom")
local h = require("helpers")

local function check_same(ref, knl, make_args, sizes, what)
  h.on_each_executor(function(exec, ename)
    for _, n in ipairs(sizes) do
      local args = make_args(n)
      local want, got = ref(exec, args), knl(exec, args)
      h.check(lp.allclose(got, want, { rtol = 1e-5, atol = 1e-6 }), "%s on %s, n=%d: max diff %g", what, ename, n,
        lp.max_abs_diff(got, want))
    end
  end)
end

local function temporary(knl, name)
  for _, t in ipairs(knl.temporaries) do
    if t.name == name then return t end
  end
  error("no temporary " .. name)
end

-- A rule whose value depends on a swept iname that is not an argument: f(x) reads a[x, j]. The default
-- storage axes put the swept iname first (f_j, then x); storage_axes reorders them.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<8}", [[
    f(x) := 2*a[x, j] + x
    out[i, j] = f(i)*f(i) - j
    ]])
  knl = lp.add_dtypes(knl, { a = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0" })
  local args = function(n) return { a = lp.rand({ n, 8 }, "float32", 3) } end

  local default = lp.precompute(knl, "f", { "i_inner", "j" })
  h.check_equal(table.concat(temporary(default, "f_0").shape, ","), "8,16", "default storage order")
  h.check_contains(tostring(default), "f_0[f_j, x] = 2*a[x + 16*i_outer, f_j] + x + 16*i_outer")
  h.check_contains(tostring(default), "out[i_inner + i_outer*16, j] = f_0[j, i_inner]*f_0[j, i_inner] - j")
  check_same(ref, default, args, { 16, 37 }, "precompute, default storage axes")

  local reordered = lp.precompute(knl, "f", "i_inner, j",
    { storage_axes = { "x", "j" }, precompute_inames = { "ii", "jj" }, temporary_name = "fv", compute_insn_id = "fill" })
  h.check_equal(table.concat(temporary(reordered, "fv").shape, ","), "16,8", "given storage order")
  h.check_contains(tostring(reordered), "fv[ii, jj] = 2*a[ii + 16*i_outer, jj] + ii + 16*i_outer  {id=fill}")
  check_same(ref, reordered, args, { 16, 37 }, "precompute, storage_axes")

  -- Without sweeping, one value per iteration: a private scalar.
  local scalar = lp.precompute(knl, "f")
  h.check(#(temporary(scalar, "f_0").shape or {}) == 0, "scalar temporary")
  check_same(ref, scalar, args, { 37 }, "precompute, no sweep")
end

-- A two-argument rule used at shifted points, precomputed over a work-group tile into local memory: the
-- compute instruction fills the 17x16 footprint, a barrier, then the uses read it.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<16}", [[
    g(p, q) := sqrt(a[p, q]) * b[q]
    out[i, j] = g(i, j) + g(i+1, j)
    ]], { lp.GlobalArg("a", "float32", { shape = "n+1, 16" }), "..." })
  knl = lp.add_dtypes(knl, { b = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.1" })
  knl = lp.tag_inames(knl, { j = "l.0" })
  local pc = lp.precompute(knl, "g", { "i_inner", "j" }, { default_tag = "l.auto" })
  local code = (lp.generate_code(pc))
  h.check_contains(code, "__local float g_0[17 * 16];")
  h.check_contains(code, "barrier(CLK_LOCAL_MEM_FENCE)")
  check_same(ref, pc, function(n)
    return { a = lp.rand({ n + 1, 16 }, "float32", 8), b = lp.rand({ 16 }, "float32", 9) }
  end, { 16, 37 }, "precompute into local memory")

  -- A footprint generator: only g(i, j)'s footprint is stored; g(i+1, j) at the tile's last row falls
  -- outside it and is computed where it is used.
  local gen = lp.precompute(knl, "g(i_inner + 16*i_outer, j)", { "i_inner", "j" }, { default_tag = "l.auto" })
  code = (lp.generate_code(gen))
  h.check_contains(code, "__local float g_0[16 * 16];")
  check_same(ref, gen, function(n)
    return { a = lp.rand({ n + 1, 16 }, "float32", 8), b = lp.rand({ 16 }, "float32", 9) }
  end, { 16, 37 }, "precompute of a footprint generator")
end

-- A temporary in global memory: all work-groups fill it, so a global barrier follows the compute instruction
-- and the kernel is split there (reads reach across work-groups: f(n-1-i)).
do
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    f(x) := sin(a[x]) * 2
    out[i] = f(i) + f(n-1-i)
    ]])
  knl = lp.add_dtypes(lp.fix_parameters(knl, { n = 64 }), { a = "float32" })
  local ref = knl
  knl = lp.split_iname(knl, "i", 16, { outer_tag = "g.0", inner_tag = "l.0" })
  local g = lp.precompute(knl, "f", { "i_outer", "i_inner" },
    { temporary_address_space = "global", precompute_inames = { "fi" } })
  h.check_contains(tostring(g), "... gbarrier  {id=f_barrier}")
  local _, info = lp.generate_code(g)
  h.check_equal(#info.kernels, 2, "device kernels")
  check_same(ref, g, function() return { a = lp.rand({ 64 }, "float32", 10) } end, { 64 }, "global precompute")
end

-- The rule reads a temporary written in loop i: the compute instruction runs inside i, after the write
-- (loopy's guess from the writers' loops). `within` limits the replaced uses to one instruction; the other
-- keeps the rule.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<8}", [[
    for i
      <> s = 2*b[i]  {id=s}
      f(x) := s * a[x]
      for j
        out[i, j] = f(j) + j  {id=first, dep=s}
        out2[i, j] = f(j) - j  {id=second, dep=s}
      end
    end
    ]])
  knl = lp.add_dtypes(knl, { a = "float32", b = "float32" })
  local pc = lp.precompute(knl, "f", "j", { within = "id:first" })
  h.check_contains(tostring(pc), "out[i, j] = f_0[j] + j")
  h.check_contains(tostring(pc), "out2[i, j] = f(j) - j")
  h.check(pc.instructions[1].within_inames[1] == "i" or pc.instructions[1].within_inames[2] == "i",
    "the compute instruction runs in loop i")
  local args = function(n) return { a = lp.rand({ 8 }, "float32", 1), b = lp.rand({ n }, "float32", 2) } end
  h.on_each_executor(function(exec, ename)
    local want1, want2 = knl(exec, args(20))
    local got1, got2 = pc(exec, args(20))
    h.check(lp.allclose(got1, want1) and lp.allclose(got2, want2), "precompute within one instruction on %s", ename)
  end)
end

-- Rules and variables without arguments have one value: a scalar computed once, outside the loops.
do
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    c := a[0]*2 + s
    out[i] = c*i + b[i]
    ]], { lp.GlobalArg("a", "float32", { shape = "1" }), lp.ValueArg("s", "float32"), "..." })
  knl = lp.add_dtypes(knl, { b = "float32" })
  local pc = lp.add_prefetch(lp.precompute(knl, "c"), "s")
  h.check_contains(tostring(pc), "c_0 = a[0]*2 + s_fetch  {id=c}")
  h.check_contains(tostring(pc), "s_fetch = s  {id=s_fetch_rule}")
  check_same(knl, pc, function(n)
    return { a = lp.rand({ 1 }, "float32", 1), b = lp.rand({ n }, "float32", 2), s = 0.5 }
  end, { 10 }, "precompute of a rule without arguments")
end

-- Precompute onto existing inames: the second precompute fills its temporary in the loops ii, jj that the
-- first one made (they are not its sweep inames), so no iname is added.
do
  local knl = lp.make_kernel("{[i,j,k]: 0<=i<n and 0<=j<8 and 0<=k<4}", [[
    f(x, y) := 2*a[x, y]
    g(x, y) := b[y, x] - 1
    out[i, j, k] = f(k, j) * g(k, j) + i
    ]])
  knl = lp.add_dtypes(knl, { a = "float32", b = "float32" })
  local ref = knl
  knl = lp.precompute(knl, "f", "k, j", { precompute_inames = "ii, jj" })
  knl = lp.precompute(knl, "g", "k, j", { precompute_inames = "ii, jj" })
  local inames = table.concat(knl.inames, ",")
  h.check_equal(#knl.inames, 5, "inames after both precomputes (" .. inames .. ")")
  h.check_contains(tostring(knl), "g_0[ii, jj] = b[jj, ii] - 1")
  check_same(ref, knl, function(n)
    return { a = lp.rand({ 4, 8 }, "float32", 3), b = lp.rand({ 8, 4 }, "float32", 4), n = n }
  end, { 3 }, "precompute onto the inames of an earlier precompute")
end

-- Rules used by the stored rule follow its storage iname: E involves the swept i and gets a copy over D_i
-- (named E again once the original is unused); w's argument i is w's own, so w stays.
do
  local knl = lp.make_kernel("{[i,j]: 0<=i<16 and 0<=j<n}", [[
    w(i) := 3*i
    E := a[i] + w(j)
    D := E*E
    out[i, j] = D
    ]])
  knl = lp.add_dtypes(knl, { a = "float32" })
  local pc = lp.precompute(knl, "D", "i")
  local text = tostring(pc)
  h.check_contains(text, "w(i) := 3*i")
  h.check_contains(text, "E() := a[D_i] + w(j)")
  h.check(not text:find("E_0", 1, true), "one rule E left:\n%s", text)
  check_same(knl, pc, function(n) return { a = lp.rand({ 16 }, "float32", 5), n = n } end, { 1, 7 },
    "precompute of a rule that uses rules")
end
