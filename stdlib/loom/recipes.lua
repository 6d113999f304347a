-- loom.recipes: ready kernels with a schedule per target (SPEC "Lua standard library"). Each recipe is a function
-- of an options table: `dtype` (default "float32"), `target` ("c" or "opencl", default "opencl"), the sizes
-- (fixed into the kernel when given: the fast path, with no remainder guards when the tiles divide them; left
-- to the call otherwise, where every size works) and the schedule's tunables, whose defaults are
-- recipes.defaults[name][target] and whose useful values, a space for loom.tune, recipes.tunables[name][target].
-- Uses only the public `loom` API.
local lp = require("loom")

local M = { defaults = {}, tunables = {} }

local ErrorMeta = { __tostring = function(e) return e.kind .. ": " .. e.message end }

local function raise(fmt, ...)
  error(setmetatable({ kind = "ArgumentError", message = string.format(fmt, ...) }, ErrorMeta), 0)
end

-- The options of recipe `name`: every key known, the target's defaults filled in.
local function options(name, opts, sizes)
  opts = opts or {}
  if type(opts) ~= "table" then raise("recipes.%s: expected a table of options, got %s", name, type(opts)) end
  local target = opts.target or "opencl"
  local defaults = M.defaults[name][target]
  if not defaults then raise("recipes.%s: unknown target '%s' (c or opencl)", name, tostring(target)) end
  local o = { dtype = opts.dtype or "float32", target = target }
  for k, v in pairs(defaults) do o[k] = v end
  for k, v in pairs(opts) do
    if k ~= "dtype" and k ~= "target" and defaults[k] == nil and not sizes[k] then
      raise("recipes.%s: unknown option '%s'", name, tostring(k))
    end
    o[k] = v
  end
  return o
end

-- Fixes the sizes the options give (those of `sizes` that are set).
local function fix_sizes(knl, o, sizes)
  local fixed = {}
  for size in pairs(sizes) do fixed[size] = o[size] end
  return next(fixed) and lp.fix_parameters(knl, fixed) or knl
end

