-- The build caches: a second process finds the built programs in LOOM_CACHE_DIR and writes nothing new;
-- lp.set_caching_enabled(false) writes nothing; within one process a second kernel object with the same code
-- reuses the executor's build.
local h = require("helpers")

local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p '" .. dir .. "'"))

-- Every file under the cache directory with its size and modification time, one per line.
local function listing()
  local pipe = assert(io.popen("cd '" .. dir .. "' && find . -type f -printf '%p %s %T@\\n' | sort"))
  local text = pipe:read("a")
  pipe:close()
  return text
end

-- A child script: runs one kernel on both executors and checks the results itself.
local function script(instruction, preamble)
  return (preamble or "") .. [[
local lp = require("loom")
local h = require("helpers")
local knl = lp.make_kernel("{ [i]: 0<=i<n }", "]] .. instruction .. [[")
local a = lp.arange(10, "float32")
h.on_each_executor(function(exec, name)
  h.check_array(knl(exec, { a = a }), function(i) return 3 * i + 1 end, name)
  local n = exec:build_counts()
  print(string.format("%s compiled %d loaded %d", exec.target, n.compiled, n.loaded))
end)
print("child ok")
]]
end

local env = { LOOM_CACHE_DIR = dir }

local ok, err = pcall(function()
  h.check_equal(listing(), "", "a fresh cache directory")
  local printed = h.run_child(script("out[i] = 3*a[i] + 1"), env)
  h.check(printed:find("child ok", 1, true), "first child")
  for _, target in ipairs({ "opencl", "c" }) do
    h.check(printed:find(target .. " compiled 1 loaded 0", 1, true), "the first child's %s builds:\n%s", target, printed)
  end
  local first = listing()
  h.check_equal(h.count_matches(first, "%.so "), 1, "C programs stored by the first process:\n" .. first)
  h.check_equal(h.count_matches(first, "%.bin "), 1, "OpenCL programs stored by the first process:\n" .. first)

  printed = h.run_child(script("out[i] = 3*a[i] + 1"), env)
  h.check(printed:find("child ok", 1, true), "second child")
  for _, target in ipairs({ "opencl", "c" }) do
    h.check(printed:find(target .. " compiled 0 loaded 1", 1, true), "the second child's %s builds:\n%s", target, printed)
  end
  h.check_equal(listing(), first, "the cache after a second process with the same kernel")

  h.check(h.run_child(script("out[i] = 1 + 3*a[i]", "require('loom').set_caching_enabled(false)\n"), env)
    :find("child ok", 1, true), "child without caching")
  h.check_equal(listing(), first, "the cache after a process with caching disabled")

  -- A truncated or altered entry crashed every later process that loaded it. Entries are sealed with their
  -- length and checksum: a damaged one is rebuilt, and the process after that loads the rebuilt one.
  for _, damage in ipairs({ "truncate -s 100 '%s'", "printf 'XXXXXXXX' | dd of='%s' bs=1 seek=64 conv=notrunc 2>/dev/null" }) do
    for path in first:gmatch("(%S+%.[bs][io]n?) ") do
      assert(os.execute(string.format(damage, dir .. "/" .. path)))
    end
    h.check(h.run_child(script("out[i] = 3*a[i] + 1"), env):find("child ok", 1, true), "child after: " .. damage)
    local rebuilt = listing()
    h.check(h.run_child(script("out[i] = 3*a[i] + 1"), env):find("child ok", 1, true), "child after the rebuild")
    h.check_equal(listing(), rebuilt, "the cache after the process that followed the rebuild (" .. damage .. ")")
  end
end)
os.execute("rm -rf '" .. dir .. "'")
if not ok then error(err, 0) end

-- In one process: a second kernel object with the same code reuses the executor's build. On the C executor the
-- compiler is also a wrapper that logs each run; on OpenCL, whose compiler is inside the driver, the executor's
-- build counts tell.
do
  local lp = require("loom")
  lp.set_caching_enabled(false)
  local instruction = string.format("out[i] = a[i] + %d", os.time() % 100000) -- new to the executor
  local a = lp.arange(8, "int32")
  local log = os.tmpname()
  local wrapper = os.tmpname()
  local f = assert(io.open(wrapper, "w"))
  f:write("#!/bin/sh\necho run >> '" .. log .. "'\nexec cc \"$@\"\n")
  f:close()
  assert(os.execute("chmod +x '" .. wrapper .. "'"))
  local function compiler_runs()
    local l = io.open(log)
    if not l then return 0 end
    local n = select(2, l:read("a"):gsub("run\n", ""))
    l:close()
    return n
  end
  local function run(exec)
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", instruction)
    h.check_array(knl(exec, { a = a }), function(i) return i + tonumber(instruction:match("%d+$")) end, "result")
  end
  local c = lp.c.executor { cc = wrapper }
  run(c)
  h.check_equal(compiler_runs(), 1, "compiler runs for the first kernel object")
  run(c)
  h.check_equal(compiler_runs(), 1, "compiler runs after a second kernel object with the same code")
  os.remove(log)
  os.remove(wrapper)

  h.check_equal(c:build_counts().compiled, 1, "C programs compiled for both kernel objects")

  local queue = lp.cl.queue {}
  run(queue)
  run(queue)
  h.check_equal(queue:build_counts().compiled, 1, "OpenCL programs compiled for both kernel objects")
end

print("disk_cache: ok")
