-- Hostile input that once crashed the process (stack overflow, use of a foreign or finalized object) or
-- truncated a value silently: each is now a typed error, or works.
local lp = require("loom")
local h = require("helpers")

local domain = "{ [i]: 0<=i<n }"

-- Deep nesting overflowed the C++ stack in the recursive-descent parser.
for _, case in ipairs({ { "(", ")" }, { "sqrt(", ")" }, { "b[", "]" }, { "-(", ")" } }) do
  local rhs = string.rep(case[1], 10000) .. "i" .. string.rep(case[2], 10000)
  h.expect_error("ParseError", "nested more than 500 levels deep", lp.make_kernel, domain, "out[i] = " .. rhs)
end
for _, op in ipairs({ "-", "~", "not " }) do
  h.expect_error("ParseError", "nested more than 500 levels deep", lp.make_kernel, domain,
    "out[i] = " .. string.rep(op, 100000) .. "a[i]")
end

-- A chain is built without recursion in the parser, but every later walk recursed once per operand.
for _, op in ipairs({ " + ", "*", " and " }) do
  local err = h.expect_error("ParseError", "expression nested deeper than 10050 levels", lp.make_kernel, domain,
    "out[i] = " .. string.rep("a[i]", 100000, op))
  h.check(err.column > 1, "the error points into the chain, got column %s", tostring(err.column))
end

-- An empty index (`a[i,,j]`, `a[i,]`) was read as a variable named ':' (the parser's mark for an omitted part
-- of a slice), and 680 of them made an array of 680 axes whose footprint took isl 4 s (fuzz_instructions, CI's
-- smoke run). Arrays have at most 64 axes, as numpy's (and host arrays) have.
for _, case in ipairs({ { "out[i,,i] = 1", 7 }, { "out[i] = a[i,]", 14 }, { "out[,i] = 1", 5 } }) do
  local err = h.expect_error("ParseError", "empty index in a subscript", lp.make_kernel, domain, case[1])
  h.check_equal(err.column, case[2], "the column of the empty index in " .. case[1])
end
do
  local function indices(count) return string.rep("i", count, ",") end
  lp.make_kernel(domain, "out[" .. indices(64) .. "] = i")
  h.expect_error("ParseError", "a subscript of more than 64 indices", lp.make_kernel, domain, "out[" .. indices(65) .. "] = i")
  h.expect_error("ArgumentError", "the shape of 'out' has 65 axes; arrays have at most 64", lp.make_kernel, domain,
    "out[i] = 1", { lp.GlobalArg("out", "float32", { shape = string.rep("n", 65, ",") }) })
end

-- Each axis whose exact extent runs out of isl's budget costs up to 10,000 operations; 36 of them (with dozens
-- of parameters) took make_kernel 2 s (fuzz_instructions). Four such axes are bounded term by term; a fifth
-- gives up on the shape.
do
  local e = "i % 16 + j % 4 + i"
  local knl = lp.make_kernel("{[i,j]: 0<=i,j<n}", "out[" .. string.rep(e, 4, ",") .. "] = 1")
  h.check_equal(#knl.args[2].shape, 4, "four axes bounded term by term")
  h.expect_error("StaticValueFindingError", "more than 4 axes without an exact extent", lp.make_kernel,
    "{[i,j]: 0<=i,j<n}", "out[" .. string.rep(e, 5, ",") .. "] = 1")
end

-- Within the limits, deep nesting computes what it says.
do
  local nested = string.rep("(", 400) .. "a[i]" .. string.rep(")", 400)
  local negations = string.rep("-", 400) .. "a[i]"
  local knl = lp.make_kernel(domain, "out[i] = " .. nested .. " + " .. negations .. " + sqrt(" .. nested .. ")",
    { lp.GlobalArg("a", "float64", { shape = "n" }), "..." })
  local a = lp.arange(5, "float64")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i) return 2 * i + math.sqrt(i) end, name .. " deep nesting",
      { rtol = 1e-15 })
  end)
end

