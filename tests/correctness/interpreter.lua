-- The loom executable behaves as lua.c: -e, -l, -i, -v, -E, --, - (stdin), LUA_INIT (and LUA_INIT_5_4, which
-- wins), and an uncaught Loom error prints where it was raised, its kind and message, and a traceback.
local h = require("helpers")

local exe = assert(arg[-1], "run by the loom executable")

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Runs `loom ARGS` (a shell word list) with `env` (a string of NAME=value words) and `stdin`; returns what
-- it printed (stdout and stderr) and whether it exited with status 0.
local function loom(args, env, stdin)
  local input = os.tmpname()
  local f = assert(io.open(input, "w"))
  f:write(stdin or "")
  f:close()
  local pipe = assert(io.popen((env or "") .. " " .. shell_quote(exe) .. " " .. args .. " <" .. input .. " 2>&1"))
  local out = pipe:read("a")
  local ok = pipe:close()
  os.remove(input)
  return out, ok == true
end

local function expect(args, env, stdin, texts, want_ok)
  local out, ok = loom(args, env, stdin)
  h.check(ok == (want_ok ~= false), "loom %s: exit status %s, output:\n%s", args, tostring(ok), out)
  for _, text in ipairs(texts) do
    h.check(out:find(text, 1, true), "loom %s: expected '%s' in:\n%s", args, text, out)
  end
  return out
end

local function write_script(code)
  local path = os.tmpname() .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(code)
  f:close()
  return path
end

expect("-v", nil, nil, { "loom ", "Lua 5.4" })
expect("-e 'print(6*7)'", nil, nil, { "42" })
expect("-l h=helpers -e 'print(type(h.check))'", nil, nil, { "function" })
expect("-e 'print(x)'", "LUA_INIT='x = 42'", nil, { "42" })
expect("-e 'print(x)'", "LUA_INIT='x = 1' LUA_INIT_5_4='x = 54'", nil, { "54" })
local init = write_script("y = 'from file'")
expect("-e 'print(y)'", "LUA_INIT=@" .. init, nil, { "from file" })
os.remove(init)
-- -E: no LUA_INIT, and LUA_PATH (which holds tests/) is ignored.
local out = expect("-E -e 'print(x)'", "LUA_INIT='x = 42'", nil, {})
h.check(out == "nil\n", "-E runs LUA_INIT anyway:\n%s", out)
expect("-E -l helpers", nil, nil, { "module 'helpers' not found" }, false)

local script = write_script("print(select('#', ...), ...)")
expect("-- " .. script .. " a -e", nil, nil, { "2\ta\t-e" })
expect("-", nil, "print('from stdin')", { "from stdin" })
expect("-i", nil, "print(6*7)\n", { "loom ", "42" })
os.remove(script)

-- An uncaught Loom error: the script's position, then KIND: message, then the traceback; status 1.
local failing = write_script("local lp = require('loom')\n\nlp.make_kernel('{ [i]: 0<=i<n', 'out[i] = 1')\n")
local printed = expect(failing, nil, nil, { failing .. ":3: ParseError: ", "stack traceback:", "make_kernel" }, false)
-- The first line is tostring(err), as a stock lua5.4 prints it: the position in the domain once.
local _, positions = printed:match("^[^\n]*"):gsub("%(line 1, column %d+%)", "")
h.check(positions == 1, "the position in the domain is printed %d times:\n%s", positions, printed)
os.remove(failing)

-- The same fields in the error object a script catches; pcall(f, ...) has no Lua caller to name.
local lp = require("loom")
local ok, err = pcall(function() lp.make_kernel("{ [i]: 0<=i<n", "out[i] = 1") end)
h.check(not ok and err.where and err.where:match("interpreter%.lua:%d+: $"), "err.where: %s", tostring(err.where))
h.check(tostring(err) == err.where .. "ParseError: " .. err.message, "tostring(err): %s", tostring(err))
h.check(err.traceback:find("stack traceback:", 1, true) and err.traceback:find("make_kernel", 1, true),
        "err.traceback: %s", tostring(err.traceback))
-- A message handler of the script's own sees SPEC's text; the traceback is added where the handler is called at
-- the raise itself, as lua.c's is (tests/CMakeLists.txt, stock_lua_error_position) or tostring here.
local _, text = xpcall(lp.make_kernel, function(e) return tostring(e) end, "{ [i]: 0<=i<n", "out[i] = 1")
h.check(text:match("^ParseError: [^\n]*$"), "tostring in a Lua handler: %s", text)
_, text = xpcall(lp.make_kernel, tostring, "{ [i]: 0<=i<n", "out[i] = 1")
h.check(text:match("^ParseError: [^\n]*\nstack traceback:\n\t%[C%]: in function 'loom.make_kernel'"),
        "tostring as the handler: %s", text)
ok, err = pcall(lp.make_kernel, "{ [i]: 0<=i<n", "out[i] = 1")
h.check(not ok and err.where == nil and tostring(err) == "ParseError: " .. err.message, "pcall(f): %s", tostring(err))
print("interpreter: ok")
