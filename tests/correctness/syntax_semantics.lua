-- The meaning of loopy's instruction syntax, on both executors against plain-Lua references: substitution
-- rules, if/elif/else blocks and `if=` predicates, for blocks with imperfect nesting, data-dependent loop
-- bounds (a CSR sparse matrix-vector product, per-element lengths), dependency wildcards and queries,
-- conflicting instruction groups and priorities.
local lp = require("loom")
local h = require("helpers")

local N = 23

-- Substitution rules: with arguments, calling each other, without arguments, in subscripts.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    sq(x) := x*x
    poly(x, c) := sq(x) + c*x
    three := 3
    flip(j) := n - 1 - j
    out[i] = poly(a[i], three) + b[flip(i)]
  ]])
  local a = h.array_from({ N }, "int32", function(i) return i - 7 end)
  local b = h.array_from({ N }, "int32", function(i) return 100 * i end)
  h.on_each_executor(function(exec, name)
    local out = knl(exec, { a = a, b = b })
    h.check_array(out, function(i)
      local x = a:get(i)
      return x * x + 3 * x + b:get(N - 1 - i)
    end, name .. " substitution rules", { dtype = "int32" })
  end)
  -- The rules stay in the kernel until preprocessing; expand_subst inlines them and drops the rules.
  h.check(tostring(knl):find("SUBSTITUTION RULES:\nflip(j) := n - 1 - j\npoly(x, c) := sq(x) + c*x\nsq(x) := x*x\nthree() := 3\n", 1, true),
          "listing of substitution rules:\n%s", tostring(knl))
  local expanded = lp.expand_subst(knl)
  h.check(not tostring(expanded):find("SUBSTITUTION RULES", 1, true), "expand_subst leaves rules:\n%s", tostring(expanded))
  h.check(tostring(expanded):find("out[i] = a[i]*a[i] + 3*a[i] + b[n - 1 - i]", 1, true),
          "expanded instruction:\n%s", tostring(expanded))
  h.on_each_executor(function(exec, name)
    h.check_array(expanded(exec, { a = a, b = b }), knl(exec, { a = a, b = b }), name .. " expand_subst")
  end)
end

-- expand_subst within a match expression expands only there; a rule still used elsewhere stays.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "twice(x) := 2*x",
    "out[i] = twice(a[i]) {id=first}",
    "out2[i] = twice(out[i]) + 1 {id=second}",
  })
  local partial = lp.expand_subst(knl, { within = "id:first" })
  local text = tostring(partial)
  h.check(text:find("out[i] = 2*a[i]", 1, true) and text:find("out2[i] = twice(out[i]) + 1", 1, true)
          and text:find("twice(x) := 2*x", 1, true), "partial expand_subst:\n%s", text)
  local a = lp.rand({ N }, "float64", 5)
  h.on_each_executor(function(exec, name)
    local out, out2 = partial(exec, { a = a })
    h.check_array(out, function(i) return 2 * a:get(i) end, name .. " partial expansion out")
    h.check_array(out2, function(i) return 4 * a:get(i) + 1 end, name .. " partial expansion out2")
  end)
end

