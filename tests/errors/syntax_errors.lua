-- User errors in the meaning of the instruction syntax: dependencies that name nothing, substitution rules
-- used wrongly, domain forests that branch or have ill-defined bounds, orders that cannot exist, parse
-- errors with their positions, and a missing Graphviz.
local lp = require("loom")
local h = require("helpers")

local dom = "{ [i]: 0<=i<n }"

-- Dependencies that resolve to no instruction, unless the kernel is told not to check.
h.expect_error("LoopyError", { "instruction 'insn' declared a dependency on 'nothere'", "check_dep_resolution" },
  lp.make_kernel, dom, "out[i] = a[i] {dep=nothere}")
h.expect_error("LoopyError", "declared a dependency on 'gone*'", lp.make_kernel, dom, "out[i] = a[i] {dep=gone*}")
h.expect_error("LoopyError", "declared a dependency on 'writes:nobody'",
  lp.make_kernel, dom, "out[i] = a[i] {dep_query=writes:nobody}")
h.expect_error("LoopyError", "declared nosync on 'ghost'", lp.make_kernel, dom, "out[i] = a[i] {nosync=ghost@local}")
h.expect_error("LoopyError", "declared nosync on 'id:ghost'",
  lp.make_kernel, dom, "out[i] = a[i] {nosync_query=id:ghost@global}")
