-- Every variant legal or refused (issue 33): a tag or loop order that would run two dependent instances of
-- one instruction unordered, or in reverse, is a DependenceViolationError naming the instruction, the array,
-- the iname and a witness pair. Each kernel here computed another result than its sequential self before
-- (the prefix sum: max |diff| 1013 on C, 2041 on PoCL). The legal variants of the same kernels run in
-- tests/correctness/dependence_legality.lua.
local lp = require("loom")
local h = require("helpers")

local function refused(texts, knl, target)
  h.expect_error("DependenceViolationError", texts, lp.generate_code, knl, target and { target = target } or nil)
end

-- The prefix sum: each instance reads what the one before wrote.
local scan = lp.make_kernel("{ [i]: 1<=i<n }", "a[i] = a[i-1] + a[i]  {id=upd}",
  { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n", "int32") })
for _, target in ipairs { "opencl", "c" } do
  refused({ "instance (i_inner=0, i_outer=1) of 'upd' reads a[255], written by its instance (i_inner=255, i_outer=0)",
    "another work-group (i_outer on g.0)", "sequential order (i_outer, i_inner)" },
    lp.split_iname(scan, "i", 256, { outer_tag = "g.0", inner_tag = "l.0" }), target)
end
refused({ "of 'upd' reads a[", "on another work-item of the group (i on l.0) at the same point of the code" },
  lp.fix_parameters(lp.tag_inames(scan, { i = "l.0" }), { n = 64 }))
refused({ "of 'upd' reads a[", "lanes of one vector (i_inner on vec)", "all lanes read before any writes" },
  lp.split_iname(scan, "i", 4, { inner_tag = "vec" }), "c")
refused({ "another work-group (i on g.0)" }, lp.tag_inames(scan, { i = "g.0" }))
-- Blocks of the scan on g.0, each block a sequential loop: the first element of a block reads the last of the
-- one before.
refused({ "reads a[", "another work-group (i_outer on g.0)" }, lp.split_iname(scan, "i", 16, { outer_tag = "g.0" }))

-- The in-place time loop: each step reads the left neighbour's new value and the right one's old value.
local heat = lp.make_kernel("{ [t, i]: 0<=t<steps and 1<=i<n-1 }", "a[i] = 0.5*(a[i-1] + a[i+1])  {id=step, inames=t:i}",
  { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n, steps", "int32") })
refused({ "of 'step' reads a[", "another work-group (i_outer on g.0)" },
  lp.split_iname(heat, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))
refused({ "of 'step'", "another work-item of the group (i on l.0)" },
  lp.fix_parameters(lp.tag_inames(heat, { i = "l.0" }), { n = 64 }))
refused({ "of 'step' reads a[", "lanes of one vector (i_inner on vec)" },
  lp.split_iname(heat, "i", 8, { inner_tag = "vec" }), "c")
-- The anti-dependence on the right neighbour alone: a work-item may overwrite a value its left neighbour has
-- not read yet.
local shift_left = lp.make_kernel("{ [i]: 0<=i<n-1 }", "a[i] = a[i+1]  {id=sh}",
  { lp.GlobalArg("a", "float32", { shape = "n" }), lp.ValueArg("n", "int32") })
refused({ "of 'sh' writes a[", "read by its instance", "another work-group (i_outer on g.0)" },
  lp.split_iname(shift_left, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))

-- seidel-2d (PolyBench): every point reads its four neighbours, two of them already updated in this sweep.
local seidel = lp.make_kernel("{ [t, i, j]: 0<=t<tsteps and 1<=i<n-1 and 1<=j<n-1 }",
  "A[i,j] = (A[i-1,j-1] + A[i-1,j] + A[i-1,j+1] + A[i,j-1] + A[i,j] + A[i,j+1] + A[i+1,j-1] + A[i+1,j] + A[i+1,j+1])/9.0  {id=sweep, inames=t:i:j}",
  { lp.GlobalArg("A", "float64", { shape = "n, n" }), lp.ValueArg("n, tsteps", "int32") })
refused({ "of 'sweep' reads A[", "another work-group (i_outer on g.0)" }, lp.split_iname(seidel, "i", 16, { outer_tag = "g.0" }))
refused({ "of 'sweep'", "another work-group (j_outer on g.0)" }, lp.split_iname(seidel, "j", 16, { outer_tag = "g.0" }))
refused({ "of 'sweep'", "another work-item of the group (j on l.0)" }, lp.fix_parameters(lp.tag_inames(seidel, { j = "l.0" }), { n = 34 }))
refused({ "of 'sweep'", "lanes of one vector (j_inner on vec)" }, lp.split_iname(seidel, "j", 4, { inner_tag = "vec" }), "c")
-- ilp moves the copies of i innermost, under the loop over j: A[i+1, j-1] (at j-1) now runs before A[i, j]
-- (at j), whose new value it needs.
refused({ "of 'sweep' reads A[", "which the loop order (t, i_outer, j, i_inner) now runs after it" },
  lp.split_iname(seidel, "i", 2, { inner_tag = "ilp" }))

-- A step of a scan through local memory where the work-items of one parity add their right neighbour, written
-- with an if() expression: the others run too and write their own value back, while the left neighbour reads
-- it (tests/correctness/parallel.lua has the predicated form, which is legal).
do
  local mix = lp.make_kernel("{[d,t]: 0<=d<4 and 0<=t<8}", {
    "s[t] = a[t]  {id=init}",
    "s[t] = if((t + d) % 2 == 0, s[t] + s[(t+1) % 8], s[t])  {id=mix, dep=init, inames=d:t}",
    "out[t] = s[t]  {dep=mix}" },
    { lp.TemporaryVariable("s", "float32", { shape = "8", address_space = "local" }),
      lp.GlobalArg("a", "float32", { shape = "8" }), lp.GlobalArg("out", "float32", { shape = "8" }) })
  refused({ "of 'mix' reads s[", "another work-item of the group (t on l.0) at the same point of the code" },
    lp.tag_inames(mix, { t = "l.0" }))
end

-- A nosync of the instruction with itself is the user's word that the order does not matter.
local relaxed = lp.make_kernel("{ [i]: 1<=i<n }", "a[i] = a[i-1] + a[i]  {id=upd, nosync=upd}",
  { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n", "int32") })
lp.generate_code(lp.split_iname(relaxed, "i", 256, { outer_tag = "g.0", inner_tag = "l.0" }))
-- But not for the lanes of a vector, which no synchronization orders.
refused("lanes of one vector", lp.split_iname(relaxed, "i", 4, { inner_tag = "vec" }), "c")

-- The error is a user error with its kind, catchable like any other.
local ok, err = pcall(lp.generate_code, lp.tag_inames(scan, { i = "g.0" }))
h.check(not ok and err.kind == "DependenceViolationError", "kind: %s", tostring(err))

-- Contradictory loop priorities are an error naming the cycle (loopy: CycleError), not resolved silently in
-- favour of the first.
do
  local gemm = lp.make_kernel("{ [i, j, k]: 0<=i,j,k<n }", "c[i, j] = c[i, j] + a[i, k]*b[k, j]")
  local ij = lp.prioritize_loops(gemm, "i,j")
  h.expect_error("LoopyError", { "prioritize_loops: the order j, k, i contradicts the kernel's loop priorities",
    "cycle" }, lp.prioritize_loops, ij, "j,k,i")
  lp.prioritize_loops(ij, "j,k")  -- agrees: i, j, k
end

-- An iname of the domain that no instruction runs in is a warning naming it: its loop does not run (a seidel
-- port that forgot `for t` ran one sweep instead of 40).
do
  local forgot = lp.make_kernel("{ [t, i]: 0<=t<40 and 1<=i<n-1 }", "a[i] = 0.5*(a[i-1] + a[i+1])",
    { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n", "int32") })
  lp.set_warnings("error")
  h.expect_error("UnusedInameWarning", { "no instruction runs in iname t of the domains", "'unused_inames'" },
    lp.generate_code, forgot)
  -- Silenced as loopy's warnings are: by the kernel's silenced_warnings, or for the process.
  lp.generate_code(lp.make_kernel("{ [t, i]: 0<=t<40 and 1<=i<n-1 }", "a[i] = 0.5*(a[i-1] + a[i+1])",
    { lp.GlobalArg("a", "float64", { shape = "n" }), lp.ValueArg("n", "int32") },
    { silenced_warnings = { "unused_inames" } }))
  lp.set_warnings("default")
end

-- Dependences between two instructions ordered only through a third (`t` after `m` after `s`): `t` overwrites
-- a[i+1] that `s` of work-item i reads. Across work-groups that needs a global barrier; within a group the
-- barrier goes in. (No barrier and no error before: `t` did not depend on `s` directly.)
do
  local src = [[
    out[i] = a[(i+1) % n]  {id=s, dep=*}
    c[i] = 1  {id=m, dep=s}
    a[i] = 0  {id=t, dep=m}
  ]]
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", src, { lp.GlobalArg("a, c, out", "float32", { shape = "n" }), "..." })
  h.expect_error("MissingBarrierError", "Dependency 't depends on s' (for variable 'a')", lp.generate_code,
    lp.split_iname(knl, "i", 64, { outer_tag = "g.0", inner_tag = "l.0" }))
  local one_group = lp.tag_inames(lp.fix_parameters(knl, { n = 64 }), { i = "l.0" })
  h.check_contains((lp.generate_code(one_group)), "barrier(CLK_GLOBAL_MEM_FENCE) /* for a (t depends on s) */")
  h.on_each_executor(function(exec, name)
    local a = lp.arange(64, "float32")
    local _, _, out = one_group(exec, { a = a })
    h.check_array(out, function(i) return (i + 1) % 64 end, "out read before the overwrite on " .. name)
  end)
end

-- Loop orders changed by transformations are checked against the loops the kernel had before them: seidel's
-- loops interchanged, or tiled along j with the tiles outside i, run A[i+1, j-1] before A[i, j], whose new
-- value it reads (found by tools/differential.lua for join_inames, seed 65 case 92: silent wrong code before).
do
  refused({ "of 'sweep' reads A[", "sequential order (t, i, j as before the transformations)",
    "which the loop order (t, j, i) now runs after it" }, lp.prioritize_loops(seidel, "t,j,i"))
  refused({ "of 'sweep' reads A[", "which the loop order (t, j_outer, i, j_inner) now runs after it" },
    lp.prioritize_loops(lp.split_iname(seidel, "j", 4), "t,j_outer,i,j_inner"))
  -- The 5-point seidel's dependences point along i and along j only: its interchange is legal, and computes the same.
  local five = lp.make_kernel("{ [t, i, j]: 0<=t<3 and 1<=i<n-1 and 1<=j<n-1 }",
    "A[i,j] = (A[i-1,j] + A[i,j-1] + A[i,j] + A[i,j+1] + A[i+1,j])/5.0  {inames=t:i:j}",
    { lp.GlobalArg("A", "float64", { shape = "n, n" }), lp.ValueArg("n", "int32") })
  h.on_each_executor(function(exec, name)
    local A0 = lp.rand({ 12, 12 }, "float64", 4)
    local want, got = A0:copy(), A0:copy()
    five(exec, { A = want })
    lp.prioritize_loops(five, "t,j,i")(exec, { A = got })
    h.check_array(got, want, "5-point seidel interchanged on " .. name, { rtol = 1e-12 })
  end)
  -- join_inames joins r2 (outer in the joined iname) and i, while the kernel nested i outside j.
  local rec = lp.make_kernel("{ [i, j]: 0 <= i < 7 and 0 <= j < 7 }", "c[i + 1] = 0.5*c[i + 2] + a[i]  {id=rec, inames=i:j}",
    { lp.GlobalArg("a, c", "float64", { shape = "20" }) })
  local joined = lp.join_inames(lp.rename_iname(lp.chunk_iname(rec, "j", 2), "j_inner", "r2"), { "r2", "i" })
  refused({ "of 'rec' writes c[", "read by its instance", "(i, j as before the transformations)" }, joined)
end

-- Indices isl cannot state (a chunk over a parametric length multiplies a parameter by an iname) prove no order:
-- under concurrent inames the tags are refused, unless a nosync says the order does not matter. With the
-- parameter fixed the same variant is checked exactly, and refused with its witness (the ilp copies of the
-- chunk number run under the loop over the chunk's elements). Found by tools/differential.lua, seed 67 case 133.
do
  local function chunked(options)
    local knl = lp.make_kernel("{ [i]: 0 <= i < m }", "c[i + 1] = 0.5*c[i + 2] + a[i]  {id=rec" .. options .. "}",
      { lp.GlobalArg("a, c", "float64", { shape = "2*m + 3" }), lp.ValueArg("m", "int32") })
    return lp.split_iname(lp.chunk_iname(knl, "i", 3), "i_outer", 3, { inner_tag = "ilp.seq" })
  end
  refused({ "'rec' reads and writes c, and its access c[", "is not affine in its inames",
    "(i_outer_inner on ilp.seq)" }, chunked(""))
  lp.generate_code(chunked(", nosync=rec"))
  refused({ "of 'rec' writes c[", "which the loop order (i_outer_outer, i_inner, i_outer_inner) now runs after it" },
    lp.fix_parameters(chunked(""), { m = 7 }))
end

-- A loop order changed over inames whose meant values isl cannot state (a chunk over a parametric length, then
-- prioritize_loops) is unproven, and refused; with the parameter fixed it is checked, and refused with its
-- witness. The chunk alone keeps the order and is accepted. Found by tools/differential.lua, seed 69 case 37.
do
  local rec = lp.make_kernel("{ [i, j, k]: 1 <= i < n - 1 and 0 <= j < n and 0 <= k < n }",
    "c[k + 1] = 0.5*c[k + 2] + a[i + j]  {id=rec, inames=i:j:k}",
    { lp.GlobalArg("a, c", "float64", { shape = "3*n + 3" }), lp.ValueArg("n", "int32") })
  local chunked = lp.chunk_iname(rec, "j", 3)
  lp.generate_code(chunked)
  refused({ "'rec' reads and writes c, and its loops now run in another order", "than the kernel meant (i, j, k)" },
    lp.prioritize_loops(chunked, "k,j_inner"))
  refused({ "of 'rec' reads c[", "(i, j, k as before the transformations)" },
    lp.fix_parameters(lp.prioritize_loops(chunked, "k,j_inner"), { n = 6 }))
  -- An instance that touches only its own element has nothing to keep in order: the same reorder is accepted.
  local scale = lp.make_kernel("{ [j, k]: 0 <= j, k < n }", "c[j, k] = 2*c[j, k]  {inames=j:k}",
    { lp.GlobalArg("c", "float64", { shape = "n, n" }), lp.ValueArg("n", "int32") })
  lp.generate_code(lp.prioritize_loops(lp.chunk_iname(scale, "j", 3), "k,j_inner"))
end

-- An ilp iname that another instruction alone uses nests outside the loops of the others in the kernel's order
-- (as the linearizer nests it untagged): on ilp it runs innermost, reversing the recurrence over j. Found by
-- tools/differential.lua, seed 71 case 122.
do
  local two = lp.make_kernel("{ [i, j]: 1 <= i < m and 0 <= j < 7 }",
    { "out[j] = 2*a[j]", "c[j + 1] = 0.5*c[j + 2] + b[i]  {id=rec, inames=i:j}" },
    { lp.GlobalArg("a, b, c, out", "float64", { shape = "m + 9" }), lp.ValueArg("m", "int32") })
  refused({ "of 'rec' writes c[", "sequential order (j, i)", "which the loop order (i, j) now runs after it" },
    lp.tag_inames(two, { j = "ilp" }))
end

-- Two instructions in one loop nest: `use` at (i, j) reads what `make` wrote at (i-1, j+1), one row up and one
-- column right. With j outside i, or j's blocks outside i, `make`'s instance runs after the read (silent wrong
-- code before); with i on g.0 no barrier can order them, though both share the loop over j: the work-groups run
-- it each at its own pace (accepted before: the check took one iteration of j for both).
do
  local knl = lp.make_kernel("{ [i, j]: 1<=i<n and 0<=j<n-1 }", [[
    a[i, j] = 2*c[i, j] + 1  {id=make}
    b[i, j] = a[i-1, j+1]  {id=use, dep=make}
  ]], { lp.GlobalArg("a, b, c", "float64", { shape = "n, n" }), lp.ValueArg("n", "int32") })
  refused({ "instance (i=2, j=0) of 'use' reads a[1, 1], written by instance (i=1, j=1) of 'make'",
    "(i, j as before the transformations)", "which the loop order (j, i) now runs after it" },
    lp.prioritize_loops(knl, "j,i"))
  refused({ "of 'use' reads a[", "of 'make' earlier", "which the loop order (j_outer, i, j_inner) now runs after it" },
    lp.prioritize_loops(lp.split_iname(knl, "j", 4), "j_outer,i,j_inner"))
  h.expect_error("MissingBarrierError", "Dependency 'use depends on make' (for variable 'a')", lp.generate_code,
    lp.tag_inames(knl, { i = "g.0" }))
  -- Within one work-group, dep= across l.0 means what it means in loopy: all of make's instances of an
  -- iteration of j before use's (the barrier it asks for), and the later column's value is read before it is
  -- written, as an OpenCL author of that loop nest expects: accepted.
  lp.generate_code(lp.tag_inames(knl, { i = "l.0" }))
end

-- A join mixes an outer and an inner part of one loop into a new iname (`// 2`, `% 2` of it in the meant value),
-- whose order is not the meant one: the meant loop's values are compared with isl, not assumed to grow with
-- today's inames. Found by tools/differential.lua, seed 81 case 34 (wrong c[3] on PoCL before).
do
  local rec = lp.make_kernel("{ [i]: 0 <= i < 3 }", "c[i + 1] = 0.5*c[i] + 0.5  {id=rec}",
    { lp.GlobalArg("c", "float64", { shape = 9 }) })
  local knl = lp.split_iname(lp.split_iname(lp.split_iname(rec, "i", 18, { outer_tag = "g.1" }), "i_inner", 2,
    { inner_tag = "ilp" }), "i_inner_outer", 3, { outer_tag = "unr", inner_tag = "l.1" })
  refused({ "of 'rec' reads c[2], written by its instance", "(i as before the transformations)",
    "another work-item of the group (i_inner_outer_inner on l.1)" }, lp.join_inames(knl, { "i_outer", "i_inner_inner" }))
end

-- An update outside a hardware axis of its device kernel runs once per work-item along it: beside a fetch on
-- l.1 of 3 work-items, c[j+1] = 0.5*c[j+1] + ... was applied three times (differential --checked, seed 105 case
-- 91: wrong on PoCL). A plain write repeats harmlessly and stays accepted.
do
  local src = { "out[j] = sum(i, a[2*i] + 5)", "c[j + 1] = 0.5*c[j + 1] + j*b[2*j, 2*i]  {inames=i:j}" }
  local args = { lp.GlobalArg("a", "float64", { shape = 39 }), lp.GlobalArg("b", "float64", { shape = "39, 39" }),
    lp.GlobalArg("c", "float64", { shape = 39 }), "..." }
  local knl = lp.make_kernel("{ [i, j]: 1 <= i < 9 and 0 <= j < 9 }", src, args)
  local function fetched(k) return lp.tag_inames(lp.add_prefetch(k, "a", { "i" }), { a_dim_0 = "l.0" }) end
  refused({ "'insn_0' reads and writes c but has no iname on l.0, which its device kernel runs on" }, fetched(knl))
  local plain = lp.make_kernel("{ [i, j]: 1 <= i < 9 and 0 <= j < 9 }",
    { "out[j] = sum(i, a[2*i] + 5)", "c[j + 1] = j*b[2*j, 2*i]  {inames=i:j}" }, args)
  lp.generate_code(fetched(plain))
end