-- extract_subst and assignment_to_subst give kernels that compute the same.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<23 }", {
    "<> t[i] = a[i]*a[i] + 1",
    "out[i] = t[i] * (a[i]*a[i]) - a[22-i]*a[22-i]",
  })
  local a = h.array_from({ N }, "int64", function(i) return i * 3 - 20 end)
  local ref = function(i)
    local x, y = a:get(i), a:get(N - 1 - i)
    return (x * x + 1) * (x * x) - y * y
  end
  local extracted = lp.extract_subst(knl, "square", "a[j]*a[j]", "j")
  h.check(tostring(extracted):find("square(j) := a[j]*a[j]", 1, true), "extract_subst rule:\n%s", tostring(extracted))
  h.check(tostring(extracted):find("square(22 - i)", 1, true), "extract_subst use:\n%s", tostring(extracted))
  local substituted = lp.assignment_to_subst(knl, "t")
  h.check_equal(#substituted.instructions, 1, "instructions after assignment_to_subst")
  h.check_equal(#substituted.temporaries, 0, "temporaries after assignment_to_subst")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), ref, name .. " original")
    h.check_array(extracted(exec, { a = a }), ref, name .. " extract_subst")
    h.check_array(substituted(exec, { a = a }), ref, name .. " assignment_to_subst")
  end)
end

-- if / elif / else blocks, nested in a for block, with an `if=` predicate on a boolean temporary.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      <> big = a[i] > 0.75
      if a[i] > 0.5
        out[i] = 1
        if a[i] > 0.9
          out2[i] = 10
        else
          out2[i] = 20
        end
      elif a[i] > 0.25
        out[i] = 2
        out2[i] = 30
      else
        out[i] = 3
        out2[i] = 40
      end
      flag[i] = 7 {if=big, id=set7, nosync=set8}
      flag[i] = 8 {if=not big, id=set8, nosync=set7}
    end
  ]])
  -- The branches write the same elements without a dependency between them. They never both run for one
  -- element, but the ordering check (loopy's) does not look at predicates: a nosync on both sides says no order
  -- is intended (as for flag), and so does turning the check off for the whole kernel.
  h.expect_error("VariableAccessNotOrdered", { "which writes the variable 'out'" }, lp.generate_code,
    lp.add_dtypes(knl, { a = "float32" }))
  knl = lp.set_options(knl, { enforce_variable_access_ordered = "no_check" })
  local a = lp.rand({ N }, "float32", 6)
  local code = lp.generate_code(lp.add_dtypes(knl, { a = "float32" }))
  h.check(code:find("if (", 1, true), "predicates must print as if guards:\n%s", code)
  h.on_each_executor(function(exec, name)
    local flag, out, out2 = knl(exec, { a = a })
    h.check_array(out, function(i)
      local x = a:get(i)
      if x > 0.5 then return 1 elseif x > 0.25 then return 2 else return 3 end
    end, name .. " if/elif/else")
    h.check_array(out2, function(i)
      local x = a:get(i)
      if x > 0.5 then return x > 0.9 and 10 or 20 elseif x > 0.25 then return 30 else return 40 end
    end, name .. " nested if")
    h.check_array(flag, function(i) return a:get(i) > 0.75 and 7 or 8 end, name .. " if= predicate")
  end)
end

-- Imperfectly nested for blocks: a row initialised, accumulated over j, then scaled.
do
  local knl = lp.make_kernel("{ [i, j]: 0<=i<n and 0<=j<m }", [[
    for i
      out[i] = 0 {id=zero}
      for j
        out[i] = out[i] + a[i, j] {id=acc, dep=zero}
      end
      out[i] = 2*out[i] {id=scale, dep=acc}
    end
  ]])
  local a = h.array_from({ N, 5 }, "int32", function(i, j) return i * 10 + j end)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i)
      local s = 0
      for j = 0, 4 do s = s + a:get(i, j) end
      return 2 * s
    end, name .. " imperfect nesting")
  end)
end

