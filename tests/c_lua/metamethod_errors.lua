-- Run by unwind_test (Lua built as C): every kind of table a Loom call reads, given metamethods that raise. The
-- call ends with the script's own error value; the sanitizer build's LeakSanitizer checks that nothing the call
-- had built in C++ leaked (a longjmp over its frames did, issue 11 point 7).
local lp = require("loom")

local raised = setmetatable({}, { __tostring = function() return "raised by a metamethod" end })
local function raise() error(raised) end
local hostile = setmetatable({}, { __index = raise, __len = raise })
-- Read after the entries it has: a call checks what it is given before it looks up what is missing.
local function hostile_with(entries) return setmetatable(entries, getmetatable(hostile)) end

local domain = "{ [i]: 0<=i<n }"
local knl = lp.make_kernel(domain, "out[i] = 2*a[i]", { lp.GlobalArg("a", "float32", { shape = "n" }), "..." })
local typed = lp.add_dtypes(knl, { a = "float32" })
local exec = lp.c.executor {}
local calls = {
  ["make_kernel instructions"] = function() return lp.make_kernel(domain, hostile) end,
  ["make_kernel arguments"] = function() return lp.make_kernel(domain, "out[i] = a[i]", hostile) end,
  ["make_kernel options"] = function() return lp.make_kernel(domain, "out[i] = a[i]", nil, hostile) end,
  ["split_iname options"] = function() return lp.split_iname(knl, "i", 4, hostile) end,
  ["c.executor options"] = function() return lp.c.executor(hostile) end,
  ["set_options options"] = function() return lp.set_options(knl, hostile) end,
  ["add_prefetch sweep inames"] = function() return lp.add_prefetch(knl, "a", hostile) end,
  ["kernel call arguments"] = function() return typed(exec, hostile_with({ a = lp.zeros(4, "float32") })) end,
  -- After a call with the same signature, the fast path of repeated calls reads the table first.
  ["repeated kernel call arguments"] = function()
    typed(exec, { a = lp.zeros(4, "float32") })
    return typed(exec, hostile_with({ a = lp.zeros(4, "float32") }))
  end,
  ["array view slices"] = function() return lp.zeros(4, "float32"):view(hostile) end,
}
for what, call in pairs(calls) do
  local ok, err = pcall(call)
  assert(not ok, what .. ": no error")
  assert(err == raised, what .. ": the metamethod's error did not arrive, got " .. tostring(err))
end
print("metamethod_errors: ok")
