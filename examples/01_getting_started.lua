-- Lesson 1: getting started. The first section of the loopy tutorial in Lua: make a kernel, look at it, run
-- it on OpenCL and on the C target, and use Loom as a code generator.
--
--   build/loom examples/01_getting_started.lua
local lp = require("loom")

-- Fails the lesson unless out[i] == 2 * a[i] for every i.
local function check_doubled(out, a, where)
  assert(#out == #a, where .. ": wrong length")
  for i = 0, #a - 1 do
    assert(out:get(i) == 2 * a:get(i), string.format("%s: out[%d] = %s, want %s", where, i, out:get(i), 2 * a:get(i)))
  end
  print(where .. ": ok")
end

-- 1. A kernel is a loop domain (an isl set: the loop variables, "inames", and their bounds) and instructions.
--    n is not an iname: it is a parameter, an argument of the kernel.
local knl = lp.make_kernel(
  "{ [i]: 0<=i<n }",
  "out[i] = 2*a[i]")

-- 2. Printing a kernel shows Loom's view of it: a and out are global arrays of shape (n) found from the
--    accesses, their types are decided when the kernel is called, and n is a value argument.
print(knl)

-- 3. Running it: pass the inputs by name. n is found from the shape of a, out is allocated and returned.
local a = lp.rand({ 16 * 16 }, "float32", 1)
local queue = lp.cl.queue {}
print("OpenCL device: " .. queue.device)
local out = knl(queue, { a = a })
check_doubled(out, a, "OpenCL")

-- 4. The same kernel runs on the C target: compiled with the system's C compiler and called through libffi.
local cpu = lp.c.executor {}
check_doubled(knl(cpu, { a = a }), a, "C")

-- 5. Each combination of argument types is generated and built once (and kept on disk in LOOM_CACHE_DIR):
--    a float64 array gives a second, double-precision kernel. Outputs passed in are written in place.
local a64 = lp.arange(10, "float64")
local out64 = lp.zeros(10, "float64")
knl(queue, { a = a64, out = out64 })
check_doubled(out64, a64, "float64 output passed in")

-- 6. write_code prints the code when the kernel is built; build_options go to the OpenCL compiler.
local verbose = lp.set_options(knl, { write_code = true })
check_doubled(verbose(queue, { a = lp.arange(5, "int32") }), lp.arange(5, "int32"), "write_code")
local tuned = lp.set_options(knl, { build_options = { "-cl-mad-enable" } })
check_doubled(tuned(queue, { a = a }), a, "build_options")

-- 7. Generating code only: make every type known, then ask for the device code and the declarations.
local typed_knl = lp.add_dtypes(knl, { a = "float32" })
local code = lp.generate_code_v2(typed_knl):device_code()
print(code)
local header = lp.generate_header(typed_knl)[1]
print(header)
assert(code:find("out[i] = 2.0f * a[i];", 1, true), "the device code doubles a")
assert(header:find("loopy_kernel(__global float const *__restrict__ a", 1, true), "the header declares the kernel")

-- 8. The C target's code for the same kernel.
local c_code = lp.generate_code(lp.set_options(typed_knl, { target = "c" }))
print(c_code)
assert(c_code:find("void loopy_kernel(float const *__restrict__ a", 1, true), "the C code takes plain pointers")
