-- Register tiles of triangular kernels (PolyBench's syrk, syr2k and trmm): `ilp` on a split iname whose value
-- bounds an inner loop (j <= i, k > i) works as in loopy, the inner loop running over the values any copy needs
-- and each copy under its guard. Every variant runs on every executor against a plain-Lua loop (issue 33).
local lp = require("loom")
local h = require("helpers")

local n, m = 13, 7  -- tiles of 4 and 2 that leave remainders

local function matrix(rows, cols, seed)
  return lp.rand({ rows, cols }, "float64", seed)
end

-- Runs each variant of `knl` on every executor with fresh copies of `inputs` and compares `out` with `want(i, j)`.
local function check(what, variants, inputs, out, want)
  for name, variant in pairs(variants) do
    h.on_each_executor(function(exec, ename)
      local args = {}
      for k, v in pairs(inputs) do args[k] = type(v) == "number" and v or v:copy() end
      variant(exec, args)
      h.check_array(args[out], want, string.format("%s, %s on %s", what, name, ename), { rtol = 1e-12 })
    end)
  end
end

-- The tile of `knl`: i split by 4 and j by 2, the inner parts on `ilp` (or `ilp.seq`, or `unr`).
local function tiles(knl, tag)
  knl = lp.split_iname(knl, "i", 4, { inner_tag = tag })
  return lp.split_iname(knl, "j", 2, { inner_tag = tag })
end

local alpha, beta = 1.5, 0.5

-- syrk: C = beta*C + alpha*A*A^T on the lower triangle.
do
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }", "{ [k]: 0<=k<m }" },
    "C[i,j] = beta*C[i,j] + alpha*sum(k, A[i,k]*A[j,k])",
    { lp.GlobalArg("C", "float64", { shape = "n, n" }), lp.GlobalArg("A", "float64", { shape = "n, m" }),
      lp.ValueArg("alpha, beta", "float64"), lp.ValueArg("n, m", "int32") })
  local A, C = matrix(n, m, 1), matrix(n, n, 2)
  check("syrk", { ilp = tiles(knl, "ilp"), ilp_seq = tiles(knl, "ilp.seq"), unr = tiles(knl, "unr"),
                  ilp_i = lp.split_iname(knl, "i", 4, { inner_tag = "ilp" }) },
    { A = A, C = C, alpha = alpha, beta = beta }, "C", function(i, j)
      if j > i then return C:get(i, j) end
      local s = 0
      for k = 0, m - 1 do s = s + A:get(i, k) * A:get(j, k) end
      return beta * C:get(i, j) + alpha * s
    end)
end

-- syr2k: C = beta*C + alpha*(A*B^T + B*A^T) on the lower triangle.
do
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }", "{ [k]: 0<=k<m }" },
    "C[i,j] = beta*C[i,j] + sum(k, A[j,k]*alpha*B[i,k] + B[j,k]*alpha*A[i,k])",
    { lp.GlobalArg("C", "float64", { shape = "n, n" }), lp.GlobalArg("A, B", "float64", { shape = "n, m" }),
      lp.ValueArg("alpha, beta", "float64"), lp.ValueArg("n, m", "int32") })
  local A, B, C = matrix(n, m, 3), matrix(n, m, 4), matrix(n, n, 5)
  check("syr2k", { ilp = tiles(knl, "ilp"), ilp_seq = tiles(knl, "ilp.seq") },
    { A = A, B = B, C = C, alpha = alpha, beta = beta }, "C", function(i, j)
      if j > i then return C:get(i, j) end
      local s = 0
      for k = 0, m - 1 do s = s + A:get(j, k) * alpha * B:get(i, k) + B:get(j, k) * alpha * A:get(i, k) end
      return beta * C:get(i, j) + s
    end)
end

-- trmm: B = alpha*(B + A^T*B) over the strictly lower part of A (k > i), in place: row i reads rows k > i
-- before they are updated, which the tile keeps (all reads of a column's copies before their writes).
do
  local knl = lp.make_kernel({ "{ [i, j]: 0<=i<m and 0<=j<n }", "{ [k]: i<k<m }" },
    "B[i,j] = alpha*(B[i,j] + sum(k, A[k,i]*B[k,j]))",
    { lp.GlobalArg("A", "float64", { shape = "m, m" }), lp.GlobalArg("B", "float64", { shape = "m, n" }),
      lp.ValueArg("alpha", "float64"), lp.ValueArg("n, m", "int32") })
  local A, B = matrix(m, m, 6), matrix(m, n, 7)
  check("trmm", { ilp = tiles(knl, "ilp"), ilp_seq = tiles(knl, "ilp.seq") },
    { A = A, B = B, alpha = alpha }, "B", function(i, j)
      local s = B:get(i, j)
      for k = i + 1, m - 1 do s = s + A:get(k, i) * B:get(k, j) end
      return alpha * s
    end)
end
