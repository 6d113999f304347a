-- Callable kernels (lp.make_function, lp.merge, lp.register_callable, lp.inline_callable_kernel): each program
-- runs on every executor and is compared with a plain Lua loop.
local lp = require("loom")
local h = require("helpers")

local N = 6

-- y[i, :] = A @ x[i, :] for every row i: a callee over sub-arrays inside a loop of the caller.
local matvec = lp.make_function("{[i, j]: 0<=i, j<n}", [[
  y[i] = sum(j, A[i, j]*x[j])
]], { lp.ValueArg("n"), "..." }, { name = "matvec" })
local matmat = lp.merge {
  lp.make_kernel("{[i]: 0<=i<m}", [[
    y[i, :] = matvec(m, A[:, :], x[i, :])
  ]], { lp.GlobalArg("x, y", "float64", { shape = "m, m" }), lp.GlobalArg("A", "float64", { shape = "m, m" }),
        lp.ValueArg("m", "int32") }),
  matvec,
}
local A, x = h.random_ints({ N, N }, "float64", 3, -4, 4), h.random_ints({ N, N }, "float64", 5, -4, 4)
local function matmat_ref(i, r)
  local s = 0
  for j = 0, N - 1 do s = s + A:get(r, j) * x:get(i, j) end
  return s
end

-- Sub-arrays written with an explicit sweep, a callee with two results, and a callee calling another.
local linear_combo = lp.make_function("{[i, j]: 0<=i, j<4}", [[
  c[i, j] = 2*a[i, j] + 3*b[i, j]
]], { name = "linear_combo" })
local twice_both = lp.make_function("{[k, l]: 0<=k, l<4}", [[
  [k, l]: z[k, l] = linear_combo([k, l]: p[k, l], [k, l]: q[k, l]) {id=combo}
  w[k] = z[k, 0] + z[k, 3]  {dep=combo}
]], { lp.GlobalArg("p, q", "float64", { shape = "4, 4" }), lp.GlobalArg("z, w", "float64", { is_output = true, is_input = false }),
      "..." }, { name = "twice_both" })
local nested = lp.merge {
  lp.make_kernel("{[r, k, l]: 0<=r<3 and 0<=k, l<4}", [[
    [k, l]: Z[r, k, l], [k]: W[r, k] = twice_both([k, l]: P[r, k, l], [k, l]: Q[r, l, k])
  ]], { lp.GlobalArg("P, Q, Z", "float64", { shape = "3, 4, 4" }), lp.GlobalArg("W", "float64", { shape = "3, 4" }) }),
  twice_both, linear_combo,
}
local P, Q = h.random_ints({ 3, 4, 4 }, "float64", 7, -3, 3), h.random_ints({ 3, 4, 4 }, "float64", 11, -3, 3)
local function Z_ref(r, k, l) return 2 * P:get(r, k, l) + 3 * Q:get(r, l, k) end

-- A strided slice and a sweep that does not start at 0: each axis of the sub-array starts at its first element.
local fill = lp.make_function("{[i]: 0<=i<n}", "out[i] = 10*i + 1", { lp.ValueArg("n"), "..." }, { name = "fill" })
local strided = lp.register_callable(lp.make_kernel("{[i, t]: -3<=i<2 and 0<=t<12}", [[
  X[t] = 0 {id=zero}
  X[1:12:3] = fill(4) {id=f1, dep=zero}
  [i]: Y[i + 3] = fill(5)
]], { lp.GlobalArg("X", "int32", { shape = 12 }), lp.GlobalArg("Y", "int32", { shape = 5 }) }), "fill", fill)

h.on_each_executor(function(exec, name)
  local y = matmat(exec, { A = A, x = x })
  h.check_array(y, matmat_ref, name .. " matmat", { atol = 1e-12 })
  local inlined = lp.inline_callable_kernel(matmat, "matvec")
  h.check_array(inlined(exec, { A = A, x = x }), matmat_ref, name .. " matmat inlined", { atol = 1e-12 })

  local Z, W = nested(exec, { P = P, Q = Q })
  h.check_array(Z, Z_ref, name .. " nested Z")
  h.check_array(W, function(r, k) return Z_ref(r, k, 0) + Z_ref(r, k, 3) end, name .. " nested W")

  local mixed = lp.merge { lp.make_kernel("{[i, k]: 0<=i<4 and 0<=k<6}", [[
    [i]: T[i, :] = linear_combo([i]: P[0, i, :], Q[1, :, :])
  ]], { lp.GlobalArg("P, Q", "float64", { shape = "3, 4, 4" }), lp.GlobalArg("T", "float64", { shape = "4, 4" }) }),
    linear_combo }
  h.check_array(mixed(exec, { P = P, Q = Q }), function(i, j) return 2 * P:get(0, i, j) + 3 * Q:get(1, i, j) end,
    name .. " mixed sweep and slice")

  local X, Y = strided(exec, {})
  h.check_array(X, function(t) return (t % 3 == 1) and 10 * ((t - 1) // 3) + 1 or 0 end, name .. " strided X")
  h.check_array(Y, function(i) return 10 * i + 1 end, name .. " shifted Y")
end)

-- Statistics count the callee's operations once per call.
local op_map = lp.get_op_map(matmat, { subgroup_size = 32, count_redundant_work = true })
h.check_equal(op_map:filter_by { name = { "mul" } }:eval_and_sum { m = N }, N * N * N, "matmat muls")

print("callable_kernels: ok")