-- Metamethods taken from a metatable and called on another object read it as their own type (a segfault);
-- called twice, __gc freed twice. Each checks its object: a foreign one is an ArgumentError, a finalized one
-- refuses to be used, and a second __gc does nothing.
do
  local knl = lp.make_kernel(domain, "out[i] = 2*a[i]")
  local arr = lp.arange(4, "float32")
  local exec = lp.c.executor {}
  local kmeta, ameta, emeta = getmetatable(knl), getmetatable(arr), getmetatable(exec)
  for _, m in ipairs({ { kmeta, "__gc" }, { kmeta, "__index" }, { kmeta, "__tostring" },
    { kmeta, "__call", "kernel call" }, { ameta, "__gc" }, { ameta, "__index" }, { ameta, "__len" },
    { ameta, "__tostring" }, { emeta, "__gc" }, { emeta, "__index" }, { emeta, "__tostring" } }) do
    local f = m[1][m[2]]
    for _, foreign in ipairs({ {}, 5, "text", m[1] == kmeta and arr or knl, io.stdout }) do
      h.expect_error("ArgumentError", { "bad argument #1 to '" .. (m[3] or m[2]) .. "'" }, f, foreign, "name")
    end
  end

  local victim = lp.make_kernel(domain, "out[i] = 2*a[i]")
  kmeta.__gc(victim)
  kmeta.__gc(victim)
  h.expect_error("ArgumentError", "kernel has been collected", function() return victim.name end)
  h.expect_error("ArgumentError", "kernel has been collected", tostring, victim)
  h.expect_error("ArgumentError", "kernel has been collected", victim, { a = arr })

  local dead_array = lp.arange(4, "float32")
  ameta.__gc(dead_array)
  ameta.__gc(dead_array)
  h.expect_error("ArgumentError", "the array has been finalized", function() return #dead_array end)
  h.check(not pcall(knl, exec, { a = dead_array }), "a finalized array passed to a kernel")

  local dead_exec = lp.c.executor {}
  emeta.__gc(dead_exec)
  emeta.__gc(dead_exec)
  h.expect_error("ArgumentError", "executor has been collected", function() return dead_exec.target end)
  h.expect_error("ArgumentError", "executor has been collected", tostring, dead_exec)
  h.expect_error("ArgumentError", "executor has been collected", knl, dead_exec, { a = arr })

  -- The originals still work.
  h.check_array(knl(exec, { a = arr }), function(i) return 2 * i end, "after the calls on foreign objects")
end

-- A split factor past the index type was truncated in the generated code (a division by zero).
do
  local knl = lp.make_kernel(domain, "out[i] = 2*a[i]")
  for _, factor in ipairs({ 4294967296, 2147483648, math.maxinteger }) do
    h.expect_error("LoopyError", { "split_iname: the split factor " .. factor, "does not fit", "index type int32" },
      lp.split_iname, knl, "i", factor)
  end
  h.expect_error("LoopyError", { "chunk_iname: the number of chunks 4294967296", "does not fit" }, lp.chunk_iname,
    knl, "i", 4294967296)
  local wide = lp.make_kernel(domain, "out[i] = 2*a[i]", nil, { index_dtype = "int64" })
  local split = lp.split_iname(wide, "i", 4294967296)
  local a = lp.arange(10, "float32")
  h.on_each_executor(function(exec, name)
    h.check_array(split(exec, { a = a }), function(i) return 2 * i end, name .. " split by 2^32 in int64")
  end)
end

-- Loop variables were always `int`: bounds past the index type wrapped around. They have the index type, and
-- bounds it does not hold are an error.
do
  local wide = lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<3000000000 }", "out[i] = 2*i", nil, { index_dtype = "int64" }),
    { out = "int64" })
  local cl = lp.generate_code(wide)
  h.check_contains(cl, "for (long i = 0; i <= 2999999999; ++i)")
  h.check_contains(cl, "#define lid(N) ((long) get_local_id(N))")
  h.check_contains(lp.generate_code(lp.set_options(wide, { target = "c" })), "for (int64_t i = 0; i <= 2999999999; ++i)")
  local big = "{ [i]: 0<=i<3000000000 }"
  -- (Into an array of one element: an array of 3e9 is refused for its largest flat index first.)
  h.expect_error("LoopyError", { "the end of iname 'i', 3000000000", "does not fit", "index type int32" },
    lp.generate_code, lp.add_dtypes(lp.make_kernel(big, "out[0] = sum(i, 2*i)"), { out = "int64" }))
  h.expect_error("LoopyError", { "the largest flat index of array 'out', 2999999999", "does not fit" },
    lp.generate_code, lp.add_dtypes(lp.make_kernel(big, "out[i] = 2*i"), { out = "int64" }))
  h.expect_error("LoopyError", { "the start of iname 'i', -3000000000", "does not fit" }, lp.generate_code,
    lp.add_dtypes(lp.make_kernel("{ [i]: -3000000000<=i<0 }", "out[0] = sum(i, 2*i)"), { out = "int64" }))
  h.expect_error("LoopyError", { "the end of iname 'i', 2147483648", "does not fit" }, lp.generate_code,
    lp.add_dtypes(lp.make_kernel("{ [i]: 0<=i<=2147483647 }", "out[i] = i"), { out = "int32" }))
  -- Split loops (whose flat indices overflow instead), work-group ids too.
  local function split(index_dtype)
    local knl = lp.make_kernel(big, "out[i] = 2*i", nil, { index_dtype = index_dtype })
    return lp.split_iname(lp.add_dtypes(knl, { out = "int64" }), "i", 1024, { outer_tag = "g.0", inner_tag = "l.0" })
  end
  h.expect_error("LoopyError", { "the largest flat index of array 'out', 2999999999", "does not fit" },
    lp.generate_code, split("int32"))
  h.check_contains(lp.generate_code(split("int64")), "out[1024 * gid(0) + lid(0)]")
  -- (Into an array of a parametric size: one of 3e9 elements is refused for its largest flat index first.)
  local grid = lp.make_kernel(big, "out[i] = 2*i", { lp.GlobalArg("out", "int64", { shape = "m" }), lp.ValueArg("m", "int64") },
    { assumptions = "m >= 3000000000" })
  h.expect_error("LoopyError", { "the number of work-groups on axis 0, 3000000000", "does not fit" }, lp.generate_code,
    lp.tag_inames(grid, { i = "g.0" }))
