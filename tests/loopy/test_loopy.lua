-- loopy's test/test_loopy.py (inducer/loopy f4d773c), translated to Loom test by test: each block is named
-- after its loopy function and runs on both executors (OpenCL via PoCL and C) where loopy runs the kernel.
--
-- Not ported, Python-only machinery: test_c_instruction, test_within_inames_and_reduction (CInstruction and
--   instructions built as pymbolic objects), test_call_with_no_returned_value, test_call_with_options
--   (register_callable), test_regression_no_ret_call_removal (a call of a Python callable f),
--   test_regression_persistent_hash, test_array_arg_extra_kwargs_persis_hash, test_obj_tagged_is_persistent_hashable
--   (LoopyKeyBuilder), test_barrier_in_overridden_get_grid_size_expanded_kernel (a grid-size override written in
--   Python), test_multi_argument_reduction_type_inference (TypeReader on pymbolic reductions),
--   test_temp_var_type_deprecated_usage (DeprecationWarnings of Python constructors), test_struct_assignment
--   (numpy struct dtypes), test_cached_written_variables_doesnt_carry_over_invalidly, test_translation_unit_pickle
--   (pickling), test_kernel_tagging (pytools tag classes), test_tunit_to_python, test_t_unit_to_python_with_substs
--   (Python code of a kernel), test_parse_type_cast, test_type_cast_parse_stringify_roundtrip (pymbolic TypeCast),
--   test_creation_kwargs (SubstitutionRule objects), test_unscheduled_insn_detection (instructions edited as
--   Python objects after linearization), test_einsum_parsing (einsum), test_dump_binary (loopy skips it),
--   test_vec_loops_surrounded_by_preds (an xfail in loopy).
-- Not ported, subject not in Loom's API (SPEC.md): test_make_copy_kernel, test_make_copy_kernel_with_offsets
--   (make_copy_kernel), test_finite_difference_expr_subst (fuse_kernels, map_domain),
--   test_unschedulable_kernel_detection (has_schedulable_iname_nesting, get_iname_duplication_options),
--   test_global_barrier_order_finding, test_global_barrier_error_if_unordered (get_global_barrier_order),
--   test_get_return_from_kernel_mapping (loopy.schedule.tools), test_dep_cycle_printing_and_error
--   (split_array_axis), test_save_with_base_storage,
--   test_missing_definition_check_respects_aliases, test_scalars_with_base_storage,
--   test_check_for_variable_access_ordering_with_aliasing, test_global_tv_with_base_storage_across_gbarrier,
--   test_global_temps_with_multiple_base_storages, test_no_barrier_err_for_global_temps_with_base_storage
--   (base_storage, alias_temporaries, allocate_temporaries_for_base_storage).
local lp = require("loom")
local h = require("helpers")

-- Ported tests that fail because of a Loom defect or a missing feature: kept below, not run, each with its
-- failure. Remove an entry once Loom passes it.
local PENDING = {
}

local port = require("loopy_port")
local test, run = port.suite(PENDING)
local auto_test = port.auto_test

-- The device code of knl (loopy's lp.generate_code_v2(knl).device_code()).
local function device_code(knl) return lp.generate_code_v2(knl):device_code() end

-- The number of device kernels knl is split into (loopy's len(cgr.device_programs)).
local function device_kernel_count(knl)
  local _, info = lp.generate_code(knl)
  return #info.kernels
end

-- loopy: test_globals_decl_once_with_multi_subprogram: a read-only global temporary with an initializer,
-- used by two device kernels (a barrier between them splits the kernel).
test("test_globals_decl_once_with_multi_subprogram", function()
  local a = lp.randn({ 16 }, "float64", 17)
  local cnst = lp.randn({ 16 }, "float64", 18)
  local knl = lp.make_kernel("{[i, ii]: 0<=i, ii<n}", [[
    out[i] = a[i]+cnst[i]{id=first}
    out[ii] = 2*out[ii]+cnst[ii]{id=second}
    ]], { lp.TemporaryVariable("cnst", nil, { initializer = cnst, address_space = "global", read_only = true }),
      lp.GlobalArg("out", nil, { is_input = false, shape = lp.auto }), "..." })
  knl = lp.fix_parameters(knl, { n = 16 })
  knl = lp.add_barrier(knl, "id:first", "id:second")
  knl = lp.split_iname(knl, "i", 2, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.split_iname(knl, "ii", 2, { outer_tag = "g.0", inner_tag = "l.0" })
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a })
    h.check_array(out, function(i) return 2 * (a:get(i) + cnst:get(i)) + cnst:get(i) end, "out on " .. name,
      { atol = 1e-15 })
  end)
end)

-- loopy: test_complicated_subst: expand_subst with a stack match expands only the tagged uses of g inside the
-- tagged use of h, which leaves one f, one g and two h rules (h and its copy for the tag-two call).
test("test_complicated_subst", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    f(x) := x*a[x]
    g(x) := 12 + f(x)
    h(x) := 1 + g(x) + 20*g$two(x)

    a[i] = h$one(i) * h$two(i)
    ]])
  knl = lp.expand_subst(knl, "... > id:h and tag:two > id:g and tag:two")
  local counts = {}
  for name in pairs(port.substitution_rules(knl)) do
    local letter = name:sub(1, 1)
    counts[letter] = (counts[letter] or 0) + 1
  end
  for letter, how_many in pairs({ f = 1, g = 1, h = 2 }) do
    h.check_equal(counts[letter], how_many, "rules starting with " .. letter .. " in\n" .. tostring(knl))
  end
end)

-- loopy: test_type_inference_no_artificial_doubles: float32 arithmetic generates no double.
test("test_type_inference_no_artificial_doubles", function()
  local prog = lp.make_kernel("{[i]: 0<=i<n}", [[
    <> bb = a[i] - b[i]
    c[i] = bb
    ]], { lp.GlobalArg("a", "float32", { shape = { "n" } }), lp.GlobalArg("b", "float32", { shape = { "n" } }),
      lp.GlobalArg("c", "float32", { shape = { "n" } }), lp.ValueArg("n", "int32") }, { assumptions = "n>=1" })
  local code = device_code(prog)
  h.check(not h.contains(code, "double"), "no double in:\n%s", code)
end)

-- loopy: test_type_inference_with_type_dependencies: temporaries typed from each other's assignments
-- (loopy's infer_unknown_types is part of Loom's preprocess_kernel).
test("test_type_inference_with_type_dependencies", function()
  local prog = lp.make_kernel("{[i]: i=0}", [[
    <>a = 99
    a = a + 1
    <>b = 0
    <>c = 1
    b = b + c + 1.0
    c = b + c
    <>d = b + 2 + 1j
    ]], "...")
  prog = lp.preprocess_kernel(prog)
  -- Deliberate deviation: loopy types d complex128 (Python's 1j is a complex128 that float32 does not narrow);
  -- in Loom an unsuffixed literal takes the type of what it meets, 1.0 and 1j alike, so float32 b + 1j is
  -- complex64 (docs/tutorial.md, "Expression syntax"; cast(complex128, ...) gives complex128).
  for name, dtype in pairs({ a = "int32", b = "float32", c = "float32", d = "complex64" }) do
    h.check_equal(port.temporary(prog, name).dtype, dtype, "dtype of " .. name)
  end
end)

-- loopy: test_sized_and_complex_literals: 5jf (complex64), 5j (complex128) and 5f (float32) literals.
test("test_sized_and_complex_literals", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    <> aa = 5jf
    <> bb = 5j
    a[i] = imag(aa)
    b[i] = imag(bb)
    c[i] = 5f
    ]], { lp.GlobalArg("a", "float32", { shape = { "n" } }), lp.GlobalArg("b", "float32", { shape = { "n" } }),
      lp.GlobalArg("c", "float32", { shape = { "n" } }), lp.ValueArg("n", "int32") }, { assumptions = "n>=1" })
  auto_test(knl, knl, { parameters = { n = 5 } })
end)

-- loopy: test_simple_side_effect: an array both read and written generates.
test("test_simple_side_effect", function()
  local knl = lp.make_kernel("{[i]: 0<=i<100}", "a[i] = a[i] + 1", { lp.GlobalArg("a", "float32", { shape = { 100 } }) })
  device_code(knl)
end)

-- loopy: test_owed_barriers: a temporary written over l.0 generates.
test("test_owed_barriers", function()
  local knl = lp.make_kernel("{[i]: 0<=i<100}", { "<float32> z[i] = a[i]" },
    { lp.GlobalArg("a", "float32", { shape = { 100 } }) })
  knl = lp.tag_inames(knl, { i = "l.0" })
  device_code(knl)
end)

-- loopy: test_multi_cse: a prefetch of a (no sweep inames) read twice in one expression generates.
test("test_multi_cse", function()
  local knl = lp.make_kernel("{[i]: 0<=i<100}", { "<float32> z[i] = a[i] + a[i]**2" },
    { lp.GlobalArg("a", "float32", { shape = { 100 } }) })
  knl = lp.split_iname(knl, "i", 16, { inner_tag = "l.0" })
  knl = lp.add_prefetch(knl, "a", {})
  device_code(knl)
end)

-- loopy: test_bare_data_dependency: a domain bounded by a temporary set from an argument.
test("test_bare_data_dependency", function()
  local knl = lp.make_kernel({ "[znirp] -> {[i]: 0<=i<znirp}" }, { "<> znirp = n", "a[i] = 1" },
    { lp.GlobalArg("a", "float32", { shape = "n", order = "C" }), lp.ValueArg("n", "int32") })
  local n = 20000
  h.on_each_executor(function(exec, name)
    local a = knl(exec, { n = n })
    h.check_array(a, function() return 1 end, "a on " .. name, { shape = { n } })
  end)
end)

-- loopy: test_ilp_write_race_detection_global: a[i] written over the ilp iname j races (as an error here:
-- the warning's class is its kind).
test("test_ilp_write_race_detection_global", function()
  local knl = lp.make_kernel("[n] -> {[i,j]: 0<=i,j<n }", { "a[i] = 5+i+j" },
    { lp.GlobalArg("a", "float32"), lp.ValueArg("n", "int32") }, { assumptions = "n>=1", name = "loopy_kernel" })
  knl = lp.tag_inames(knl, { j = "ilp" })
  knl = lp.preprocess_kernel(knl)
  lp.set_warnings("error")
  local ok, err = pcall(lp.get_one_linearized_kernel, knl)
  lp.set_warnings("default")
  h.check(not ok and type(err) == "table" and err.kind == "WriteRaceConditionWarning",
    "expected a WriteRaceConditionWarning, got %s", tostring(err))
end)

-- loopy: test_ilp_write_race_avoidance_local: a temporary written over l.0 and ilp gets both axes.
test("test_ilp_write_race_avoidance_local", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i<16 and 0<=j<17 }", { "<> a[i] = 5+i+j" }, {}, { name = "loopy_kernel" })
  knl = lp.tag_inames(knl, { i = "l.0", j = "ilp" })
  knl = lp.preprocess_kernel(knl)
  h.check_equal(table.concat(port.temporary(knl, "a").shape, ","), "16,17", "shape of a")
end)

-- loopy: test_ilp_write_race_avoidance_private: a scalar temporary written over ilp gets its axis.
test("test_ilp_write_race_avoidance_private", function()
  local knl = lp.make_kernel("{[j]: 0<=j<16 }", { "<> a = 5+j" }, {}, { name = "loopy_kernel" })
  knl = lp.tag_inames(knl, { j = "ilp" })
  knl = lp.preprocess_kernel(knl)
  h.check_equal(table.concat(port.temporary(knl, "a").shape, ","), "16", "shape of a")
end)

