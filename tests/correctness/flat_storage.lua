-- Indexing an array's storage directly, on both executors: linear subscripts a[[e]] (one index into the
-- storage, whatever the shape and strides) and arguments without a shape (lp.none, loopy's shape=None: a
-- pointer of unknown extent, indexed by one index, or with fixed strides by one per stride, given any
-- contiguous array at call time). Results are compared with plain Lua loops over the same storage.
local lp = require("loom")
local h = require("helpers")

local N, M = 7, 5

-- a[[i*n + i]] writes the diagonal of a C-order (n, n) array, and is printed as written.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[[i*n + i]] = i + 1", { lp.GlobalArg("a", "int32", { shape = "n, n" }), "..." })
  h.check_contains(tostring(knl), "a[[i*n + i]] = i + 1")
  h.on_each_executor(function(exec, name)
    local a = lp.zeros({ N, N }, "int32")
    knl(exec, { a = a, n = N })
    h.check_array(a, function(i, j) return i == j and i + 1 or 0 end, "diagonal on " .. name)
  end)
end

-- A linear subscript ignores the declared strides: with rows padded to m+1 elements, a[[i*(m+1) + j]] is
-- a[i, j], and a[[i]] is the i-th element of the storage (row i // (m+1), column i % (m+1)).
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", {
    "out[i, j] = 10*a[[i*(m+1) + j]] + a[[i]]",
  }, {
    lp.GlobalArg("a", "float64", { shape = "n, m", dim_tags = "stride:m+1,stride:1" }),
    lp.GlobalArg("out", "float64", { shape = "n, m" }),
    lp.ValueArg("n, m", "int32"),
  })
  local a = h.array_from({ N, M }, "float64", function(i, j) return 100 * i + j end)
  -- The padding element of each row is staged as zero.
  local function storage(s)
    local row, col = s // (M + 1), s % (M + 1)
    return col < M and a:get(row, col) or 0
  end
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i, j) return 10 * a:get(i, j) + storage(i) end, "padded rows on " .. name)
  end)
end

-- Linear subscripts read and write one array with another shape: b is a's transpose.
do
  local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "b[[j*n + i]] = a[[i*m + j]]", {
    lp.GlobalArg("a", "float32", { shape = "n, m" }),
    lp.GlobalArg("b", "float32", { shape = "m, n" }),
    lp.ValueArg("n, m", "int32"),
  })
  local a = lp.rand({ N, M }, "float32", 3)
  h.on_each_executor(function(exec, name)
    local b = lp.zeros({ M, N }, "float32")
    knl(exec, { a = a, b = b })
    h.check_array(b, function(j, i) return a:get(i, j) end, "transpose on " .. name)
  end)
end

