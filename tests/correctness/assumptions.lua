-- Assumptions on the parameters on both executors: the tutorial's "static maximum" kernel made valid by
-- n >= 1, a second parameter bounded by the first, and lp.assume on an existing kernel.
local lp = require("loom")
local h = require("helpers")

-- The tutorial's fix: with n >= 1, out has shape (n). The two writes of out[0] must be ordered to run it.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    out[i] = 5  {id=fill}
    out[0] = 6  {dep=fill}
    ]], { lp.GlobalArg("out", "int32", { shape = lp.auto }), "..." }, { assumptions = "n>=1" })
  h.check_equal(knl.args[1].name .. ": " .. knl.args[1].shape[1], "out: n", "shape of out under n >= 1")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { n = 6 }), function(i) return i > 0 and 5 or 6 end, name .. " out")
  end)
end

-- i < m is redundant once m >= n is assumed: a has shape (n) and m is passed.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n and i<m }", "out[i] = a[i] * 2", nil, { assumptions = "m >= n" })
  local a = lp.arange(6, "float64")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a, m = 100 }), function(i) return 2 * i end, name .. " m >= n")
  end)
end

-- lp.assume on a kernel: results unchanged for every n that satisfies it.
do
  local base = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] - i")
  local knl = lp.assume(base, "n mod 4 = 0 and n >= 4")
  for _, n in ipairs({ 4, 8, 12 }) do
    local a = lp.arange(n, "int32")
    h.on_each_executor(function(exec, name)
      h.check_array(knl(exec, { a = a }), function() return 0 end, name .. " lp.assume, n = " .. n)
    end)
  end
end

print("assumptions: ok")

-- A piecewise extent takes the piece that bounds the others (loopy's static_max_of_pw_aff): out[i % 20] over
-- n > 0 items is min(n, 20) long, so 20 elements; with an offset m, n + m bounds every piece.
do
  local function shape_of(knl, name)
    for _, arg in ipairs(knl.args) do if arg.name == name then return table.concat(arg.shape, ", ") end end
  end
  local wrap = lp.make_kernel("{ [i]: 0<=i<n }", "out[i % 20] = a[i]", nil, { assumptions = "n > 0" })
  h.check_equal(shape_of(wrap, "out"), "20", "shape of out[i % 20]")
  h.on_each_executor(function(exec, name)
    local a = lp.arange(25, "float32")
    local out = wrap(exec, { a = a })
    h.check_array(out, function(i) return i < 5 and 20 + i or i end, name .. " out[i % 20]")
  end)
  local shifted = lp.make_kernel("{ [i]: 0<=i<n }", "out[i % 20 + m] = a[i]", nil, { assumptions = "n > 0 and m >= 0" })
  h.check_equal(shape_of(shifted, "out"), "n + m", "shape of out[i % 20 + m]")
end

-- Many quasi-affine pieces (docs/reliability.md, finding 8: 20 to 70 s in make_kernel before the pieces were
-- compared one pair at a time): the largest i % 20 + i over n items is a function of 16 pieces, and 2n - 1
-- bounds them all (i % 20 + i <= 2i). The values land where they should on both executors.
do
  local function shape_of(knl, name)
    for _, arg in ipairs(knl.args) do if arg.name == name then return table.concat(arg.shape, ", ") end end
  end
  local many = lp.make_kernel("{ [i, j, k]: 0 <= i, j, k < n }", "out[i % 20 + i] = a[i]")
  h.check_equal(shape_of(many, "out"), "2*n - 1", "shape of out[i % 20 + i]")
  local wide = lp.make_kernel("{ [i, j]: 0 <= i < n and 0 <= j < m }", "out[i % 30 + i + m] = a[i] + j - j")
  h.check_equal(shape_of(wide, "out"), "2*n + m - 1", "shape of out[i % 30 + i + m]")
  -- Where isl's exact maximum of the whole index would take it seconds to minutes (35 s for this one, and a
  -- 13 KB shape), the extent is bounded term by term: i % 16 <= min(15, n - 1), j % 4 <= 3, i <= n - 1.
  -- The bounds check of code generation holds every access inside it, and the run writes where it should.
  local terms = lp.make_kernel("{ [i, j]: 0 <= i < n and 0 <= j < m }", "out[i % 16 + j % 4 + i] = i")
  h.check_equal(shape_of(terms, "out"), "2*n + 2", "shape of out[i % 16 + j % 4 + i]")
  h.on_each_executor(function(exec, name)
    local out = terms(exec, { n = 20, m = 1 })
    h.check_equal(#out, 42, name .. " length of out[i % 16 + j % 4 + i]")
    for i = 0, 19 do
      -- Items 8 to 11 and 16 to 19 write the same elements (2i = 2(i + 8) - 16), in no fixed order.
      local other = (i >= 16 and i - 8) or (i >= 8 and i <= 11 and i + 8) or i
      local got = out:get(i % 16 + i)
      h.check(got == i or got == other, "%s: out[%d] is %s, want %d", name, i % 16 + i, h.show(got), i)
    end
  end)
  -- Neither 4 nor 16 - m bounds the other, and the parameters of the domains (n, o) are not the extent's:
  -- a StaticValueFindingError (an InternalError once: found by fuzz/fuzz_instructions).
  h.expect_error("StaticValueFindingError", "a static maximum was not found", lp.make_kernel,
    { "{ [i, j, k]: 0 <= i, j, k < n }", "{ [l]: 0 <= l < 4 }" },
    { "tmp[l] = a[16*o + l]  {id=w}", "out[16*o + m] = tmp[15 - m]  {dep=w}" })
  -- Items 10 to 19 and 20 to 29 write the same elements, in no fixed order: either value may win.
  local small = lp.make_kernel("{ [i]: 0 <= i < n }", "out[i % 20 + i] = a[i]")
  h.on_each_executor(function(exec, name)
    local out = small(exec, { a = lp.arange(25, "float32") })
    h.check_equal(#out, 49, name .. " length of out")
    for i = 0, 24 do
      local x, other = i % 20 + i, i < 20 and i + 10 or i - 10
      local got = out:get(x)
      h.check(got == i or (other % 20 + other == x and other < 25 and got == other),
              "%s: out[%d] is %s, want %d", name, x, h.show(got), i)
    end
  end)
end