-- loopy: test_write_parameter: assigning to the domain parameter n is an error (loopy's RuntimeError is met by
-- LoopyError; loopy raises it at code generation, Loom already in make_kernel).
test("test_write_parameter", function()
  h.expect_error("LoopyError", "writes value argument 'n'", function()
    local knl = lp.make_kernel("{[i,j]: 0<=i,j<n }", [[
      a = sum((i,j), i*j)
      b = sum(i, sum(j, i*j))
      n = 15
      ]], { lp.GlobalArg("a", "float32", { shape = {} }), lp.GlobalArg("b", "float32", { shape = {} }),
        lp.ValueArg("n", "int32") }, { assumptions = "n>=1" })
    device_code(knl)
  end)
end)

-- The kernel of loopy's three argument guessing tests.
local GUESSING = [[
  a = 1.5 + sum((i,j), i*j)
  b[i, j] = i*j
  c[i+j, j] = b[j,i]
  ]]

-- loopy: test_arg_shape_guessing: shapes lp.auto found from the accesses.
test("test_arg_shape_guessing", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n }", GUESSING, { lp.GlobalArg("a", nil, { shape = lp.auto }),
    lp.GlobalArg("b", nil, { shape = lp.auto }), lp.GlobalArg("c", nil, { shape = lp.auto }), lp.ValueArg("n") },
    { assumptions = "n>=1" })
  device_code(knl)
end)

-- loopy: test_arg_guessing: all arguments guessed.
test("test_arg_guessing", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n }", GUESSING, nil, { assumptions = "n>=1" })
  device_code(knl)
end)

-- loopy: test_arg_guessing_with_reduction: guessed arguments read by reductions (both inames forms).
test("test_arg_guessing_with_reduction", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n }", [[
    a = 1.5 + simul_reduce(sum, (i,j), i*j)
    d = 1.5 + simul_reduce(sum, [i,j], b[i,j])
    b[i, j] = i*j
    c[i+j, j] = b[j,i]
    ]], nil, { assumptions = "n>=1" })
  device_code(knl)
end)

-- loopy: test_unknown_arg_shape: an array indexed through temporaries gets a shape from the assumptions.
test("test_unknown_arg_shape", function()
  local bsize = 256
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<m}", [[
    for i
        <int32> gid = i/256
        <int32> start = gid*256
        for j
            a[start + j] = a[start + j] + j
        end
    end
    ]], nil, { seq_dependencies = true, name = "uniform_l",
      assumptions = string.format("m<=%d and m>=1 and n mod %d = 0", bsize, bsize) })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32" })
  device_code(knl)
end)

-- loopy: test_nonlinear_index: a[i*i] generates.
test("test_nonlinear_index", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n }", "a[i*i] = 17", { lp.GlobalArg("a", nil, { shape = "n" }), lp.ValueArg("n") },
    { assumptions = "n>=1" })
  device_code(knl)
end)

-- loopy: test_offsets_and_slicing: arrays with an offset and a row stride (views into larger arrays).
test("test_offsets_and_slicing", function()
  local n = 20
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<m }", "b[i,j] = 2*a[i,j]",
    nil, { assumptions = "n>=1 and m>=1", default_offset = lp.auto })
  knl = lp.tag_array_axes(knl, "a,b", "stride:auto,stride:1")
  knl = lp.add_dtypes(knl, { a = "float64" })
  local a_full = lp.rand({ n, n }, "float64", 1)
  h.on_each_executor(function(exec, name)
    local b_full = lp.rand({ n, n }, "float64", 2)
    local b_before = b_full:copy()
    local a = a_full:view({ { 3, 10 }, { 5, 10 } })
    local b = b_full:view({ { 6, 13 }, { 9, 14 } })
    knl(exec, { a = a, b = b })
    h.check_array(b_full, function(i, j)
      if i >= 6 and i < 13 and j >= 9 and j < 14 then return 2 * a_full:get(i - 3, j - 4) end
      return b_before:get(i, j)
    end, "b_full on " .. name)
  end)
end)

-- loopy: test_vector_ilp_with_prefetch: a prefetch over l.0 and an ilp iname, with comma'd arguments.
test("test_vector_ilp_with_prefetch", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]",
    { lp.GlobalArg("out,a", "float32", { shape = lp.auto }), "..." })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 128, { inner_tag = "l.0" })
  knl = lp.split_iname(knl, "i_outer", 4, { outer_tag = "g.0", inner_tag = "ilp" })
  knl = lp.add_prefetch(knl, "a", { "i_inner", "i_outer_inner" }, { default_tag = "l.auto" })
  auto_test(ref_knl, knl, { parameters = { n = 1024 } })
end)

-- Whether `list` holds `name`.
local function has(list, name)
  for _, x in ipairs(list) do
    if x == name then return true end
  end
  return false
end

-- loopy: test_dependent_domain_insn_iname_finding: an instruction in a domain nested in temporaries runs
-- inside the outer iname those temporaries need; arguments without a shape.
test("test_dependent_domain_insn_iname_finding", function()
  local prog = lp.make_kernel({ "{[isrc_box]: 0<=isrc_box<nsrc_boxes}", "{[isrc]: isrc_start<=isrc<isrc_end}" }, [[
    <> src_ibox = source_boxes[isrc_box]
    <> isrc_start = box_source_starts[src_ibox]
    <> isrc_end = isrc_start+box_source_counts_nonchild[src_ibox]
    <> strength = strengths[isrc] {id=set_strength}
    ]], { lp.GlobalArg("box_source_starts,box_source_counts_nonchild", nil, { shape = lp.none }),
      lp.GlobalArg("strengths", nil, { shape = "nsources" }), "..." }, { name = "loopy_kernel" })
  h.check(has(port.instruction(prog, "set_strength").within_inames, "isrc_box"), "set_strength runs in isrc_box")
  prog = lp.add_dtypes(prog, { source_boxes = "int32", box_source_starts = "int32",
    box_source_counts_nonchild = "int32", strengths = "float64", nsources = "int32" })
  device_code(prog)
end)

-- loopy: test_inames_deps_from_write_subscript: a write indexed by a temporary set in i runs in i.
test("test_inames_deps_from_write_subscript", function()
  local prog = lp.make_kernel("{[i,j]: 0<=i,j<n}", [[
    <> src_ibox = source_boxes[i]
    <int32> something = 5
    a[src_ibox] = sum(j, something) {id=myred}
    ]], { lp.GlobalArg("box_source_starts,box_source_counts_nonchild,a", nil, { shape = lp.none }), "..." },
    { name = "loopy_kernel" })
  h.check(has(port.instruction(prog, "myred").within_inames, "i"), "myred runs in i")
end)

-- loopy: test_modulo_indexing: a[(i+j)%n] generates.
test("test_modulo_indexing", function()
  local knl = lp.make_kernel("{[i,j]: 0<=i<n and 0<=j<5}", "b[i] = sum(j, a[(i+j)%n])",
    { lp.GlobalArg("a", nil, { shape = "n" }), "..." })
  knl = lp.add_dtypes(knl, { a = "float32" })
  device_code(knl)
end)

-- loopy: test_vector_types (parametrized over vec_len, one test each): an output with a vector axis.
for _, vec_len in ipairs({ 2, 3, 4, 8, 16 }) do
  test("test_vector_types[" .. vec_len .. "]", function()
    local knl = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<vec_len }", "out[i,j] = 2*a[i,j]",
      { lp.GlobalArg("a", "float32", { shape = lp.auto }), lp.GlobalArg("out", "float32", { shape = lp.auto }), "..." })
    knl = lp.fix_parameters(knl, { vec_len = vec_len })
    local ref_knl = knl
    knl = lp.tag_array_axes(knl, "out", "c,vec")
    knl = lp.tag_inames(knl, { j = "unr" })
    knl = lp.split_iname(knl, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
    auto_test(ref_knl, knl, { parameters = { n = 20000 } })
  end)
end

-- loopy: test_conditional: instructions predicated on a temporary (if=), one forced into i only (inames=).
test("test_conditional", function()
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", [[
    <> my_a = a[i,j] {id=read_a}
    <> a_less_than_zero = my_a < 0 {dep=read_a,inames=i:j}
    my_a = 2*my_a {id=twice_a,dep=read_a,if=a_less_than_zero}
    my_a = my_a+1 {id=aplus,dep=twice_a,if=a_less_than_zero}
    out[i,j] = 2*my_a {dep=aplus}
    ]], { lp.GlobalArg("a", "float32", { shape = lp.auto }), lp.GlobalArg("out", "float32", { shape = lp.auto }), "..." })
  auto_test(knl, knl, { parameters = { n = 200 } })
end)

-- loopy: test_conditional_two_ways: an if= inside an if block (loopy compares the kernel with itself).
test("test_conditional_two_ways", function()
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", [[
    <> b = i > 3
    <> c = i > 1
    out[i] = a[i] {id=init}
    if b
        out[i] = 2*a[i]  {if=c,dep=init}
    end
    ]], { lp.GlobalArg("a", "float32", { shape = lp.auto }), lp.GlobalArg("out", "float32", { shape = lp.auto }), "..." })
  auto_test(knl, knl, { parameters = { n = 200 } })
end)

-- loopy: test_ilp_loop_bound: a joint bound of a split whose inner iname is ilp.
test("test_ilp_loop_bound", function()
  local knl = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<n }", "out[i,k] = sum(j, a[i,j]*b[j,k])",
    { lp.GlobalArg("a,b", "float32", { shape = lp.auto }), "..." }, { assumptions = "n>=1" })
  local ref_knl = knl
  knl = lp.prioritize_loops(knl, "j,i,k")
  knl = lp.split_iname(knl, "k", 4, { inner_tag = "ilp" })
  auto_test(ref_knl, knl, { parameters = { n = 200 } })
end)

-- loopy: test_arg_shape_uses_assumptions: out's static shape needs n>=1.
test("test_arg_shape_uses_assumptions", function()
  lp.make_kernel("{ [i,j]: 0<=i,j<n }", [[
    out[i,j] = 2*a[i,j]
    out[0,0] = 13.0
    ]], nil, { assumptions = "n>=1" })
end)

-- loopy: test_slab_decomposition_does_not_double_execute: a[i] = 2*a[i] split with slabs runs each i once.
test("test_slab_decomposition_does_not_double_execute", function()
  local ref_knl = lp.make_kernel("{ [i]: 0<=i<n }", "a[i] = 2*a[i]", nil, { assumptions = "n>=1" })
  for _, outer_tag in ipairs({ "for", "g.0" }) do
    local knl = lp.split_iname(ref_knl, "i", 4, { slabs = { 0, 1 }, inner_tag = "unr", outer_tag = outer_tag })
    knl = lp.prioritize_loops(knl, "i_outer")
    h.on_each_executor(function(exec, name)
      local a = lp.zeros({ 20 }, "float32")
      a:fill(17)
      local a_ref, a_knl = a:copy(), a:copy()
      knl(exec, { a = a_knl })
      ref_knl(exec, { a = a_ref })
      h.check_array(a_knl, a_ref, outer_tag .. " on " .. name)
    end)
  end
end)

-- loopy: test_multiple_writes_to_local_temporary: two writes to one temporary over l.0 generate.
test("test_multiple_writes_to_local_temporary", function()
  local knl = lp.make_kernel("{[i]: 0<=i<5}", [[
    <> temp[i, 0] = 17
    temp[i, 1] = 15
    ]])
  knl = lp.tag_inames(knl, { i = "l.0" })
  device_code(knl)
end)