h.expect_error("LoopyError", "unknown nosync scope", lp.make_kernel, dom, "out[i] = a[i] {id=w}\nb[i] = 1 {nosync_query=id:w@far}")
h.expect_error("LoopyError", "invalid match expression", lp.make_kernel, dom, "out[i] = a[i] {dep_query=id:x and}")
local unchecked = lp.make_kernel(dom, "out[i] = a[i] {dep=nothere}", nil, { options = { check_dep_resolution = false } })
h.check_equal(#unchecked.instructions[1].depends_on, 0, "unresolved dependency without the check")
h.expect_error("ArgumentError", "unknown kernel option 'write_cod'",
  lp.make_kernel, dom, "out[i] = a[i]", nil, { options = { write_cod = true } })

-- Substitution rules used with the wrong number of arguments, recursively, or capturing an iname.
h.expect_error("LoopyError", "substitution rule 'f' takes 1 argument(s) but is used with 2",
  lp.make_kernel, dom, { "f(x) := 2*x", "out[i] = f(a[i], 1)" })
h.expect_error("LoopyError", "substitution rule 'g' takes 2 argument(s) but is used with 0",
  lp.make_kernel, dom, { "g(x, y) := x + y", "out[i] = g + 1" })
h.expect_error("LoopyError", "substitution rule 'f' uses itself (through f -> g)",
  lp.make_kernel, dom, { "f(x) := g(x) + 1", "g(x) := f(x)", "out[i] = f(a[i])" })
h.expect_error("LoopyError", "would be captured by the reduction over 'k'",
  lp.make_kernel, "{ [i, k]: 0<=i,k<n }", { "rowsum(x) := sum(k, a[x, k])", "out[i] = sum(k, rowsum(k))" })
h.expect_error("ParseError", "substitution rule 'f' is defined twice", lp.make_kernel, dom, { "f(x) := x", "f(y) := y", "out[i] = f(1)" })
h.expect_error("LoopyError", "substitution rule 'a' has the name of a variable", lp.make_kernel, dom, { "a(x) := 2*x", "out[i] = a[i]" })
h.expect_error("LoopyError", "substitution rule 'i' has the name of an iname", lp.make_kernel, dom, { "i := 2", "out[i] = 1" })
-- Tags (`g$two`) name one use of a variable, array or rule, written right after the name: nothing else takes one.
h.expect_error("ParseError", "expected a tag name after '$'", lp.make_kernel, dom, { "out[i] = a$ t[i]" })
h.expect_error("ParseError", "unexpected token '$'", lp.make_kernel, dom, { "out[i] = a[i] $t" })
h.expect_error("ParseError", "'sum$t': only variables, arrays and substitution rules take a tag",
  lp.make_kernel, "{ [i, k]: 0<=i,k<n }", { "out[i] = sum$t(k, a[k])" })
local rules = lp.make_kernel(dom, { "f(x) := 2*x", "out[i] = f(a[i])" })
h.expect_error("LoopyError", "extract_subst: the name 'f' is already in use", lp.extract_subst, rules, "f", "a[j]", "j")
h.expect_error("LoopyError", "assignment_to_subst: no instruction writes 'a'", lp.assignment_to_subst, rules, "a")

-- A branching domain forest: i and j are both nested in l, so one instruction cannot use both.
local forest = { "{ [l]: 0<=l<n }", "{ [i]: 0<=i<l }", "{ [j]: 0<=j<l }" }
h.expect_error("LoopyError", { "iname set 'i, j, l' requires a branch in the domain tree",
  "[l] -> { [i] : 0 <= i < l } and [l] -> { [j] : 0 <= j < l } are both nested in [n] -> { [l] : 0 <= l < n }" },
  lp.make_kernel, forest, "out[l, i, j] = 1")
-- Each branch alone is fine, and the forest is listed indented.
local ok_forest = lp.make_kernel(forest, { "out[l, i] = 1", "out2[l, j] = 2" })
h.check(tostring(ok_forest):find("[n] -> { [l] : 0 <= l < n }\n  [l] -> { [i] : 0 <= i < l }\n  [l] -> { [j] : 0 <= j < l }\n", 1, true),
  "domain forest listing:\n%s", tostring(ok_forest))

-- Loop bounds that are temporaries must be written exactly once, and cannot give array shapes.
local csr = { "{ [i]: 0<=i<n }", "{ [jj]: lo<=jj<hi }" }
h.expect_error("LoopyError", "loop bound 'lo' may only be written once", lp.make_kernel, csr, [==[
  for i
    <> lo = ptr[i]
    lo = lo + 0
    <> hi = ptr[i + 1]
    out[i] = sum(jj, v[jj])
  end
]==], { lp.GlobalArg("v", "float32", { shape = "m" }), "..." })
h.expect_error("LoopyError", "loop bound 'hi' is a temporary that no instruction writes", lp.make_kernel, csr, [==[
  for i
    <> lo = ptr[i]
    out[i] = sum(jj, v[jj])
  end
]==], { lp.GlobalArg("v", "float32", { shape = "m" }), lp.TemporaryVariable("hi", "int32"), "..." })
h.expect_error("LoopyError", "loop bound 'lo' must be an integer scalar, but is float32", function()
  lp.generate_code(lp.make_kernel(csr, [==[
    for i
      <> lo = ptr[i]
      <> hi = ptr[i + 1]
      out[i] = sum(jj, v[jj])
    end
  ]==], { lp.GlobalArg("v, ptr", "float32", { shape = "m" }), lp.ValueArg("m", "int32"), "..." }))
end)
h.expect_error("StaticValueFindingError", "the shape of 'v' would depend on 'hi'", lp.make_kernel, csr, [==[
  for i
    <> lo = ptr[i]
    <> hi = ptr[i + 1]
    out[i] = sum(jj, v[jj])
  end
]==])

-- Orders that cannot exist: a cycle, and an instruction (mid) between two uses of one loop: as in loopy, a
-- loop is one loop, which cannot close while instructions that need it have not run.
h.expect_error("LoopyError", { "cannot linearize kernel", "'a1' waits for a2" }, function()
  lp.generate_code(lp.make_kernel(dom, { "out[i] = 1 {id=a1, dep=a2}", "out2[i] = 2 {id=a2, dep=a1}" }))
end)
h.expect_error("LoopyError", { "cannot linearize kernel", "'wlo' runs in loop 'i', which can only start after mid" }, function()
  local knl = lp.make_kernel(csr, [==[
    for i
      <> lo = ptr[i] {id=wlo}
      <> hi = ptr[i + 1] {id=whi}
    end
    <> mid = 1 {id=mid, dep=wlo:whi}
    for i, jj
      out[i] = v[jj] + mid {dep=mid}
    end
  ]==], { lp.GlobalArg("v, out", "float32", { shape = "m" }), lp.GlobalArg("ptr", "int32", { shape = "m" }),
           lp.ValueArg("m", "int32"), "..." })
  lp.generate_code(knl)
end)

-- Parse errors carry the line and column of the offending text.
local function expect_parse_error(src, line, column, text)
  local err = h.expect_error("ParseError", text, lp.make_kernel, dom, src)
  h.check_equal(err.line, line, "line of " .. text)
  h.check_equal(err.column, column, "column of " .. text)
end
expect_parse_error("out[i] = a[i] +", 1, 16, "unexpected end of input")
expect_parse_error("out[i] = a[i]\nout2[i] = (a[i]", 2, 11, "unclosed '('")
expect_parse_error("out[i] = a[i] {id=x, bogus=1}", 1, 22, "unknown instruction attribute 'bogus'")
expect_parse_error("for i\n  out[i] = a[i]\n", 1, 1, "'for' block is never closed by 'end'")
expect_parse_error("out[i] = 1\nelse\n", 2, 1, "'else' without 'if'")
expect_parse_error("out[i] = a[i] {priority=high}", 1, 25, "priority 'high' is not an integer")
expect_parse_error("f(x) := 2*x {id=rule}", 1, 13, "attributes are not allowed on substitution rules")
expect_parse_error("out[i] = a$[i]", 1, 11, "expected a tag name after '$'")

-- show_dependency_graph without Graphviz on PATH.
local out = h.run_child([[
  local lp = require("loom")
  local knl = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = a[i]")
  local ok, err = pcall(lp.show_dependency_graph, knl, os.tmpname() .. ".svg")
  print(ok, err.kind, err.message)
]], { PATH = "/nonexistent" })
h.check(out:find("false\tLoopyError\tshow_dependency_graph needs the Graphviz program 'dot'", 1, true),
  "missing dot: %s", out)
