-- The instruction-ordering transformations on both executors: set_instruction_priority and add_dependency
-- decide which of two writes wins, add_nosync removes the barriers (and the global-barrier requirement) the
-- analysis would insert, add_barrier puts a local barrier or a device-kernel split between instructions.
-- Effects are checked in the listing, in the generated code and in the results.
local lp = require("loom")
local h = require("helpers")

local function listing_has(knl, text, what, opts)
  local listing = opts and knl:stringify(opts) or tostring(knl)
  h.check(listing:find(text, 1, true), "%s: the listing lacks '%s':\n%s", what, text, listing)
end

-- The position of `text` in `code`; it must be there.
local function position(code, text)
  local at = code:find(text, 1, true)
  h.check(at ~= nil, "'%s' is not in the code:\n%s", text, code)
  return at
end

-- Two writes of the same element: the one that runs last decides the result. They are deliberately unordered,
-- which the kernel option enforce_variable_access_ordered = "no_check" allows.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<4 }", { "out[i] = 1  {id=first}", "out[i] = 2  {id=second}" },
    { lp.GlobalArg("out", "int32", { shape = 4 }), "..." })
  knl = lp.set_options(knl, { enforce_variable_access_ordered = "no_check" })
  local prio = lp.set_instruction_priority(knl, "id:second", 5)
  listing_has(prio, "out[i] = 2  {id=second, priority=5}", "set_instruction_priority")
  h.check(not tostring(knl):find("priority", 1, true), "the original kernel is unchanged")
  local code = lp.generate_code(prio)
  h.check(position(code, "out[i] = 2;") < position(code, "out[i] = 1;"), "priority 5 runs 'second' first")
  code = lp.generate_code(knl)
  h.check(position(code, "out[i] = 1;") < position(code, "out[i] = 2;"), "source order without priorities")

  -- The dependency wins over the priority; as a method, with an id for depends_on.
  local dep = prio:add_dependency("id:second", "first")
  listing_has(dep, "second : first", "add_dependency", { with_dependencies = true })
  code = lp.generate_code(dep)
  h.check(position(code, "out[i] = 1;") < position(code, "out[i] = 2;"), "the dependency orders 'first' first")

  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function() return 2 end, name .. " source order")
    h.check_array(prio(exec, {}), function() return 1 end, name .. " priority")
    h.check_array(dep(exec, {}), function() return 2 end, name .. " dependency over priority")
  end)

  -- depends_on as a match expression: every instruction that writes out, except the one itself.
  local both = lp.make_kernel("{ [i]: 0<=i<4 }",
    { "out[i] = 1  {id=a1}", "out2[i] = 3  {id=a2}", "res[i] = 0  {id=last}" })
  both = lp.add_dependency(both, "id:last", "writes:out*")
  h.check_equal(table.concat(both.instructions[3].depends_on, ","), "a1,a2", "depends_on from a match expression")
end

-- A local temporary read through an index array: the analysis cannot see that each work-item reads its own
-- element and inserts a barrier; a nosync on it removes it, and with idx the identity the results still hold.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<16 }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[idx[i]]  {id=r}" },
    { lp.TemporaryVariable("t", "float32", { shape = { 16 }, address_space = "local" }),
      lp.GlobalArg("a", "float32", { shape = 16 }), lp.GlobalArg("idx", "int32", { shape = 16 }), "..." })
  knl = lp.tag_inames(knl, { i = "l.0" })
  h.check_equal(h.count_matches(lp.generate_code(knl), "barrier%("), 1, "barriers before add_nosync")
  local nosync = lp.add_nosync(knl, "local", "w", "r")
  listing_has(nosync, "out[i] = t[idx[i]]  {id=r, no_sync_with=w@local}", "add_nosync")
  h.check_equal(h.count_matches(lp.generate_code(nosync), "barrier%("), 0, "barriers after add_nosync")
  -- A global-scope nosync leaves the local barrier alone.
  h.check_equal(h.count_matches(lp.generate_code(lp.add_nosync(knl, "global", "id:w", "id:r")), "barrier%("), 1,
    "barriers after a global nosync")
  local a = lp.rand({ 16 }, "float32", 3)
  local idx = lp.arange(16, "int32")
  h.on_each_executor(function(exec, name)
    h.check_array(nosync(exec, { a = a, idx = idx }), function(i) return 2 * a:get(i) end, name .. " nosync")
  end)

  -- bidirectional puts it on both; force adds it where no dependency is (here: r to w).
  local bi = knl:add_nosync("any", "w", "r", { bidirectional = true })
  listing_has(bi, "{id=w, no_sync_with=r@any}", "bidirectional nosync on the source")
  listing_has(bi, "{id=r, no_sync_with=w@any}", "bidirectional nosync on the sink")
  listing_has(lp.add_nosync(knl, "local", "r", "w", { force = true }), "{id=w, no_sync_with=r@local}", "forced nosync")
  h.check(lp.add_nosync(knl, "local", "r", "w", { empty_ok = true }) ~= nil, "empty_ok adds nothing, quietly")