-- loopy: test_auto_test_can_detect_problems: a kernel that writes only the diagonal fails the automatic test.
test("test_auto_test_can_detect_problems", function()
  local ref_knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", "a[i,j] = 25")
  local knl = lp.make_kernel("{[i]: 0<=i<n}", "a[i,i] = 25")
  ref_knl = lp.add_and_infer_dtypes(ref_knl, { a = "float32" })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32" })
  h.on_each_executor(function(exec)
    h.expect_error("AutomaticTestFailure", "a", lp.auto_test_vs_ref, ref_knl, exec, knl, { parameters = { n = 123 } })
  end)
end)

-- loopy: test_auto_test_zero_warmup_rounds: auto_test_vs_ref with no warm-up runs.
test("test_auto_test_zero_warmup_rounds", function()
  local ref_knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", "a[i,j] = 25")
  ref_knl = lp.add_and_infer_dtypes(ref_knl, { a = "float32" })
  auto_test(ref_knl, ref_knl, { parameters = { n = 12 }, warmup_rounds = 0 })
end)

-- loopy: test_variable_size_temporary: a prefetch of all of a (n x n) generates a parameter-sized temporary.
test("test_variable_size_temporary", function()
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<n }", "out[i] = sum(j, a[i,j])")
  knl = lp.add_and_infer_dtypes(knl, { a = "float32" })
  knl = lp.add_prefetch(knl, "a[:,:]", nil, { default_tag = nil })
  device_code(knl)
end)

-- loopy: test_atomic (parametrized over the dtype, one test each): atomic increments of out[i%20] from g.0.
for _, dtype in ipairs({ "int32", "int64", "float32", "float64" }) do
  test("test_atomic[" .. dtype .. "]", function()
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i%20] = out[i%20] + 2*a[i] {atomic}",
      { lp.GlobalArg("out", dtype, { shape = lp.auto, for_atomic = true }), lp.GlobalArg("a", dtype, { shape = lp.auto }),
        "..." }, { assumptions = "n>0" })
    local ref_knl = knl
    knl = lp.split_iname(knl, "i", 512)
    knl = lp.split_iname(knl, "i_inner", 128, { outer_tag = "unr", inner_tag = "g.0" })
    auto_test(ref_knl, knl, { parameters = { n = 10000 } })
  end)
end

-- loopy: test_atomic_load (parametrized over the dtype, one test each): atomic loads and stores of a local
-- temporary across local barriers (loopy skips it on PoCL for pocl issue 1509; Loom runs it).
for _, dtype in ipairs({ "int32", "int64", "float32", "float64" }) do
  test("test_atomic_load[" .. dtype .. "]", function()
    local n = 10
    local knl = lp.make_kernel("{ [j]: 0<=j<n}", [[
      for j
          temp = 0 {id=init, atomic}
          ... lbarrier {id=lb1, dep=init}
          temp = temp + 1 {id=temp_sum, dep=lb1, atomic}
          ... lbarrier {id=lb2, dep=temp_sum}
          out[j] = temp {id=final, dep=lb2, atomic,nosync=init:temp_sum}
      end
      ]], { lp.GlobalArg("out", dtype, { shape = lp.auto, for_atomic = true }),
        lp.TemporaryVariable("temp", dtype, { for_atomic = true, address_space = "local" }), "..." },
      { silenced_warnings = { "write_race(temp_sum)", "write_race(init)" } })
    knl = lp.fix_parameters(knl, { n = n })
    knl = lp.tag_inames(knl, { j = "l.0" })
    h.on_each_executor(function(exec, name)
      local out = knl(exec, {})
      h.check_array(out, function() return n end, "out on " .. name)
    end)
  end)
end

-- loopy: test_atomic_init (parametrized over the dtype, one test each): an atomic initialization generates.
for _, dtype in ipairs({ "int32", "int64", "float32", "float64" }) do
  test("test_atomic_init[" .. dtype .. "]", function()
    local knl = lp.make_kernel("{ [i]: 0<=i<100 }", "out[i%4] = 0 {id=init, atomic=init}",
      { lp.GlobalArg("out", dtype, { shape = lp.auto, for_atomic = true }), "..." },
      { silenced_warnings = { "write_race(init)" } })
    knl = lp.split_iname(knl, "i", 4, { inner_tag = "l.0" })
    device_code(knl)
  end)
end

-- loopy: test_literal_local_barrier: a kernel of only a local barrier runs.
test("test_literal_local_barrier", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
        ... lbarrier
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.fix_parameters(knl, { n = 128 })
  auto_test(knl, knl, { parameters = { n = 5 } })
end)

-- loopy: test_local_barrier_mem_kind: mem_kind picks the fence of the OpenCL barrier.
test("test_local_barrier_mem_kind", function()
  for _, case in ipairs({ { "", "CLK_LOCAL_MEM_FENCE" }, { "global", "CLK_GLOBAL_MEM_FENCE" },
    { "local", "CLK_LOCAL_MEM_FENCE" } }) do
    local insn = "... lbarrier"
    if case[1] ~= "" then insn = insn .. "{mem_kind=" .. case[1] .. "}" end
    local knl = lp.make_kernel("{ [i]: 0<=i<n }", "for i\n  " .. insn .. "\nend", nil, { seq_dependencies = true })
    h.check_contains(device_code(knl), "barrier(" .. case[2] .. ")")
  end
end)

