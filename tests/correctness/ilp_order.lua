-- Register tiles: ILP loops nest in the order the loop priorities give (also priorities given before the
-- splits that made them), and the privatized accumulator takes its axes in that same order, so that the
-- innermost copies touch consecutive entries (a compiler packs those into vector registers). Both once
-- followed other orders: the axes were alphabetical, the ILP loops ignored the priorities.
local lp = require("loom")
local h = require("helpers")

local gemm = lp.make_kernel("{[row,col,k]: 0<=row<n and 0<=col<n and 0<=k<n}", "c[row,col] = sum(k, a[row,k]*b[k,col])",
  nil, { target = "c", assumptions = "n mod 4 = 0 and n >= 4" })
gemm = lp.add_dtypes(gemm, { a = "float32", b = "float32" })

-- Splits row by 2 and col by 4, inner parts ILP; `order` is a loop priority given before the splits.
local function tiled(order)
  local k = order and lp.prioritize_loops(gemm, order) or gemm
  k = lp.split_iname(k, "row", 2, { inner_tag = "ilp" })
  return lp.split_iname(k, "col", 4, { inner_tag = "ilp" })
end

-- The accumulator's shape, and the ILP loops in the order the linearization opens them.
local function structure(knl)
  local text = tostring(lp.get_one_linearized_kernel(knl))
  local shape = text:match("acc_k: [^\n]*shape: %(([%d, ]+)%)")
  local update = text:match("LINEARIZATION:.-for k\n(.-)end k")
  local loops = {}
  for iname in update:gmatch("for ([%w_]+)") do loops[#loops + 1] = iname end
  return shape, table.concat(loops, " ")
end

local function check_structure(knl, shape, loops, what)
  local got_shape, got_loops = structure(knl)
  h.check_equal(got_shape, shape, what .. ": accumulator shape")
  h.check_equal(got_loops, loops, what .. ": ILP loops inside k")
end

-- A priority before the splits names row and col; after them it holds for the parts.
check_structure(tiled("row,col,k"), "2, 4", "row_inner col_inner", "priority row,col")
check_structure(tiled("col,row,k"), "4, 2", "col_inner row_inner", "priority col,row")
-- Without priorities: the kernel's iname order (row before col), not the alphabetical one.
check_structure(tiled(nil), "2, 4", "row_inner col_inner", "no priority")
-- A priority on the ILP inames themselves, given after the splits.
check_structure(lp.prioritize_loops(tiled(nil), "col_inner,row_inner"), "4, 2", "col_inner row_inner",
  "priority col_inner,row_inner")

-- The unrolled copies of the update (OpenCL) walk the accumulator's last axis first: consecutive entries.
do
  local code = lp.generate_code(lp.set_options(tiled("row,col,k"), { target = "opencl" }))
  local first = {}
  for index in code:gmatch("acc_k%[(%d+)%] = acc_k%[%d+%] %+") do first[#first + 1] = tonumber(index) end
  h.check_equal(table.concat(first, ",", 1, 4), "0,1,2,3", "the first update copies")
end
-- On C the ILP loops stay loops for gcc to unroll (Target::compiler_unrolls), in the same order: the innermost
-- walks the accumulator and b with stride 1, which gcc packs into vector registers.
do
  local code = lp.generate_code(tiled("row,col,k"))
  h.check_contains(code, "for (int k = 0; k <= -1 + n; ++k)\n        for (int row_inner = 0; row_inner <= 1; ++row_inner)\n" ..
    "          for (int col_inner = 0; col_inner <= 3; ++col_inner)\n" ..
    "            acc_k[4 * row_inner + col_inner] = acc_k[4 * row_inner + col_inner] + a[n * (2 * row_outer + row_inner) + k]" ..
    " * b[n * k + 4 * col_outer + col_inner];")
end

-- Every order computes the same product.
for _, order in ipairs { "row,col,k", "col,row,k" } do
  h.check(lp.auto_test_vs_ref(gemm, tiled(order), { parameters = { n = 8 }, exec = lp.c.executor {} }),
    "tiled GEMM with priority %s", order)
end