end

-- In a sequential loop, the next iteration's write of t also waits for this iteration's read (a reversed,
-- loop-carried dependency); a nosync on the reading instruction waives both barriers, as in loopy.
do
  local knl = lp.make_kernel("{ [k,i]: 0<=k<4 and 0<=i<16 }",
    { "t[i] = 2*a[k,i]  {id=w}", "out[k,i] = t[15-i]  {id=r, dep=w}" },
    { lp.TemporaryVariable("t", "float32", { shape = { 16 }, address_space = "local" }),
      lp.GlobalArg("a", "float32", { shape = { 4, 16 } }), "..." })
  knl = lp.tag_inames(knl, { i = "l.0" })
  local code = lp.generate_code(knl)
  h.check_equal(h.count_matches(code, "barrier%("), 2, "barriers in the loop")
  h.check(code:find("(w rev-depends on r)", 1, true), "the loop-carried barrier:\n%s", code)
  h.check_equal(h.count_matches(lp.generate_code(lp.add_nosync(knl, "local", "w", "r")), "barrier%("), 0,
    "barriers in the loop after add_nosync")
end

-- The tutorial's rotation: a dependency across work-groups needs a global barrier. add_nosync with global
-- scope silences the check; add_barrier splits the device kernel instead, and then the rotation is right.
do
  local knl = lp.make_kernel("[n] -> {[i] : 0<=i<n}", [[
    tmp[i] = arr[i]  {id=maketmp, dep=*}
    arr[(i + 1) % n] = tmp[i]  {id=rotate, dep=*maketmp}
    ]], { lp.GlobalArg("arr", "int32", { shape = "n" }), lp.GlobalArg("tmp", "int32", { shape = "n" }), "..." },
    { name = "rotate_v4", assumptions = "n mod 16 = 0" })
  knl = lp.split_iname(knl, "i", 16, { inner_tag = "l.0", outer_tag = "g.0" })
  h.expect_error("MissingBarrierError", "rotate depends on maketmp", lp.generate_code, knl)
  local _, info = lp.generate_code(lp.add_nosync(knl, "global", "maketmp", "rotate"))
  h.check_equal(#info.kernels, 1, "device kernels with a global nosync")

  local split = lp.add_barrier(knl, "id:maketmp", "id:rotate")
  listing_has(split, "... gbarrier  {id=g_barrier}", "add_barrier")
  listing_has(split, "rotate : g_barrier, maketmp", "add_barrier dependencies", { with_dependencies = true })
  local listing = tostring(split)
  h.check(position(listing, "{id=maketmp}") < position(listing, "{id=g_barrier}")
    and position(listing, "{id=g_barrier}") < position(listing, "{id=rotate}"), "the barrier is listed between")
  _, info = lp.generate_code(split)
  h.check_equal(table.concat(info.kernels, ","), "rotate_v4,rotate_v4_0", "device kernels after add_barrier")
  h.on_each_executor(function(exec, name)
    local arr = lp.arange(32, "int32")
    h.check_array(split(exec, { arr = arr }), function(i) return (i - 1) % 32 end, name .. " rotation")
  end)
end

-- Reversal through local memory: without the barrier the analysis inserts (silenced by nosync), an explicit
-- local barrier from add_barrier keeps the results right; auto_test_vs_ref checks it against the original.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<16 }", { "t[i] = 2*a[i]  {id=w}", "out[i] = t[15-i]  {id=r}" },
    { lp.TemporaryVariable("t", "float32", { shape = { 16 }, address_space = "local" }),
      lp.GlobalArg("a", "float32", { shape = 16 }), "..." })
  knl = lp.tag_inames(knl, { i = "l.0" })
  local bar = lp.add_nosync(knl, "local", "w", "r"):add_barrier("id:w", "id:r", { synchronization_kind = "local" })
  listing_has(bar, "... lbarrier  {id=l_barrier}", "local add_barrier")
  local code = lp.generate_code(bar)
  h.check_equal(h.count_matches(code, "barrier%("), 1, "barriers with the explicit local barrier")
  h.check(position(code, "t[lid(0)] =") < position(code, "barrier(")
    and position(code, "barrier(") < position(code, "out[lid(0)] ="), "the barrier is between the two")
  local a = lp.rand({ 16 }, "float32", 5)
  h.on_each_executor(function(exec, name)
    h.check_array(bar(exec, { a = a }), function(i) return 2 * a:get(15 - i) end, name .. " reversal")
  end)
  h.check(lp.auto_test_vs_ref(knl, bar), "auto_test_vs_ref of the explicit barrier")

  -- Options: the loops it runs in, its id, its tags and the memory it fences.
  local inner = lp.add_barrier(knl, "id:w", "id:r", { synchronization_kind = "local", within_inames = "i",
    id_based_on = "mybar", tags = "sync", mem_kind = "global" })
  listing_has(inner, "  ... lbarrier  {id=mybar, tags=sync}", "barrier inside the i loop")
  h.check(lp.generate_code(inner):find("barrier(CLK_GLOBAL_MEM_FENCE)", 1, true), "mem_kind=global fences global memory")
  -- A second barrier gets the next id; nil for insn_after adds no dependency on it.
  local twice = lp.add_barrier(lp.add_barrier(knl, "id:w", nil), "id:w", nil)
  listing_has(twice, "{id=g_barrier_0}", "second barrier id")