-- loopy: test_kernel_splitting: a global barrier splits the kernel in two device kernels.
test("test_kernel_splitting", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
        c[i] = a[i + 1]
        ... gbarrier
        out[i] = c[i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", c = "float32", out = "float32", n = "int32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
  h.check_equal(device_kernel_count(knl), 2, "device kernels")
  auto_test(ref_knl, knl, { parameters = { n = 5 } })
end)

-- loopy: test_kernel_splitting_with_loop: global barriers inside the sequential loop k.
test("test_kernel_splitting_with_loop", function()
  local knl = lp.make_kernel("{ [i,k]: 0<=i<n and 0<=k<3 }", [[
    for i, k
        ... gbarrier
        c[k,i] = a[k, i + 1]
        ... gbarrier
        out[k,i] = c[k,i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", c = "float32", out = "float32", n = "int32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
  h.check_equal(device_kernel_count(knl), 2, "device kernels")
  auto_test(ref_knl, knl, { parameters = { n = 5 } })
end)

-- loopy's save_and_reload_temporaries_test: saves and reloads the temporaries live across global barriers,
-- linearizes and runs the kernel; out must be want(i0, ...) everywhere.
local function save_and_reload_temporaries_test(prog, want)
  prog = lp.save_and_reload_temporaries(prog)
  prog = lp.get_one_linearized_kernel(prog)
  h.on_each_executor(function(exec, name)
    local out = prog(exec, {})
    h.check_array(out, want, "out on " .. name)
  end)
end

-- loopy: test_save_of_private_scalar (parametrized over hw_loop, one test each): a private scalar live across
-- a global barrier, in a sequential or a g.0 loop.
for _, hw_loop in ipairs({ true, false }) do
  test("test_save_of_private_scalar[" .. tostring(hw_loop) .. "]", function()
    local prog = lp.make_kernel("{ [i]: 0<=i<8 }", [[
      for i
          <>t = i
          ... gbarrier
          out[i] = t
      end
      ]], nil, { seq_dependencies = true })
    if hw_loop then prog = lp.tag_inames(prog, { i = "g.0" }) end
    save_and_reload_temporaries_test(prog, function(i) return i end)
  end)
end

-- loopy: test_save_of_private_array: a private array live across a global barrier in a sequential loop.
test("test_save_of_private_array", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<8 }", [[
    for i
        <>t[i] = i
        ... gbarrier
        out[i] = t[i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t", "private")
  save_and_reload_temporaries_test(knl, function(i) return i end)
end)

-- loopy: test_save_of_private_array_in_hw_loop: a private array live across a global barrier in a g.0 loop.
test("test_save_of_private_array_in_hw_loop", function()
  local knl = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<8 }", [[
    for i
        for j
           <>t[j] = j
        end
        ... gbarrier
        for k
            out[i,k] = t[k]
        end
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.tag_inames(knl, { i = "g.0" })
  knl = lp.set_temporary_address_space(knl, "t", "private")
  save_and_reload_temporaries_test(knl, function(_, k) return k end)
end)

local MULTIDIM = [[
  for i
      for j, k
         <>t[j,k] = k
      end
      ... gbarrier
      for l, m
          out[i,l,m] = t[l,m]
      end
  end
  ]]

-- loopy: test_save_of_private_multidim_array: a 2-d private array across a global barrier, sequential i.
test("test_save_of_private_multidim_array", function()
  local knl = lp.make_kernel("{ [i,j,k,l,m]: 0<=i,j,k,l,m<8 }", MULTIDIM, nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t", "private")
  save_and_reload_temporaries_test(knl, function(_, _, m) return m end)
end)

-- loopy: test_save_of_private_multidim_array_in_hw_loop: the same with i on g.0.
test("test_save_of_private_multidim_array_in_hw_loop", function()
  local knl = lp.make_kernel("{ [i,j,k,l,m]: 0<=i,j,k,l,m<8 }", MULTIDIM, nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t", "private")
  knl = lp.tag_inames(knl, { i = "g.0" })
  save_and_reload_temporaries_test(knl, function(_, _, m) return m end)
end)

-- loopy: test_save_of_multiple_private_temporaries (parametrized over hw_loop, one test each): a private
-- array and a private scalar live across global barriers, some inside the sequential loop j.
for _, hw_loop in ipairs({ true, false }) do
  test("test_save_of_multiple_private_temporaries[" .. tostring(hw_loop) .. "]", function()
    local knl = lp.make_kernel("{ [i,j,k]: 0<=i,j,k<10 }", [[
      for i
          for k
              <> t_arr[k] = k
          end
          <> t_scalar = 1
          for j
              ... gbarrier
              out[j] = t_scalar
              ... gbarrier
              t_scalar = 10
          end
          ... gbarrier
          <> flag = i == 9
          out[i] = t_arr[i] {if=flag}
      end
      ]], nil, { seq_dependencies = true })
    knl = lp.set_temporary_address_space(knl, "t_arr", "private")
    if hw_loop then knl = lp.tag_inames(knl, { i = "g.0" }) end
    local result = { 1, 10, 10, 10, 10, 10, 10, 10, 10, 9 }
    save_and_reload_temporaries_test(knl, function(i) return result[i + 1] end)
  end)
end

-- loopy: test_save_of_local_array: a local array across a global barrier.
test("test_save_of_local_array", function()
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<8 }", [[
    for i, j
        <>t[2*j] = j
        t[2*j+1] = j
        ... gbarrier
        out[i] = t[2*i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t", "local")
  knl = lp.tag_inames(knl, { i = "g.0", j = "l.0" })
  save_and_reload_temporaries_test(knl, function(i) return i end)
end)

-- loopy: test_save_of_local_array_with_explicit_local_barrier: the same with a local barrier before the
-- second write.
test("test_save_of_local_array_with_explicit_local_barrier", function()
  local knl = lp.make_kernel("{ [i,j]: 0<=i,j<8 }", [[
    for i, j
        <>t[2*j] = j
        ... lbarrier
        t[2*j+1] = t[2*j]
        ... gbarrier
        out[i] = t[2*i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t", "local")
  knl = lp.tag_inames(knl, { i = "g.0", j = "l.0" })
  save_and_reload_temporaries_test(knl, function(i) return i end)
end)

-- loopy: test_save_local_multidim_array: a 2-d local array between global barriers in sequential k.
test("test_save_local_multidim_array", function()
  local knl = lp.make_kernel("{ [i,j,k]: 0<=i<2 and 0<=k<3 and 0<=j<2}", [[
    for i, j, k
        ... gbarrier
        <> t_local[k,j] = 1
        ... gbarrier
        out[k,i*2+j] = t_local[k,j]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.set_temporary_address_space(knl, "t_local", "local")
  knl = lp.tag_inames(knl, { j = "l.0", i = "g.0" })
  save_and_reload_temporaries_test(knl, function() return 1 end)
end)

-- loopy: test_save_ambiguous_storage_requirements: a local temporary read over a duplicate of its l.0 iname
-- cannot be saved.
test("test_save_ambiguous_storage_requirements", function()
  local knl = lp.make_kernel("{[i,j]: 0 <= i < 10 and 0 <= j < 10}", [[
    <>a[j] = j
    ... gbarrier
    out[i,j] = a[j]
    ]], nil, { seq_dependencies = true })
  knl = lp.tag_inames(knl, { i = "g.0", j = "l.0" })
  knl = lp.duplicate_inames(knl, "j", { within = "writes:out", tags = { j = "l.0" } })
  knl = lp.set_temporary_address_space(knl, "a", "local")
  h.expect_error("LoopyError", {}, lp.save_and_reload_temporaries, knl)
end)

-- loopy: test_save_across_inames_with_same_tag: a temporary written over i and read over its l.0 duplicate.
test("test_save_across_inames_with_same_tag", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < 10}", [[
    <>a[i] = i
    ... gbarrier
    out[i] = a[i]
    ]], "...", { seq_dependencies = true })
  knl = lp.tag_inames(knl, { i = "l.0" })
  knl = lp.duplicate_inames(knl, "i", { within = "reads:a", tags = { i = "l.0" } })
  save_and_reload_temporaries_test(knl, function(i) return i end)
end)

-- loopy: test_missing_temporary_definition_detection: a private temporary read after a global barrier
-- without save_and_reload_temporaries.
test("test_missing_temporary_definition_detection", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<10 }", [[
    for i
        <> t = 1
        ... gbarrier
        out[i] = t
    end
    ]], nil, { seq_dependencies = true })
  h.expect_error("MissingDefinitionError", "'t'", lp.generate_code_v2, knl)
end)

-- loopy: test_global_temporary: a global temporary carries values across a global barrier.
test("test_global_temporary", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<n}", [[
    for i
        <> c[i] = a[i + 1]
        ... gbarrier
        out[i] = c[i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", c = "float32", out = "float32", n = "int32" })
  knl = lp.set_temporary_address_space(knl, "c", "global")
  local ref_knl = knl
  knl = lp.split_iname(knl, "i", 128, { outer_tag = "g.0", inner_tag = "l.0" })
  h.check_equal(device_kernel_count(knl), 2, "device kernels")
  auto_test(ref_knl, knl, { parameters = { n = 5 } })
end)

-- loopy: test_assign_to_linear_subscript: a[[i*n + i]] writes what a[i,i] writes.
test("test_assign_to_linear_subscript", function()
  local knl1 = lp.make_kernel("{ [i]: 0<=i<n}", "a[i,i] = 1")
  local knl2 = lp.make_kernel("{ [i]: 0<=i<n}", "a[[i*n + i]] = 1", { lp.GlobalArg("a", nil, { shape = "n,n" }), "..." })
  h.on_each_executor(function(exec, name)
    local a1, a2 = lp.zeros({ 10, 10 }, "float32"), lp.zeros({ 10, 10 }, "float32")
    knl1(exec, { a = a1 })
    knl2(exec, { a = a2 })
    h.check_array(a2, a1, "a2 on " .. name)
  end)
end)

-- loopy: test_sequential_dependencies: seq_dependencies orders the instructions of a loop.
test("test_sequential_dependencies", function()
  local prog = lp.make_kernel("{[i]: 0<=i<n}", [[
    for i
        <> aa = 5jf
        <> bb = 5j
        a[i] = imag(aa)
        b[i] = imag(bb)
        c[i] = 5f
    end
    ]], nil, { seq_dependencies = true })
  prog:stringify({ with_dependencies = true })
  auto_test(prog, prog, { parameters = { n = 5 } })
end)

-- loopy: test_nop: a nop instruction joins two dependencies.
test("test_nop", function()
  local knl = lp.make_kernel("{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}", [[
    for itrip,i
        <> z[i] = z[i+1] + z[i]  {id=wr_z}
        <> v[i] = 11  {id=wr_v}
        ... nop {dep=wr_z:wr_v,id=yoink}
        z[i] = z[i] - z[i+1] + v[i]  {dep=yoink}
    end
    ]])
  knl = lp.fix_parameters(knl, { n = 15 })
  knl = lp.add_and_infer_dtypes(knl, { z = "float64" })
  auto_test(knl, knl, { parameters = { ntrips = 5 } })
end)

-- loopy: test_global_barrier: global barriers inside the sequential loop itrip make z and v global.
-- Deliberate deviation (issue 33): each update of z reads z[i+1], which work-item i+1 (of another group at a
-- group's edge) overwrites in the same device kernel: loopy accepts the race, Loom refuses it
-- (DependenceViolationError). The kernel here states with a nosync on each update that the race is meant.
test("test_global_barrier", function()
  local text = [[
    for i
        for itrip
            ... gbarrier {id=top}
            <> z[i] = z[i+1] + z[i]  {id=wr_z,dep=top%s}
            <> v[i] = 11  {id=wr_v,dep=top}
            ... gbarrier {id=yoink,dep=wr_z:wr_v}
            z[i] = z[i] - z[i+1] + v[i] {id=iupd, dep=yoink%s}
        end
        ... gbarrier {dep=iupd,id=postloop}
        z[i] = z[i] - z[i+1] + v[i]  {dep=postloop%s}
    end
    ]]
  local function racy(knl)
    knl = lp.fix_parameters(knl, { ntrips = 3 })
    knl = lp.add_and_infer_dtypes(knl, { z = "float64" })
    return lp.split_iname(knl, "i", 256, { outer_tag = "g.0", inner_tag = "l.0" })
  end
  h.expect_error("DependenceViolationError", { "of 'wr_z' writes z[", "another work-group (i_outer on g.0)" },
    lp.generate_code, racy(lp.make_kernel("{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}", text:format("", "", ""))))
  local knl = lp.make_kernel("{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}",
    text:format(", nosync=wr_z", ", nosync=iupd", ", id=last, nosync=last"))
  knl = lp.fix_parameters(knl, { ntrips = 3 })
  knl = lp.add_and_infer_dtypes(knl, { z = "float64" })
  local ref_knl = knl
  ref_knl = lp.set_temporary_address_space(ref_knl, "z", "global")
  ref_knl = lp.set_temporary_address_space(ref_knl, "v", "global")
  knl = lp.split_iname(knl, "i", 256, { outer_tag = "g.0", inner_tag = "l.0" })
  knl = lp.preprocess_kernel(knl)
  h.check_equal(port.temporary(knl, "z").address_space, "global", "address space of z")
  h.check_equal(port.temporary(knl, "v").address_space, "global", "address space of v")
  auto_test(ref_knl, knl, { parameters = { ntrips = 5, n = 10 } })
end)

-- loopy: test_missing_global_barrier: a global temporary read across work-groups with no global barrier.
-- loopy raises MissingBarrierError because no global barrier lies between iupd and the last update in the
-- linearization. Loom refuses the kernel too, for the reason that makes it wrong (issue 33): the host loop
-- i_inner launches iupd once per i_inner for all groups, so iupd at (i_outer=1, i_inner=0) overwrites z[256]
-- in the first launch, before iupd at (i_outer=0, i_inner=255), which comes first in the kernel's order,
-- reads its old value in the last one. (Loom generated this kernel before, computing another result.)
test("test_missing_global_barrier", function()
  local knl = lp.make_kernel("{[i,itrip]: 0<=i<n and 0<=itrip<ntrips}", [[
    for i
        for itrip
            ... gbarrier {id=yoink}
            <> z[i] = z[i] - z[i+1]  {id=iupd,dep=yoink}
        end
        # This is where the barrier should be
        z[i] = z[i] - z[i+1] + v[i]  {dep=iupd}
    end
    ]])
  knl = lp.set_temporary_address_space(knl, "z", "global")
  knl = lp.split_iname(knl, "i", 256, { outer_tag = "g.0" })
  knl = lp.add_dtypes(knl, { z = "float32", v = "float32" })
  knl = lp.preprocess_kernel(knl)
  h.expect_error("DependenceViolationError", { "of 'iupd' writes z[256], read by its instance (i_inner=255, i_outer=0",
    "another work-group (i_outer on g.0)" }, lp.generate_code, knl)
end)

-- loopy: test_index_cse: a sum over (k, l) with l unrolled generates.
test("test_index_cse", function()
  local knl = lp.make_kernel({ "{[i,j,k,l,m]:0<=i,j,k,l,m<n}" }, [[
    for i
       for j
           c[i,j,m] = sum((k,l), a[i,j,l]*b[i,j,k,l])
       end
    end
    ]])
  knl = lp.tag_inames(knl, "l:unr")
  knl = lp.prioritize_loops(knl, "i,j,k,l")
  knl = lp.add_and_infer_dtypes(knl, { a = "float32", b = "float32" })
  knl = lp.fix_parameters(knl, { n = 5 })
  device_code(knl)
end)

-- The conditional kernel of loopy's three tests below; Tcond is a scalar or an array (`[k]`).
local function tcond_kernel(tcond, args)
  return lp.make_kernel("{[k]: 0<=k<n}}", string.format([[
    for k
        <> %s = T[k] < 0.5
        if %s
            cp[k] = 2 * T[k] + %s
        end
    end
    ]], tcond, tcond, tcond), args)
end

-- loopy: test_ilp_and_conditionals: a predicate temporary in an ilp loop.
test("test_ilp_and_conditionals", function()
  local knl = tcond_kernel("Tcond")
  knl = lp.fix_parameters(knl, { n = 200 })
  knl = lp.add_and_infer_dtypes(knl, { T = "float32" })
  local ref_knl = knl
  knl = lp.split_iname(knl, "k", 2, { inner_tag = "ilp" })
  auto_test(ref_knl, knl)
end)

-- loopy: test_unr_and_conditionals (parametrized over unr_tag, one test each): a predicate array in an
-- unrolled loop.
for _, unr_tag in ipairs({ "unr", "unr_hint" }) do
  test("test_unr_and_conditionals[" .. unr_tag .. "]", function()
    local knl = tcond_kernel("Tcond[k]")
    knl = lp.fix_parameters(knl, { n = 200 })
    knl = lp.add_and_infer_dtypes(knl, { T = "float32" })
    local ref_knl = knl
    knl = lp.split_iname(knl, "k", 2, { inner_tag = unr_tag })
    auto_test(ref_knl, knl)
  end)
end

-- loopy: test_constant_array_args: a ConstantArg.
test("test_constant_array_args", function()
  local knl = tcond_kernel("Tcond[k]", { lp.ConstantArg("T", "float32", { shape = { 200 } }), "..." })
  knl = lp.fix_parameters(knl, { n = 200 })
  auto_test(knl, knl)
end)

-- loopy: test_temp_initializer (parametrized over tmp_order, one test each; src_order is always C): a
-- read-only private temporary initialized from an array, in C or F order, reads back the array.
for _, tmp_order in ipairs({ "C", "F" }) do
  test("test_temp_initializer[C-" .. tmp_order .. "]", function()
    local a = lp.randn({ 3, 3 }, "float64", 42)
    local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", "out[i,j] = tmp[i,j]", { lp.TemporaryVariable("tmp", nil,
      { initializer = a, shape = lp.auto, address_space = "private", read_only = true, order = tmp_order }), "..." })
    knl = lp.set_options(knl, { write_code = true })
    knl = lp.fix_parameters(knl, { n = a.shape[1] })
    h.on_each_executor(function(exec, name)
      local a2 = knl(exec, {})
      h.check_array(a2, a, "out on " .. name)
    end)
  end)
end

-- loopy: test_const_temp_with_initializer_not_saved: a read-only temporary with an initializer needs no save
-- slot across a global barrier.
test("test_const_temp_with_initializer_not_saved", function()
  local prog = lp.make_kernel("{[i]: 0<=i<10}", [[
    ... gbarrier
    out[i] = tmp[i]
    ]], { lp.TemporaryVariable("tmp", nil, { initializer = lp.arange(10, "int64"), shape = lp.auto,
      address_space = "private", read_only = true }), "..." }, { seq_dependencies = true })
  prog = lp.preprocess_kernel(prog)
  prog = lp.save_and_reload_temporaries(prog)
  h.check_equal(#prog.temporaries, 1, "temporaries")
end)

-- loopy: test_header_extract: the declaration of the kernel on the C, CUDA and OpenCL targets.
test("test_header_extract", function()
  local function knl_for(target)
    local knl = lp.make_kernel("{[k]: 0<=k<n}}", [[
      for k
          T[k] = k**2
      end
      ]], { lp.GlobalArg("T", "float32", { shape = { 200 } }), "..." }, { target = target })
    return lp.fix_parameters(knl, { n = 200 })
  end
  h.check_equal(lp.generate_header(knl_for("c"))[1], "void loopy_kernel(float *__restrict__ T);", "C header")
  h.check_equal(lp.generate_header(knl_for("cuda"))[1],
    'extern "C" __global__ void __launch_bounds__(1) loopy_kernel(float *__restrict__ T);', "CUDA header")
  h.check_equal(lp.generate_header(knl_for("opencl"))[1],
    "__kernel void __attribute__ ((reqd_work_group_size(1, 1, 1))) loopy_kernel(__global float *__restrict__ T);",
    "OpenCL header")
end)

-- loopy: test_if_else: if/elif/else blocks, nested, inside loops.
test("test_if_else", function()
  local knl = lp.make_kernel("{ [i]: 0<=i<50}", [[
    if i % 3 == 0
        a[i] = 15  {nosync_query=writes:a}
    elif i % 3 == 1
        a[i] = 11  {nosync_query=writes:a}
    else
        a[i] = 3  {nosync_query=writes:a}
    end
    ]])
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(i) return ({ 15, 11, 3 })[i % 3 + 1] end, "first a on " .. name)
  end)
  knl = lp.make_kernel("{ [i]: 0<=i<50}", [[
    for i
        if i % 2 == 0
            if i % 3 == 0
                a[i] = 15  {nosync_query=writes:a}
            elif i % 3 == 1
                a[i] = 11  {nosync_query=writes:a}
            else
                a[i] = 3  {nosync_query=writes:a}
            end
        else
            a[i] = 4  {nosync_query=writes:a}
        end
    end
    ]])
  -- loopy builds this reference without comparing it; here it is compared.
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(i)
      if i % 2 == 1 then return 4 end
      return ({ 15, 11, 3 })[i % 3 + 1]
    end, "second a on " .. name)
  end)
  knl = lp.make_kernel("{ [i,j]: 0<=i,j<50}", [[
    for i
        if i < 25
            for j
                if j % 2 == 0
                    a[i, j] = 1  {nosync_query=writes:a}
                else
                    a[i, j] = 0  {nosync_query=writes:a}
                end
            end
        else
            for j
                if j % 2 == 0
                    a[i, j] = 0  {nosync_query=writes:a}
                else
                    a[i, j] = 1  {nosync_query=writes:a}
                end
            end
        end
    end
    ]])
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(i, j)
      if (i < 25) == (j % 2 == 0) then return 1 end
      return 0
    end, "third a on " .. name)
  end)
