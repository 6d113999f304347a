-- Sequential reductions (realize_reduction) on both executors, against plain-Lua references: every
-- reduction operation in float32, float64 and int32, empty and one-element domains (the neutral element),
-- argmax/argmin tie-breaking, matrix-vector and matrix-matrix products, reductions over two inames, nested
-- and sibling reductions, the reduce(op, ...) spelling, and the realized listing.
local lp = require("loom")

local EXECUTORS = { { name = "opencl", exec = lp.cl.queue{} }, { name = "c", exec = lp.c.executor{} } }
local SIZES = { 0, 1, 7, 100 }
local INT32_MIN, INT32_MAX = -2147483648, 2147483647

local function fail(fmt, ...) error(string.format(fmt, ...), 2) end

local function close(got, want, dtype)
  if want == math.huge or want == -math.huge or dtype == "int32" then return got == want end
  local tol = dtype == "float32" and 1e-4 or 1e-10
  return math.abs(got - want) <= tol * math.max(1, math.abs(want))
end

local function check(got, want, dtype, what)
  if not close(got, want, dtype) then fail("%s: got %s, want %s", what, tostring(got), tostring(want)) end
end

-- Runs `knl` on `exec` and returns its written arrays by name.
local function run(knl, exec, args)
  return lp.set_options(knl, { return_dict = true })(exec, args)
end

-- A vector of n values of `dtype`: small integers (with repeats, for the tie rules) or uniform floats in
-- [lo, hi).
local function vector(n, dtype, seed, lo, hi)
  local a = lp.zeros({ n }, dtype)
  if dtype == "int32" then
    for k = 0, n - 1 do a:set(k, (k * 7 + seed) % 11 - 5) end
  else
    local r = lp.rand({ math.max(n, 1) }, dtype, seed)
    for k = 0, n - 1 do a:set(k, lo + (hi - lo) * r:get(k)) end
  end
  return a
end

local function values(a)
  local out = {}
  for k = 0, #a - 1 do out[k + 1] = a:get(k) end
  return out
end

-- The reference folds, as the kernels do them: from the neutral element, left to right.
local function fold(vals, start, f)
  local acc = start
  for _, v in ipairs(vals) do acc = f(acc, v) end
  return acc
end

local function lowest(dtype) return dtype == "int32" and INT32_MIN or -math.huge end
local function highest(dtype) return dtype == "int32" and INT32_MAX or math.huge end

local SCALAR_OPS = {
  sum = function(vals) return fold(vals, 0, function(a, b) return a + b end) end,
  product = function(vals) return fold(vals, 1, function(a, b) return a * b end) end,
  max = function(vals, dtype) return fold(vals, lowest(dtype), math.max) end,
  min = function(vals, dtype) return fold(vals, highest(dtype), math.min) end,
}

local function test_scalar_ops(exec, where)
  for op, ref in pairs(SCALAR_OPS) do
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", "s = " .. op .. "(i, a[i])")
    for _, dtype in ipairs({ "float32", "float64", "int32" }) do
      for _, n in ipairs(SIZES) do
        -- Products stay near 1 so that they neither overflow nor vanish.
        local lo, hi = -1, 1
        if op == "product" then lo, hi = 0.9, 1.1 end
        local a = vector(n, dtype, 3, lo, hi)
        if op == "product" and dtype == "int32" then
          for k = 0, n - 1 do a:set(k, (k % 9 == 0) and -1 or 1) end
        end
        local out = run(knl, exec, { a = a })
        if out.s.dtype ~= dtype then fail("%s %s: result dtype %s, want %s", where, op, out.s.dtype, dtype) end
        check(out.s:get(), ref(values(a), dtype), dtype, string.format("%s %s(%s, n=%d)", where, op, dtype, n))
      end
    end
  end
end