-- A random CSR matrix with empty rows: rows are a root domain, the entries of a row a nested domain whose
-- bounds are temporaries read from rowptr.
local function random_csr(nrows, ncols, seed)
  math.randomseed(seed)
  local ptr, cols = { 0 }, {}
  for r = 1, nrows do
    local len = (r % 4 == 0) and 0 or math.random(0, 4)
    for _ = 1, len do cols[#cols + 1] = math.random(0, ncols - 1) end
    ptr[#ptr + 1] = #cols
  end
  return lp.array(ptr, "int32"), lp.array(cols, "int32"), lp.rand({ #cols }, "float64", seed)
end

local function spmv_reference(rowptr, colidx, values, x)
  return function(i)
    local s = 0
    for jj = rowptr:get(i), rowptr:get(i + 1) - 1 do s = s + values:get(jj) * x:get(colidx:get(jj)) end
    return s
  end
end

local csr_args = {
  lp.GlobalArg("values", "float64", { shape = "nnz" }), lp.GlobalArg("colidx", "int32", { shape = "nnz" }),
  lp.GlobalArg("x", "float64", { shape = "m" }), lp.GlobalArg("rowptr", "int32", { shape = "n+1" }),
  lp.ValueArg("n, m, nnz", "int32"), "...",
}

do
  -- The reduction form, with the bounds written after the instruction that uses them in the source: the
  -- loop over jj still starts only once they are known.
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [jj]: rowstart<=jj<rowend }" }, [==[
    for i
      y[i] = sum(jj, values[jj]*x[colidx[jj]])
      <> rowstart = rowptr[i]
      <> rowend = rowptr[i + 1]
    end
  ]==], csr_args)
  h.check(tostring(knl):find("DOMAINS:\n[n] -> { [i] : 0 <= i < n }\n  [rowstart, rowend] -> { [jj] : rowstart <= jj < rowend }\n", 1, true),
          "nested domains are listed indented:\n%s", tostring(knl))
  h.check_equal(#knl.temporaries, 2, "loop bounds are temporaries")
  for _, arg in ipairs(knl.args) do
    h.check(arg.name ~= "rowstart" and arg.name ~= "rowend", "loop bound '%s' became an argument", arg.name)
  end
  local code = lp.generate_code(knl)
  h.check(code:find("for (int jj = rowstart; jj <= -1 + rowend; ++jj)", 1, true), "data-dependent loop:\n%s", code)
  local rowptr, colidx, values = random_csr(N, 11, 7)
  local x = lp.rand({ 11 }, "float64", 8)
  local ref = spmv_reference(rowptr, colidx, values, x)
  local parallel = lp.split_iname(knl, "i", 4, { outer_tag = "g.0", inner_tag = "l.0" })
  h.on_each_executor(function(exec, name)
    local args = { rowptr = rowptr, colidx = colidx, values = values, x = x, n = N }
    h.check_array(knl(exec, args), ref, name .. " CSR spmv", { rtol = 1e-14, atol = 1e-14 })
    h.check_array(parallel(exec, args), ref, name .. " CSR spmv, rows on work-items", { rtol = 1e-14, atol = 1e-14 })
  end)
end

do
  -- The explicit form: an accumulator temporary and a for block over the nested iname.
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [jj]: rowstart<=jj<rowend }" }, [==[
    for i
      <> rowstart = rowptr[i]
      <> rowend = rowptr[i + 1]
      <float64> acc = 0 {id=init}
      for jj
        acc = acc + values[jj]*x[colidx[jj]] {id=update, dep=init}
      end
      y[i] = acc {dep=update}
    end
  ]==], csr_args)
  local rowptr, colidx, values = random_csr(N, 6, 9)
  local x = lp.rand({ 6 }, "float64", 10)
  h.on_each_executor(function(exec, name)
    local y = knl(exec, { rowptr = rowptr, colidx = colidx, values = values, x = x, n = N })
    h.check_array(y, spmv_reference(rowptr, colidx, values, x), name .. " CSR spmv with a for block",
                  { rtol = 1e-14, atol = 1e-14 })
  end)
end

-- Per-element lengths: row i of a padded array holds lengths[i] meaningful entries; the nested domain
-- also depends on the outer iname directly.
do
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<len and j<=i }" }, [[
    for i
      <> len = lengths[i]
      total[i] = sum(j, a[i, j])
    end
  ]], { lp.GlobalArg("a", "int32", { shape = "n, w" }), lp.ValueArg("w", "int32"), "..." })
  local lengths = h.array_from({ N }, "int32", function(i) return (i * 7) % 6 end)
  local a = h.array_from({ N, 6 }, "int32", function(i, j) return i * 100 + j end)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { lengths = lengths, a = a }), function(i)
      local s = 0
      for j = 0, math.min(lengths:get(i), i + 1) - 1 do s = s + a:get(i, j) end
      return s
    end, name .. " per-element lengths")
  end)
end

-- Triangular nesting on an outer iname: out[i] = sum of a[0..i].
do
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }" }, "out[i] = sum(j, a[j])")
  local a = h.array_from({ N }, "int64", function(i) return i * i end)
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { a = a }), function(i)
      local s = 0
      for j = 0, i do s = s + a:get(j) end
      return s
    end, name .. " triangular domain")
  end)
end

-- An instruction that only names the nested iname still runs inside the loop bounding it: hist[j] counts
-- the i with j <= i.
do
  local knl = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }" }, "hist[j] = hist[j] + 1",
                             { lp.GlobalArg("hist", "int32", { shape = "n" }), "..." })
  h.check_equal(table.concat(knl.instructions[1].within_inames, ","), "i,j", "loops of the nested instruction")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { hist = lp.zeros({ N }, "int32") }), function(j) return N - j end,
                  name .. " nested iname alone")
  end)
end