-- {{{ gemm: c = a @ b, a of shape (n, k), b of shape (k, m)

local GEMM_SIZES = { n = true, m = true, k = true }

M.defaults.gemm = {
  c = { mr = 8, nr = 32, kc = 256 },
  -- The best of 48 tiles with vec = 4 on an NVIDIA H200 through OpenCL (docs/performance.md).
  opencl = { lx = 32, ly = 16, ri = 8, rj = 4, kt = 32, vec = 4 },
}
M.tunables.gemm = {
  c = { mr = { 4, 6, 8 }, nr = { 16, 32, 48, 64 }, kc = { 128, 256, 512 } },
  opencl = { lx = { 8, 16, 32 }, ly = { 8, 16 }, ri = { 4, 8, 16 }, rj = { 4, 8, 16 }, kt = { 8, 16, 32 },
    vec = { 1, 2, 4 } },
}

-- C: an mr x nr register tile per step of k, in blocks of kc values of k (the block of b stays in cache while
-- the tile walks down the rows of a); groups (threads) take columns. The accumulator starts from c's value
-- (zero in the first block): with a constant start, gcc packed none of the tile into vector registers. The
-- tile's ILP loops stay loops on C, and gcc vectorizes the innermost (j_inner, stride 1 in b and c). Written out
-- as copies they needed -fno-tree-loop-vectorize against gathers along k: as fast (bench/tune_gemm.lua c, best
-- variant 219 against 217 GFLOP/s), but 5 times the code to compile.
local function gemm_c(o)
  local knl = lp.make_kernel(
    string.format("{[i,j,ko,ki]: 0<=i<n and 0<=j<m and 0<=ki<%d and 0<=ko*%d+ki<k}", o.kc, o.kc), {
      string.format("<%s> acc = if(ko == 0, 0, c[i,j]) {id=init, dep=*}", o.dtype),
      string.format("acc = acc + a[i, ko*%d + ki] * b[ko*%d + ki, j] {id=update, dep=init}", o.kc, o.kc),
      "c[i,j] = acc {id=store, dep=update}" },
    { lp.GlobalArg("a", o.dtype, { shape = "n, k" }), lp.GlobalArg("b", o.dtype, { shape = "k, m" }),
      lp.GlobalArg("c", o.dtype, { shape = "n, m", is_output = true }), lp.ValueArg("n, m, k", "int32") },
    { target = "c", name = "gemm" })
  knl = lp.split_iname(knl, "j", o.nr, { outer_tag = "g.0", inner_tag = "ilp" })
  knl = lp.split_iname(knl, "i", o.mr, { inner_tag = "ilp" })
  knl = lp.prioritize_loops(knl, "ko,i_outer,ki,i_inner,j_inner")
  return knl
end

-- OpenCL: work-groups of ly x lx work-items, each computing ri x rj entries of c, over k in steps of kt with both
-- operands' tiles in local memory. A work-item's rows and columns come in runs of `vec` adjacent ones, strided by
-- the group's size (vec = 1: neighbouring work-items touch neighbouring memory). With vec > 1 the tile of a is
-- stored with k outermost, so that each run of either tile is `vec` adjacent words, and both tiles are declared
-- aligned to a run: the compiler reads a run from local memory in one vector load (nvcc does only when it can
-- prove the alignment). Each k row of a's tile is padded by one run: unpadded, the work-items that store one
-- row of a (one column of the tile) all hit the same memory bank, which cost a fifth of the time on an H200.
local function gemm_opencl(o)
  if o.ri % o.vec ~= 0 or o.rj % o.vec ~= 0 then
    raise("recipes.gemm: vec = %d must divide ri = %d and rj = %d", o.vec, o.ri, o.rj)
  end
  local args = { lp.GlobalArg("a", o.dtype, { shape = "n, k" }), lp.GlobalArg("b", o.dtype, { shape = "k, m" }),
    lp.GlobalArg("c", o.dtype, { shape = "n, m", is_output = true }), lp.ValueArg("n, m, k", "int32") }
  if o.vec > 1 then
    local bytes = #lp.zeros({ 1 }, o.dtype):tobytes()
    for _, t in ipairs({ { "a_fetch", { o.ly * o.ri, o.kt } }, { "b_fetch", { o.kt, o.lx * o.rj } } }) do
      args[#args + 1] = lp.TemporaryVariable(t[1], o.dtype,
        { shape = t[2], address_space = "local", alignment = o.vec * bytes })
    end
  end
  local knl = lp.make_kernel("{[i,j,p]: 0<=i<n and 0<=j<m and 0<=p<k}", "c[i,j] = sum(p, a[i,p]*b[p,j])", args,
    { target = "opencl", name = "gemm" })
  knl = lp.split_iname(knl, "i", o.ly * o.ri, { outer_tag = "g.1" })
  knl = lp.split_iname(knl, "j", o.lx * o.rj, { outer_tag = "g.0" })
  knl = lp.split_iname(knl, "p", o.kt)
  if o.vec == 1 then
    knl = lp.split_iname(knl, "i_inner", o.ly, { outer_tag = "ilp", inner_tag = "l.1" })
    knl = lp.split_iname(knl, "j_inner", o.lx, { outer_tag = "ilp", inner_tag = "l.0" })
    knl = lp.add_prefetch(knl, "a", "i_inner_outer, i_inner_inner, p_inner", { default_tag = "l.auto" })
    return lp.add_prefetch(knl, "b", "p_inner, j_inner_outer, j_inner_inner", { default_tag = "l.auto" })
  end
  for _, axis in ipairs({ { "i", o.ly, "l.1" }, { "j", o.lx, "l.0" } }) do
    local name, size, tag = table.unpack(axis)
    knl = lp.split_iname(knl, name .. "_inner", o.vec, { inner_tag = "ilp" })
    knl = lp.split_iname(knl, name .. "_inner_outer", size, { outer_tag = "ilp", inner_tag = tag })
  end
  knl = lp.add_prefetch(knl, "a", "i_inner_outer_outer, i_inner_outer_inner, i_inner_inner, p_inner",
    { default_tag = "l.auto", temporary_name = "a_fetch" })
  knl = lp.tag_array_axes(knl, "a_fetch", { "stride:1", "stride:" .. (o.ly * o.ri + o.vec) })
  return lp.add_prefetch(knl, "b", "p_inner, j_inner_outer_outer, j_inner_outer_inner, j_inner_inner",
    { default_tag = "l.auto", temporary_name = "b_fetch" })
end

function M.gemm(opts)
  local o = options("gemm", opts, GEMM_SIZES)
  return fix_sizes(o.target == "c" and gemm_c(o) or gemm_opencl(o), o, GEMM_SIZES)
end

-- }}}