-- argmax/argmin: the first extreme element wins; an empty domain gives the neutral value and index -1. The
-- value and index are two operands, or one tuple (loopy's).
local function test_arg_extrema(exec, where)
  for _, op in ipairs({ "argmax", "argmin", "tuple" }) do
    local form = op == "tuple" and "argmin(i, (a[i], i))" or op .. "(i, a[i], i)"
    op = op == "tuple" and "argmin" or op
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", "v, idx = " .. form)
    for _, dtype in ipairs({ "float32", "float64", "int32" }) do
      for _, n in ipairs(SIZES) do
        local a = vector(n, dtype, 5, -1, 1)
        local best, best_index = (op == "argmax") and lowest(dtype) or highest(dtype), -1
        for k = 0, n - 1 do
          local x = a:get(k)
          if (op == "argmax" and x > best) or (op == "argmin" and x < best) then best, best_index = x, k end
        end
        local out = run(knl, exec, { a = a })
        local what = string.format("%s %s(%s, n=%d)", where, op, dtype, n)
        if out.idx.dtype ~= "int32" then fail("%s: index dtype %s", what, out.idx.dtype) end
        check(out.v:get(), best, dtype, what .. " value")
        check(out.idx:get(), best_index, "int32", what .. " index")
      end
    end
  end
end

-- argmax/argmin of an argmax/argmin over the rows (loopy's reduction of a tuple-typed reduction): the inner one
-- gives each row's extreme value and its column, the outer one the extreme of those and the column that came
-- with it; sequentially, and with the rows on l.0 (a tree reduction of the pairs). Distinct random values, so
-- that no tie decides.
local function test_nested_arg_extrema(exec, where)
  for _, op in ipairs({ "argmax", "argmin" }) do
    for _, form in ipairs({ op .. "(i, " .. op .. "(j, a[i, j], j))", "reduce(" .. op .. ", i, reduce(" .. op .. ", j, a[i, j], j))" }) do
      local knl = lp.make_kernel("{ [i,j]: 0<=i<16 and 0<=j<m }", "v, col = " .. form,
        { lp.GlobalArg("a", "float64", { shape = "16, m" }), "..." })
      for _, variant in ipairs({ knl, lp.tag_inames(knl, { i = "l.0" }) }) do
        for _, m in ipairs({ 1, 9 }) do
          local a = lp.rand({ 16, m }, "float64", m)
          local better = op == "argmax" and function(x, y) return x > y end or function(x, y) return x < y end
          local best, best_col = nil, -1
          for i = 0, 15 do
            local row, row_col = nil, -1
            for j = 0, m - 1 do
              if row == nil or better(a:get(i, j), row) then row, row_col = a:get(i, j), j end
            end
            if best == nil or better(row, best) then best, best_col = row, row_col end
          end
          local out = run(variant, exec, { a = a })
          local what = string.format("%s %s, m=%d%s", where, form, m, variant == knl and "" or " on l.0")
          check(out.v:get(), best, "float64", what .. " value")
          check(out.col:get(), best_col, "int32", what .. " column")
        end
      end
    end
  end
end

local function test_any_all(exec, where)
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    out_any[0] = any(i, a[i] > t)
    out_all[0] = all(i, a[i] > t)
    ]])
  for _, n in ipairs(SIZES) do
    local a = vector(n, "float32", 9, 0, 1)
    for _, t in ipairs({ -1.0, 0.5, 2.0 }) do
      local want_any, want_all = false, true
      for _, x in ipairs(values(a)) do
        want_any = want_any or x > t
        want_all = want_all and x > t
      end
      local out = run(knl, exec, { a = a, t = t })
      local what = string.format("%s any/all(n=%d, t=%g)", where, n, t)
      if out.out_any:get(0) ~= want_any then fail("%s: any gave %s", what, tostring(out.out_any:get(0))) end
      if out.out_all:get(0) ~= want_all then fail("%s: all gave %s", what, tostring(out.out_all:get(0))) end
    end
  end
end

-- c[i, j] = sum over k of a[i, k] * b[k, j], computed in Lua.
local function matmul_ref(a, b, n, m, p)
  local c = {}
  for i = 0, n - 1 do
    for j = 0, p - 1 do
      local s = 0
      for k = 0, m - 1 do s = s + a:get(i, k) * b:get(k, j) end
      c[i * p + j] = s
    end
  end
  return c
end

local function check_matrix(got, want, rows, cols, dtype, what)
  for i = 0, rows - 1 do
    for j = 0, cols - 1 do check(got:get(i, j), want[i * cols + j], dtype, string.format("%s[%d,%d]", what, i, j)) end
  end
end