end)

local TIGHT_DOMAINS = { "{ [i] : 0 <= i <= 5 }", "[i] -> { [j] : 2 * i - 2 < j <= 2 * i and 0 <= j <= 9 }" }

-- loopy: test_tight_loop_bounds: j's bounds from i, which is split over g.0 and l.0, cover 0..9 once.
test("test_tight_loop_bounds", function()
  local knl = lp.make_kernel(TIGHT_DOMAINS, "for i\n  for j\n    out[j] = j\n  end\nend",
    nil, { silenced_warnings = "write_race(insn)" })
  knl = lp.split_iname(knl, "i", 5, { inner_tag = "l.0", outer_tag = "g.0" })
  knl = lp.set_options(knl, { write_code = true })
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(j) return j end, "out on " .. name)
  end)
end)

-- loopy: test_tight_loop_bounds_codegen: the loop over j is bounded through the split of i, with no guard.
-- Deliberate deviation in spelling: loopy's isl prints the clamps of j to [0, 9] as conditionals on the
-- work-item ("(gid(0) == 0 && lid(0) == 0) ? 0 : ..."), Loom as max/min; the bounds are the same.
test("test_tight_loop_bounds_codegen", function()
  local knl = lp.make_kernel({ "{ [i] : 0 <= i <= 5 }", "[i] -> { [j] : 2 * i - 2 <= j <= 2 * i and 0 <= j <= 9 }" },
    "for i\n  for j\n    out[j] = j\n  end\nend", nil, { silenced_warnings = "write_race(insn)" })
  knl = lp.split_iname(knl, "i", 5, { inner_tag = "l.0", outer_tag = "g.0" })
  h.check_contains(device_code(knl), "for (int j = max(0, -2 + 2 * lid(0) + 10 * gid(0)); "
    .. "j <= min(9, 2 * lid(0) + 10 * gid(0)); ++j)\n    out[j] = j;")
end)

-- loopy: test_integer_reduction: max, min, sum, product (wrapping as numpy's), argmax and argmin of a private
-- int32 or int64 temporary initialized from random integers.
test("test_integer_reduction", function()
  local n = 200
  for _, vtype in ipairs({ "int32", "int64" }) do
    local var_int = h.random_ints({ n }, vtype, 42, 0, 999)
    local values = {}
    for k = 0, n - 1 do values[#values + 1] = var_int:get(k) end
    local function wrap(x) -- to vtype's range, as numpy's integer product
      if vtype == "int32" then x = (x + 2147483648) % 4294967296 - 2147483648 end
      return x
    end
    local max_v, min_v, sum_v, prod_v = math.mininteger, math.maxinteger, 0, 1
    for _, v in ipairs(values) do
      max_v, min_v, sum_v, prod_v = math.max(max_v, v), math.min(min_v, v), sum_v + v, wrap(prod_v * v)
    end
    local reductions = {
      { "max", "var[k]", function(out) return out:get() == max_v end },
      { "min", "var[k]", function(out) return out:get() == min_v end },
      { "sum", "var[k]", function(out) return out:get() == sum_v end },
      { "product", "var[k]", function(out) return out:get() == prod_v end },
      { "argmax", "var[k], k", function(out) return out:get(0) == max_v and values[out:get(1) + 1] == max_v end },
      { "argmin", "var[k], k", function(out) return out:get(0) == min_v and values[out:get(1) + 1] == min_v end },
    }
    for _, r in ipairs(reductions) do
      local kind, args, check = r[1], r[2], r[3]
      local kstr = (kind:find("arg") and "out[0], out[1]" or "out") .. string.format(" = %s(k, %s)", kind, args)
      local knl = lp.make_kernel("{[k]: 0<=k<n}", kstr, { lp.TemporaryVariable("var", vtype,
        { initializer = var_int, read_only = true, address_space = "private", shape = lp.auto }), "..." })
      knl = lp.fix_parameters(knl, { n = n })
      h.on_each_executor(function(exec, name)
        local out = knl(exec, {})
        h.check(check(out), "%s of %s on %s: got %s", kind, vtype, name, tostring(out))
      end)
    end
  end
end)

-- loopy: test_complicated_argmin_reduction: an argmin over values computed in the same loop, with a
-- conditional expression and a float parameter.
test("test_complicated_argmin_reduction", function()
  local knl = lp.make_kernel("{[ictr,itgt,idim]: 0<=itgt<ntargets and 0<=ictr<ncenters and 0<=idim<ambient_dim}", [[
    for itgt
        for ictr
            <> dist_sq = sum(idim,
                    (tgt[idim,itgt] - center[idim,ictr])**2)
            <> in_disk = dist_sq < (radius[ictr]*1.05)**2
            <> matches = (
                    (in_disk
                        and qbx_forced_limit == 0)
                    or (in_disk
                            and qbx_forced_limit != 0
                            and qbx_forced_limit * center_side[ictr] > 0)
                    )

            <> post_dist_sq = dist_sq if matches else HUGE
        end
        <> min_dist_sq, <> min_ictr = argmin(ictr, ictr, post_dist_sq)

        tgt_to_qbx_center[itgt] = min_ictr if min_dist_sq < HUGE else -1
    end
    ]])
  knl = lp.fix_parameters(knl, { ambient_dim = 2 })
  knl = lp.add_and_infer_dtypes(knl, { ["tgt,center,radius,HUGE"] = "float32", ["center_side,qbx_forced_limit"] = "int32" })
  auto_test(knl, knl, { parameters = { HUGE = 1e20, ncenters = 200, ntargets = 300, qbx_forced_limit = 1 } })
end)

-- loopy: test_nosync_option_parsing: nosync and nosync_query, with and without scopes, in the listing.
test("test_nosync_option_parsing", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < 10}", [[
    <>t = 1 {id=insn1,nosync=insn1}
    t = 2   {id=insn2,nosync=insn1:insn2}
    t = 3   {id=insn3,nosync=insn1@local:insn2@global:insn3@any}
    t = 4   {id=insn4,nosync_query=id:insn*@local}
    t = 5   {id=insn5,nosync_query=id:insn1}
    ]])
  local kernel_str = tostring(knl)
  h.check_contains(kernel_str, "id=insn1, no_sync_with=insn1@any")
  h.check_contains(kernel_str, "id=insn2, no_sync_with=insn1@any:insn2@any")
  h.check_contains(kernel_str, "id=insn3, no_sync_with=insn1@local:insn2@global:insn3@any")
  h.check_contains(kernel_str, "id=insn4, no_sync_with=insn1@local:insn2@local:insn3@local:insn5@local")
  h.check_contains(kernel_str, "id=insn5, no_sync_with=insn1@any")
end)

-- loopy's barrier_between, read from the LINEARIZATION of the listing: whether a barrier comes between the
-- instructions id1 and id2 (not counting barriers at the loop depths in `ignore_levels`).
local function barrier_between(knl, id1, id2, ignore_levels)
  local ignored = {}
  for _, level in ipairs(ignore_levels or {}) do ignored[level] = true end
  local watch, seen, level = false, false, 0
  local section = tostring(knl):match("LINEARIZATION:\n(.-)%-%-%-%-")
  h.check(section, "no linearization in\n%s", tostring(knl))
  for line in section:gmatch("[^\n]+") do
    local item = line:match("^%d+: *(.*)$")
    local id = item:match("{id=([%w_]+)")
    if item:match("^%.%.%. [lg]barrier") then
      if watch and not ignored[level] then seen = true end
    elseif item:match("^for ") then
      level = level + 1
    elseif item:match("^end ") then
      level = level - 1
    elseif id == id1 then
      watch = true
    elseif id == id2 then
      return watch and seen
    end
  end
  error("id2 was not seen")
