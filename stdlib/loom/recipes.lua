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
  opencl = { lx = 16, ly = 16, ri = 4, rj = 4, kt = 16 },
}
M.tunables.gemm = {
  c = { mr = { 4, 6, 8 }, nr = { 16, 32, 48, 64 }, kc = { 128, 256, 512 } },
  opencl = { lx = { 8, 16, 32 }, ly = { 8, 16 }, ri = { 2, 4, 8 }, rj = { 2, 4, 8 }, kt = { 8, 16, 32 } },
}

-- C: an mr x nr register tile per step of k, in blocks of kc values of k (the block of b stays in cache while
-- the tile walks down the rows of a); groups (threads) take columns. The accumulator starts from c's value
-- (zero in the first block): with a constant start, gcc packs none of the tile into vector registers, and
-- -fno-tree-loop-vectorize keeps it from vectorizing the k loop with gathers instead (each measured 10 times
-- slower).
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
  return lp.set_options(knl, { build_options = { "-fno-tree-loop-vectorize" } })
end

-- OpenCL: work-groups of ly x lx work-items, each computing ri x rj entries of c (strided by the group's size,
-- so that neighbouring work-items touch neighbouring memory), over k in steps of kt with both operands' tiles in
-- local memory.
local function gemm_opencl(o)
  local knl = lp.make_kernel("{[i,j,p]: 0<=i<n and 0<=j<m and 0<=p<k}", "c[i,j] = sum(p, a[i,p]*b[p,j])",
    { lp.GlobalArg("a", o.dtype, { shape = "n, k" }), lp.GlobalArg("b", o.dtype, { shape = "k, m" }),
      lp.GlobalArg("c", o.dtype, { shape = "n, m", is_output = true }), lp.ValueArg("n, m, k", "int32") },
    { target = "opencl", name = "gemm" })
  knl = lp.split_iname(knl, "i", o.ly * o.ri, { outer_tag = "g.1" })
  knl = lp.split_iname(knl, "j", o.lx * o.rj, { outer_tag = "g.0" })
  knl = lp.split_iname(knl, "i_inner", o.ly, { outer_tag = "ilp", inner_tag = "l.1" })
  knl = lp.split_iname(knl, "j_inner", o.lx, { outer_tag = "ilp", inner_tag = "l.0" })
  knl = lp.split_iname(knl, "p", o.kt)
  knl = lp.add_prefetch(knl, "a", "i_inner_outer, i_inner_inner, p_inner", { default_tag = "l.auto" })
  return lp.add_prefetch(knl, "b", "p_inner, j_inner_outer, j_inner_inner", { default_tag = "l.auto" })
end

function M.gemm(opts)
  local o = options("gemm", opts, GEMM_SIZES)
  return fix_sizes(o.target == "c" and gemm_c(o) or gemm_opencl(o), o, GEMM_SIZES)
end

-- }}}

return M