local function test_products(exec, where)
  local matvec = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "y[i] = sum(k, a[i,k]*x[k])")
  local matmul = lp.make_kernel("{ [i,j,k]: 0<=i<n and 0<=j<p and 0<=k<m }", "c[i,j] = sum(k, a[i,k]*b[k,j])")
  for _, dtype in ipairs({ "float32", "float64", "int32" }) do
    for _, shape in ipairs({ { 1, 1, 1 }, { 5, 3, 4 }, { 17, 33, 9 } }) do
      local n, m, p = shape[1], shape[2], shape[3]
      local a, x, b
      if dtype ~= "int32" then
        a, x, b = lp.rand({ n, m }, dtype, 1), lp.rand({ m }, dtype, 2), lp.rand({ m, p }, dtype, 3)
      else
        a, x, b = lp.zeros({ n, m }, dtype), lp.zeros({ m }, dtype), lp.zeros({ m, p }, dtype)
        for i = 0, n - 1 do for k = 0, m - 1 do a:set(i, k, (i + 2 * k) % 5 - 2) end end
        for k = 0, m - 1 do x:set(k, k % 3 - 1) end
        for k = 0, m - 1 do for j = 0, p - 1 do b:set(k, j, (3 * k + j) % 7 - 3) end end
      end
      local what = string.format("%s %s %dx%dx%d", where, dtype, n, m, p)
      local y = run(matvec, exec, { a = a, x = x }).y
      check_matrix(y:reshape({ n, 1 }), matmul_ref(a, x:reshape({ m, 1 }), n, m, 1), n, 1, dtype, what .. " matvec")
      local c = run(matmul, exec, { a = a, b = b }).c
      check_matrix(c, matmul_ref(a, b, n, m, p), n, p, dtype, what .. " matmul")
    end
  end
end

-- Reductions over two inames, nested and side by side in one expression, and the reduce() spelling.
local function test_compound(exec, where)
  for _, size in ipairs({ { 0, 0 }, { 1, 1 }, { 6, 0 }, { 9, 13 } }) do
    local n, m = size[1], size[2]
    local a = lp.rand({ n, m }, "float64", 4)
    local what = string.format("%s %dx%d", where, n, m)

    local total = 0
    for i = 0, n - 1 do for j = 0, m - 1 do total = total + a:get(i, j) end end
    for _, text in ipairs({ "s = sum((i, j), a[i, j])", "s = reduce(sum, (i, j), a[i, j])",
                            "s = sum(i, sum(j, a[i, j]))", "s = simul_reduce(sum, (i, j), a[i, j])" }) do
      local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", text)
      check(run(knl, exec, { a = a }).s:get(), total, "float64", what .. " " .. text)
    end

    -- The inner reduction runs anew for every k of the outer one.
    local nested = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [k]: 0<=k<m }", "{ [j]: 0<=j<m }" },
                                  "out[i] = sum(k, a[i, k] * max(j, a[i, j] - k))")
    local out = run(nested, exec, { a = a }).out
    for i = 0, n - 1 do
      local s = 0
      for k = 0, m - 1 do
        local best = -math.huge
        for j = 0, m - 1 do best = math.max(best, a:get(i, j) - k) end
        s = s + a:get(i, k) * best
      end
      check(out:get(i), s, "float64", string.format("%s nested out[%d]", what, i))
    end

    -- Two reductions over the same iname in one instruction: the spread of each row.
    local spread = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<m }" },
                                  "out[i] = max(j, a[i, j]) - min(j, a[i, j])")
    out = run(spread, exec, { a = a }).out
    for i = 0, n - 1 do
      local hi, lo = -math.huge, math.huge
      for j = 0, m - 1 do hi, lo = math.max(hi, a:get(i, j)), math.min(lo, a:get(i, j)) end
      check(out:get(i), hi - lo, "float64", string.format("%s spread out[%d]", what, i))
    end
  end
end

-- An empty reduction domain gives the neutral element for every row when the reduction iname has a domain
-- of its own (in one shared domain the rows would be empty too, as in loopy).
local function test_empty_inner(exec, where)
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [k]: 0<=k<m }" }, [[
    s[i] = sum(k, a[i, k])
    p[i] = product(k, a[i, k])
    ]])
  local a = lp.zeros({ 4, 0 }, "float32")
  local out = run(knl, exec, { a = a })
  for i = 0, 3 do
    check(out.s:get(i), 0, "float32", where .. " empty sum")
    check(out.p:get(i), 1, "float32", where .. " empty product")
  end
end

