-- Shared helpers for the Lua test scripts and the testing tools (tools/differential.lua,
-- tools/okl_differential.lua): run on every executor, compare arrays with plain-Lua or C references, expect user
-- errors, read a tool's options. Every check raises a Lua error on mismatch, so a failing script exits non-zero.
local lp = require("loom")

local M = {}

-- Raises the formatted message blamed on the function `level` frames up from fail's caller (1: that caller).
local function fail(level, fmt, ...)
  error(string.format(fmt, ...), level + 1)
end

function M.check(cond, fmt, ...)
  if not cond then fail(2, fmt, ...) end
end

function M.check_equal(got, want, what)
  if got ~= want then fail(2, "%s: got %s, want %s", what, M.show(got), M.show(want)) end
end

-- An OpenCL queue, or nil where Loom was built without OpenCL (LOOM_WITH_OPENCL=OFF says so when asked for one);
-- any other failure to get one is the test's error.
local function opencl_queue()
  local ok, queue = pcall(lp.cl.queue, {})
  if ok then return queue end
  if type(queue) == "table" and queue.kind == "RuntimeError" and M.contains(queue.message, "LOOM_WITH_OPENCL=OFF") then
    return nil
  end
  error(queue, 0)
end

-- The executors every correctness test runs on, created once per process: OpenCL (where built) and C.
local executors
function M.executors()
  if not executors then
    executors = {}
    local queue = opencl_queue()
    if queue then executors[#executors + 1] = { name = "opencl", exec = queue } end
    executors[#executors + 1] = { name = "c", exec = lp.c.executor {} }
  end
  return executors
end

-- Calls f(exec, name) on each executor.
function M.on_each_executor(f)
  for _, e in ipairs(M.executors()) do f(e.exec, e.name) end
end

-- Calls f(i0, i1, ...) with every 0-based index of `shape`, in C order.
function M.each_index(shape, f)
  local idx = {}
  local function walk(axis)
    if axis > #shape then return f(table.unpack(idx, 1, #shape)) end
    for i = 0, shape[axis] - 1 do
      idx[axis] = i
      walk(axis + 1)
    end
  end
  walk(1)
end

-- A number with all its digits, anything else as tostring gives it.
function M.show(x)
  if math.type(x) == "float" then return string.format("%.17g", x) end
  return tostring(x)
end

local function close(got, want, opts)
  if opts.rtol == nil and opts.atol == nil then return got == want end
  if want ~= want then return got ~= got end -- NaN is only close to NaN
  return math.abs(got - want) <= (opts.atol or 0) + (opts.rtol or 0) * math.abs(want)
end

-- Compares the array `got` with `want`: a function of the 0-based indices (returning nil where the kernel
-- leaves the element alone) or an array of the same shape. Exact unless opts has rtol or atol; opts.dtype and
-- opts.shape check those too.
function M.check_array(got, want, what, opts)
  opts = opts or {}
  if opts.dtype then M.check_equal(got.dtype, opts.dtype, what .. " dtype") end
  local shape = got.shape
  if opts.shape then
    M.check_equal(table.concat(shape, ","), table.concat(opts.shape, ","), what .. " shape")
  end
  local ref = want
  if type(want) ~= "function" then
    M.check_equal(table.concat(want.shape, ","), table.concat(shape, ","), what .. " shape")
    ref = function(...) return want:get(...) end
  end
  local compared, mismatch = 0, nil
  M.each_index(shape, function(...)
    local w = ref(...)
    if mismatch or w == nil then return end
    local g = got:get(...)
    if not close(g, w, opts) then
      mismatch = string.format("%s[%s]: got %s, want %s", what, table.concat({ ... }, ","), M.show(g), M.show(w))
    end
    compared = compared + 1
  end)
  if mismatch then fail(2, "%s", mismatch) end
  if compared == 0 and #got > 0 then fail(2, "%s: the reference covers no element", what) end
end

-- An array of `shape` and `dtype` whose elements are fill(i0, i1, ...), in memory order `order` ("C", the
-- default, or "F").
function M.array_from(shape, dtype, fill, order)
  local a = lp.zeros(shape, dtype, order or "C")
  M.each_index(shape, function(...)
    local args = { ... }
    args[#args + 1] = fill(...)
    a:set(table.unpack(args))
  end)
  return a
end

-- An array of `shape` and `dtype` of reproducible integers from lo to hi, drawn in memory order from a linear
-- congruential generator started at `seed`: exact in any float type, so results built from them compare exactly.
function M.random_ints(shape, dtype, seed, lo, hi)
  local state = seed
  return M.array_from(shape, dtype, function()
    state = (state * 1103515245 + 12345) % 2147483648
    return lo + state % (hi - lo + 1)
  end)
end

-- Whether `piece` occurs in `text` (plain text, not a pattern).
function M.contains(text, piece) return string.find(text, piece, 1, true) ~= nil end

-- Fails unless `piece` occurs in `text`.
function M.check_contains(text, piece) M.check(M.contains(text, piece), "expected %q in:\n%s", piece, text) end

-- How many times the Lua pattern `pattern` matches in `text`.
function M.count_matches(text, pattern)
  local n = 0
  for _ in string.gmatch(text, pattern) do n = n + 1 end
  return n
end

-- How many times `piece` (plain text) occurs in `text`.
function M.count_plain(text, piece)
  local n, from = 0, 1
  while true do
    local s, e = string.find(text, piece, from, true)
    if not s then return n end
    n, from = n + 1, e + 1
  end
end

-- The tutorial's rotate_v1 kernel, split 16 over g.0/l.0: a dependency across work-groups in one kernel.
function M.rotate_v1()
  local knl = lp.make_kernel("[n] -> {[i] : 0<=i<n}",
    [[
    for i
       <>tmp = arr[i] {id=maketmp,dep=*}
       arr[(i + 1) % n] = tmp {id=rotate,dep=*maketmp}
    end
    ]], {lp.GlobalArg("arr", "int32", {shape = "n"}), "..."}, {name = "rotate_v1", assumptions = "n mod 16 = 0"})
  return lp.split_iname(knl, "i", 16, {inner_tag = "l.0", outer_tag = "g.0"})
end

-- Calls f(...) and checks that it raises a Loom error of `kind` whose message contains every string in
-- `texts` (one string or a list). An InternalError, a plain string error or no error at all fails. Returns
-- the error object.
function M.expect_error(kind, texts, f, ...)
  if type(texts) == "string" then texts = { texts } end
  local ok, err = pcall(f, ...)
  if ok then fail(2, "expected %s, got no error", kind) end
  if type(err) ~= "table" or err.kind == nil then fail(2, "expected %s, got a non-Loom error: %s", kind, tostring(err)) end
  if err.kind ~= kind then fail(2, "expected %s, got %s", kind, tostring(err)) end
  for _, text in ipairs(texts) do
    if not string.find(err.message, text, 1, true) then
      fail(2, "expected %s's message to contain '%s', got '%s'", kind, text, err.message)
    end
  end
  M.check_equal(tostring(err), (err.where or "") .. kind .. ": " .. err.message, "tostring(err)")
  return err
end

-- The numbers a C program prints, one a line: `source` compiled by the system's compiler with `flags` (-O1
-- unless given; libm linked) and run with the arguments `argv`. For references that do not go through Loom.
function M.c_program_numbers(source, flags, argv)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  local f = assert(io.open(dir .. "/ref.c", "w"))
  f:write(source)
  f:close()
  local built = os.execute(string.format("cc %s -o '%s/ref' '%s/ref.c' -lm", flags or "-O1", dir, dir))
  local numbers = {}
  if built then
    local pipe = assert(io.popen("'" .. dir .. "/ref' " .. table.concat(argv or {}, " ")))
    for line in pipe:lines() do numbers[#numbers + 1] = tonumber(line) end
    pipe:close()
  end
  os.execute("rm -rf '" .. dir .. "'")
  M.check(built, "the C reference does not compile")
  return numbers
end

-- A tool's options over `defaults`: `--name=N` sets a number the defaults name, `--name` a flag they name as
-- false (`--verbose`); anything else raises `usage`.
function M.tool_options(args, defaults, usage)
  local options = {}
  for k, v in pairs(defaults) do options[k] = v end
  for _, a in ipairs(args) do
    local key, value = a:match("^%-%-(%w+)=(%d+)$")
    if key and type(defaults[key]) == "number" then
      options[key] = tonumber(value)
    elseif a:match("^%-%-(%w+)$") and defaults[a:sub(3)] == false then
      options[a:sub(3)] = true
    else
      error(usage, 0)
    end
  end
  return options
end

-- What a child loom process running the Lua chunk `code` prints (stdout and stderr); `env` adds environment
-- variables. For what the engine prints itself (write_code) and for state shared by processes (the disk cache).
function M.run_child(code, env)
  local exe = arg and arg[-1]
  M.check(exe ~= nil, "run_child: the loom executable is unknown (arg[-1] is nil)")
  local prefix = ""
  for k, v in pairs(env or {}) do prefix = prefix .. k .. "='" .. v .. "' " end
  local script = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(code)
  f:close()
  local pipe = assert(io.popen(prefix .. "'" .. exe .. "' '" .. script .. "' 2>&1"))
  local out = pipe:read("a")
  local ok = pipe:close()
  os.remove(script)
  M.check(ok, "child loom process failed:\n%s", out)
  return out
end

return M