end

-- Huge integers for small integer options, parameters and value arguments were truncated into an int.
do
  local knl = lp.make_kernel(domain, "out[i] = 2*a[i]")
  local fixed = lp.fix_parameters(lp.make_kernel(domain, "out[i] = 2*i", nil, { index_dtype = "int64" }),
    { n = 4294967298 })
  h.check_contains(lp.generate_code(lp.add_dtypes(fixed, { out = "int64" })), "i <= 4294967297")
  h.expect_error("ArgumentError", "value 4294967298 of parameter 'n' does not fit the kernel's index type int32",
    lp.make_kernel(domain, "out[i] = 2*i"), lp.c.executor {}, { n = 4294967298 })
  h.expect_error("ArgumentError", "value 300 of argument 's' does not fit its type int8",
    lp.make_kernel(domain, "out[i] = s*i", { lp.ValueArg("s", "int8"), "..." }), lp.c.executor {}, { n = 4, s = 300 })
  h.expect_error("ArgumentError", { "bad argument #3 to 'set_instruction_priority'", "out of range" },
    lp.set_instruction_priority, knl, "*", 4294967296)
  h.expect_error("ArgumentError", { "option 'slabs'", "out of range" }, lp.split_iname, knl, "i", 4,
    { slabs = { 4294967296, 0 } })
  h.expect_error("ArgumentError", { "option 'threads'", "out of range" }, lp.c.executor, { threads = 4294967297 })
end

-- Errors that were not Loom errors: a plain string, and InternalErrors from inside isl.
h.expect_error("ArgumentError", { "bad argument #1 to 'set_warnings'", "unknown action 'bogus'" }, lp.set_warnings,
  "bogus")