end

-- loopy: test_barrier_insertion_near_top_of_loop: a local barrier between ainit and tcomp of the loop j.
test("test_barrier_insertion_near_top_of_loop", function()
  local prog = lp.make_kernel("{[i,j]: 0 <= i,j < 10 }", [[
    for i
     <>a[i] = i  {id=ainit}
     for j
      <>t = a[(i + 1) % 10]  {id=tcomp}
      <>b[i,j] = a[i] + t   {id=bcomp1}
      b[i,j] = b[i,j] + 1  {id=bcomp2}
     end
    end
    ]], nil, { seq_dependencies = true })
  prog = lp.tag_inames(prog, { i = "l.0" })
  prog = lp.set_temporary_address_space(prog, "a", "local")
  prog = lp.set_temporary_address_space(prog, "b", "local")
  prog = lp.preprocess_kernel(prog)
  local knl = lp.get_one_linearized_kernel(prog)
  h.check(barrier_between(knl, "ainit", "tcomp"), "a barrier between ainit and tcomp in\n%s", tostring(knl))
end)

-- loopy: test_barrier_insertion_near_bottom_of_loop: barriers inside the loop j and after it.
-- Deliberate deviation (issue 33): bcomp2's work-item i reads b[i+2, j] while work-item i+2 overwrites it, a
-- race Loom refuses (DependenceViolationError) unless the instruction says it is meant: nosync=bcomp2 here.
test("test_barrier_insertion_near_bottom_of_loop", function()
  local prog = lp.make_kernel({ "{[i]: 0 <= i < 10 }", "[jmax] -> {[j]: 0 <= j < jmax}" }, [[
    for i
     <>a[i] = i  {id=ainit}
     for j
      <>b[i,j] = a[(i+1) % 10] + t   {id=bcomp1}
      b[i,j] = b[(i+2) % 10,j] + 1  {id=bcomp2, nosync=bcomp2}
     end
     a[10-i] = i + 1 {id=aupdate}
    end
    ]], nil, { seq_dependencies = true })
  prog = lp.tag_inames(prog, { i = "l.0" })
  prog = lp.set_temporary_address_space(prog, "a", "local")
  prog = lp.set_temporary_address_space(prog, "b", "local")
  prog = lp.preprocess_kernel(prog)
  local knl = lp.get_one_linearized_kernel(prog)
  h.check(barrier_between(knl, "bcomp1", "bcomp2"), "a barrier between bcomp1 and bcomp2 in\n%s", tostring(knl))
  h.check(barrier_between(knl, "ainit", "aupdate", { 1 }), "a barrier between ainit and aupdate in\n%s", tostring(knl))
end)

-- loopy: test_multi_argument_reduction_parsing: a reduction over a two-valued reduction parses.
-- Loom's parse_expression returns the parsed expression's text, in which a reduction prints as `op(inames, ...)`.
test("test_multi_argument_reduction_parsing", function()
  h.check_equal(lp.parse_expression("reduce(argmax, i, reduce(argmax, j, i, j))"), "argmax(i, argmax(j, i, j))",
    "a Reduction")
end)

-- loopy: test_inames_conditional_generation: global barriers inside loops nested in a g.0 iname.
test("test_inames_conditional_generation", function()
  local knl = lp.make_kernel("{[i,j,k]: 0 < k < i and 0 < j < 10 and 0 < i < 10}", [[
    for k
        ... gbarrier
        <>tmp1 = 0
    end
    for j
        ... gbarrier
        <>tmp2 = i
    end
    ]], "...", { seq_dependencies = true })
  knl = lp.tag_inames(knl, { i = "g.0" })
  h.on_each_executor(function(exec) knl(exec, {}) end)
end)

-- loopy: test_fixed_parameters: make_kernel's fixed_parameters.
test("test_fixed_parameters", function()
  local knl = lp.make_kernel("[n] -> {[i]: 0 <= i < n}", [[
    <>tmp[i] = i  {id=init}
    tmp[0] = 0  {dep=init}
    ]], nil, { fixed_parameters = { n = 1 } })
  h.on_each_executor(function(exec) knl(exec, {}) end)
end)

-- loopy: test_parameter_inference: n is the kernel's only parameter (loopy's all_params), and so its only
-- argument.
test("test_parameter_inference", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < n and i mod 2 = 0}", "")
  local names = {}
  for _, a in ipairs(knl.args) do names[#names + 1] = a.name .. ":" .. a.kind end
  h.check_equal(table.concat(names, ","), "n:ValueArg", "arguments")
end)

-- loopy: test_execution_backend_can_cache_dtypes: a temporary typed with Python's int (int64) runs.
test("test_execution_backend_can_cache_dtypes", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < 10}", "<>tmp[i] = i")
  knl = lp.add_dtypes(knl, { tmp = "int64" })
  h.on_each_executor(function(exec) knl(exec, {}) end)
end)

-- loopy: test_wildcard_dep_matching: dep= patterns with ?, *, [12] and [!1].
test("test_wildcard_dep_matching", function()
  local prog = lp.make_kernel("{[i]: 0 <= i < 10}", [[
    <>a = 0 {id=insn1}
    <>b = 0 {id=insn2,dep=insn?}
    <>c = 0 {id=insn3,dep=insn*}
    <>d = 0 {id=insn4,dep=insn[12]}
    <>e = 0 {id=insn5,dep=insn[!1]}
    ]], "...")
  local function deps(id) return port.set_text(port.instruction(prog, id).depends_on) end
  h.check_equal(deps("insn1"), "", "insn1's dependencies")
  h.check_equal(deps("insn2"), "insn1,insn3,insn4,insn5", "insn2's dependencies")
  h.check_equal(deps("insn3"), "insn1,insn2,insn4,insn5", "insn3's dependencies")
  h.check_equal(deps("insn4"), "insn1,insn2", "insn4's dependencies")
  h.check_equal(deps("insn5"), "insn2,insn3,insn4", "insn5's dependencies")
end)

-- loopy: test_arg_inference_for_predicates: an array read only in a condition is an argument of shape (10,).
test("test_arg_inference_for_predicates", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < 10}", [[
    if incr[i]
      a = a + 1
    end
    ]], nil, { name = "loopy_kernel" })
  local incr
  for _, a in ipairs(knl.args) do
    if a.name == "incr" then incr = a end
  end
  h.check(incr, "incr is an argument")
  h.check_equal(table.concat(incr.shape, ","), "10", "shape of incr")
end)

-- loopy: test_relaxed_stride_checks: an F-order (1, 10) array (numpy's relaxed strides: the stride of a
-- length-1 axis does not matter) is accepted by a C-order kernel.
test("test_relaxed_stride_checks", function()
  local knl = lp.make_kernel("{[i,j]: 0 <= i <= n and 0 <= j <= m}", "a[i] = sum(j, A[i,j] * b[j])")
  h.on_each_executor(function(exec, name)
    local mat = lp.zeros({ 1, 10 }, "float64", "F")
    local b = lp.zeros({ 10 }, "float64")
    local a = knl(exec, { A = mat, b = b })
    h.check_array(a, function() return 0 end, "a on " .. name)
  end)
end)

-- The assignees of knl's instructions, from the listing ("assignee = expression  {id=...}" lines).
local function assignees(knl)
  local out = {}
  local section = tostring(knl):match("INSTRUCTIONS:\n(.-)%-%-%-%-") or ""
  for line in section:gmatch("[^\n]+") do
    local lhs = line:match("^%s*[^%w_]*%s*(.-) = ")
    if lhs then out[#out + 1] = lhs end
  end
  return out
end

-- loopy: test_add_prefetch_works_in_lhs_index: a prefetch of an index array also replaces it in the
-- subscripts of assignees.
test("test_add_prefetch_works_in_lhs_index", function()
  local prog = lp.make_kernel("{ [n,k,l,k1,l1,k2,l2]: start<=n<end and 0<=k,k1,k2<3 and 0<=l,l1,l2<2 }", [[
    for n
        <> a1_tmp[k,l] = a1[a1_map[n, k],l]
        a1_tmp[k1,l1] = a1_tmp[k1,l1] + 1
        a1_out[a1_map[n,k2], l2] = a1_tmp[k2,l2]
    end
    ]], { lp.GlobalArg("a1,a1_out", nil, { shape = "ndofs,2" }), lp.GlobalArg("a1_map", nil, { shape = "nelements,3" }),
      "..." })
  prog = lp.add_prefetch(prog, "a1_map", "k", { default_tag = "l.auto" })
  local lhs = assignees(prog)
  h.check(#lhs >= 3, "assignees found in\n%s", tostring(prog))
  for _, a in ipairs(lhs) do
    h.check(not a:find("a1_map[", 1, true), "assignee %s reads a1_map in\n%s", a, tostring(prog))
  end
end)

-- loopy: test_check_for_variable_access_ordering: two unordered writes of a that overlap.
test("test_check_for_variable_access_ordering", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    a[i] = 12
    a[i+1] = 13
    ]])
  h.expect_error("VariableAccessNotOrdered", {}, lp.generate_code_v2, knl)
end)

-- loopy: test_no_barriers_for_nonoverlapping_access (parametrized over the second index, one test each): a
-- barrier only between writes of a local array that overlap across work-items.
for _, case in ipairs({ { "2*i", false }, { "2*i+1", false }, { "2*i+2", true } }) do
  local second_index, expect_barrier = case[1], case[2]
  test("test_no_barriers_for_nonoverlapping_access[" .. second_index .. "-" .. tostring(expect_barrier) .. "]", function()
    local prog = lp.make_kernel("{[i]: 0<=i<128}", string.format([[
      a[2*i] = 12  {id=first}
      a[%s] = 13  {id=second,dep=first}
      ]], second_index), { lp.TemporaryVariable("a", nil, { shape = { 256 }, address_space = "local" }) })
    prog = lp.tag_inames(prog, "i:l.0")
    prog = lp.preprocess_kernel(prog)
    local knl = lp.get_one_linearized_kernel(prog)
    h.check_equal(barrier_between(knl, "first", "second"), expect_barrier, "a barrier between first and second")
  end)
end

-- loopy: test_half_complex_conditional: a conditional of a real and a complex value runs.
test("test_half_complex_conditional", function()
  local knl = lp.make_kernel("{[i]: 0 <= i < 10}", "tmp[i] = 0 if i < 5 else 0j")
  h.on_each_executor(function(exec) knl(exec, {}) end)
end)

-- loopy: test_backwards_dep_printing_and_error: printing a kernel whose dependencies point backwards.
test("test_backwards_dep_printing_and_error", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    c[i] = a[i] + b[i]                       {id=insn1}
    c[i] = 2*c[i]                            {id=insn2, dep=insn1}
    c[i] = 7*c[i] + a[i]*a[i] + b[i]*b[i]    {id=insn3, dep=insn2}
    b[i] = b[i] + c[i]                                 {id=insn4, dep=insn3}
    d[i] = 7*a[i ]                                     {id=insn5, dep=insn4}
    a[i] = a[i] + d[i]                                 {id=insn6, dep=insn5}
    ]], { lp.GlobalArg("a, b", "float64"), "..." })
  h.check_contains(tostring(knl), "{id=insn6")