end

print("instruction_transforms: ok")

-- add_inames_to_insn: a per-row sum whose reset runs outside the row loop until it is moved into it.
do
  local knl = lp.add_dtypes(lp.make_kernel("{ [i,j]: 0<=i<3 and 0<=j<4 }",
    { "<> t = 0 {id=z}", "t = t + a[i,j] {id=u, dep=z}", "out[i] = t {dep=u}" }), { a = "float32" })
  local a = h.array_from({ 3, 4 }, "float32", function(i, j) return 4 * i + j end)
  local rows = lp.add_inames_to_insn(knl, "i", "id:z")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return 6 * (i + 1) + 8 * i * (i + 1) end, name .. " running sum")
    h.check_array(rows(exec, { a = a }), function(i) return 16 * i + 6 end, name .. " per-row sum")
  end)
  h.expect_error("LoopyError", "iname 'q' does not exist", lp.add_inames_to_insn, knl, "q", "id:z")
end

-- rename_argument: arrays and value arguments (the domains' parameters) alike.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i] + n", { lp.GlobalArg("a", "float32", { shape = "n" }), "..." })
  local renamed = lp.rename_argument(lp.rename_argument(knl, "a", "x"), "n", "m")
  h.check_contains(tostring(renamed), "out[i] = 2*x[i] + m")
  h.check_contains(tostring(renamed), "[m] -> { [i] : 0 <= i < m }")
  h.on_each_executor(function(exec, name)
    h.check_array(renamed(exec, { x = lp.arange(5, "float32") }), function(i) return 2 * i + 5 end, name .. " renamed")
  end)
  h.expect_error("LoopyError", "argument name 'out' conflicts with an existing identifier", lp.rename_argument, knl, "a", "out")
  h.expect_error("LoopyError", "old arg name 'zz' does not exist", lp.rename_argument, knl, "zz", "b")
end
