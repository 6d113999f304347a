-- A kernel named like an OpenCL C built-in function (the compiler gives no kernel that name) or a name OpenCL
-- C reserves cannot be built on OpenCL: a LoopyError at OpenCL code generation names it and asks for another
-- name. Other targets take the name, under another symbol where the C headers already declare it.
local lp = require("loom")
local h = require("helpers")

local function named(name, options)
  options = options or {}
  options.name = name
  return lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]", nil, options)
end
local a = h.array_from({ 5 }, "float32", function(i) return i end)

for _, name in ipairs({ "rotate", "sin", "dot", "barrier", "get_global_id", "isnan", "clamp", "atomic_add" }) do
  local texts = { "kernel name '" .. name .. "'", "OpenCL C built-in function", "name=\"" .. name .. "_knl\"" }
  h.expect_error("LoopyError", texts, lp.generate_code, lp.add_dtypes(named(name), { a = "float32" }))
  h.expect_error("LoopyError", texts, named(name), lp.cl.queue {}, { a = a })
end

-- Names OpenCL C reserves (keywords, types, macros, the code's own lid/gid) did not build.
for _, name in ipairs({ "kernel", "global", "int", "bool", "float4", "half", "size_t", "lid", "NAN", "M_PI_F",
  "CLK_LOCAL_MEM_FENCE" }) do
  h.expect_error("LoopyError", { "kernel name '" .. name .. "' is reserved in OpenCL C", "name=\"" .. name .. "_knl\"" },
    named(name), lp.cl.queue {}, { a = a })
end

-- The suggested name works; the C executor and the C and CUDA targets take the built-in's name.
local function doubled(out, what) h.check_array(out, function(i) return 2 * i end, what) end
doubled(named("rotate_knl")(lp.cl.queue {}, { a = a }), "renamed kernel on OpenCL")
doubled(named("rotate")(lp.c.executor {}, { a = a }), "'rotate' on the C executor")
for _, target in ipairs({ "c", "cuda" }) do
  local code = lp.generate_code(lp.add_dtypes(named("rotate", { target = target }), { a = "float32" }))
  h.check(code:find("rotate(", 1, true) ~= nil, "%s target keeps the name:\n%s", target, code)
end

-- On the C and CUDA targets a name the C headers or the compiler already declare (C library functions
-- and their float variants, types, macros, keywords) gets "_knl" appended to its symbol, so that the code
-- builds and the kernel's own calls of the library function still reach the library.
for _, name in ipairs({ "sin", "exp", "expf", "sqrtl", "y0", "bool", "int32_t", "NAN", "M_PI", "linux", "for" }) do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = sin(a[i]) + 1", nil, { name = name })
  h.check_array(knl(lp.c.executor {}, { a = a }), function(i) return math.sin(i) + 1 end,
    "'" .. name .. "' on the C executor", { rtol = 1e-6 })
  for _, target in ipairs({ "c", "cuda" }) do
    local code, info = lp.generate_code(lp.add_dtypes(lp.set_options(knl, { target = target }), { a = "float32" }))
    h.check(code:find(" " .. name .. "_knl(", 1, true) ~= nil, "%s target renames '%s':\n%s", target, name, code)
    h.check_equal(info.kernels[1], name .. "_knl", target .. " kernel list")
  end
end
doubled(named("printf")(lp.c.executor {}, { a = a }), "'printf' (not declared by the C code) on the C executor")

-- Only the exact names: a built-in's name with more to it is an ordinary kernel name.
doubled(named("sin_table")(lp.cl.queue {}, { a = a }), "'sin_table' on OpenCL")

print("kernel_name_errors: ok")
