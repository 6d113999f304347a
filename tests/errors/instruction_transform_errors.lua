-- Mistakes with the instruction-ordering transformations and auto_test_vs_ref: selections that match no
-- instruction, unknown scopes and kinds (LoopyError, with loopy's messages), bad arguments and options
-- (ArgumentError).
local lp = require("loom")
local h = require("helpers")

local knl = lp.make_kernel("{ [i]: 0<=i<n }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[i]  {id=r}" },
  { lp.GlobalArg("t", { shape = "n" }), "..." })

-- add_dependency
h.expect_error("LoopyError", "no instructions found matching 'nope' (to add as dependencies)", lp.add_dependency, knl,
  "id:r", "nope")
h.expect_error("LoopyError", "no instructions found matching 'id:x*' (to which dependencies would be added)",
  lp.add_dependency, knl, "id:x*", "w")
h.expect_error("LoopyError", "invalid match expression 'writes:t and'", lp.add_dependency, knl, "writes:t and", "w")
h.expect_error("ArgumentError", "bad argument #3 to 'add_dependency'", lp.add_dependency, knl, "r", nil)

-- add_nosync
h.expect_error("LoopyError", "No match found for source specification 'id:nope'.", lp.add_nosync, knl, "local",
  "id:nope", "r")
h.expect_error("LoopyError", "No match found for sink specification 'nope'.", lp.add_nosync, knl, "local", "w", "nope")
h.expect_error("LoopyError", { "No nosync annotations were added", "force=True" }, lp.add_nosync, knl, "local", "r", "w")
h.expect_error("LoopyError", { "unknown scope 'shared'", "'local', 'global', 'any'" }, lp.add_nosync, knl, "shared",
  "w", "r")
h.expect_error("ArgumentError", "unknown option 'both'", lp.add_nosync, knl, "local", "w", "r", { both = true })

-- add_barrier
h.expect_error("LoopyError", "no instructions found matching 'id:z' (to which dependencies would be added)",
  lp.add_barrier, knl, "id:w", "id:z")
h.expect_error("LoopyError", "unknown synchronization_kind 'group'", lp.add_barrier, knl, "id:w", "id:r",
  { synchronization_kind = "group" })
h.expect_error("LoopyError", "unknown mem_kind 'private'", lp.add_barrier, knl, "id:w", "id:r", { mem_kind = "private" })
h.expect_error("LoopyError", "unknown iname 'k' in within_inames", lp.add_barrier, knl, "id:w", "id:r",
  { within_inames = { "k" } })
h.expect_error("ArgumentError", "unknown option 'kind'", lp.add_barrier, knl, "id:w", "id:r", { kind = "local" })
-- A global barrier inside a sequential loop moves the loop to the host; an unrolled loop cannot go there.
do
  local looped = lp.add_dtypes(lp.add_barrier(knl, "id:w", "id:r", { within_inames = "i" }), { a = "float32" })
  local _, info = lp.generate_code(looped)
  h.check_equal(#info.kernels, 2, "device kernels of a loop around a global barrier")
  h.expect_error("LoopyError", { "global barrier is inside the loop over 'i', tagged 'unr'", "must be sequential" },
    lp.generate_code, lp.tag_inames(lp.fix_parameters(looped, { n = 4 }), { i = "unr" }))
end

-- set_instruction_priority
h.expect_error("ArgumentError", "bad argument #3 to 'set_instruction_priority'", lp.set_instruction_priority, knl,
  "id:w", 1.5)
h.expect_error("LoopyError", "invalid match expression", lp.set_instruction_priority, knl, "id:w or", 1)

-- auto_test_vs_ref
do
  local ref = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]")
  local other = lp.make_kernel("{ [i]: 0<=i<n }", "b[i] = 2*a[i]")
  h.expect_error("LoopyError", "argument lists disagree at index 2 (1-based)", lp.auto_test_vs_ref, ref, other,
    { parameters = { n = 4 } })
  h.expect_error("LoopyError", "do not have the same number of arguments", lp.auto_test_vs_ref, ref,
    lp.make_kernel("{ [i]: 0<=i<4 }", "out[i] = 2*a[i]"), { parameters = { n = 4 } })
  h.expect_error("LoopyError", "argument lists disagree at index 1 (1-based): 'a' (float64) vs 'a' (float32)",
    lp.auto_test_vs_ref, ref, lp.add_dtypes(ref, { a = "float32" }), { parameters = { n = 4 } })
  h.expect_error("LoopyError", "value argument 'n' needs a value in 'parameters'", lp.auto_test_vs_ref, ref, ref, {})
  h.expect_error("ArgumentError", "unknown option 'param'", lp.auto_test_vs_ref, ref, ref, { param = { n = 4 } })
  h.expect_error("ArgumentError", "option 'exec'", lp.auto_test_vs_ref, ref, ref, { parameters = { n = 4 }, exec = 1 })
  h.expect_error("ArgumentError", "option 'exec' given with an executor argument", lp.auto_test_vs_ref, ref,
    lp.c.executor {}, ref, { parameters = { n = 4 }, exec = lp.c.executor {} })
  h.expect_error("ArgumentError", "option 'parameters'", lp.auto_test_vs_ref, ref, ref, { parameters = { n = "4" } })
  h.expect_error("LoopyError", "option 'dtypes' names 'b', which is not an argument", lp.auto_test_vs_ref, ref, ref,
    { parameters = { n = 4 }, dtypes = { b = "float32" } })
  h.expect_error("ArgumentError", "unknown dtype 'float16'", lp.auto_test_vs_ref, ref, ref,
    { parameters = { n = 4 }, dtypes = "float16" })
  h.expect_error("ArgumentError", "bad argument #1 to 'auto_test_vs_ref'", lp.auto_test_vs_ref, nil, ref)
  -- Value arguments need parameters; an error of a kernel run keeps its kind and says which kernel ran where.
  local indirect = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i] + m", { lp.ValueArg("m", "int32"), "..." })
  h.expect_error("LoopyError", "value argument 'm' needs a value", lp.auto_test_vs_ref, indirect, indirect,
    { parameters = { n = 4 } })
  h.expect_error("ArgumentError", { "running ref_knl on the c executor (n=4, m=1.5)", "'m'", "integer" },
    lp.auto_test_vs_ref, indirect, indirect, { parameters = { n = 4, m = 1.5 }, exec = lp.c.executor {} })
end

print("instruction_transform_errors: ok")