-- A reduction whose domain is empty for every i: the shapes come from the accesses outside the reduction (a
-- write, and a read beside it), which happen though the reduction runs no iteration.
local function test_empty_constant_reduction(exec, where)
  local knl = lp.make_kernel({ "{ [i]: 0<=i<20 }", "[i] -> { [j]: i < j <= i }" }, "a[i] = b[i] + sum(j, 2*j)")
  local b = lp.arange(20, "int32")
  local out = run(knl, exec, { b = b })
  if out.a.shape[1] ~= 20 then fail("%s: shape of a: got %d, want 20", where, out.a.shape[1]) end
  for i = 0, 19 do check(out.a:get(i), i, "int32", where .. " empty sum beside b[i]") end
end

local function expect_in(text, piece)
  if not string.find(text, piece, 1, true) then fail("listing lacks '%s':\n%s", piece, text) end
end

-- The realized kernel reads like loopy's: accumulator temporaries, init and update instructions.
local function test_listing()
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<m }", "out[i] = sum(k, a[i, k]*x[k])")
  local realized = lp.realize_reduction(knl)
  local text = tostring(realized)
  expect_in(text, "acc_k: type: <auto/runtime>, shape: () aspace: private")
  expect_in(text, "acc_k = 0  {id=insn_k_init}")
  expect_in(text, "acc_k = acc_k + a[i, k]*x[k]  {id=insn_k_update}")
  expect_in(text, "out[i] = acc_k  {id=insn}")
  local deps = realized:stringify{ with_dependencies = true }
  expect_in(deps, "insn_k_update : insn_k_init")
  expect_in(deps, "insn : insn_k_update")
  if tostring(lp.realize_reduction(realized)) ~= text then fail("realizing twice changed the kernel") end
  if not string.find(tostring(knl), "sum(k, a[i, k]*x[k])", 1, true) then fail("the input kernel changed") end

  local typed = lp.realize_reduction(lp.add_dtypes(knl, { a = "float32", x = "float32" }))
  expect_in(tostring(typed), "acc_k: type: np:dtype('float32')")
  local code = lp.generate_code(typed)
  expect_in(code, "acc_k = 0.0f;")
  expect_in(code, "acc_k = acc_k + a[m * i + k] * x[k];")

  -- Nested reductions are named after the instruction that holds them, as loopy names them.
  local nested = lp.realize_reduction(lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "out[i] = sum(k, sum(j, a[k, j]))"))
  expect_in(tostring(nested), "{id=insn_j_init}")
  expect_in(tostring(nested), "{id=insn_j_update}")
end

local function test_errors()
  local ok, err = pcall(lp.realize_reduction, lp.make_kernel("{ [i]: 0<=i<n }", "s = max(i, a[i])"))
  if ok or err.kind ~= "TypeInferenceError" or not string.find(err.message, "neutral element", 1, true) then
    fail("untyped max: expected a TypeInferenceError, got %s", tostring(err))
  end
  ok, err = pcall(lp.realize_reduction, lp.make_kernel("{ [i]: 0<=i<n }", "s = 2*argmax(i, a[i], i)"))
  if ok or err.kind ~= "LoopyError" or not string.find(err.message, "whole right-hand side", 1, true) then
    fail("argmax inside an expression: expected a LoopyError, got %s", tostring(err))
  end
  -- A two-valued reduction is no operand of a one-valued one (loopy: a tuple typed argument to a scalar reduction).
  for _, src in ipairs({ "s = sum(i, argmax(j, a[i, j], j))", "s = reduce(max, i, argmin(j, a[i, j], j))" }) do
    ok, err = pcall(lp.make_kernel, "{ [i,j]: 0<=i,j<n }", src)
    if ok or err.kind ~= "ParseError" or not string.find(err.message, "reduces one value, but '", 1, true) then
      fail("%s: expected a ParseError, got %s", src, tostring(err))
    end
  end
end

test_listing()
test_errors()
for _, e in ipairs(EXECUTORS) do
  test_scalar_ops(e.exec, e.name)
  test_arg_extrema(e.exec, e.name)
  test_nested_arg_extrema(e.exec, e.name)
  test_any_all(e.exec, e.name)
  test_products(e.exec, e.name)
  test_compound(e.exec, e.name)
  test_empty_inner(e.exec, e.name)
  test_empty_constant_reduction(e.exec, e.name)
end
print("reductions: ok")
