-- Failures to build or to find a device: BuildErrors carry the compiler's complaint and the source; unknown
-- executor options are ArgumentErrors.
local lp = require("loom")
local h = require("helpers")

local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
local a = lp.zeros(4, "float32")

-- OpenCL build options go to the OpenCL compiler, which rejects an unknown one.
local bad_cl = lp.set_options(knl, { build_options = { "-cl-no-such-option" } })
h.expect_error("BuildError", { "-cl-no-such-option", "out[i] = 2.0f * a[i];" }, bad_cl, lp.cl.queue {}, { a = a })

-- C flags go to the C compiler.
h.expect_error("BuildError", { "-fno-such-flag", "out[i] = 2.0f * a[i];" }, knl,
  lp.c.executor { cflags = { "-fno-such-flag" } }, { a = a })
h.expect_error("BuildError", "'/no/such/cc'", knl, lp.c.executor { cc = "/no/such/cc" }, { a = a })

-- Executors: unknown options, and a device pattern that matches nothing (the message lists what exists).
h.expect_error("ArgumentError", { "c.executor", "'bogus'" }, lp.c.executor, { bogus = 1 })
h.expect_error("ArgumentError", { "cl.queue", "'bogus'" }, lp.cl.queue, { bogus = 1 })
-- (LOOM_CL_DEVICE, when set, replaces the pattern a script asks for.)
if not os.getenv("LOOM_CL_DEVICE") then
  h.expect_error("RuntimeError", { "'nosuchdevice'", "available" }, lp.cl.queue, { device = "nosuchdevice" })
end

print("build_errors: ok")
