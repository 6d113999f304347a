-- Names and flags that reach generated code or a compiler's command line (issue 11, point 4). Every name that
-- enters the code passes one check, at its entry point and again at code generation: an identifier that C
-- does not reserve. A restricted (sandboxed) state only passes allow-listed compiler flags.
local lp = require("loom")
local h = require("helpers")

local payload = 'n) { system("touch /tmp/loom_pwned"); } void f(int n'
local a = h.array_from({ 5 }, "float32", function(i) return i end)

-- A ValueArg, GlobalArg or temporary named with C code once reached the source verbatim.
h.expect_error("LoopyError", { "make_kernel: argument '" .. payload .. "' is not a valid name" }, lp.make_kernel,
  "{ [i]: 0<=i<5 }", "out[i] = a[i]", { lp.ValueArg(payload, "int32"), "..." })
h.expect_error("LoopyError", { "make_kernel: argument 'a;b' is not a valid name" }, lp.make_kernel,
  "{ [i]: 0<=i<5 }", "out[i] = 1", { lp.GlobalArg("a;b", "float32", { shape = 5 }), "..." })
h.expect_error("LoopyError", { "make_kernel: temporary 't t' is not a valid name" }, lp.make_kernel,
  "{ [i]: 0<=i<5 }", "out[i] = 1", { lp.TemporaryVariable("t t", "float32"), "..." })
-- Names of the generated code's own helpers and of the C implementation are reserved too.
for _, name in ipairs({ "loopy_floor_div_int32", "lpy_x", "__x", "_Bool", "int", "NAN", "int32_t", "linux" }) do
  h.expect_error("LoopyError", { "argument '" .. name .. "' is reserved in C" }, lp.make_kernel,
    "{ [i]: 0<=i<5 }", "out[i] = 1", { lp.ValueArg(name, "int32"), "..." })
end

-- Transformations that take new names: add_prefetch/precompute temporary_name, dim_arg_names, rename_argument,
-- iname transformations.
local knl = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]"), { a = "float32" })
local split = lp.split_iname(knl, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" })
h.expect_error("LoopyError", { "add_prefetch: temporary name 'x; system(\"id\")' is not a valid name" },
  lp.add_prefetch, split, "a", { "i_inner" }, { temporary_name = 'x; system("id")' })
h.expect_error("LoopyError", { "add_prefetch: temporary name 'loopy_old_val' is reserved in C" },
  lp.add_prefetch, split, "a", { "i_inner" }, { temporary_name = "loopy_old_val" })
h.expect_error("LoopyError", { "add_prefetch: dim_arg_names entry 'x-1' is not a valid name" },
  lp.add_prefetch, split, "a", { "i_inner" }, { dim_arg_names = { "x-1" } })
local rule = lp.make_kernel("{ [i]: 0<=i<n }", { "f(x) := 2*a[x]", "out[i] = f(i)" })
h.expect_error("LoopyError", { "precompute: temporary name 'f[0]' is not a valid name" }, lp.precompute,
  rule, "f", nil, { temporary_name = "f[0]" })
h.expect_error("LoopyError", { "rename_argument: argument name 'b/**/' is not a valid name" }, lp.rename_argument,
  knl, "a", "b/**/")
h.expect_error("LoopyError", { "rename_argument: argument name 'double' is reserved in C" }, lp.rename_argument,
  knl, "a", "double")
h.expect_error("LoopyError", { "split_iname: iname 'for' is reserved in C" }, lp.split_iname, knl, "i", 4,
  { outer_iname = "for" })

-- Instruction ids are not identifiers: in the code's comments they cannot end the comment (C's comments end at
-- the first "*/", as the pattern below does).
local barrier = lp.make_kernel("{ [i]: 0<=i<16 }", {
  "<float32> t[i] = a[i] {id=w*/ int evil; /*}",
  "out[i] = t[(i + 1) % 16] {id=r*/x, dep=w*/ int evil; /*}" },
  { lp.TemporaryVariable("t", "float32", { shape = 16, address_space = "local" }), "..." })
local tagged = lp.add_dtypes(lp.tag_inames(barrier, { i = "l.0" }), { a = "float32" })
local code = lp.generate_code(tagged)
h.check(not h.contains(code:gsub("/%*.-%*/", ""), "int evil"), "an instruction id ended a comment:\n%s", code)
h.check_contains(code, "barrier(")

-- dot took a graph path starting with '-' as an option. (CI installs graphviz; a machine without `dot` has
-- nothing to inject into.)
if os.execute("command -v dot >/dev/null 2>&1") then
  local graph = "-loom-injection-test.svg"
  os.remove(graph)
  h.check_equal(lp.show_dependency_graph(knl, graph), graph, "show_dependency_graph result")
  local f = io.open(graph)
  h.check(f ~= nil, "no graph written to '%s'", graph)
  f:close()
  os.remove(graph)
end

-- Compiler flags: free in an ordinary state, allow-listed once the state is restricted (for good).
lp.c.executor { cflags = { "-Wl,-O1" } }
lp.restrict_compiler_flags()
for _, flag in ipairs({ "-wrapper", "-B/tmp", "-fplugin=/tmp/x.so", "-fplugin-arg-x-y", "@/tmp/flags", "-o",
  "/tmp/x.so", "-I/etc", "-DFOO=system", "-Wl,-rpath,/tmp", "-include", "-specs=/tmp/s", "-fdump-tree-all",
  "-fprofile-generate=/tmp/p", "", "-fsanitize=address", "-fsanitize=undefined", "-mabi=ms", "-ffixed-rbx",
  "-fcall-used-rbx", "-fcall-saved-rax", "-finstrument-functions", "-mavx512f", "-march=skylake-avx512", "-m32",
  "-mcmodel=large", "-fpack-struct", "-fshort-enums", "-freg-struct-return", "-fno-pic", "-mregparm=3",
  "-std=c++17" }) do
  h.expect_error("ArgumentError", { "option 'cflags': flag '" .. flag .. "' is not allowed" }, lp.c.executor,
    { cflags = { "-O2", flag } })
  h.expect_error("ArgumentError", { "option 'build_options': flag '" .. flag .. "' is not allowed" },
    lp.set_options, knl, { build_options = { flag } })
end
h.expect_error("ArgumentError", { "option 'cc': '/bin/sh' is not allowed" }, lp.c.executor, { cc = "/bin/sh" })
local fast = lp.c.executor { cc = "cc", cflags = { "-O2", "-g", "-ffast-math", "-fno-math-errno", "-march=native",
  "-Wno-unused", "-std=c11", "-mtune=generic", "-mprefer-vector-width=256", "-funroll-loops", "-ffp-contract=fast",
  "-fno-tree-vectorize", "-Ofast" } }
local opts = lp.set_options(knl, { build_options = { "-cl-fast-relaxed-math", "-cl-std=CL1.2" } })
h.check_array(knl(fast, { a = a }), function(i) return 2 * i end, "allowed cflags")
h.check_array(opts(lp.cl.queue {}, { a = a }), function(i) return 2 * i end, "allowed build_options")

print("injection: ok")