-- {{{ transpose: out = a^T, a of shape (n, m)

local MATRIX_SIZES = { n = true, m = true }

M.defaults.transpose = { c = { ti = 32, tj = 32 }, opencl = { t = 32, rows = 8 } }
M.tunables.transpose = {
  c = { ti = { 8, 16, 32, 64 }, tj = { 8, 16, 32, 64 } },
  opencl = { t = { 16, 32 }, rows = { 4, 8, 16 } },
}

local function transpose_kernel(o)
  return lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<m}", "out[j,i] = a[i,j]",
    { lp.GlobalArg("a", o.dtype, { shape = "n, m" }), lp.GlobalArg("out", o.dtype, { shape = "m, n", is_output = true }),
      lp.ValueArg("n, m", "int32") }, { target = o.target, name = "transpose" })
end

-- C: ti x tj blocks, groups (threads) taking block rows; a block's rows of `a` and columns of `out` stay in
-- cache while it is copied.
local function transpose_c(o)
  local knl = lp.split_iname(transpose_kernel(o), "i", o.ti, { outer_tag = "g.0" })
  knl = lp.split_iname(knl, "j", o.tj)
  return lp.prioritize_loops(knl, "j_outer,i_inner,j_inner")
end

-- OpenCL: a t x t tile per work-group of t x rows work-items, read into local memory along a's rows and written
-- out along out's rows (both coalesced); the tile is padded by one column so that reading it down a column
-- hits every memory bank once.
local function transpose_opencl(o)
  local knl = lp.split_iname(transpose_kernel(o), "j", o.t, { outer_tag = "g.1" })
  knl = lp.split_iname(knl, "i", o.t, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.split_iname(knl, "j_inner", o.rows, { outer_tag = "ilp", inner_tag = "l.1" })
  knl = lp.add_prefetch(knl, "a", "i_inner, j_inner_outer, j_inner_inner",
    { temporary_name = "tile", dim_arg_names = { "fi", "fj" }, temporary_address_space = "local" })
  knl = lp.tag_inames(knl, { fj = "l.0" })
  knl = lp.split_iname(knl, "fi", o.rows, { outer_tag = "ilp", inner_tag = "l.1" })
  return lp.tag_array_axes(knl, "tile", { "stride:" .. (o.t + 1), "stride:1" })
end

function M.transpose(opts)
  local o = options("transpose", opts, MATRIX_SIZES)
  return fix_sizes(o.target == "c" and transpose_c(o) or transpose_opencl(o), o, MATRIX_SIZES)
end

-- }}}

-- {{{ stencil5: out = the 5-point Laplacian of a (shape (n, m)) on the interior; the border of out is left alone

M.defaults.stencil5 = { c = { rows = 8 }, opencl = { lx = 32, ly = 8 } }
M.tunables.stencil5 = { c = { rows = { 1, 4, 8, 32 } }, opencl = { lx = { 16, 32, 64 }, ly = { 2, 4, 8, 16 } } }

local function stencil5_kernel(o)
  return lp.make_kernel("{[i,j]: 1<=i<n-1 and 1<=j<m-1}",
    "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+1] - 4*a[i,j]",
    { lp.GlobalArg("a", o.dtype, { shape = "n, m" }), lp.GlobalArg("out", o.dtype, { shape = "n, m", is_output = true }),
      lp.ValueArg("n, m", "int32") }, { target = o.target, name = "stencil5" })
end

-- C: groups (threads) take blocks of rows; each row is one loop along j that the compiler vectorizes.
local function stencil5_c(o)
  return lp.prioritize_loops(lp.split_iname(stencil5_kernel(o), "i", o.rows, { outer_tag = "g.0" }), "i_inner,j")
end

-- OpenCL: one work-item per point, ly x lx work-groups with lx along the rows (coalesced); the neighbours'
-- reuse is left to the caches.
local function stencil5_opencl(o)
  local knl = lp.split_iname(stencil5_kernel(o), "j", o.lx, { outer_tag = "g.0", inner_tag = "l.0" })
  return lp.split_iname(knl, "i", o.ly, { outer_tag = "g.1", inner_tag = "l.1" })
end

function M.stencil5(opts)
  local o = options("stencil5", opts, MATRIX_SIZES)
  return fix_sizes(o.target == "c" and stencil5_c(o) or stencil5_opencl(o), o, MATRIX_SIZES)
end

-- }}}