h.expect_error("ArgumentError", { "bad argument #1 to 'set_warnings'", "string expected, got no value" }, lp.set_warnings)
do
  local err = h.expect_error("ParseError", { "malformed domain '{ [i]: 0<=i4 }'", "unknown name 'i4' (line 1, column 11)",
    "iname 'i' has no bounds" }, lp.make_kernel, "{ [i]: 0<=i4 }", "out[i] = 2*i")
  h.check_equal(err.column, 11, "column of the unknown name")
  h.expect_error("ParseError", { "unknown name 'nn' (line 2, column 11)", "iname 'j' has no upper bound" },
    lp.make_kernel, "[n] -> { [i, j]: 0<=i<n and\n 0<=j and nn > 0 }", "out[i, j] = 2*i")
  h.expect_error("LoopyError", { "domain '{ [i]: 0<=i }'", "iname 'i' has no upper bound" }, lp.make_kernel,
    "{ [i]: 0<=i }", "out[i] = 2*i")
  h.expect_error("LoopyError", { "iname 'j' has no lower bound" }, lp.make_kernel, "{ [i, j]: 0<=i<10 and j<i }",
    "out[i, j] = 2*i")
  h.expect_error("LoopyError", { "iname 'k' has no bounds" }, lp.make_kernel, { "{ [i]: 0<=i<10 }", "{ [k]: }" },
    "out[i] = sum(k, 2*i)")
  -- A constraint that bounds only a combination of inames bounds none of them (found by fuzz_pipeline: isl's
  -- AST generator refused the loops, an InternalError).
  h.expect_error("LoopyError", { "iname 'i_outer' has no bounds" }, lp.make_kernel,
    "[n] -> { [i_outer, i_inner]: 0 <= 16*i_outer + i_inner < n }", "out[16*i_outer + i_inner] = 1")
  -- Host loops (around global barriers) over an empty domain run no iteration (found by fuzz_pipeline: their
  -- bounds, printed from isl's optimum of an empty set, were an InternalError).
  local empty = lp.make_kernel("{ [i, k]: 0 < k < k and 0 <= i < 4 }", [[
    for k
      ... gbarrier
      out[i] = k
    end
    ]], { lp.GlobalArg("out", "int32", { shape = 4 }) })
  h.check_contains(lp.generate_code(empty), "int const k")  -- k is a host loop
  h.on_each_executor(function(exec, name)
    h.check_array(empty(exec, { out = lp.zeros({ 4 }, "int32") }), function() return 0 end, name .. " empty host loop")
  end)
  -- Inames no instruction runs in may stay unbounded, as in loopy.
  local knl = lp.make_kernel({ "{ [i, j]: 0<=i<4 and j<i }", "{ [k]: }" }, "out[i] = 2*i")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, {}), function(i) return 2 * i end, name .. " beside unbounded inames")
  end)
  -- Transformations that need its bounds say it has none (found by fuzz_pipeline: isl's minimum of an
  -- unbounded dimension was an InternalError).
  h.expect_error("StaticValueFindingError", { "'k' has no lower bound" }, lp.chunk_iname,
    lp.make_kernel({ "{ [i]: 0<=i<4 }", "{ [k]: k<=3 }" }, "out[i] = 2*i"), "k", 2)
  -- An array read by its bare name would print its address where a value belongs (found by fuzz_pipeline:
  -- the barrier analysis then failed in isl on the access's missing dimension).
  h.expect_error("LoopyError", "'f' has 1 axes but is indexed with 0 indices in instruction 'use'", lp.generate_code,
    lp.make_kernel("{ [i]: 0<=i<2 }", { "f[i] = 3  {id=w}", "g[i] = f  {id=use, dep=w}" }))
  -- An array without a shape is indexed into its storage: read also by its bare name, its accesses disagree
  -- on its axes (found by fuzz_pipeline: the barrier analysis failed in isl; reliability.md 21).
  local hist = lp.tag_inames(lp.make_kernel("{ [i]: 0<=i<n }", "hist[b[i]] = hist"), { i = "l.0" })
  h.expect_error("LoopyError", "array 'hist' has no shape and is used both with indices (instruction 'insn') and " ..
    "without (instruction 'insn')", lp.generate_code, lp.add_dtypes(hist, { hist = "float32", b = "int32" }))
  -- Unrolling a huge loop would print its body hundreds of millions of times (found by fuzz_pipeline: a `vec`
  -- iname of 3e9/11 lanes took minutes); a register tile's few thousand copies stay allowed.
  h.expect_error("LoopyError", { "unrolling loop 'i_outer' would make more than 16384 copies of instruction 'insn'",
    "(272727273 for this loop)" }, lp.generate_code,
    lp.split_iname(lp.make_kernel("{ [i]: 0<=i<3000000000 }", "out[i] = 2*i", nil, { index_dtype = "int64" }), "i", 11,
      { outer_tag = "vec" }))
  h.check_contains(lp.generate_code(lp.tag_inames(lp.make_kernel("{ [i,j]: 0<=i,j<64 }", "out[i,j] = 2*i"),
    { i = "unr", j = "unr" })), "out[4095] = 126")
  h.expect_error("StaticValueFindingError", { "'k' has no upper bound" }, lp.chunk_iname,
    lp.make_kernel({ "{ [i]: 0<=i<4 }", "{ [k]: k>=0 }" }, "out[i] = 2*i"), "k", 2)
  -- Such an iname tagged as a hardware axis has no start to shift to zero (found by fuzz_pipeline: isl's
  -- minimum of an unbounded dimension was an InternalError); it takes no part in the grid.
  for _, tag in ipairs({ "l.0", "g.0" }) do
    local hw = lp.tag_inames(lp.make_kernel({ "{ [i]: 0<=i<4 }", "{ [k]: k<=3 }" }, "out[i] = 2*i"), { k = tag })
    h.on_each_executor(function(exec, name)
      h.check_array(hw(exec, {}), function(i) return 2 * i end, name .. " beside an unbounded " .. tag .. " iname")
    end)
  end
end

-- An automatic axis whose length isl writes as an exact division ((G + 4e)/4 on one piece): isl's maximum takes
-- integer expressions only, and the length was an untyped isl error (found by fuzz_pipeline; reliability.md 18).
do
  local k = lp.make_kernel("{[g,l]: p<<g<G and 0<=l<216}", { "<> s[l] = a[16*g + l] {id=w}", "... gbarrier" },
    nil, { silenced_warnings = "write_race(w)" })
  k = lp.expand_subst(lp.set_temporary_address_space(lp.assignment_to_subst(lp.split_iname(k, "g", 16), "s"), "s", "global"))
  k = lp.split_iname(k, "l", 2, { outer_tag = "g.0", inner_tag = "unr" })
  k = lp.split_iname(k, "g_inner", 5, { outer_tag = "l.auto", inner_tag = "g.1" })
  k = lp.split_iname(lp.remove_unused_inames(k), "g_outer", 1, { outer_tag = "l.auto", inner_tag = "l.1" })
  h.expect_error("LoopyError", "out of the bounds of array 'a'", lp.generate_code, lp.add_dtypes(k, { a = "float32" }))
end

-- A guard with a constant beyond 64 bits is a typed error; the expression isl built for the guard leaked when
-- that error unwound (found by fuzz_pipeline's leak check; reliability.md 23): the sanitizer build's leak check
-- at exit covers it.
do
  local k = lp.make_kernel("{ [i,j]: 0<=i,j<n and i <= 88888888888888888888888 j }", "a[i,j] = 17")
  k = lp.split_iname(k, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" })
  -- Since finding 41's fix the coefficient is refused before any guard is built.
  h.expect_error("LoopyError", "need the coefficient 88888888888888888888888, which does not fit", lp.generate_code,
    lp.add_dtypes(k, { a = "float32" }))
end

-- The number of work-groups or work-items of a hardware iname is isl's parametric maximum over its domain, which
-- can take minutes where the domain has divisions (found by fuzz_pipeline: over 10 s; reliability.md 22). Past
-- its budget of isl operations it is a typed error naming the iname.
do
  local k = lp.split_iname(lp.split_iname(lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*i"), "i", 16), "i_outer", 11)
  k = lp.tag_inames(lp.join_inames(k, { "i_outer_outer", "i_inner" }), { i_inner_and_i_outer_outer = "g.0" })
  h.expect_error("StaticValueFindingError", { "the extent of iname 'i_inner_and_i_outer_outer' (tagged g.0) takes isl more than",
    "operations to find from its domain" }, lp.generate_code, k)
  local mods = lp.make_kernel("{ [i]: 0<i<n and i mod 2 = 0 and i mod 3 = c }", "out[i] = 2*i")
  h.expect_error("StaticValueFindingError", "the extent of iname 'i_outer' (tagged l.0) takes isl more than",
    lp.generate_code, lp.split_iname(mods, "i", 4, { outer_tag = "l.0" }))
end

-- isl's reader drops a name's primes: an undeclared `i'`, taken for a parameter, became a second `i` beside the
-- iname, and a split then left the kernel without a domain (found by fuzz_pipeline; reliability.md 26). A prime
-- is a ParseError at its position; one in an isl comment is not.
do
  local err = h.expect_error("ParseError", "primed names (i') are not supported", lp.make_kernel,
    "{[i]: 0<=i<m and i'<28}", "out[i] = 1")
  h.check_equal(err.column, 19, "column of the prime")
  h.expect_error("ParseError", "primed names", lp.make_kernel, "{[i]: 0<=i<n}", "out[i] = 1", nil, { assumptions = "n' > 0" })
  local k = lp.add_dtypes(lp.make_kernel("{[i]: 0<=i<n # n' is n\n}", "out[i] = 1"), { out = "float32" })
  local code = lp.generate_code(k)
  h.check(code:find("out[i] =", 1, true) and code:find("int const n,", 1, true) and not code:find("is,", 1, true),
    "the domain with a commented prime, whose words are no parameters:\n%s", code)
end

-- The convex hull of a fetch's footprint in pieces (add_prefetch without fetch_bounding_box) can take isl minutes
-- for a stencil swept over a parametric loop (found by fuzz_pipeline: over 5 minutes; reliability.md 27). Past
-- its budget of isl operations it is a typed error that names the footprint and the way out.
do
  local k = lp.make_kernel("{ [i,j]: 1<=i,j<n-1}", "out[i,j] = a[i-1,j] + a[i+1,j] + a[i,j-1] + a[i,j+2] - 4*a[i,j]")
  k = lp.split_iname(k, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" })
  k = lp.split_iname(k, "j", 4, { outer_tag = "g.1", inner_tag = "unr" })
  h.expect_error("LoopyError", { "the footprint of 'a_fetch_rule' takes isl more than", "fetch_bounding_box=true" },
    lp.add_prefetch, k, "a", { "i_outer" }, { default_tag = "l.auto" })
  local boxed = lp.add_prefetch(k, "a", { "i_outer" }, { default_tag = "l.auto", fetch_bounding_box = true })
  h.check(lp.generate_code(lp.add_dtypes(boxed, { a = "float32" })):find("a_fetch", 1, true) ~= nil,
    "the bounding box of the same footprint")
end

-- A `vec` loop that is the lanes of some statements and an unrolled loop of others went to isl as a mark, so the
-- statements running on its lanes lost their dimension: isl's "NULL input" (found by fuzz_pipeline;
-- reliability.md 28).
do
  local k = lp.make_kernel("{[i,j]: 0<=i<3 and 0<=j<4}", "<> t = 2*a[i,j] {id=f}\nout[i] = su")
  k = lp.split_iname(k, "j", 16, { inner_tag = "vec" })
  k = lp.split_iname(k, "i", 1)
  k = lp.add_prefetch(k, "a", { "j_inner" })
  k = lp.set_temporary_address_space(k, "t", "global")
  k = lp.privatize_temporaries_with_inames(k, { "i_outer", "j_outer" })
  k = lp.split_iname(k, "j_outer", 16, { inner_tag = "vec" })
  k = lp.add_dtypes(k, { a = "float32", su = "float32" })
  h.on_each_executor(function(ex, name)
    local out = select(1, k(ex, { a = lp.rand({ 3, 4 }, "float32", 5), su = 2.5 }))
    h.check_array(out, function() return 2.5 end, name .. " out beside lanes and copies of one vec loop")
  end)
end

-- isl 0.25's AST generator fails on some statement domains with several divisions ("input involves unknown
-- divs", found by fuzz_pipeline; reliability.md 29): a LoopyError that names the domains, not an InternalError.
do
  local k = lp.make_kernel("{ [i]: 0<i<n and i mod 2 = 0 and i mod 7 = c }", "out[i] = 2*i")
  k = lp.split_iname(k, "i", 6, { outer_tag = "g.0", inner_tag = "l.0" })
  h.expect_error("LoopyError", { "isl's AST generator cannot build the loops of the statement domains",
    "simplify the domain's divisions" }, lp.generate_code, k)
end

-- An l.N iname whose domain is empty once a parameter is fixed (fuzz_pipeline; reliability.md 30): isl's
-- intersection with the empty parameters came back without the iname's dimension, and its extent was an
-- InternalError. It is the StaticValueFindingError the same empty domain gives an iname tagged l.0 directly.
do
  local k = lp.make_kernel("{[i,j]: 0<=i<n and 5<=j<=i}", "out[i] = sum(j, a[j])")
  k = lp.split_iname(k, "j", 1, { outer_tag = "l.auto", inner_tag = "l.1" })
  k = lp.add_dtypes(lp.fix_parameters(k, { n = 3 }), { a = "float32" })
  h.expect_error("StaticValueFindingError", "a static maximum was not found for the extent of iname", lp.generate_code, k)
end

-- An iname tied to a parameter (j = q) and split into unrolled parts (fuzz_pipeline; reliability.md 31): the
-- exact lengths of the unrolled loops were a parametric integer program isl took minutes over. Past a budget,
-- the span of their values bounds them, and the copies that cannot run are guarded: c[q] alone is written.
do
  local k = lp.make_kernel("{[j]: 0<q=j<n}", "c[j] = 1")
  k = lp.split_iname(k, "j", 17)
  k = lp.split_iname(k, "j_inner", 3, { outer_tag = "unr", inner_tag = "unr" })
  k = lp.split_iname(k, "j_outer", 17)
  k = lp.add_dtypes(k, { c = "int32" })
  h.on_each_executor(function(ex, name)
    for _, q in ipairs({ 1, 20, 52, 300 }) do
      local c = lp.zeros({ q + 1 }, "int32")
      k(ex, { c = c, q = q, n = 400 })
      h.check_array(c, function(j) return j == q and 1 or 0 end, name .. " c with q = " .. q)
    end
  end)
end

-- Unrolled copies under guards on a parameter's remainder (fuzz_pipeline; reliability.md 32): isl decided each
-- copy's guard again under facts that differed only in the guards of other unrolled loops, 2,880 copies in
-- 2.5 s. A guard is now decided under the facts that bear on it, once for all the copies that share them.
local function remainder_guards(i_tile, i_tiles, j_tile)
  local k = lp.make_kernel("{[i,j,k]: a0<=i,j,k<n}", "c[i,j] = s")
  k = lp.assume(k, "a0 >= 0")
  k = lp.split_iname(k, "i", 1)
  k = lp.split_iname(k, "i_outer", i_tile, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j", 12, { outer_tag = "l.0" })
  k = lp.split_iname(k, "k", 2, { inner_tag = "ilp" })
  k = lp.split_iname(k, "i_outer_outer", i_tiles, { inner_tag = "ilp" })
  k = lp.split_iname(k, "j_inner", j_tile, { outer_tag = "ilp", inner_tag = "ilp" })
  k = lp.split_iname(k, "k_outer", 2, { inner_tag = "ilp" })
  return lp.add_dtypes(k, { c = "float32", s = "float32" })
end
do
  local code = lp.generate_code(remainder_guards(16, 15, 16), { target = "opencl" })
  h.check_equal(h.count_plain(code, "] = s;"), 2880, "stores of the 2,880 copies")
  local k = remainder_guards(2, 3, 2)
  h.on_each_executor(function(ex, name)
    for _, a0 in ipairs({ 0, 5, 13 }) do
      local n = 30
      local c = lp.zeros({ n, n }, "float32")
      k(ex, { c = c, s = 3, a0 = a0, n = n })
      h.check_array(c, function(i, j) return (i >= a0 and j >= a0) and 3 or 0 end,
        name .. " c with a0 = " .. a0)
    end
  end)
end

-- A domain bound near 2^62 (fuzz_pipeline; reliability.md 33): the strides of an array shaped by it overflowed
-- 64 bits (undefined behaviour). It is a LoopyError naming the array.
h.expect_error("LoopyError", { "array 'a' of shape (3445173350830411322, 3445173350830411322)",
  "more elements than a 64-bit index counts" }, lp.make_kernel,
  "{ [i,j]: 0<=i,j<n and i <= 3445173350830411321 >= j }", "a[i,j] = 17")

-- A scalar temporary read with a subscript (fuzz_pipeline; reliability.md 34): its accesses had fewer
-- dimensions than the subscript, and the barrier analysis met isl's "NULL input" (an InternalError).
do
  local k = lp.make_kernel("{[i,j]: 0 <= i < 10 and 0 <= j < 10}", "<>a = a[j]")
  k = lp.split_iname(k, "i", 5, { outer_tag = "g.0", inner_tag = "l.0" })
  k = lp.set_temporary_address_space(k, "a", "local")
  h.expect_error("LoopyError", "'a' is a scalar but is indexed with 1 indices in instruction 'insn'", lp.generate_code, k)
end

-- An iname tied to a parameter (i = g) and split into a work-group axis, an ilp part and a work-item axis
-- (fuzz_pipeline; reliability.md 35 and 36). The start of the hardware inames was a parametric integer program
-- isl took over a minute for (35); past a budget it is the least value over all parameter values. And isl's
-- lower bound of the ilp loop was below the iname's least value, so the copies, counted from it by the iname's
-- length (one value), missed the instance that runs: out[g] was never written (36). The copies now span the
-- loop's own bounds.
local function tied(ilp_tag, local_tag)
  local k = lp.make_kernel("{ [i]: 5<g=i<n-5 }", "out[i] = 1")
  k = lp.split_iname(k, "i", 16)
  k = lp.split_iname(k, "i_outer", 1)
  k = lp.split_iname(k, "i_inner", 9)
  k = lp.split_iname(k, "i_outer_outer", 11, { outer_tag = "g.0", inner_tag = ilp_tag })
  k = lp.split_iname(k, "i_inner_inner", 7, { inner_tag = local_tag })
  return lp.add_dtypes(k, { out = "int32" })
end
for _, tags in ipairs({ { "ilp", "l.0" }, { "ilp", "for" }, { "unr", "l.0" } }) do
  local k = tied(tags[1], tags[2])
  h.on_each_executor(function(ex, name)
    for _, g in ipairs({ 6, 17, 40, 200 }) do
      local out = lp.zeros({ g + 1 }, "int32")
      k(ex, { out = out, g = g, n = 2 * g + 6 })
      h.check_array(out, function(i) return i == g and 1 or 0 end,
        string.format("%s out with g = %d (%s, %s)", name, g, tags[1], tags[2]))
    end
  end)
end

-- Constants whose products pass 64 bits (fuzz_pipeline; reliability.md 38): a bound of 5167760026245616980*N
-- with N fixed to 12 made the evaluator and the C printer overflow (undefined behaviour, which UBSan reports in
-- the sanitizer build). Such constants are no values there: the code is generated, the product left as written.
do
  local k = lp.make_kernel("{ [i]: 5167760026245616980*N <= i < n }", "out[i] = i")
  k = lp.fix_parameters(k, { N = 12, n = 12 })
  h.check(#lp.generate_code(k) > 0, "code for a bound past 64 bits")
end

-- Prefetches of prefetches (fuzz_pipeline; reliability.md 37): each new domain repeated the constraints of the
-- loops around it with new existentially quantified variables (10 after three prefetches of `a`), and a
-- projection of that domain took isl minutes (Fourier-Motzkin over thousands of constraints). The new inames'
-- domain now adds only what the domain around it does not imply: no existential is left, and generate_code
-- answers at once (here with the error for a `vec` iname as long as the array).
do
  local base = lp.make_kernel("[n,m] -> {[i,k,j]: 1<=i<n and 0<=k<m and 0<=j<4}", "c[i,j,k] = a[i,j,k]/6.0 + a[i,j,k]")
  local function prefetched(tag)
    local k = lp.split_iname(base, "i", 7, { outer_tag = "unr", inner_tag = "ord" })
    for _, sweep in ipairs({ "i_outer", "i_inner", "j" }) do
      k = lp.add_prefetch(k, "a", { sweep }, { default_tag = tag })
    end
    return lp.add_dtypes(k, { a = "float32" })
  end
  local k = prefetched(nil)
  h.check(not h.contains(tostring(k), "exists"), "no existential in the domains of three prefetches:\n%s", tostring(k))
  h.expect_error("LoopyError", { "privatizing 'a_fetch_0' over iname 'a_dim_0' needs a bounded length" },
    lp.generate_code, prefetched("vec"))
end

-- A footprint that keeps existentially quantified variables once coalesced (fuzz_pipeline; reliability.md 40):
-- its convexity test reached the budget of 27 only after 0.65 to 2.3 s, as isl's pivots on it are slow. It
-- gets a tenth of that budget: the same LoopyError, at once.
do
  local k = lp.make_kernel("{[i,k,j]: 0<=i<50p and 1<=k<43046721 and q=j<10}", "e[i,j,k] = c[i,j,k+1] + c[i,j,k-1]")
  k = lp.split_iname(k, "k", 11)
  k = lp.split_iname(k, "k_outer", 16, { outer_tag = "unr", inner_tag = "ilp.seq" })
  h.expect_error("LoopyError", { "takes isl more than 200000 operations to find convex or not", "fetch_bounding_box=true" },
    lp.add_prefetch, k, "c", { "k_outer_outer", "j", "i" }, { default_tag = "l.1" })
end

-- A domain whose equality has coefficients past the index type (fuzz_pipeline; reliability.md 41): isl's AST
-- generator took 2.6 s of big-integer arithmetic to build loops that would have overflowed. A LoopyError names
-- the coefficient before code generation starts (statement domains, which projections give new coefficients,
-- are checked again before the AST is built).
do
  local k = lp.make_kernel("{ [i]: 5 < 222222222222b/93800845 = i < n - 1 }", "out[i] = 1")
  k = lp.split_iname(k, "i", 4)
  k = lp.split_iname(k, "i_outer", 16)
  k = lp.split_iname(k, "i_outer_outer", 9, { inner_tag = "unused.g" })
  k = lp.split_iname(k, "i_outer_inner", 4, { outer_tag = "ilp" })
  h.expect_error("LoopyError", { "generate_code: the domain of i_outer_outer_outer, i_outer_outer_inner, i_outer_inner_outer, " ..
    "i_outer_inner_inner, i_inner need the coefficient -222222222222",
    "does not fit the kernel's index type int32" }, lp.generate_code, lp.add_dtypes(k, { out = "float32" }))
end

-- OKL's signed integer division names each operand several times in its truncating form (reliability.md 47):
-- nested divisions multiplied the kernel's text by 3 a level (12 levels took over a minute). Each operand is
-- now computed once into a temporary; right of && or || (where it may not be evaluated) the text is bounded.
do
  local function divided(depth, guard)
    local e = "b[j]"
    for _ = 1, depth do e = "(" .. e .. " / 3)" end
    if guard then e = "(j < 2 && " .. e .. " > 0)" end
    return "@kernel void k(const int *b, int *a) {\n  for (int i = 0; i < 4; ++i; @outer)\n" ..
      "    for (int j = 0; j < 4; ++j; @inner) a[j + 4 * i] = " .. e .. ";\n}"
  end
  local code = lp.generate_code(lp.parse_okl(divided(60))[1])
  h.check(#code < 20000, "60 nested divisions give %d characters of code", #code)
  local err = h.expect_error("OKLError", "this expression's Loom form passes 1000000 characters", lp.parse_okl, divided(14, true))
  h.check_equal(err.line, 3, "line of the expression")
  local b = lp.zeros({ 4 }, "int32")
  for j = 0, 3 do b:set(j, (j - 2) * 1000003) end
  h.on_each_executor(function(exec, name)
    local a = lp.zeros({ 16 }, "int32")
    lp.parse_okl(divided(5))[1](exec, { b = b, a = a })
    for j = 0, 3 do
      local v = b:get(j)
      for _ = 1, 5 do v = v < 0 and -((-v) // 3) or v // 3 end
      h.check_equal(a:get(j), v, "nested divisions on " .. name)
    end
  end)
end

-- An unsized `@shared int buf[];` gave the OKL front end's scan for assigned names a null extent (a lent
-- fuzz_okl run; reliability.md 48): the OKLError of OKL's rule now.
do
  local err = h.expect_error("OKLError", "[@shared] variables must have sizes known at compile-time", lp.parse_okl,
    "@kernel void k(int *o) {\n  for (int b = 0; b < 4; ++b; @outer) {\n    @shared int buf[];\n" ..
    "    for (int t = 0; t < 4; ++t; @inner) buf[t] = t;\n  }\n}")
  h.check_equal(err.line, 3, "line of the unsized array")
end

-- Private temporaries live on a thread's stack in this process (the C executor's threads; PoCL keeps a group's
-- copies on one worker's stack): 512 KiB per work-item on C and 16 MiB per group on PoCL were a SIGSEGV. Over
-- the executor's limits the call is a LimitError before any launch; within them it runs.
do
  local function scratch(len, group)
    local src = string.format([[
      <> t[j] = a[g*%d + l] + j  {id=w}
      out[g*%d + l] = t[%d] + t[0]  {id=r, dep=w}
    ]], group, group, len - 1)
    local knl = lp.make_kernel(string.format("{ [g, l, j]: 0<=g<2 and 0<=l<%d and 0<=j<%d }", group, len), src,
      { lp.GlobalArg("a, out", "float64", { shape = 2 * group }) })
    return lp.tag_inames(knl, { g = "g.0", l = "l.0" })
  end
  h.on_each_executor(function(exec, name)
    local fits = scratch(2048, 16)  -- 16 KiB per work-item, 256 KiB per group
    local a = lp.arange(32, "float64")
    h.check_array(fits(exec, { a = a, out = lp.zeros({ 32 }, "float64") }), function(i) return 2 * i + 2047 end,
      "16 KiB of private scratch on " .. name)
    h.expect_error("LimitError", { "its private temporaries (t) take 1048576 bytes per work-item, more than the 65536" },
      scratch(131072, 4), exec, { a = lp.zeros({ 8 }, "float64"), out = lp.zeros({ 8 }, "float64") })
  end)
  h.expect_error("LimitError", { "2097152 for a work-group of 256", "a CPU device's thread" }, scratch(1024, 256),
    lp.cl.queue {}, { a = lp.zeros({ 512 }, "float64"), out = lp.zeros({ 512 }, "float64") })
  -- A private array whose length is a parameter (a C variable-length array): checked at the call's value.
  local vla = lp.make_kernel("{ [i, j]: 0<=i<n and 0<=j<m }", { "<> t[j] = a[i] + j  {id=w}", "out[i] = t[m-1]  {dep=w}" },
    { lp.GlobalArg("a, out", "float64", { shape = "n" }), lp.ValueArg("n, m", "int32"),
      lp.TemporaryVariable("t", "float64", { shape = "m" }) }, { target = "c" })
  h.check_array(vla(lp.c.executor {}, { a = lp.arange(3, "float64"), out = lp.zeros({ 3 }, "float64"), m = 100 }),
    function(i) return i + 99 end, "a private array of 100 values")
  h.expect_error("LimitError", "take 80000000 bytes per work-item", vla, lp.c.executor {},
    { a = lp.arange(3, "float64"), out = lp.zeros({ 3 }, "float64"), m = 10000000 })
end

print("hostile_input: ok")
