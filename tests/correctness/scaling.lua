-- Sizes that once took exponential or quadratic time (type inference recomputed both operands at every sum,
-- 40 operands never finished; 1,600 statements took 10 s in generate_code) compute the right values at the
-- sizes of the budgets: 10,000 operands, 300 chained substitution rules, 2,000 statements. Their times are
-- in bench/scaling.lua.
local lp = require("loom")
local h = require("helpers")
local K = require("scaling_kernels")

local a = lp.arange(7, "float64")

-- 40 operands run; 10,000 generate code with every operand in it.
h.on_each_executor(function(exec, name)
  h.check_array(K.sum(40)(exec, { a = a }), function(i) return 40 * i end, name .. " 40-operand sum")
end)
h.check_equal(h.count_plain(lp.generate_code(lp.set_options(K.sum(10000), { target = "c" })), "a[i]"), 10000,
  "operands in the code of a 10,000-operand sum")

h.on_each_executor(function(exec, name)
  h.check_array(K.rules(300)(exec, { a = a }), function(i) return i + 300 end, name .. " 300 chained rules")
  local out = K.statements(2000)(exec, { a = a })
  h.check_array(out, function(i, s) return i + s end, name .. " 2,000 statements", { shape = { 7, 2000 } })
end)

-- 2,000 statements with an output array each: every array gets its shape, and the code has every statement.
local outputs = K.outputs(2000)
h.check_equal(tostring(outputs):match("out1999: [^\n]*shape: %(([^)]*)%)"), "m", "shape of out1999")
h.check_equal(h.count_plain(lp.generate_code(lp.set_options(lp.add_dtypes(outputs, { a = "float64" }),
  { target = "c" })), "] = a[i] + "), 2000, "statements in the code of 2,000 outputs")

print("scaling: ok")