end)

-- loopy: test_shape_mismatch_check: C-order arrays passed to an F-order kernel are refused (loopy's
-- ValueError "strides mismatch" is Loom's ArgumentError).
test("test_shape_mismatch_check", function()
  local t_unit = lp.make_kernel("{[i,j]: 0 <= i < n and 0 <= j < m}", "c[i] = sum(j, a[i,j]*b[j])", nil,
    { default_order = "F" })
  local a = lp.rand({ 10, 10 }, "float32", 42)
  local b = lp.rand({ 10 }, "float32", 43)
  h.on_each_executor(function(exec)
    h.expect_error("ArgumentError", "stride", t_unit, exec, { a = a, b = b })
  end)
end)

-- loopy: test_type_inference_walks_fn_in_comparison: types inferred through abs() inside a comparison.
test("test_type_inference_walks_fn_in_comparison", function()
  local knl = lp.make_kernel({ "{ [p] : 0 <= p <= 2 }", "{ [i] : 0 <= i <= 2 }" }, [[
    t2 = 0.0 {id=insn}
    t1 = 0.0 {id=insn_0, dep=insn}
    t1 = t1 + t0[p, i]*w_0[1 + i*2] {id=insn_1, dep=insn_0}
    t2 = t2 + t0[p, i]*w_0[i*2] {id=insn_2, dep=insn_1}
    A[p] = A[p]+(0.2 if abs(-1.2+t2) <= 0.1 and abs(-0.15+t1) <= 0.05 else 0.0
                                        ) {dep=insn_2}
    ]], { lp.GlobalArg("A", "float64", { shape = { 3 } }), lp.GlobalArg("w_0", "float64", { shape = { 6 } }),
      lp.TemporaryVariable("t0", "float64", { shape = { 3, 3 }, read_only = true, address_space = "local",
        initializer = lp.array({ { 1., 0., 0. }, { 0., 1., 0. }, { 0., 0., 1. } }, "float64") }),
      lp.TemporaryVariable("t1", "float64", { shape = {} }), lp.TemporaryVariable("t2", "float64", { shape = {} }) },
    { target = "c" })
  device_code(knl)
end)

-- loopy: test_non_integral_array_idx_raises: a float index is an error.
test("test_non_integral_array_idx_raises", function()
  local knl = lp.make_kernel("{[i, j]: 0<=i<=4 and 0<=j<16}", [[
    out[j] = 0 {id=init}
    out[i] = a[1.94**i-1] {dep=init}
    ]], { lp.GlobalArg("a", "float64"), "..." })
  h.expect_error("LoopyError", {}, device_code, knl)
end)

-- loopy: test_empty_domain (parametrized over the tag of i, one test each): a loop over an empty domain
-- (n = 0, or fixed to 0) leaves c alone.
for _, tag in ipairs({ "for", "l.0", "g.0", "fixed" }) do
  test("test_empty_domain[" .. tag .. "]", function()
    local t_unit = lp.make_kernel("{[i,j]: 0 <= i < n}", "for i\n  c = 1\nend")
    local args = {}
    if tag == "fixed" then
      t_unit = lp.fix_parameters(t_unit, { n = 0 })
    else
      t_unit = lp.tag_inames(t_unit, { i = tag })
      args.n = 0
    end
    t_unit = lp.set_options(t_unit, { write_code = true })
    h.on_each_executor(function(exec, name)
      args.c = lp.zeros({}, "int32")
      t_unit(exec, args)
      h.check_equal(args.c:get(), 0, "c on " .. name)
    end)
  end)
end

-- loopy: test_access_check_with_conditionals: accesses guarded by conditional expressions are checked
-- against the bounds only where the condition holds; a non-affine condition is not understood.
test("test_access_check_with_conditionals", function()
  local legal_knl = lp.make_kernel("{[i]: 0<=i<20}", [[
    z[i] = x[i] if i < 10 else y[i-10]
    z[i] = x[i] if 0 else 2.0f
    z[i] = in[i-1] if i else 3.14f
    ]], { lp.GlobalArg("x,y", "float64", { shape = { 10 } }), lp.GlobalArg("in", "float64", { shape = { 19 } }), "..." },
    { seq_dependencies = true })
  lp.generate_code_v2(legal_knl)
  local illegal_knl = lp.make_kernel("{[i]: 0<=i<20}", "z[i] = x[i] if i < 10 else y[i]",
    { lp.GlobalArg("x,y", "float64", { shape = { 10 } }), "..." })
  h.expect_error("LoopyError", "'y'", lp.generate_code_v2, illegal_knl)
  local legal_but_nonaffine_condition_knl = lp.make_kernel("{[i]: 0<=i<20}", "z[i] = x[i] if i*i < 100 else y[i-10]",
    { lp.GlobalArg("x,y", "float64", { shape = { 10 } }), "..." })
  h.expect_error("LoopyError", {}, lp.generate_code_v2, legal_but_nonaffine_condition_knl)
end)

-- loopy: test_access_check_with_insn_predicates: an access guarded by an if block is within bounds.
test("test_access_check_with_insn_predicates", function()
  local knl = lp.make_kernel("{[i]: 0<i<10}", "if i < 4\n  y[i] = 2*x[i]\nend",
    { lp.GlobalArg("x", "float64", { shape = { 4 } }), "..." })
  device_code(knl)
end)

-- loopy: test_conditional_access_range_with_parameters: accesses guarded by conditions on parameters and
-- on a value argument.
test("test_conditional_access_range_with_parameters", function()
  local function run_and_check(knl, extra)
    h.on_each_executor(function(exec, name)
      local args = { tmp = h.array_from({ 10, 8 }, "int64", function(j, i) return 8 * j + i end), problem_size = 10 }
      for k, v in pairs(extra) do args[k] = v end
      local tmp = knl(exec, args)
      h.check_array(tmp, function(j, i) return 8 * j + i + 1 end, "tmp on " .. name)
    end)
  end
  local knl = lp.make_kernel({ "{[i]: 0 <= i < 10}", "{[j]: 0 <= j < problem_size+2}" }, [[
    if i < 8 and j < problem_size
        tmp[j, i] = tmp[j, i] + 1
    end
    ]], { lp.GlobalArg("tmp", "int64", { shape = { "problem_size", 8 } }), lp.ValueArg("problem_size", "int64") })
  run_and_check(knl, {})
  -- A condition only half data-dependent.
  knl = lp.make_kernel({ "{[i]: 0 <= i < 10}", "{[j]: 0 <= j < problem_size}" }, [[
    if i < 8 and (j + offset) < problem_size
        tmp[j, i] = tmp[j, i] + 1
    end
    ]], { lp.GlobalArg("tmp", "int64", { shape = { "problem_size", 8 } }), lp.ValueArg("problem_size", "int64"),
      lp.ValueArg("offset", "int64") })
  run_and_check(knl, { offset = 0 })
end)

-- loopy: test_split_iname_within: j split for instruction a, i split for instruction b.
test("test_split_iname_within", function()
  local knl = lp.make_kernel("{ [i, j]: 0<=i<n and 0<=j<n }", [[
    x[i, j] = 3 {id=a}
    y[i, j] = 2 * y[i, j] {id=b}
    ]])
  knl = lp.set_options(knl, { write_code = true }) -- loopy's make_kernel(..., options={"write_code": True})
  local ref_knl = knl
  knl = lp.split_iname(knl, "j", 4, { outer_tag = "g.0", inner_tag = "l.0", within = "id:a" })
  knl = lp.split_iname(knl, "i", 4, { outer_tag = "g.0", inner_tag = "l.0", within = "id:b" })
  auto_test(ref_knl, knl, { parameters = { n = 5 } })
end)

-- numpy's result dtype of base ** power for the pairs of test_pow.
local POW_CASES = {
  { "int32", "uint32", "int64" }, { "int64", "uint64", "float64" }, { "int32", "float64", "float64" },
  { "float64", "int32", "float64" }, { "int64", "int32", "int64" }, { "float32", "float64", "float64" },
  { "float64", "float32", "float64" },
}

-- loopy's _make_random_np_array: integers in [0, 6) or floats in [0, 1).
local function random_pow_operand(dtype, seed)
  if dtype:find("int") then
    return h.random_ints({ 10 }, dtype, seed, 0, 5)
  end
  return lp.rand({ 10 }, dtype, seed)
end

-- loopy: test_pow (parametrized over the base and exponent dtypes, one test each): the result has numpy's
-- dtype and value.
for _, case in ipairs(POW_CASES) do
  local base_type, exp_type, result_type = case[1], case[2], case[3]
  test("test_pow[" .. base_type .. "-" .. exp_type .. "]", function()
    local base, power = random_pow_operand(base_type, 1), random_pow_operand(exp_type, 2)
    local knl = lp.make_kernel("{[i]: 0<=i<n}", "res[i] = base[i] ** power[i]")
    knl = lp.add_dtypes(knl, { base = base_type, power = exp_type })
    h.on_each_executor(function(exec, name)
      local result = knl(exec, { base = base, power = power })
      h.check_array(result, function(i)
        local v = base:get(i) ^ power:get(i)
        if result_type:find("int") then v = math.tointeger(v) end
        return v
      end, "res on " .. name, { dtype = result_type, rtol = 1e-6 })
    end)
  end)
end

-- loopy: test_deps_from_conditionals: the accumulator initializations of reductions inside a condition have
-- no dependencies and no predicates, so they move out of the loop.
test("test_deps_from_conditionals", function()
  local knl = lp.make_kernel("{[i]: 0<=i<n}", [[
    <> icontaining_tgt_box = 1 {id=flagset}
    if icontaining_tgt_box == 1
        result = result + simul_reduce(sum, i, i*i)
        result = result + simul_reduce(sum, i, 2*i*i)
    end
    ]], nil, { name = "lpy_knl" })
  local ppknl = lp.preprocess_kernel(knl)
  local inits = 0
  for _, insn in ipairs(ppknl.instructions) do
    if insn.id:find("init", 1, true) then
      inits = inits + 1
      h.check_equal(#insn.depends_on, 0, insn.id .. "'s dependencies")
    end
  end
  h.check(inits > 0, "accumulator initializations in\n%s", tostring(ppknl))
  for line in tostring(ppknl):gmatch("[^\n]+") do
    if line:find("{id=[%w_]*init") then h.check(not line:find("if="), "an initialization with a predicate: %s", line) end
  end
  device_code(ppknl)
end)

-- loopy: test_scalar_temporary: a scalar global temporary.
test("test_scalar_temporary", function()
  local x_in = 0.6180339887
  local knl = lp.make_kernel("{:}", [[
    tmp = 2*x
    y = 2*tmp
    ]], { lp.ValueArg("x", "float64"), lp.TemporaryVariable("tmp", nil, { address_space = "global", shape = lp.auto }),
      "..." })
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { x = x_in })
    h.check_equal(out:get(), 4 * x_in, "y on " .. name)
  end)
end)

-- loopy: test_split_iname_with_multiple_dim_params: splitting i, which bounds k's domain with j.
test("test_split_iname_with_multiple_dim_params", function()
  local ref_knl = lp.make_kernel({ "{[i, j]: 0<=i,j<16}", "[i,j] -> {[k]: 0<=k<=4}" }, "foo[i, j, k] = i+j+k")
  local knl = lp.split_iname(ref_knl, "i", 4)
  auto_test(ref_knl, knl)
end)

