-- Kernels as people tune them (register tiles, convolutions, stencils with prefetch, private temporaries
-- under loop priorities), each run on OpenCL and on the C executor against a plain Lua loop, and with the
-- loop structure the transformations ask for. Each reproduces a kernel that was once linearized wrongly
-- (loops closed while instructions inside the same iteration were pending, then opened again).
local lp = require("loom")
local h = require("helpers")

-- Small integers as float32: every sum below is exact, so results compare exactly.
local function ints(shape, seed) return h.random_ints(shape, "float32", seed, -3, 3) end

local function run_each(knl, args, check)
  h.on_each_executor(function(exec, ename)
    local out = knl(exec, args)
    check(out, ename)
  end)
end

local function loops_over(code, iname) return h.count_plain(code, "for (int " .. iname .. " = ") end

-- {{{ register-tiled GEMM: T x T outputs per work-item, 16 x 16 work-items, k in steps of 16, two prefetches

local function tiled_gemm(T)
  local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}", "c[i,j] = sum(k, a[i,k]*b[k,j])", nil,
    { assumptions = string.format("n mod %d = 0 and n >= %d", 16 * T, 16 * T) })
  knl = lp.add_dtypes(knl, { a = "float32", b = "float32" })
  local k = lp.split_iname(knl, "i", 16 * T, { outer_tag = "g.0" })
  k = lp.split_iname(k, "j", 16 * T, { outer_tag = "g.1" })
  k = lp.split_iname(k, "i_inner", 16, { outer_tag = "ilp", inner_tag = "l.0" })
  k = lp.split_iname(k, "j_inner", 16, { outer_tag = "ilp", inner_tag = "l.1" })
  k = lp.split_iname(k, "k", 16)
  k = lp.add_prefetch(k, "a", "i_inner_outer, i_inner_inner, k_inner", { default_tag = "l.auto" })
  return lp.add_prefetch(k, "b", "k_inner, j_inner_outer, j_inner_inner", { default_tag = "l.auto" })
end

-- c = a b for n x n operands of small integers (seeds `seed` and seed + 1), on each executor, against a Lua loop.
local function check_product(knl, n, seed, what, extra)
  local a, b = ints({ n, n }, seed), ints({ n, n }, seed + 1)
  local args = { a = a, b = b }
  for name, v in pairs(extra or {}) do args[name] = v end
  run_each(knl, args, function(c, ename)
    h.check_array(c, function(i, j)
      local s = 0
      for kk = 0, n - 1 do s = s + a:get(i, kk) * b:get(kk, j) end
      return s
    end, what .. ", c on " .. ename)
  end)
end

-- An 8x8 tile per work-item: the structure the transformations ask for (its code takes milliseconds).
do
  local code = lp.generate_code(tiled_gemm(8))
  h.check_equal(loops_over(code, "k_outer"), 1, "k_outer loops of the 8x8 tiled GEMM")
  h.check_equal(h.count_plain(code, "barrier(CLK_LOCAL_MEM_FENCE)"), 2, "barriers of the 8x8 tiled GEMM")
end

do
  local T, n = 4, 128
  local k = tiled_gemm(T)
  local code = lp.generate_code(k)
  h.check_equal(loops_over(code, "k_outer"), 1, "k_outer loops of the tiled GEMM")
  h.check_equal(h.count_plain(code, "barrier(CLK_LOCAL_MEM_FENCE)"), 2, "barriers of the tiled GEMM")
  check_product(k, n, 1, "tiled GEMM", { n = n })
end

-- }}}