-- An argument without a shape: any contiguous array, of any shape, is its storage.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + a[[i + 1]]",
    { lp.GlobalArg("a", "float64", { shape = lp.none }), lp.GlobalArg("out", "float64", { shape = "n" }), "..." })
  h.check(knl.args[1].shape == lp.none, "knl.args gives lp.none for a shape that is not known")
  h.check_contains(tostring(knl), "a: type: np:dtype('float64'), shape: unknown")
  h.check_contains(lp.generate_code(knl), "a[1 + i]")
  local long = lp.rand(3 * N, "float64", 4)
  local square = lp.rand({ N, N }, "float64", 5)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = long, n = N })
    h.check_array(out, function(i) return 2 * long:get(i) + long:get(i + 1) end, "1-D storage on " .. name)
    -- A 2-D array is its C-order storage; its transpose (not contiguous) is copied into C order first.
    out = knl(exec, { a = square, n = N + 2 })
    h.check_array(out, function(i) return 2 * square:get(i // N, i % N) + square:get((i + 1) // N, (i + 1) % N) end,
      "2-D storage on " .. name)
    out = knl(exec, { a = square:transpose(), n = N + 2 })
    h.check_array(out, function(i) return 2 * square:get(i % N, i // N) + square:get((i + 1) % N, (i + 1) // N) end,
      "transposed storage on " .. name)
  end)
end

-- Written through a pointer: the caller's array is updated in place, elements not written keep their values.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[2*i] = a[2*i] + i",
    { lp.GlobalArg("a", "int32", { shape = lp.none }), lp.ValueArg("n", "int32") })
  h.on_each_executor(function(exec, name)
    local a = lp.arange(2 * N + 3, "int32")
    knl(exec, { a = a, n = N })
    h.check_array(a, function(s) return s % 2 == 0 and s < 2 * N and s + s // 2 or s end, "in place on " .. name)
  end)
end

-- CSR row sums (loopy's test_dependent_loop_bounds, computed): the values have no shape and are read through
-- a linear subscript at an offset that the row pointers give.
do
  local knl = lp.make_kernel({ "{[i]: 0<=i<n}", "{[jj]: 0<=jj<row_len}" }, {
    "<> row_start = rowstarts[i]",
    "<> row_len = rowstarts[i+1] - row_start",
    "rowsum[i] = sum(jj, values[[row_start + jj]])",
  }, {
    lp.GlobalArg("rowstarts", "int32", { shape = "n+1" }),
    lp.GlobalArg("values", "float64", { shape = lp.none }),
    lp.GlobalArg("rowsum", "float64", { shape = "n" }),
    lp.ValueArg("n", "int32"),
  }, { assumptions = "n>=1" })
  local lengths = { 3, 0, 5, 1, 4 }
  local starts = { 0 }
  for r, len in ipairs(lengths) do starts[r + 1] = starts[r] + len end
  local rowstarts = lp.array(starts, "int32")
  local values = lp.rand(starts[#starts], "float64", 6)
  h.on_each_executor(function(exec, name)
    local rowsum = knl(exec, { rowstarts = rowstarts, values = values, n = #lengths })
    h.check_array(rowsum, function(r)
      local s = 0
      for e = starts[r + 1], starts[r + 2] - 1 do s = s + values:get(e) end
      return s
    end, "CSR row sums on " .. name, { rtol = 1e-14 })
  end)
end

-- lp.auto as in loopy: an argument indexed by one index that isl cannot follow (a gather through another
-- array) gets no shape; one never subscripted gets shape ().
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[idx[i]] + s[0] * 0", {
    lp.GlobalArg("a", "float32"), lp.GlobalArg("idx", "int32"), lp.GlobalArg("unused", "float32"),
    lp.GlobalArg("s", "float32", { shape = 1 }), lp.GlobalArg("out", "float32", { shape = "n" }), lp.ValueArg("n", "int32"),
  })
  local shapes = {}
  for _, arg in ipairs(knl.args) do shapes[arg.name] = arg.shape end
  h.check(shapes.a == lp.none, "a gathered through idx has no shape")
  h.check_equal(table.concat(shapes.idx, ","), "n", "idx's shape")
  h.check_equal(#shapes.unused, 0, "an argument never subscripted has shape ()")
  local a = lp.rand(20, "float32", 7)
  local idx = lp.array({ 19, 0, 4, 4, 11, 2, 7 }, "int32")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, idx = idx, unused = lp.zeros({}, "float32"), s = lp.zeros(1, "float32") })
    h.check_array(out, function(i) return a:get(idx:get(i)) end, "gather on " .. name)
  end)
end

-- Declared with strides and no shape (loopy's shape=None with strides): one axis per stride, each of unknown
-- extent, so no shape is needed for an index isl cannot follow. Rows of 3 elements, of which the kernels read
-- and write the first two, in the caller's storage.
do
  local args = {
    lp.GlobalArg("a", "float64", { strides = { 3, 1 } }),
    lp.GlobalArg("idx", "int32", { shape = "n" }),
    lp.GlobalArg("out", "float64", { shape = "n, 2" }),
    lp.ValueArg("n", "int32"),
  }
  local domain = "{ [i,k]: 0<=i<n and 0<=k<2 }"
  local gather = lp.make_kernel(domain, "out[i, k] = a[idx[i], k] + 10*k", args)
  local scatter = lp.make_kernel(domain, "a[idx[i], k] = 100*i + k", { args[1], args[2], args[4] })
  h.check_contains(tostring(gather), "a: type: np:dtype('float64'), shape: unknown, dim_tags: (stride:3, stride:1)")
  local idx = lp.array({ 3, 0, 2, 1 }, "int32")
  h.on_each_executor(function(exec, name)
    local a = lp.rand(12, "float64", 8)
    local before = a:copy()
    h.check_array(gather(exec, { a = a, idx = idx }), function(i, k) return before:get(3 * idx:get(i) + k) + 10 * k end,
      "strided gather on " .. name)
    scatter(exec, { a = a, idx = idx })
    h.check_array(a, function(e)
      local row, column = e // 3, e % 3
      for i = 0, 3 do
        if idx:get(i) == row and column < 2 then return 100 * i + column end
      end
      return before:get(e)
    end, "strided scatter on " .. name)
  end)
end
