-- Time to the first result (issue 13 point 5): a new process that builds a kernel, runs it once on OpenCL and
-- reads the result, Loom against loopy/PyOpenCL (bench/loopy_first_result.py) in the same run, each in three
-- states of its caches:
--   cold  every cache empty: Loom's disk cache, loopy's and PyOpenCL's (XDG_CACHE_HOME), PoCL's kernel cache;
--   warm  the same directories, filled by the cold run before;
--   off   the process's own disk caches disabled (lp.set_caching_enabled(false), LOOPY_NO_CACHE and
--         PYOPENCL_NO_CACHE), the driver's cache empty: what a cache must never be dearer than.
-- What is timed: the wall-clock time of the whole child process (interpreter start, import, make_kernel,
-- transformation, code generation, the driver's build, one launch, reading the result back), the median of
-- `runs` processes per state, each state with fresh directories.
--
-- usage: loom bench/first_result.lua [runs] [--no-loopy]   (default 3 runs)
local lp = require("loom")

local runs, no_loopy = 3, false
for _, a in ipairs(arg) do
  if a == "--no-loopy" then no_loopy = true
  elseif math.tointeger(tonumber(a)) and tonumber(a) >= 1 then runs = math.tointeger(tonumber(a))
  else
    io.stderr:write("usage: loom bench/first_result.lua [runs] [--no-loopy]\n")
    os.exit(2)
  end
end

local exe = assert(arg[-1], "run by the loom executable")

-- The same kernel and schedule on both sides; the child checks the first element of its result.
local loom_child = [[
local lp = require("loom")
if os.getenv("BENCH_CACHE") == "off" then lp.set_caching_enabled(false) end
local knl = lp.make_kernel("{[i]: 0<=i<n}", "out[i] = 2*a[i] + sin(a[i])")
knl = lp.split_iname(knl, "i", 128, {outer_tag = "g.0", inner_tag = "l.0"})
local a = lp.arange(1 << 16, "float32")
local out = knl(lp.cl.queue(), {a = a})
assert(math.abs(out:get(1) - (2 + math.sin(1))) < 1e-5, "wrong result")
]]

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function fresh_dir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. shell_quote(dir)))
  return dir
end

-- Wall-clock seconds of `command` run with its cache directories under `dirs` and the environment words
-- `extra`; nil and the output when it fails.
local function timed(command, dirs, extra)
  local env = string.format("LOOM_CACHE_DIR=%s XDG_CACHE_HOME=%s POCL_CACHE_DIR=%s %s", shell_quote(dirs .. "/loom"),
    shell_quote(dirs .. "/xdg"), shell_quote(dirs .. "/pocl"), extra or "")
  local start = lp.wall_time()
  local pipe = assert(io.popen(env .. " " .. command .. " 2>&1"))
  local output = pipe:read("a")
  local ok = pipe:close()
  local seconds = lp.wall_time() - start
  if not ok then return nil, output end
  return seconds
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end

-- Median seconds of `runs` first results of `command` in `state`, or nil and the first failure's output.
local function first_result(command, state, off_env)
  local samples = {}
  for _ = 1, runs do
    local dirs = fresh_dir()
    local seconds, err
    if state == "warm" then
      seconds, err = timed(command, dirs)
      if seconds then seconds, err = timed(command, dirs) end
    else
      seconds, err = timed(command, dirs, state == "off" and off_env or "")
    end
    os.execute("rm -rf " .. shell_quote(dirs))
    if not seconds then return nil, err end
    samples[#samples + 1] = seconds
  end
  return median(samples)
end

local script = os.tmpname() .. ".lua"
local f = assert(io.open(script, "w"))
f:write(loom_child)
f:close()

local sides = {
  {name = "loom", command = shell_quote(exe) .. " " .. shell_quote(script), off = "BENCH_CACHE=off"},
}
if not no_loopy then
  sides[2] = {name = "loopy", command = "python3 bench/loopy_first_result.py",
              off = "LOOPY_NO_CACHE=1 PYOPENCL_NO_CACHE=1"}
end

print(string.format("time to the first result on OpenCL (%s), median of %d processes per state", lp.cl.queue().device, runs))
print(string.format("%-6s %12s %12s %12s", "state", "loom", "loopy", "loopy/loom"))
local reasons = {}
for _, state in ipairs({"cold", "warm", "off"}) do
  local t = {}
  for _, side in ipairs(sides) do
    local seconds, err = first_result(side.command, state, side.off)
    t[side.name] = seconds
    if not seconds then reasons[#reasons + 1] = side.name .. " " .. state .. ": " .. tostring(err):match("[^\n]*\n?[^\n]*") end
  end
  local function ms(s) return s and string.format("%9.1f ms", s * 1e3) or "n/a" end
  print(string.format("%-6s %12s %12s %12s", state, ms(t.loom), ms(t.loopy),
    (t.loom and t.loopy) and string.format("%.2fx", t.loopy / t.loom) or "n/a"))
end
for _, r in ipairs(reasons) do print("  " .. r) end
os.remove(script)