-- {{{ GEMM with two local buffers: tile po + 1 is stored into the buffer tile po is not read from

-- 4x4 work-items, 2x2 outputs each, k tiles of 4, written as software pipelining: the registers ra, rb carry
-- the next tile from global memory across the arithmetic. The store of one step and the reads of the same
-- step touch different buffers, so the exact barrier analysis needs one barrier per step (and one before the
-- loop), where a single buffer needs two.
do
  local n = 32
  local knl = lp.make_kernel(
    "{[g1,g0,l1,l0,r,s,f,po,pi]: 0<=g1,g0<4 and 0<=l1,l0<4 and 0<=r,s,f<2 and 0<=po<8 and 0<=pi<4}", {
      "<float32> ra[f] = a[8*g1 + 4*f + l1, l0] {id=ld_a0}",
      "<float32> rb[f] = b[l1, 8*g0 + 4*f + l0] {id=ld_b0}",
      "a_l[0, 4*f + l1, l0] = ra[f] {id=st_a0, dep=ld_a0, inames=g1:g0:l1:l0:f}",
      "b_l[0, l1, 4*f + l0] = rb[f] {id=st_b0, dep=ld_b0, inames=g1:g0:l1:l0:f}",
      "<float32> acc[r, s] = 0 {id=init, inames=g1:g0:l1:l0:r:s}",
      "ra[f] = a[8*g1 + 4*f + l1, min(4*po + 4, 28) + l0] {id=ld_a, dep=st_a0, inames=g1:g0:l1:l0:po:f}",
      "rb[f] = b[min(4*po + 4, 28) + l1, 8*g0 + 4*f + l0] {id=ld_b, dep=st_b0, inames=g1:g0:l1:l0:po:f}",
      "acc[r, s] = acc[r, s] + a_l[po % 2, 4*r + l1, pi] * b_l[po % 2, pi, 4*s + l0]" ..
        " {id=upd, dep=init:st_a0:st_b0:ld_a:ld_b, inames=g1:g0:l1:l0:po:pi:r:s}",
      "a_l[(po + 1) % 2, 4*f + l1, l0] = ra[f] {id=st_a, dep=ld_a:upd, inames=g1:g0:l1:l0:po:f}",
      "b_l[(po + 1) % 2, l1, 4*f + l0] = rb[f] {id=st_b, dep=ld_b:upd, inames=g1:g0:l1:l0:po:f}",
      "c[8*g1 + 4*r + l1, 8*g0 + 4*s + l0] = acc[r, s] {dep=upd, inames=g1:g0:l1:l0:r:s}",
    }, {
      lp.GlobalArg("a, b", "float32", { shape = "32, 32" }), lp.GlobalArg("c", "float32", { shape = "32, 32", is_output = true }),
      lp.TemporaryVariable("a_l", "float32", { shape = { 2, 8, 4 }, address_space = "local" }),
      lp.TemporaryVariable("b_l", "float32", { shape = { 2, 4, 8 }, address_space = "local" }),
    })
  knl = lp.tag_inames(knl, { g1 = "g.1", g0 = "g.0", l1 = "l.1", l0 = "l.0", r = "ilp", s = "ilp", f = "ilp" })
  knl = lp.prioritize_loops(knl, "po,pi")
  local code = lp.generate_code(knl)
  h.check_equal(h.count_plain(code, "barrier(CLK_LOCAL_MEM_FENCE)"), 2, "barriers of the GEMM with two buffers")
  check_product(knl, n, 3, "GEMM with two buffers")
end

-- }}}

-- {{{ GEMM with runs of 4 rows and columns per work-item, sizes the tiles do not divide: rows past n untouched

-- The store nest after the k loop has a bound divided by 64 whose dividend goes negative past the last row
-- (`i_inner_outer_outer <= (n - 1 - 4 * i_inner_outer_inner - i_inner_inner) / 64`); it was printed with C's
-- truncating division, proven non-negative on the domain of the update printed just before, and on C the
-- work-item wrote row n. c has 4 rows more than the domain writes; they must keep their sentinel.
do
  local n, m, k = 13, 37, 30
  local knl = lp.make_kernel("{[i,j,p]: 0<=i<n and 0<=j<m and 0<=p<k}", "c[i,j] = sum(p, a[i,p]*b[p,j])",
    { lp.GlobalArg("a", "float32", { shape = "n, k" }), lp.GlobalArg("b", "float32", { shape = "k, m" }),
      lp.GlobalArg("c", "float32", { shape = "n + 4, m", is_output = true }), lp.ValueArg("n, m, k", "int32") })
  knl = lp.split_iname(knl, "i", 64, { outer_tag = "g.1" })
  knl = lp.split_iname(knl, "j", 128, { outer_tag = "g.0" })
  knl = lp.split_iname(knl, "p", 16)
  for _, axis in ipairs({ { "i", 8, "l.1" }, { "j", 16, "l.0" } }) do
    knl = lp.split_iname(knl, axis[1] .. "_inner", 4, { inner_tag = "ilp" })
    knl = lp.split_iname(knl, axis[1] .. "_inner_outer", axis[2], { outer_tag = "ilp", inner_tag = axis[3] })
  end
  knl = lp.add_prefetch(knl, "a", "i_inner_outer_outer, i_inner_outer_inner, i_inner_inner, p_inner", { default_tag = "l.auto" })
  knl = lp.add_prefetch(knl, "b", "p_inner, j_inner_outer_outer, j_inner_outer_inner, j_inner_inner", { default_tag = "l.auto" })
  local a, b = ints({ n, k }, 11), ints({ k, m }, 12)
  h.on_each_executor(function(exec, ename)
    local c = lp.zeros({ n + 4, m }, "float32"):fill(7)
    knl(exec, { a = a, b = b, c = c, n = n, m = m, k = k })
    h.check_array(c, function(i, j)
      if i >= n then return 7 end
      local sum = 0
      for p = 0, k - 1 do sum = sum + a:get(i, p) * b:get(p, j) end
      return sum
    end, "GEMM with runs of 4, rows past n, on " .. ename)
  end)
end

-- }}}

