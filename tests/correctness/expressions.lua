-- Every operator, literal form and type promotion of the expression language on both executors, against
-- plain-Lua references: Lua 5.4's // and % have Python's semantics, its integers are 64-bit, math.* is the
-- double-precision library. Output dtypes are checked too (numpy's promotion as loopy applies it).
local lp = require("loom")
local h = require("helpers")

-- x rounded to the nearest float32.
local function f32(x) return (string.unpack("f", string.pack("f", x))) end

-- One kernel per group of instructions, returning a table of outputs by name.
local function kernel(insns, args)
  return lp.set_options(lp.make_kernel("{ [i]: 0<=i<n }", insns, args), { return_dict = true })
end

local TOL = { float32 = { rtol = 1e-6, atol = 1e-6 }, float64 = { rtol = 1e-14, atol = 1e-14 } }

-- Checks each output `name` against ref(i) with the dtype `dtype` (cases: {name, dtype, ref[, tol]}).
local function check_outputs(result, cases, what)
  for _, c in ipairs(cases) do
    local opts = { dtype = c[2] }
    local tol = c[4] or TOL[c[2]]
    if tol then opts.rtol, opts.atol = tol.rtol, tol.atol end
    h.check_array(result[c[1]], c[3], what .. " " .. c[1], opts)
  end
end

-- Floor division and modulo of every sign combination, with array, literal and iname operands.
do
  local NUM = { -9, -8, -7, -3, -1, 0, 1, 3, 7, 8, 9, -12 }
  local DEN = { 1, 2, 3, 4, -1, -2, -3, -4, 5, -5, 7, -7 }
  local knl = kernel({
    "q[i] = a[i] // b[i]", "r[i] = a[i] % b[i]",
    "q3[i] = a[i] // 3", "r3[i] = a[i] % 3", "qm3[i] = a[i] // -3", "rm3[i] = a[i] % -3",
    "qi[i] = (i - 5) // b[i]", "ri[i] = (i - 5) % 4", "qp[i] = i // 4", "rp[i] = i % 4",
  })
  for _, dtype in ipairs({ "int8", "int32", "int64" }) do
    local a = lp.array(NUM, dtype)
    local b = lp.array(DEN, dtype)
    local wide = dtype == "int64" and "int64" or "int32" -- an int32 iname with b
    h.on_each_executor(function(exec, name)
      local r = knl(exec, { a = a, b = b })
      local A = function(i) return a:get(i) end
      local B = function(i) return b:get(i) end
      check_outputs(r, {
        { "q", dtype, function(i) return A(i) // B(i) end }, { "r", dtype, function(i) return A(i) % B(i) end },
        { "q3", dtype, function(i) return A(i) // 3 end }, { "r3", dtype, function(i) return A(i) % 3 end },
        { "qm3", dtype, function(i) return A(i) // -3 end }, { "rm3", dtype, function(i) return A(i) % -3 end },
        { "qi", wide, function(i) return (i - 5) // B(i) end }, { "ri", "int32", function(i) return (i - 5) % 4 end },
        { "qp", "int32", function(i) return i // 4 end }, { "rp", "int32", function(i) return i % 4 end },
      }, name .. " " .. dtype)
    end)
  end
  -- isl proves i >= 0, so those print as C's operators; (i - 5) may be negative and needs the helper.
  local code = lp.generate_code(lp.add_dtypes(knl, { a = "int32", b = "int32" }))
  h.check(code:find("qp[i] = i / 4;", 1, true) and code:find("rp[i] = i % 4;", 1, true), "plain C / and %%:\n%s", code)
  h.check(code:find("loopy_mod_pos_b_int32(-5 + i, 4)", 1, true), "helper for (i - 5) %% 4:\n%s", code)
  -- Under an assumption that makes the numerator non-negative, too.
  local shifted = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = (i + m) // 4", nil, { assumptions = "m >= 0" })
  local scode = lp.generate_code(lp.add_dtypes(shifted, { out = "int32" }))
  h.check(scode:find("(i + m) / 4", 1, true) or scode:find("(m + i) / 4", 1, true), "assumed m >= 0:\n%s", scode)
  -- Unsigned operands are non-negative by type.
  local u = lp.make_kernel("{ [i]: 0<=i<n }", { "q[i] = a[i] // b[i]", "r[i] = a[i] % b[i]" })
  local ua = lp.array({ 7, 4000000000, 9, 0 }, "uint32")
  local ub = lp.array({ 2, 3, 10, 5 }, "uint32")
  h.on_each_executor(function(exec, name)
    local q, r = u(exec, { a = ua, b = ub })
    h.check_array(q, function(i) return ua:get(i) // ub:get(i) end, name .. " uint32 //", { dtype = "uint32" })
    h.check_array(r, function(i) return ua:get(i) % ub:get(i) end, name .. " uint32 %", { dtype = "uint32" })
  end)
end

-- Float arithmetic, comparisons, logic, if() and literal forms, in float32 and float64.
do
  local knl = kernel({
    "add[i] = x[i] + y[i]", "sub[i] = x[i] - y[i]", "mul[i] = x[i] * y[i]", "div[i] = x[i] / y[i]",
    "neg[i] = -x[i]", "lits[i] = 2*x[i] - 1 + 0.5*y[i]",
    "fdiv[i] = x[i] // y[i]", "fmod_[i] = x[i] % y[i]", "fdiv2[i] = x[i] // 0.25",
    "lt[i] = x[i] < y[i]", "le[i] = x[i] <= y[i]", "gt[i] = x[i] > y[i]", "ge[i] = x[i] >= 0",
    "eq[i] = x[i] == y[i]", "ne[i] = x[i] != y[i]",
    "land[i] = x[i] > 0 and y[i] > 0", "lor[i] = x[i] > 0 or y[i] > 0", "lnot[i] = not (x[i] > 0)",
    "sel[i] = if(x[i] > y[i], x[i], 2*y[i])", "sel2[i] = if(x[i] > 0, 1, -1)",
    "pw[i] = abs(x[i]) ** y[i]", "pw2[i] = x[i] ** 2", "pw3[i] = x[i] ** 3", "pwm[i] = x[i] ** -2",
  })
  local xs = { -2.5, -1, -0.75, 0, 0.5, 1, 1.25, 3, -3, 2, 0.125, -0.5 }
  local ys = { 2, -1, 0.5, 1, 0.5, -2, 1.25, -0.75, 4, 2, -0.25, 0.5 }
  for _, dtype in ipairs({ "float32", "float64" }) do
    local x = lp.array(xs, dtype)
    local y = lp.array(ys, dtype)
    h.on_each_executor(function(exec, name)
      local r = knl(exec, { x = x, y = y })
      local X = function(i) return x:get(i) end
      local Y = function(i) return y:get(i) end
      check_outputs(r, {
        { "add", dtype, function(i) return X(i) + Y(i) end }, { "sub", dtype, function(i) return X(i) - Y(i) end },
        { "mul", dtype, function(i) return X(i) * Y(i) end }, { "div", dtype, function(i) return X(i) / Y(i) end },
        { "neg", dtype, function(i) return -X(i) end },
        { "lits", dtype, function(i) return 2 * X(i) - 1 + 0.5 * Y(i) end },
        { "fdiv", dtype, function(i) return X(i) // Y(i) end }, { "fmod_", dtype, function(i) return X(i) % Y(i) end },
        { "fdiv2", dtype, function(i) return X(i) // 0.25 end },
        { "lt", "bool", function(i) return X(i) < Y(i) end }, { "le", "bool", function(i) return X(i) <= Y(i) end },
        { "gt", "bool", function(i) return X(i) > Y(i) end }, { "ge", "bool", function(i) return X(i) >= 0 end },
        { "eq", "bool", function(i) return X(i) == Y(i) end }, { "ne", "bool", function(i) return X(i) ~= Y(i) end },
        { "land", "bool", function(i) return X(i) > 0 and Y(i) > 0 end },
        { "lor", "bool", function(i) return X(i) > 0 or Y(i) > 0 end },
        { "lnot", "bool", function(i) return not (X(i) > 0) end },
        { "sel", dtype, function(i) return X(i) > Y(i) and X(i) or 2 * Y(i) end },
        { "sel2", "int32", function(i) return X(i) > 0 and 1 or -1 end },
        { "pw", dtype, function(i) return math.abs(X(i)) ^ Y(i) end },
        { "pw2", dtype, function(i) return X(i) ^ 2 end }, { "pw3", dtype, function(i) return X(i) ^ 3 end },
        { "pwm", dtype, function(i) return X(i) ~= 0 and X(i) ^ -2 or nil end },
      }, name .. " " .. dtype)
    end)
  end
end

-- Integer arithmetic, bit operations, shifts, integer powers and casts.
do
  local knl = kernel({
    "add[i] = a[i] + b[i]", "sub[i] = a[i] - 3*b[i]", "mul[i] = a[i] * b[i]", "neg[i] = -a[i]",
    "tdiv[i] = a[i] / b[i]", "band[i] = a[i] & b[i]", "bor[i] = a[i] | b[i]", "bxor[i] = a[i] ^ b[i]",
    "bnot[i] = ~a[i]", "shl[i] = b[i] << 3", "shr[i] = (a[i] & 1023) >> 2",
    "p0[i] = a[i] ** 0", "p1[i] = a[i] ** 1", "p2[i] = a[i] ** 2", "p3[i] = a[i] ** 3", "pb[i] = b[i] ** 5",
    "c32[i] = cast(int32, x[i])", "cf[i] = cast(float32, a[i]) / 4",
    "cmp[i] = a[i] < b[i]", "m[i] = if(a[i] > b[i], a[i] - b[i], b[i] - a[i])",
  })
  local as = { -9, -4, -1, 0, 1, 2, 5, 7, 100, -100, 33, -33 }
  local bs = { 2, 3, 1, -2, 5, 4, -3, 6, 1, 2, -1, 3 }
  local xs = { -2.75, -2.5, -0.5, 0, 0.5, 2.5, 2.75, 7.99, -7.99, 100.5, 1, -1 }
  for _, dtype in ipairs({ "int32", "int64" }) do
    local a, b = lp.array(as, dtype), lp.array(bs, dtype)
    local x = lp.array(xs, "float64")
    h.on_each_executor(function(exec, name)
      local r = knl(exec, { a = a, b = b, x = x })
      local A = function(i) return a:get(i) end
      local B = function(i) return b:get(i) end
      local trunc = function(v) return v < 0 and math.ceil(v) or math.floor(v) end
      check_outputs(r, {
        { "add", dtype, function(i) return A(i) + B(i) end }, { "sub", dtype, function(i) return A(i) - 3 * B(i) end },
        { "mul", dtype, function(i) return A(i) * B(i) end }, { "neg", dtype, function(i) return -A(i) end },
        { "tdiv", "float64", function(i) return A(i) / B(i) end },
        { "band", dtype, function(i) return A(i) & B(i) end }, { "bor", dtype, function(i) return A(i) | B(i) end },
        { "bxor", dtype, function(i) return A(i) ~ B(i) end }, { "bnot", dtype, function(i) return ~A(i) end },
        { "shl", dtype, function(i) return B(i) << 3 end }, { "shr", dtype, function(i) return (A(i) & 1023) >> 2 end },
        { "p0", dtype, function() return 1 end }, { "p1", dtype, function(i) return A(i) end },
        { "p2", dtype, function(i) return A(i) * A(i) end }, { "p3", dtype, function(i) return A(i) * A(i) * A(i) end },
        { "pb", dtype, function(i) return B(i) * B(i) * B(i) * B(i) * B(i) end },
        { "c32", "int32", function(i) return trunc(x:get(i)) end },
        { "cf", "float32", function(i) return A(i) / 4 end },
        { "cmp", "bool", function(i) return A(i) < B(i) end },
        { "m", dtype, function(i) return math.abs(A(i) - B(i)) end },
      }, name .. " " .. dtype)
    end)
  end
end

-- Literal typing and suffixes: float literals are float32 when exact, `d` forces float64, `f` float32.
do
  local knl = kernel({
    "exact[i] = x[i] * 2.5", "inexact[i] = x[i] * 0.1", "dsuf[i] = x[i] * 2.5d", "fsuf[i] = d[i] + 1.5f",
    "iname_half[i] = i + 0.5", "int_only[i] = 2 + 3 * i", "big[i] = i + 3000000000",
  })
  local x = lp.array({ 1, 2, 3, 4 }, "float32")
  local d = lp.array({ 1, 2, 3, 4 }, "float64")
  h.on_each_executor(function(exec, name)
    local r = knl(exec, { x = x, d = d })
    check_outputs(r, {
      { "exact", "float32", function(i) return 2.5 * (i + 1) end },
      { "inexact", "float64", function(i) return (i + 1) * 0.1 end },
      { "dsuf", "float64", function(i) return 2.5 * (i + 1) end },
      { "fsuf", "float64", function(i) return i + 1 + 1.5 end },
      { "iname_half", "float32", function(i) return i + 0.5 end },
      { "int_only", "int32", function(i) return 2 + 3 * i end },
      { "big", "int64", function(i) return i + 3000000000 end },
    }, name .. " literals")
  end)
end

-- Mixed-type promotion: the output dtype and its values.
do
  local knl = kernel({
    "i32_f32[i] = a32[i] + x32[i]", "i16_f32[i] = a16[i] * x32[i]", "i64_f32[i] = a64[i] + x32[i]",
    "f32_f64[i] = x32[i] + x64[i]", "u32_i32[i] = u32[i] + a32[i]", "i8_i8[i] = a8[i] + a8[i]",
    "i8_lit[i] = a8[i] * 2", "int_div[i] = a32[i] / 4", "u32_lt[i] = a32[i] < u32[i]",
    "f32_lit_int[i] = x32[i] * 3 + 1",
  })
  local a32 = lp.array({ -5, -1, 0, 7 }, "int32")
  local a16 = lp.array({ -300, 2, 3, 30000 }, "int16")
  local a8 = lp.array({ -60, 1, 100, -100 }, "int8")
  local a64 = lp.array({ 16777217, -3, 5, 2 ^ 40 }, "int64")
  local u32 = lp.array({ 3, 4000000000, 1, 2 }, "uint32")
  local x32 = lp.array({ 0.5, -1.25, 3, 0.1 }, "float32")
  local x64 = lp.array({ 0.1, 0.2, -0.3, 1e10 }, "float64")
  h.on_each_executor(function(exec, name)
    local r = knl(exec, { a32 = a32, a16 = a16, a8 = a8, a64 = a64, u32 = u32, x32 = x32, x64 = x64 })
    check_outputs(r, {
      { "i32_f32", "float32", function(i) return f32(a32:get(i) + x32:get(i)) end },
      { "i16_f32", "float32", function(i) return f32(a16:get(i) * x32:get(i)) end },
      -- int64 with float32 is float64 in numpy: 16777217 survives (it would not in float32).
      { "i64_f32", "float64", function(i) return a64:get(i) + x32:get(i) end },
      { "f32_f64", "float64", function(i) return x32:get(i) + x64:get(i) end },
      -- uint32 with int32 is int64: -5 + 3 is -2, not 4294967294.
      { "u32_i32", "int64", function(i) return u32:get(i) + a32:get(i) end },
      { "i8_i8", "int8", function(i) return ((a8:get(i) * 2 + 128) % 256) - 128 end },
      { "i8_lit", "int32", function(i) return a8:get(i) * 2 end },
      { "int_div", "float64", function(i) return a32:get(i) / 4 end },
      { "u32_lt", "bool", function(i) return a32:get(i) < u32:get(i) end },
      { "f32_lit_int", "float32", function(i) return f32(f32(x32:get(i) * 3) + 1) end },
    }, name .. " promotion")
  end)
end

-- Math functions: integer arguments compute in float64, float32 stays float32, min/max of each kind.
do
  local knl = kernel({
    "s[i] = sin(a[i])", "e[i] = exp(x[i])", "l[i] = log(x[i] + 1)", "q[i] = sqrt(x[i])", "p[i] = pow(x[i], 1.5)",
    "at[i] = atan2(x[i], a[i])", "ab[i] = abs(a[i])", "fa[i] = fabs(-x[i])", "fl[i] = floor(x[i] - 0.5)",
    "ce[i] = ceil(x[i] - 0.5)", "mn[i] = min(a[i], 2)", "mx[i] = max(x[i], 1)", "fmn[i] = fmin(x[i], a[i])",
    "fmx[i] = fmax(a[i], x[i])", "er[i] = erf(x[i] / 2)", "th[i] = tanh(x[i])",
  })
  local a = lp.array({ -3, -1, 0, 2, 5, 7 }, "int32")
  for _, dtype in ipairs({ "float32", "float64" }) do
    local x = lp.array({ 0.25, 0.5, 1, 1.5, 2.25, 3 }, dtype)
    local tol = dtype == "float32" and { rtol = 2e-6, atol = 1e-6 } or { rtol = 1e-14, atol = 1e-15 }
    local erf = function(v) -- its Maclaurin series, accurate for |v| <= 1.5
      local sum, term, k = 0, v, 0
      repeat
        sum = sum + term / (2 * k + 1)
        k = k + 1
        term = -term * v * v / k
      until math.abs(term) < 1e-17
      return 2 / math.sqrt(math.pi) * sum
    end
    local tanh = function(v) return (math.exp(2 * v) - 1) / (math.exp(2 * v) + 1) end
    h.on_each_executor(function(exec, name)
      local r = knl(exec, { a = a, x = x })
      local A = function(i) return a:get(i) end
      local X = function(i) return x:get(i) end
      check_outputs(r, {
        { "s", "float64", function(i) return math.sin(A(i)) end, TOL.float64 },
        { "e", dtype, function(i) return math.exp(X(i)) end, tol },
        { "l", dtype, function(i) return math.log(X(i) + 1) end, tol },
        { "q", dtype, function(i) return math.sqrt(X(i)) end, tol },
        { "p", dtype, function(i) return X(i) ^ 1.5 end, tol },
        { "at", dtype == "float32" and "float32" or "float64", function(i) return math.atan(X(i), A(i)) end, tol },
        { "ab", "int32", function(i) return math.abs(A(i)) end },
        { "fa", dtype, function(i) return X(i) end },
        { "fl", dtype, function(i) return math.floor(X(i) - 0.5) end },
        { "ce", dtype, function(i) return math.ceil(X(i) - 0.5) end },
        { "mn", "int32", function(i) return math.min(A(i), 2) end },
        { "mx", dtype, function(i) return math.max(X(i), 1) end },
        { "fmn", dtype, function(i) return math.min(X(i), A(i)) end },
        { "fmx", dtype, function(i) return math.max(X(i), A(i)) end },
        { "er", dtype, function(i) return erf(X(i) / 2) end, tol },
        { "th", dtype, function(i) return tanh(X(i)) end, tol },
      }, name .. " math " .. dtype)
    end)
  end
end

-- Complex numbers against a Lua complex implementation ({re, im} pairs, as the arrays read them).
local C = {}
function C.add(a, b) return { a[1] + b[1], a[2] + b[2] } end
function C.sub(a, b) return { a[1] - b[1], a[2] - b[2] } end
function C.mul(a, b) return { a[1] * b[1] - a[2] * b[2], a[1] * b[2] + a[2] * b[1] } end
function C.div(a, b)
  local d = b[1] * b[1] + b[2] * b[2]
  return { (a[1] * b[1] + a[2] * b[2]) / d, (a[2] * b[1] - a[1] * b[2]) / d }
end
function C.abs(a) return math.sqrt(a[1] * a[1] + a[2] * a[2]) end
function C.exp(a) local e = math.exp(a[1]) return { e * math.cos(a[2]), e * math.sin(a[2]) } end
function C.log(a) return { math.log(C.abs(a)), math.atan(a[2], a[1]) } end
function C.sqrt(a)
  local m = C.abs(a)
  local re = math.sqrt((m + a[1]) / 2)
  local im = math.sqrt((m - a[1]) / 2)
  return { re, a[2] < 0 and -im or im }
end
function C.conj(a) return { a[1], -a[2] } end
function C.real(x) return { x, 0 } end

local function check_complex(got, ref, what, dtype, rtol)
  h.check_equal(got.dtype, dtype, what .. " dtype")
  for i = 0, #got - 1 do
    local g, w = got:get(i), ref(i)
    local scale = math.max(1, C.abs(w))
    h.check(math.abs(g[1] - w[1]) <= rtol * scale and math.abs(g[2] - w[2]) <= rtol * scale,
      "%s[%d]: got (%s, %s), want (%s, %s)", what, i, h.show(g[1]), h.show(g[2]), h.show(w[1]), h.show(w[2]))
  end
end

do
  local knl = kernel({
    "add[i] = z[i] + w[i]", "sub[i] = z[i] - w[i]", "mul[i] = z[i] * w[i]", "div[i] = z[i] / w[i]",
    "addr[i] = z[i] + x[i]", "rsub[i] = x[i] - z[i]", "mulr[i] = 2 * z[i]", "rdiv[i] = x[i] / w[i]",
    "divr[i] = z[i] / x[i]", "lit[i] = z[i] * 2j + 1.5jf", "neg[i] = -z[i]",
    "ex[i] = exp(z[i])", "lg[i] = log(w[i])", "sq[i] = sqrt(z[i])", "cj[i] = conj(z[i])",
    "fromreal[i] = x[i] + 0j", "sel[i] = if(x[i] > 0, z[i], w[i])",
    "ab[i] = abs(z[i])", "re[i] = real(z[i])", "im[i] = imag(w[i])", "eq[i] = z[i] == w[i]",
    "sq2[i] = z[i] ** 2", "zp0[i] = z[i] ** 0", "zpw[i] = w[i] ** z[i]", "zpr[i] = w[i] ** 0.5",
  })
  local zs = { { 1, 2 }, { -0.5, 0.25 }, { 3, -4 }, { 0, 1 }, { -2, -2 }, { 0.75, 0 } }
  local ws = { { 2, -1 }, { 0.5, 0.5 }, { 3, -4 }, { -1, 0.25 }, { 0, -3 }, { 1.5, 2 } }
  local xs = { 0.5, -2, 1, 3, -0.25, 4 }
  for _, spec in ipairs({ { "complex64", "float32", 2e-6 }, { "complex128", "float64", 1e-14 } }) do
    local ctype, rtype, rtol = spec[1], spec[2], spec[3]
    local z = h.array_from({ #zs }, ctype, function(i) return zs[i + 1] end)
    local w = h.array_from({ #ws }, ctype, function(i) return ws[i + 1] end)
    local x = lp.array(xs, rtype)
    h.on_each_executor(function(exec, name)
      local r = knl(exec, { z = z, w = w, x = x })
      local Z = function(i) return z:get(i) end
      local W = function(i) return w:get(i) end
      local X = function(i) return x:get(i) end
      local what = name .. " " .. ctype .. " "
      local cases = {
        add = function(i) return C.add(Z(i), W(i)) end, sub = function(i) return C.sub(Z(i), W(i)) end,
        mul = function(i) return C.mul(Z(i), W(i)) end, div = function(i) return C.div(Z(i), W(i)) end,
        addr = function(i) return C.add(Z(i), C.real(X(i))) end,
        rsub = function(i) return C.sub(C.real(X(i)), Z(i)) end,
        mulr = function(i) return C.mul({ 2, 0 }, Z(i)) end,
        rdiv = function(i) return C.div(C.real(X(i)), W(i)) end,
        divr = function(i) return C.div(Z(i), C.real(X(i))) end,
        lit = function(i) return C.add(C.mul(Z(i), { 0, 2 }), { 0, 1.5 }) end,
        neg = function(i) return { -Z(i)[1], -Z(i)[2] } end,
        ex = function(i) return C.exp(Z(i)) end, lg = function(i) return C.log(W(i)) end,
        sq = function(i) return C.sqrt(Z(i)) end, cj = function(i) return C.conj(Z(i)) end,
        fromreal = function(i) return C.real(X(i)) end,
        sel = function(i) return X(i) > 0 and Z(i) or W(i) end,
      }
      for out, ref in pairs(cases) do check_complex(r[out], ref, what .. out, ctype, rtol) end
      -- z ** 2 is typed as z with an int32 (complex128); the powers compare to exp(b log a).
      check_complex(r.sq2, function(i) return C.mul(Z(i), Z(i)) end, what .. "**2", "complex128", rtol)
      check_complex(r.zp0, function() return { 1, 0 } end, what .. "**0", "complex128", 0)
      check_complex(r.zpw, function(i) return C.exp(C.mul(Z(i), C.log(W(i)))) end, what .. "**", ctype, 10 * rtol)
      check_complex(r.zpr, function(i) return C.sqrt(W(i)) end, what .. "**0.5", ctype, 10 * rtol)
      h.check_array(r.ab, function(i) return C.abs(Z(i)) end, what .. "abs", { dtype = rtype, rtol = rtol })
      h.check_array(r.re, function(i) return Z(i)[1] end, what .. "real", { dtype = rtype })
      h.check_array(r.im, function(i) return W(i)[2] end, what .. "imag", { dtype = rtype })
      h.check_array(r.eq, function(i) return Z(i)[1] == W(i)[1] and Z(i)[2] == W(i)[2] end, what .. "==",
        { dtype = "bool" })
    end)
  end
end

-- Complex promotion: complex64 with float64 or int32 is complex128; `2j` is complex64, so with float32 it stays.
do
  local knl = kernel({ "zd[i] = z[i] * d[i]", "zk[i] = z[i] + k[i]", "lit[i] = 2j * f[i]", "liti[i] = 2j * i" })
  local z = h.array_from({ 3 }, "complex64", function(i) return { i + 0.5, -i } end)
  local d = lp.array({ 0.1, 0.2, 0.3 }, "float64")
  local k = lp.array({ 16777217, -1, 2 }, "int32")
  local f = lp.array({ 0.5, -1, 2 }, "float32")
  h.on_each_executor(function(exec, name)
    local r = knl(exec, { z = z, d = d, k = k, f = f })
    check_complex(r.zd, function(i) return C.mul(z:get(i), C.real(d:get(i))) end, name .. " c64*f64", "complex128", 1e-15)
    check_complex(r.zk, function(i) return C.add(z:get(i), C.real(k:get(i))) end, name .. " c64+i32", "complex128", 1e-15)
    check_complex(r.lit, function(i) return { 0, 2 * f:get(i) } end, name .. " 2j*f32", "complex64", 0)
    check_complex(r.liti, function(i) return { 0, 2 * i } end, name .. " 2j*i", "complex128", 0)
  end)
end

-- Complex value arguments: a {re, im} table or a real number, passed as the C type on both executors.
for _, dtype in ipairs({ "complex64", "complex128" }) do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "z[i] = a*x[i] + b",
    { lp.ValueArg("a", dtype), lp.ValueArg("b", dtype), lp.GlobalArg("x, z", dtype, { shape = "n" }), "..." })
  local x = h.array_from({ 4 }, dtype, function(i) return { i, 1 - i } end)
  local tol = dtype == "complex64" and 1e-6 or 1e-14
  h.on_each_executor(function(exec, name)
    local z = knl(exec, { x = x, a = { 0.5, -2 }, b = 3 })
    check_complex(z, function(i) return C.add(C.mul({ 0.5, -2 }, x:get(i)), { 3, 0 }) end,
      name .. " " .. dtype .. " value arguments", dtype, tol)
  end)
end
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "z[i] = a*x[i]", { lp.ValueArg("a", "float32"), "..." })
  h.expect_error("ArgumentError", { "argument 'a' is a float32 value", "{re, im}" }, knl,
    { x = lp.zeros({ 2 }, "float32"), a = { 1, 2 } })
end

print("expressions: ok")

-- A float minus an integer remainder: the negated remainder keeps its parentheses (-1.0 * (i % 3)); without
-- them, (-1.0 * i) % 3 is a double % int that neither compiler takes (found by tools/differential.lua).
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] - i % 3", { lp.GlobalArg("a", "float64", { shape = "n" }), "..." })
  local a = lp.rand({ 10 }, "float64", 5)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i) return a:get(i) - i % 3 end, name .. " a[i] - i % 3", { dtype = "float64" })
  end)
end

-- Temporaries written from each other are typed from all their writes once every one has a type (loopy's
-- fixpoint): s starts int32 from s = 0, ends float32 from s = s + t*0.5; t = s + t then is float32 too. The
-- values are those of float32.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    <> s = 0 {id=s0}
    <> t = 1 {id=t0}
    s = s + t*0.5 {id=s1, dep=s0:t0}
    t = s + t {id=t1, dep=s1}
    <> u = s + 2j {id=u0, dep=s1}
    out[i] = t + i {dep=t1}
    zout[i] = u {dep=u0}
    ]])
  local pre = lp.preprocess_kernel(knl)
  local types = {}
  for _, t in ipairs(pre.temporaries) do types[t.name] = t.dtype end
  h.check_equal(types.s, "float32", "type of s")
  h.check_equal(types.t, "float32", "type of t")
  h.check_equal(types.u, "complex64", "type of u (from s's final type, not its first int32)")
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { n = 3 })
    h.check_array(out, function(i) return 1.5 + i end, name .. " t + i", { dtype = "float32" })
  end)
end