-- {{{ sum: s[0] = the sum of a (shape (n)), in two device kernels: partial sums per group, then their sum

local VECTOR_SIZES = { n = true }

M.defaults.sum = { c = { chunk = 16384 }, opencl = { lx = 256, per_item = 16 } }
M.tunables.sum = { c = { chunk = { 4096, 16384, 65536 } }, opencl = { lx = { 128, 256, 512 }, per_item = { 4, 8, 16, 32, 64 } } }

-- Partial sums per group (`partial`, over `domain`, `per_group` values each) into a global temporary, then, after
-- a global barrier, their sum: by `lanes` work-items of one group (a tree in local memory), or one loop.
local function sum_kernel(o, domain, per_group, partial, lanes)
  local groups = string.format("(n + %d) // %d", per_group - 1, per_group)
  local total = string.format("{[q,u]: 0<=q<%d and 0<=u and %d*(%d*u + q) < n}", lanes, per_group, lanes)
  local knl = lp.make_kernel({ domain, total }, {
      partial .. " {id=partial}",
      "... gbarrier {id=partials_done, dep=partial}",
      string.format("s[0] = sum(q, sum(u, part[%d*u + q])) {dep=partials_done}", lanes) },
    { lp.GlobalArg("a", o.dtype, { shape = "n" }), lp.GlobalArg("s", o.dtype, { shape = "1", is_output = true }),
      lp.TemporaryVariable("part", o.dtype, { shape = groups, address_space = "global" }), lp.ValueArg("n", "int32") },
    { target = o.target, name = "sum" })
  return lanes > 1 and lp.tag_inames(knl, { q = "l.0" }) or knl
end

-- C: each group (thread) adds one contiguous chunk in one loop, which the compiler vectorizes once it may
-- reassociate the additions (as every parallel sum does).
local function sum_c(o)
  local knl = sum_kernel(o, string.format("{[g,x]: 0<=x<%d and 0<=g and %d*g + x < n}", o.chunk, o.chunk), o.chunk,
    string.format("part[g] = sum(x, a[%d*g + x])", o.chunk), 1)
  knl = lp.tag_inames(knl, { g = "g.0" })
  return lp.set_options(knl, { build_options = { "-fassociative-math", "-fno-signed-zeros", "-fno-trapping-math" } })
end

-- OpenCL: each work-item adds per_item values strided by the group's size (coalesced), then the group adds
-- its work-items' sums in local memory.
local function sum_opencl(o)
  local per_group = o.lx * o.per_item
  local knl = sum_kernel(o,
    string.format("{[g,l,r]: 0<=l<%d and 0<=r<%d and 0<=g and %d*g + %d*r + l < n}", o.lx, o.per_item, per_group, o.lx),
    per_group, string.format("part[g] = sum(l, sum(r, a[%d*g + %d*r + l]))", per_group, o.lx), o.lx)
  return lp.tag_inames(knl, { g = "g.0", l = "l.0" })
end

function M.sum(opts)
  local o = options("sum", opts, VECTOR_SIZES)
  return fix_sizes(o.target == "c" and sum_c(o) or sum_opencl(o), o, VECTOR_SIZES)
end

-- }}}

