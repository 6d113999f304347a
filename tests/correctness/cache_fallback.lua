-- A cache directory that cannot be used (read-only, or not a directory) made every C build fail. Builds now go
-- on uncached, in a private temporary directory, after one CacheWarning per process.
local h = require("helpers")

-- Two kernels on both executors: every build meets the unusable cache.
local child = [[
local lp = require("loom")
local h = require("helpers")
for _, c in ipairs({ 2, 3 }) do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = " .. c .. "*a[i] + 1")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = lp.arange(10, "float32") }), function(i) return c * i + 1 end, name)
  end)
end
print("child ok")
]]

local file = os.tmpname()  -- a regular file where the directory should be
local unusable = { file, file .. "/below-a-file", "/proc/loom-cache" }  -- /proc: read-only even for root
local ok, err = pcall(function()
  for _, dir in ipairs(unusable) do
    local out = h.run_child(child, { LOOM_CACHE_DIR = dir })
    h.check(h.contains(out, "child ok"), "builds with the cache directory '%s':\n%s", dir, out)
    h.check_equal(h.count_plain(out, "CacheWarning"), 1, "warnings with the cache directory '" .. dir .. "':\n" .. out)
    h.check(h.contains(out, "'" .. dir .. "' cannot be used"), "the warning names '%s':\n%s", dir, out)
  end
end)
os.remove(file)
if not ok then error(err, 0) end
print("cache_fallback: ok")
