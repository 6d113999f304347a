-- A sum of 10,000 operands, which make_kernel accepts, from a stock lua5.4 on its main thread (8 MiB of stack
-- under the usual ulimit): generate_code segfaulted; now the engine says how much stack the expression needs,
-- or, on a stack that holds it, generates the code.
local lp = require("loom")
local terms = {}
for i = 1, 10000 do terms[i] = "a[" .. (i % 7) .. "]" end
local knl = lp.make_kernel("{ [i]: 0<=i<1 }", "out[0] = " .. table.concat(terms, " + "),
  { lp.GlobalArg("a", "float32", { shape = 7 }), lp.GlobalArg("out", "float32", { shape = 1 }) })
local ok, err = pcall(lp.generate_code, knl)
assert(ok or (err.kind == "LimitError" and err.message:find("levels deep, which needs about", 1, true)), tostring(err))
print(ok and "ok: generated" or "ok: " .. err.message)
