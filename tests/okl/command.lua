-- `loom okl FILE`: prints each kernel's code (-D defines macros, --target picks the code), or runs each
-- kernel on generated inputs with --run; usage mistakes and OKL errors exit non-zero.
local T = require("helpers")

local exe = assert(arg[-1], "run by the loom executable")
local function loom(args)
  local pipe = assert(io.popen("'" .. exe .. "' okl " .. args .. " 2>&1"))
  local out = pipe:read("a")
  return out, pipe:close()
end

local out, ok = loom("examples/okl/reduction.okl -D block=32")
T.check(ok, "loom okl failed:\n%s", out)
T.check_contains(out, "__kernel void __attribute__ ((reqd_work_group_size(32, 1, 1))) reduction(")
out, ok = loom("examples/okl/reduction.okl -Dblock=8 --target c")
T.check(ok, "loom okl --target c failed:\n%s", out)
T.check_contains(out, "void reduction(int const entries")
T.check_contains(out, "float s_vec[8]")

out, ok = loom("examples/okl/reduction.okl --target cuda")
T.check(ok and T.contains(out, "__shared__ float s_vec[256]") and T.contains(out, "__syncthreads()"),
  "loom okl --target cuda:\n%s", out)

-- --run: block_scan on 16 entries of (i*7 + 2) % 13 (the generated input of its second argument).
out, ok = loom("examples/okl/scan.okl --run --size 16 --target c")
T.check(ok, "loom okl --run failed:\n%s", out)
local input, scanned, running = 0, 0, 0
for i = 0, 15 do
  local v = (i * 7 + 2) % 13
  input, running = input + v, running + v
  scanned = scanned + running
end
T.check_contains(out, string.format("in: 16 elements, sum %d", input))
T.check_contains(out, string.format("out: 16 elements, sum %d", scanned))

out, ok = loom("examples/okl/scan.okl --size")
T.check(not ok and T.contains(out, "'--size' needs a size"), "bad --size accepted:\n%s", out)
out, ok = loom("examples/okl/scan.okl -D")
T.check(not ok and T.contains(out, "'-D' needs NAME[=VALUE]"), "bad -D accepted:\n%s", out)
local bad = os.tmpname()
local f = assert(io.open(bad, "w"))
f:write("@kernel void k(float *a) {\n  a[0] = 1;\n}\n")
f:close()
out, ok = loom(bad)
os.remove(bad)
T.check(not ok and T.contains(out, "OKLError") and T.contains(out, ":1: [@kernel] requires at least one [@outer] for-loop"),
  "an invalid kernel is reported:\n%s", out)

print("loom okl: ok")
