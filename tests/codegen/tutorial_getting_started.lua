-- Golden text from the loopy tutorial's "Getting started", "Running a kernel" and "Generating code": the
-- kernel listing, the OpenCL code of the doubling kernel (as generate_code_v2 returns it and as write_code
-- prints it) and its header. Loopy's text has no final newline; one is tolerated.
local lp = require("loom")
local h = require("helpers")

local function check_text(got, want, what)
  got = got:gsub("\n$", "")
  if got ~= want then
    error(string.format("%s differs from loopy's text.\n--- got ---\n%s\n--- want ---\n%s", what, got, want), 2)
  end
end

local LISTING = [[
---------------------------------------------------------------------------
KERNEL: loopy_kernel
---------------------------------------------------------------------------
ARGUMENTS:
a: type: <auto/runtime>, shape: (n), dim_tags: (N0:stride:1) in aspace: global
n: ValueArg, type: <auto/runtime>
out: type: <auto/runtime>, shape: (n), dim_tags: (N0:stride:1) out aspace: global
---------------------------------------------------------------------------
DOMAINS:
[n] -> { [i] : 0 <= i < n }
---------------------------------------------------------------------------
INAME TAGS:
i: None
---------------------------------------------------------------------------
INSTRUCTIONS:
for i
  out[i] = 2*a[i]  {id=insn}
end i
---------------------------------------------------------------------------]]

local CODE = [[
#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const *__restrict__ a, int const n, __global float *__restrict__ out)
{
  for (int i = 0; i <= -1 + n; ++i)
    out[i] = 2.0f * a[i];
}]]

local HEADER = "__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float const " ..
  "*__restrict__ a, int const n, __global float *__restrict__ out);"

local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
knl = lp.set_options(knl, { allow_terminal_colors = false })
check_text(tostring(knl), LISTING, "print(knl)")

local typed_knl = lp.add_dtypes(knl, { a = "float32" })
check_text(lp.generate_code_v2(typed_knl):device_code(), CODE, "generate_code_v2(typed_knl):device_code()")
check_text((lp.generate_code(typed_knl)), CODE, "generate_code(typed_knl)")
check_text(lp.generate_header(typed_knl)[1], HEADER, "generate_header(typed_knl)[1]")

-- write_code prints the code when the kernel is built for a run, typed from the array passed.
local printed = h.run_child([[
local lp = require("loom")
local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
knl = lp.set_options(knl, { write_code = true })
knl(lp.cl.queue {}, { a = lp.rand(16, "float32") })
]])
check_text(printed, CODE, "the code printed by write_code")

print("tutorial_getting_started: ok")