-- Orderings chosen by attributes. Each kernel updates out[i] in place, so the order of the updates shows
-- in the result: ((1 then *10) then +2) = 12, ((1 then +2) then *10) = 30. Some leave two updates unordered
-- on purpose (the linearizer's choices are the subject), which the ordering check would refuse: it is off.
local function check_order(knl, want, what)
  knl = lp.set_options(knl, { enforce_variable_access_ordered = "no_check" })
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { n = N }), function() return want end, name .. " " .. what, { dtype = "int32" })
  end)
end

do
  local args = { lp.GlobalArg("out", "int32", { shape = "n" }), "..." }
  check_order(lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      out[i] = 1 {id=init}
      out[i] = out[i]*10 {id=scale, dep=init}
      out[i] = out[i] + 2 {id=add, dep=init}
    end
  ]], args), 12, "source order")
  -- Wildcards in dep: scale comes first in the source but waits for every init_*.
  check_order(lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      out[i] = out[i]*10 {id=scale, dep=init_*}
      out[i] = 1 {id=init_set}
      out[i] = out[i] + 2 {id=init_add, dep=init_set}
    end
  ]], args), 30, "dep wildcard")
  -- dep_query: the same through a match expression.
  check_order(lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      out[i] = out[i]*10 {id=scale, dep_query=writes:out and not id:scale}
      out[i] = 1 {id=set, tags=first}
      out[i] = out[i] + 2 {id=add, dep_query=tag:first}
    end
  ]], args), 30, "dep_query")
  -- priority: among ready instructions the higher priority goes first.
  check_order(lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      out[i] = 1 {id=init}
      out[i] = out[i]*10 {id=scale, dep=init}
      out[i] = out[i] + 2 {id=add, dep=init, priority=5}
    end
  ]], args), 30, "priority")
  -- conflicts_grp: scale may not run while group g (init and add) is half done.
  check_order(lp.make_kernel("{ [i]: 0<=i<n }", [[
    for i
      out[i] = 1 {id=init, groups=g}
      out[i] = out[i]*10 {id=scale, dep=init, conflicts_grp=g}
      out[i] = out[i] + 2 {id=add, dep=init, groups=g}
    end
  ]], args), 30, "conflicting groups")
end

-- dep_query and nosync_query resolve to instruction ids; nosync keeps its scope.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    out[i] = a[i] {id=w1}
    out2[i] = a[i] {id=w2}
    out3[i] = 1 {id=x, dep_query=writes:out*, nosync_query=id:w*@local, nosync=w1@global}
  ]])
  local deps
  for _, insn in ipairs(knl.instructions) do
    if insn.id == "x" then deps = table.concat(insn.depends_on, ",") end
  end
  h.check_equal(deps, "w1,w2", "dep_query resolution")
  local text = knl:stringify { with_dependencies = true }
  h.check(text:find("no_sync_with=w1@global:w1@local:w2@local}", 1, true), "nosync listing:\n%s", text)
  h.check(text:find("DEPENDENCIES: (use loopy.show_dependency_graph to visualize)\nx : w1, w2\n", 1, true),
          "dependency listing:\n%s", text)
end

-- The dependency graph: Graphviz text, and an SVG written by dot.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", {
    "<> t = 2*a[i] {id=double}",
    "out[i] = t + 1 {id=inc}",
  })
  local dot = lp.get_dot_dependency_graph(knl)
  h.check(dot:find('"double" -> "inc"', 1, true), "dependency edge:\n%s", dot)
  h.check(dot:find('"inc" [label="out[i] <- t + 1",shape="box",tooltip="inc"];', 1, true), "node:\n%s", dot)
  h.check(dot:find('subgraph "cluster_i"', 1, true), "loop cluster:\n%s", dot)
  -- A kernel that cannot be linearized still has a graph (without loops): it shows the cycle.
  local cyclic = lp.make_kernel("{ [i]: 0<=i<n }", { "out[i] = 1 {id=a1, dep=a2}", "out2[i] = 2 {id=a2, dep=a1}" })
  local cdot = lp.get_dot_dependency_graph(cyclic, { use_insn_id = true })
  h.check(cdot:find('"a2" -> "a1"', 1, true) and cdot:find('"a1" -> "a2"', 1, true) and not cdot:find("cluster", 1, true)
          and cdot:find('"a1" [label="a1",shape="box",tooltip="out[i] <- 1"];', 1, true), "cyclic graph:\n%s", cdot)
  local path = os.tmpname() .. ".svg"
  -- CI installs graphviz; elsewhere (a GPU machine) the missing `dot` must be a clear error.
  if os.execute("command -v dot >/dev/null 2>&1") then
    h.check_equal(lp.show_dependency_graph(knl, path), path, "show_dependency_graph result")
    local f = assert(io.open(path))
    local svg = f:read("a")
    f:close()
    os.remove(path)
    h.check(svg:find("<svg", 1, true) and svg:find("double", 1, true), "SVG output:\n%s", svg)
  else
    h.expect_error("LoopyError", "'dot'", lp.show_dependency_graph, knl, path)
  end