-- {{{ copy (out = a) and triad (a = b + s*c, STREAM's names), of shape (n); with `vec` > 1 the arrays have
-- shape (n/vec, vec), whose rows are OpenCL vectors

M.defaults.copy = { c = { chunk = 65536, vec = 1 }, opencl = { lx = 256, vec = 4 } }
M.tunables.copy = { c = { chunk = { 16384, 65536, 262144 } }, opencl = { lx = { 128, 256, 512 }, vec = { 1, 2, 4 } } }
M.defaults.triad = M.defaults.copy
M.tunables.triad = M.tunables.copy

-- `arrays` name the arrays; `rhs` is the right-hand side with `@` for the index.
local function streaming(o, name, lhs, arrays, rhs)
  local vec = o.vec or 1
  local shape, index, domain = "n", "i", "{[i]: 0<=i<n}"
  if vec > 1 then shape, index, domain = "n, " .. vec, "i, v", "{[i,v]: 0<=i<n and 0<=v<" .. vec .. "}" end
  local args = {}
  for _, a in ipairs(arrays) do
    args[#args + 1] = lp.GlobalArg(a, o.dtype, { shape = shape, dim_tags = vec > 1 and "c,vec" or nil, is_output = a == lhs })
  end
  args[#args + 1] = lp.ValueArg("n", "int32")
  if rhs:find("s%*") then args[#args + 1] = lp.ValueArg("s", o.dtype) end
  local knl = lp.make_kernel(domain, lhs .. "[" .. index .. "] = " .. rhs:gsub("@", index),
    args, { target = o.target, name = name })
  if o.target == "c" then return lp.split_iname(knl, "i", o.chunk, { outer_tag = "g.0" }) end
  knl = lp.split_iname(knl, "i", o.lx, { outer_tag = "g.0", inner_tag = "l.0" })
  return vec > 1 and lp.tag_inames(knl, { v = "vec" }) or knl
end

function M.copy(opts)
  local o = options("copy", opts, VECTOR_SIZES)
  return fix_sizes(streaming(o, "copy", "out", { "a", "out" }, "a[@]"), o, VECTOR_SIZES)
end

function M.triad(opts)
  local o = options("triad", opts, VECTOR_SIZES)
  return fix_sizes(streaming(o, "triad", "a", { "a", "b", "c" }, "b[@] + s*c[@]"), o, VECTOR_SIZES)
end

-- }}}

-- {{{ batched_gemm: c[p] = a[p] @ b[p] for `batch` small matrices, a[p] of shape (size, size)

local BATCH_SIZES = { batch = true }

M.defaults.batched_gemm = { c = { size = 8, per_group = 64 }, opencl = { size = 8, per_group = 8 } }
M.tunables.batched_gemm = { c = { per_group = { 16, 64, 256 } }, opencl = { per_group = { 1, 2, 4, 8, 16 } } }

local function batched_kernel(o)
  local sz = o.size
  return lp.make_kernel(string.format("{[p,i,j,k]: 0<=p<batch and 0<=i,j,k<%d}", sz), "c[p,i,j] = sum(k, a[p,i,k]*b[p,k,j])",
    { lp.GlobalArg("a", o.dtype, { shape = "batch, " .. sz .. ", " .. sz }),
      lp.GlobalArg("b", o.dtype, { shape = "batch, " .. sz .. ", " .. sz }),
      lp.GlobalArg("c", o.dtype, { shape = "batch, " .. sz .. ", " .. sz, is_output = true }), lp.ValueArg("batch", "int32") },
    { target = o.target, name = "batched_gemm" })
end

-- C: groups (threads) take runs of matrices; each row of a product is a register tile (its `size` sums side
-- by side, over an unrolled k), which the compiler keeps in one vector register. (Unrolling the whole product
-- measured 5 times slower: the compiler then packs nothing.)
local function batched_c(o)
  local knl = lp.split_iname(batched_kernel(o), "p", o.per_group, { outer_tag = "g.0" })
  return lp.tag_inames(knl, { j = "ilp", k = "unr" })
end

-- OpenCL: a work-item per entry of c, per_group matrices per work-group.
local function batched_opencl(o)
  local knl = lp.split_iname(batched_kernel(o), "p", o.per_group, { outer_tag = "g.0", inner_tag = "l.2" })
  return lp.tag_inames(knl, { i = "l.1", j = "l.0", k = "unr" })
end

function M.batched_gemm(opts)
  local o = options("batched_gemm", opts, BATCH_SIZES)
  return fix_sizes(o.target == "c" and batched_c(o) or batched_opencl(o), o, BATCH_SIZES)
end

-- }}}

return M