-- {{{ 1-D convolution over batches and channels: the filter and an image window in local memory

do
  local knl = lp.make_kernel("{[b,x,fx,c]: 0<=b<2 and 0<=x<8 and 0<=fx<3 and 0<=c<2}",
    "out[b,x] = sum((fx, c), img[b, x+fx, c] * w[fx, c])")
  knl = lp.add_dtypes(knl, { img = "float32", w = "float32" })
  local k = lp.tag_inames(knl, { x = "l.0" })
  k = lp.add_prefetch(k, "w[:,:]", nil, { default_tag = "l.auto" })
  k = lp.add_prefetch(k, "img", "x, fx", { fetch_outer_inames = "b, c", default_tag = "l.auto" })
  local img, w = ints({ 2, 10, 2 }, 3), ints({ 3, 2 }, 4)
  run_each(k, { img = img, w = w }, function(out, ename)
    h.check_array(out, function(b, x)
      local s = 0
      for fx = 0, 2 do
        for c = 0, 1 do s = s + img:get(b, x + fx, c) * w:get(fx, c) end
      end
      return s
    end, "convolution out on " .. ename)
  end)
  lp.auto_test_vs_ref(knl, k)
end

-- }}}

-- {{{ 5-point stencil: prefetch first, then split

do
  local st = lp.make_kernel("{[i,j]: 1<=i,j<n-1}",
    "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]")
  st = lp.add_dtypes(st, { a = "float32" })
  local n = 8
  local a = ints({ n, n }, 5)
  for _, k in ipairs({ lp.split_iname(lp.add_prefetch(st, "a", ""), "i", 4),
                       lp.add_prefetch(lp.split_iname(st, "i", 4), "a", "") }) do
    run_each(k, { a = a, n = n }, function(out, ename)
      h.check_array(out, function(i, j)
        if i < 1 or j < 1 or i > n - 2 or j > n - 2 then return nil end
        return a:get(i - 1, j) + a:get(i + 1, j) + a:get(i, j - 1) + a:get(i, j + 1) - 4 * a:get(i, j)
      end, "stencil out on " .. ename)
    end)
  end
end

-- }}}

-- {{{ 3-D 7-point stencil on 4x8x8 work-groups, the input's bounding box per work-group in local memory

-- Each work-item fetches up to 2x2x2 elements of the 6x10x10 box, the last ones only where its id is small
-- enough: a guard on the ids, not loop bounds divided by them.
do
  local knl = lp.make_kernel("{[i,j,k]: 0<=i,j,k<n}",
    "out[i+1,j+1,k+1] = a[i,j+1,k+1] + a[i+2,j+1,k+1] + a[i+1,j,k+1] + a[i+1,j+2,k+1]"
    .. " + a[i+1,j+1,k] + a[i+1,j+1,k+2] - 6*a[i+1,j+1,k+1]", nil, { assumptions = "n mod 8 = 0 and n >= 8" })
  knl = lp.add_dtypes(knl, { a = "float32" })
  local k = lp.split_iname(knl, "i", 4, { outer_tag = "g.2", inner_tag = "l.2" })
  k = lp.split_iname(k, "j", 8, { outer_tag = "g.1", inner_tag = "l.1" })
  k = lp.split_iname(k, "k", 8, { outer_tag = "g.0", inner_tag = "l.0" })
  k = lp.add_prefetch(k, "a", "i_inner,j_inner,k_inner", { fetch_bounding_box = true, default_tag = "l.auto" })
  local code = lp.generate_code(k)
  h.check(code:find("a_dim_2_outer <= 1;", 1, true), "the fetch loops have constant bounds:\n" .. code)
  -- On PoCL an unguarded fetch goes unnoticed (its extra writes land in the box, or past it): the guard is
  -- checked in the code.
  h.check(code:find("if (5 + -1 * lid(2) + -4 * a_dim_0_outer >= 0 && ", 1, true) and
    code:find(" && 9 + -1 * lid(0) + -8 * a_dim_2_outer >= 0)", 1, true), "the fetch is guarded:\n" .. code)
  local n = 8
  local a = ints({ n + 2, n + 2, n + 2 }, 7)
  run_each(k, { a = a, n = n }, function(out, ename)
    h.check_array(out, function(i, j, kk)
      if i < 1 or j < 1 or kk < 1 then return nil end
      return a:get(i - 1, j, kk) + a:get(i + 1, j, kk) + a:get(i, j - 1, kk) + a:get(i, j + 1, kk)
        + a:get(i, j, kk - 1) + a:get(i, j, kk + 1) - 6 * a:get(i, j, kk)
    end, "3-D stencil out on " .. ename)
  end)
end

-- }}}

-- {{{ a private temporary and its reader under a loop priority that cannot hold

do
  local knl = lp.make_kernel("{[i,j]: 0<=i<3 and 0<=j<4}", { "<> t = 2*a[i,j] {id=f}", "out[i] = sum(j, t) {dep=f}" })
  knl = lp.add_dtypes(knl, { a = "float32" })
  local k = lp.prioritize_loops(knl, "j,i")
  local a = ints({ 3, 4 }, 6)
  run_each(k, { a = a }, function(out, ename)
    h.check_array(out, function(i)
      local s = 0
      for j = 0, 3 do s = s + 2 * a:get(i, j) end
      return s
    end, "private temporary sum on " .. ename)
  end)
  -- The writer and the reader share one nest: t is read in the iteration that wrote it.
  h.check_equal(loops_over(lp.generate_code(k), "j"), 1, "j loops")
end

-- }}}
