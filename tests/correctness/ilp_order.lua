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

-- The unrolled copies of the update walk the accumulator's last axis first: consecutive entries.
do
  local code = lp.generate_code(tiled("row,col,k"))
  local first = {}
  for index in code:gmatch("acc_k%[(%d+)%] = acc_k%[%d+%] %+") do first[#first + 1] = tonumber(index) end
  h.check_equal(table.concat(first, ",", 1, 4), "0,1,2,3", "the first update copies")
  -- On C they read b at one base plus their constant, the form gcc's vectorizer packs into vector registers.
  local b0 = code:match("acc_k%[0%] = acc_k%[0%] %+ [^\n]-b%[([^%]]+)%]")
  local b1 = code:match("acc_k%[1%] = acc_k%[1%] %+ [^\n]-b%[([^%]]+)%]")
  h.check_equal(b1, b0 .. " + 1", "the second copy's subscript of b")
end

-- Every order computes the same product.
for _, order in ipairs { "row,col,k", "col,row,k" } do
  h.check(lp.auto_test_vs_ref(gemm, tiled(order), { parameters = { n = 8 }, exec = lp.c.executor {} }),
    "tiled GEMM with priority %s", order)
end