end

-- Python's conditional expression, `with` blocks of shared attributes, and the list form of reduction inames.
do
  local cond = lp.make_kernel("{ [i]: 0<=i<6 }", "out[i] = a[i] if i > 1 and i < 4 else -2*a[i] if i >= 4 else 10*a[i]")
  h.on_each_executor(function(exec)
    local a = lp.arange(6, "float32")
    h.check_array(cond(exec, { a = a }), function(i)
      if i > 1 and i < 4 then return i elseif i >= 4 then return -2 * i else return 10 * i end
    end, "conditional expression")
  end)
  h.check_contains(tostring(cond), "if(i > 1 and i < 4, a[i], if(i >= 4, -2*a[i], 10*a[i]))")

  local with = lp.make_kernel("{ [i]: 0<=i<4 }", [[
    <> t = 1 {id=t0}
    with {id_prefix=step, dep=t0}
      out[i] = a[i] + t
      with {tags=inner}
        out2[i] = a[i]
      end
    end
    out3[i] = 2
  ]])
  local by_id = {}
  for _, insn in ipairs(with.instructions) do by_id[insn.id] = insn end
  h.check(by_id.step and by_id.step_0, "with-block id prefix: %s", tostring(with))
  h.check_equal(table.concat(by_id.step.depends_on, ","), "t0", "with-block dependency of the first")
  h.check_equal(table.concat(by_id.step_0.depends_on, ","), "t0", "with-block dependency of the nested one")
  h.check_equal(by_id.insn and #by_id.insn.depends_on, 0, "after 'end' the block's attributes are gone")
  h.expect_error("ParseError", "'id' option may not be specified in a 'with' block", lp.make_kernel, "{ [i]: 0<=i<4 }",
    "with {id=x}\nout[i] = 1\nend")
  h.expect_error("ParseError", "'with' block is never closed by 'end'", lp.make_kernel, "{ [i]: 0<=i<4 }",
    "with {dep=x}\nout[i] = 1\n")

  local listed = lp.make_kernel("{ [i,j]: 0<=i,j<4 }", { "out[j] = reduce(sum, [i], a[i,j])", "m = max([i, j], a[i,j])" })
  h.check_contains(tostring(listed), "out[j] = sum(i, a[i, j])")
  h.check_contains(tostring(listed), "m = max((i, j), a[i, j])")
end

-- The listing keeps the arguments in declared order (loopy 2025.2), as calls return them.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "z[i] = b[i] + a[i]",
    { lp.GlobalArg("z", "float32", { shape = "n" }), lp.GlobalArg("b, a", "float32", { shape = "n" }), "..." })
  local text = tostring(knl)
  local z, b, a = text:find("\nz: ", 1, true), text:find("\nb: ", 1, true), text:find("\na: ", 1, true)
  h.check(z and b and a and z < b and b < a, "argument order in the listing:\n%s", text)
end

-- make_tuple: `t, u = make_tuple(x, y)` assigns each value to the assignee at its position, in one
-- instruction that `dep=pair` waits for.
do
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", [[
    <> t = 1 {id=init}
    t, u = make_tuple(x[i] + 1, t + 1) {id=pair, dep=init}
    out[i] = t*10 + u {dep=pair}
    ]], { lp.GlobalArg("x, out", "float32", { shape = "n" }), "..." })
  h.check_contains(tostring(knl), "t, u = make_tuple(x[i] + 1, t + 1)  {id=pair")
  local x = lp.array({ 0, 1, 2 }, "float32")
  h.on_each_executor(function(exec, name)
    h.check_array(knl(exec, { x = x }), function(i) return (i + 1) * 10 + (i + 2) end, name .. " make_tuple")
  end)
end
