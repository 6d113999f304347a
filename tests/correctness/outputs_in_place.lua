-- An output array passed in is the memory the kernel writes: elements outside the written footprint keep
-- their values on every executor (loopy copies every array passed in to the device, written or not).
local lp = require("loom")
local h = require("helpers")

local N = 10

local cases = {
  { what = "stride 3", domain = "{ [i]: 0<=i<n and i mod 3 = 0 }", written = function(i) return i % 3 == 0 end },
  { what = "upper half", domain = "{ [i]: n//2<=i<n }", written = function(i) return i >= N // 2 end },
}

for _, case in ipairs(cases) do
  local knl = lp.make_kernel(case.domain, "out[i] = 2*i", { lp.GlobalArg("out", "int32", { shape = "n" }), "..." })
  h.on_each_executor(function(exec, name)
    local out = lp.zeros(N, "int32"):fill(-7)
    knl(exec, { out = out, n = N })
    h.check_array(out, function(i) return case.written(i) and 2 * i or -7 end, name .. " " .. case.what)
  end)
end

print("outputs_in_place: ok")
