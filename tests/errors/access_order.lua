-- loopy's check_variable_access_ordered: a write and another access of the same variable that may touch the
-- same element need a (possibly indirect) dependency between them, or a nosync on both sides; otherwise
-- which comes first is the linearizer's choice. VariableAccessNotOrdered, or with the kernel option
-- enforce_variable_access_ordered = false a warning, and "no_check" to skip the check.
local lp = require("loom")
local h = require("helpers")

local function kernel(insns)
  return lp.make_kernel("{ [i]: 0<=i<n }", insns, { lp.GlobalArg("a,b", "float32", { shape = "n + 1" }), "..." })
end

-- Overlapping writes (loopy's test), and a write and an unordered read of elements it writes.
h.expect_error("VariableAccessNotOrdered", { "between 'w1' which writes the variable 'a' and 'w2'" },
  lp.generate_code, kernel({ "a[i] = 12 {id=w1}", "a[i+1] = 13 {id=w2}" }))
-- (a has two writers, so the single-writer heuristic adds no dependency of r on w.)
h.expect_error("VariableAccessNotOrdered", { "'w' which writes the variable 'a'", "'r' which also accesses" },
  lp.generate_code, kernel({ "a[i] = 12 {id=w}", "a[n] = 5 {id=w_end}", "b[i] = 2*a[i+1] {id=r}" }))

-- Ordered pairs: a direct or an indirect dependency, either way round.
lp.generate_code(kernel({ "a[i] = 12 {id=w1}", "a[i+1] = 13 {id=w2, dep=w1}" }))
lp.generate_code(kernel({ "a[i] = 12 {id=w1}", "b[i] = 1 {id=m, dep=w1}", "a[i+1] = 13 {id=w2, dep=m}" }))
lp.generate_code(kernel({ "a[i+1] = 13 {id=w2, dep=w1}", "a[i] = 12 {id=w1}" }))

-- Disjoint elements need no order: constant indices apart, or ranges isl finds disjoint.
lp.generate_code(lp.make_kernel("{ [i]: 0<=i<n }", { "c[i, 0] = 1 {id=w1}", "c[i, 1] = 2 {id=w2}" },
  { lp.GlobalArg("c", "float32", { shape = "n, 2" }), "..." }))
lp.generate_code(lp.make_kernel("{ [i]: 0<=i<n }", { "c[2*i] = 1 {id=w1}", "c[2*i+1] = 2 {id=w2}" },
  { lp.GlobalArg("c", "float32", { shape = "2*n" }), "..." }))

-- nosync on both sides waives the order; on one side only it does not.
lp.generate_code(kernel({ "a[i] = 12 {id=w1, nosync=w2}", "a[i+1] = 13 {id=w2, nosync=w1}" }))
h.expect_error("VariableAccessNotOrdered", { "'w1'", "'w2'" }, lp.generate_code,
  kernel({ "a[i] = 12 {id=w1, nosync=w2}", "a[i+1] = 13 {id=w2}" }))

-- The option: false warns (raised here through lp.set_warnings("error")), "no_check" says nothing, and a
-- value of another kind is an error.
local unordered = kernel({ "a[i] = 12 {id=w1}", "a[i+1] = 13 {id=w2}" })
lp.set_warnings("error")
h.expect_error("VariableAccessNotOrdered", { "in kernel loopy_kernel: No dependency relationship" }, lp.generate_code,
  lp.set_options(unordered, { enforce_variable_access_ordered = false }))
lp.set_warnings("default")
lp.generate_code(lp.set_options(unordered, { enforce_variable_access_ordered = "no_check" }))
h.expect_error("ArgumentError", { "enforce_variable_access_ordered", "true, false or \"no_check\"" }, lp.set_options,
  unordered, { enforce_variable_access_ordered = "sometimes" })

-- Generated instructions are ordered: a realized reduction's initialization does not read the temporary
-- its instruction's predicate reads (it would run before that temporary is set).
local guarded = lp.make_kernel("{[i]: 0<=i<n}", {
  "<> flag = 1 {id=set}", "out[0] = sum(i, i*a[i]) {if=flag == 1, dep=set}" },
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.GlobalArg("out", "float32", { shape = 1 }), "..." })
h.check_contains(tostring(lp.preprocess_kernel(guarded)), "\nacc_i = 0.0  {id=insn_i_init}")
h.on_each_executor(function(exec, name)
  local a = lp.arange(5, "float32")
  h.check_array(guarded(exec, { a = a }), function() return 30 end, name .. " guarded sum")
end)

print("access_order: ok")