-- loopy: test_trace_assignments (parametrized over the option, one test each). Deliberate deviation: Loom
-- has no tracing of assignments (loopy prints them from the kernel), and rejects the options by name instead
-- of accepting options that do nothing.
for _, opt_name in ipairs({ "trace_assignments", "trace_assignment_values" }) do
  test("test_trace_assignments[" .. opt_name .. "]", function()
    local knl = lp.make_kernel("{[i,j]: 0<=i,j<2}", "foo[i,j] = i+j")
    knl = lp.tag_inames(knl, { i = "g.0", j = "l.0" })
    h.expect_error("ArgumentError", opt_name, lp.set_options, knl, { [opt_name] = true })
  end)
end

-- loopy: test_zero_stride_array: an array with an empty axis, over an empty domain.
test("test_zero_stride_array", function()
  local knl = lp.make_kernel({ "{[i]: 0<=i<10}", "{[j]: 1=0}" }, "y[i, j] = 1", { lp.GlobalArg("y", nil, { shape = { 10, 0 } }) })
  h.on_each_executor(function(exec, name)
    local out = knl(exec, {})
    h.check_equal(table.concat(out.shape, ","), "10,0", "shape of y on " .. name)
  end)
end)

-- loopy: test_sep_array_ordering: the separate arrays of a sep axis of 11 (more than 10: "x_s10" sorts
-- before "x_s2") are returned in order, as the arrays passed.
test("test_sep_array_ordering", function()
  local n = 11
  local knl = lp.make_kernel("{[i, k]: 0<=k<noutputs and 0<=i<m}", "x[k, i] = k",
    { lp.GlobalArg("x", nil, { shape = { "noutputs", "m" }, dim_tags = "sep,C" }), "..." },
    { fixed_parameters = { noutputs = n } })
  knl = lp.tag_inames(knl, "k:unr")
  h.on_each_executor(function(exec, name)
    local x = {}
    for i = 1, n do x[i] = lp.empty({ 0 }, "float64") end
    local out = knl(exec, { x = x })
    for i = 1, n do h.check(rawequal(out[i], x[i]), "out[%d] is x[%d] on %s", i, i, name) end
  end)
end)

-- loopy: test_predicated_redn: a reduction in the else branch reads tmp only where the condition holds.
test("test_predicated_redn", function()
  local knl = lp.make_kernel({ "{[i]: 0<= i < 5}", "{[j]: 0<= j < 10}", "{[k]: 0<=k<10}" }, [[
    <> tmp[k] = k ** 2
    y[j] = 0 if j < 5 else sum(i, tmp[i+j-5])
    ]], nil, { seq_dependencies = true })
  auto_test(knl, knl)
end)

-- loopy: test_redn_in_predicate: a reduction inside the condition of a conditional expression.
test("test_redn_in_predicate", function()
  local knl = lp.make_kernel({ "{[i]: 0<= i < 5}", "{[j]: 0<= j < 10}", "{[k]: 0<=k<10}" },
    "y[j] = sum(i, i**3) if (sum(k, k**2) < 2) else (10 - j)", nil, { seq_dependencies = true })
  auto_test(knl, knl)
end)

-- loopy: test_vec_inames_can_reenter: a vec iname entered twice (around and inside the loop j).
test("test_vec_inames_can_reenter", function()
  local knl = lp.make_kernel("{[i, j]: 0<=i,j<4}", [[
    for i
        <> tmp0[i] = 1
        for j
            <> tmp1[i] = 2
        end
        <> tmp2[i] = 3
        out[i] = tmp0[i] + tmp1[i] + tmp2[i]
    end
    ]], nil, { seq_dependencies = true })
  knl = lp.tag_inames(knl, "i:vec")
  knl = lp.tag_array_axes(knl, "tmp0,tmp1,tmp2", "vec")
  knl = lp.duplicate_inames(knl, "i", { within = "writes:tmp1", tags = { i = "vec" } })
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function() return 6 end, "out on " .. name)
  end)
end)

-- loopy: test_split_and_join_inames: joining the two halves of a split gives the loop back.
test("test_split_and_join_inames", function()
  local tunit = lp.make_kernel("{[i]: 0<=i<16}", "y[i] = i")
  local ref_tunit = tunit
  tunit = lp.split_iname(tunit, "i", 4)
  tunit = lp.join_inames(tunit, { "i_inner", "i_outer" })
  auto_test(ref_tunit, tunit)
end)

-- loopy: test_type_inference_of_clbls_in_substitutions: abs() inside a substitution rule.
test("test_type_inference_of_clbls_in_substitutions", function()
  local knl = lp.make_kernel("{[i]: 0<=i<10}", [[
    subst_0(_0) := abs(10.0 * (_0-5))

    y[i] = subst_0(i)
    ]])
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(i) return math.abs(10.0 * (i - 5)) end, "y on " .. name)
  end)
end)

-- loopy: test_dgemm_with_rectangular_tile_prefetch: local prefetches of 8x11 and 11x23 tiles, each fetch
-- split over l.0 and l.1 with other extents than the tiles.
test("test_dgemm_with_rectangular_tile_prefetch", function()
  local t_unit = lp.make_kernel("{[i,j,k]: 0<=i,j<72 and 0<=k<32}", "C[i,j] = sum(k, A[i,k] * B[k,j])",
    { lp.GlobalArg("A,B", "float64", { shape = lp.auto }), "..." })
  local ref_t_unit = t_unit
  local tx, ty, tk = 8, 23, 11
  t_unit = lp.split_iname(t_unit, "i", tx, { inner_tag = "l.0", outer_tag = "g.0" })
  t_unit = lp.split_iname(t_unit, "j", ty, { inner_tag = "l.1", outer_tag = "g.1" })
  t_unit = lp.split_iname(t_unit, "k", tk)
  t_unit = lp.add_prefetch(t_unit, "A", { "i_inner", "k_inner" }, { temporary_address_space = "local",
    fetch_outer_inames = { "i_outer", "j_outer", "k_outer" }, dim_arg_names = { "iprftch_A", "kprftch_A" },
    default_tag = nil })
  t_unit = lp.add_prefetch(t_unit, "B", { "k_inner", "j_inner" }, { temporary_address_space = "local",
    fetch_outer_inames = { "i_outer", "j_outer", "k_outer" }, dim_arg_names = { "kprftch_B", "jprftch_B" },
    default_tag = nil })
  t_unit = lp.split_iname(t_unit, "kprftch_A", tx, { inner_tag = "l.0" })
  t_unit = lp.split_iname(t_unit, "iprftch_A", ty, { inner_tag = "l.1" })
  t_unit = lp.split_iname(t_unit, "jprftch_B", tx, { inner_tag = "l.0" })
  t_unit = lp.split_iname(t_unit, "kprftch_B", ty, { inner_tag = "l.1" })
  auto_test(ref_t_unit, t_unit)
end)

-- loopy: test_modulo_vs_type_context: i % 10 assigned to a float64 stays an integer remainder.
test("test_modulo_vs_type_context", function()
  local t_unit = lp.make_kernel("{[i]: 0 <= i < 10}", [[
    # previously, the float 'type context' would propagate into
    # the remainder, leading to 'i % 10.0' being generated, which
    # C/OpenCL did not like.
    <float64> a = i % 10
    ]])
  h.on_each_executor(function(exec) t_unit(exec, {}) end)
end)

-- loopy: test_barrier_non_zero_hw_lbound: a barrier between writes over l.0 inames with different lower bounds.
test("test_barrier_non_zero_hw_lbound", function()
  local t_unit = lp.make_kernel({ "{[i]: 1<=i<17}", "{[j]: 0<=j<16}" }, [[
    <> a[i] = i      {id=w_a}
    <> b[j] = 2*a[j] {id=w_b}
    ]])
  t_unit = lp.tag_inames(t_unit, { i = "l.0", j = "l.0" })
  t_unit = lp.preprocess_kernel(t_unit)
  local knl = lp.get_one_linearized_kernel(t_unit)
  h.check(barrier_between(knl, "w_a", "w_b"), "a barrier between w_a and w_b in\n%s", tostring(knl))
end)

-- loopy: test_no_unnecessary_lbarrier: no barrier where each work-item reads what it wrote.
test("test_no_unnecessary_lbarrier", function()
  local t_unit = lp.make_kernel("{[i_outer, i_inner]: 0 <= i_outer < n and 0 <= i_inner < 16}", [[
    <> s_a[i_inner] = ai[i_outer * 16 + i_inner] {id=write_s_a}
    ao[i_outer * 16 + i_inner] = 2.0 * s_a[i_inner] {id=write_ao, dep=write_s_a}
    ]], nil, { assumptions = "n>=0" })
  t_unit = lp.add_dtypes(t_unit, { ai = "float32" })
  t_unit = lp.tag_inames(t_unit, { i_inner = "l.0", i_outer = "g.0" })
  t_unit = lp.set_temporary_address_space(t_unit, "s_a", "local")
  t_unit = lp.prioritize_loops(t_unit, "i_outer,i_inner")
  t_unit = lp.preprocess_kernel(t_unit)
  local knl = lp.get_one_linearized_kernel(t_unit)
  h.check(not barrier_between(knl, "write_s_a", "write_ao"), "no barrier in\n%s", tostring(knl))
end)

-- loopy: test_long_kernel: 500 independent loops linearize.
test("test_long_kernel", function()
  local n = 500
  local insns, domains = {}, {}
  for i = 0, n - 1 do
    insns[#insns + 1] = string.format("a%d[j%d] = j%d", i, i, i)
    domains[#domains + 1] = string.format("{ [j%d]: 0<=j%d<10 }", i, i)
  end
  local t_unit = lp.make_kernel(domains, insns)
  t_unit = lp.preprocess_kernel(t_unit)
  lp.get_one_linearized_kernel(t_unit)
end)

-- loopy: test_loop_imperfect_nest_priorities_in_v2_scheduler: priorities (i, j) and (i, k) of an imperfect
-- nest (loopy's loop_priority argument of make_kernel is lp.prioritize_loops here), with no warning.
test("test_loop_imperfect_nest_priorities_in_v2_scheduler", function()
  local knl = lp.make_kernel("{ [i,j,k]: 0 <= i,j,k < 5}", [[
    x[i, j] = i + j
    y[i, k] = i + k
    ]])
  knl = lp.prioritize_loops(knl, "i,j")
  knl = lp.prioritize_loops(knl, "i,k")
  lp.set_warnings("error")
  local ok, err = pcall(lp.generate_code_v2, knl)
  lp.set_warnings("default")
  h.check(ok, "generate_code_v2: %s", tostring(err))
end)

-- loopy: test_floor_div_modulo_with_uint_index: // and % of a uint64 index generate.
test("test_floor_div_modulo_with_uint_index", function()
  local knl = lp.make_kernel("{[i]: 0<=i<10}", "a[map[i] // 2, map[i] % 35] = i",
    { lp.GlobalArg("map", "uint64", { shape = lp.auto }), lp.GlobalArg("a", "float64", { shape = { 10, 4 } }) })
  device_code(knl)
end)

test("test_different_index_dtypes", function()
  local doublify = lp.make_function("{[i]: 0<=i<10}", [[
    x[i] = x[i] * 2
  ]], { name = "doublify", index_dtype = "int64" })
  local knl = lp.make_kernel("{[I]: 0<=I<10}", [[
    [I]: X[I] = doublify([I]: X[I])
  ]], { index_dtype = "int32" })
  knl = lp.merge { knl, doublify }
  h.expect_error("LoopyError", "index type", lp.generate_code_v2, knl)
end)

run()
