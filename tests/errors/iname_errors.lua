-- Illegal uses of the iname transformations: each must raise a user error of the right kind whose message
-- names the problem (an internal error or a crash fails the test).
local lp = require("loom")
local h = require("helpers")

local expect_error = h.expect_error

local vec = lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 2*a[i]  {id=scale}")
local grid = lp.make_kernel("{ [i,j]: 0<=i<n and 0<=j<m }", "out[i,j] = a[i,j]")
local tri = lp.make_kernel("{ [i,j]: 0<=j<=i<n }", "out[i,j] = a[i,j]")
local nested = lp.make_kernel({ "{ [i]: 0<=i<n }", "{ [j]: 0<=j<=i }" }, "out[i,j] = a[i,j]",
  { lp.GlobalArg("out", "float32", { shape = "n, n" }), lp.GlobalArg("a", "float32", { shape = "n, n" }), "..." })

-- split_iname / chunk_iname
expect_error("LoopyError", "split_iname: unknown iname 'k'", lp.split_iname, vec, "k", 4)
expect_error("LoopyError", "new iname 'a' is already used", lp.split_iname, vec, "i", 4, { outer_iname = "a" })
expect_error("LoopyError", "new iname 'j' is already used", lp.split_iname, grid, "i", 4, { inner_iname = "j" })
expect_error("LoopyError", "new iname 'n' is already used", lp.split_iname, vec, "i", 4, { inner_iname = "n" })
expect_error("LoopyError", "new iname 'i_outer' is already used", lp.split_iname, lp.split_iname(vec, "i", 4), "i_inner", 2,
  { outer_iname = "i_outer" })
expect_error("LoopyError", "are both named 'x'", lp.split_iname, vec, "i", 4, { outer_iname = "x", inner_iname = "x" })
expect_error("LoopyError", "split_iname: iname '2x' is not a valid name", lp.split_iname, vec, "i", 4, { outer_iname = "2x" })
expect_error("LoopyError", "must be positive, got 0", lp.split_iname, vec, "i", 0)
expect_error("LoopyError", "cannot split already tagged iname 'i' (tag 'l.0')", lp.split_iname,
  lp.tag_inames(vec, "i:l.0"), "i", 4)
expect_error("LoopyError", "unknown iname tag 'l.x'", lp.split_iname, vec, "i", 4, { inner_tag = "l.x" })
expect_error("LoopyError", "slabs must be non-negative", lp.split_iname, vec, "i", 4, { slabs = { -1, 0 } })
expect_error("ArgumentError", "bad argument #3 to 'split_iname'", lp.split_iname, vec, "i", "four")
expect_error("ArgumentError", "unknown option 'inner'", lp.split_iname, vec, "i", 4, { inner = "x" })
expect_error("ArgumentError", "option 'slabs'", lp.split_iname, vec, "i", 4, { slabs = { 1 } })
expect_error("ArgumentError", "bad argument #4 to 'join_inames' (table expected, got string)", lp.join_inames, grid, "i,j", nil, "g.0")
expect_error("LoopyError", "chunk_iname: unknown iname 'k'", lp.chunk_iname, vec, "k", 2)
expect_error("LoopyError", "number of chunks must be positive", lp.chunk_iname, vec, "i", -2)
expect_error("LoopyError", "is not box-shaped in iname 'j'", lp.chunk_iname, tri, "j", 2)

-- match expressions
expect_error("LoopyError", "invalid match expression 'id:scale and'", lp.split_iname, vec, "i", 4, { within = "id:scale and" })
expect_error("LoopyError", "unknown selector in 'foo:bar'", lp.split_iname, vec, "i", 4, { within = "foo:bar" })
expect_error("LoopyError", "missing ')'", lp.split_iname, vec, "i", 4, { within = "(id:scale or tag:x" })
expect_error("LoopyError", "'id:' has no pattern", lp.split_iname, vec, "i", 4, { within = "id:" })
expect_error("LoopyError", "unexpected 'or'", lp.split_iname, vec, "i", 4, { within = "or id:x" })
expect_error("LoopyError", "'within' is an empty list", lp.split_iname, vec, "i", 4, { within = {} })

-- tag_inames
expect_error("LoopyError", "tag_inames: unknown iname 'k'", lp.tag_inames, vec, { k = "l.0" })
expect_error("LoopyError", "unknown iname tag 'foo'", lp.tag_inames, vec, { i = "foo" })
expect_error("LoopyError", "unknown iname tag 'g.'", lp.tag_inames, vec, "i:g.")
expect_error("LoopyError", "unknown iname tag 'unr_hint.x'", lp.tag_inames, vec, "i:unr_hint.x")
expect_error("LoopyError", "tag 'like.q' names unknown iname 'q'", lp.tag_inames, vec, "i:like.q")
expect_error("LoopyError", "has no colon", lp.tag_inames, vec, "i=l.0")
expect_error("LoopyError", "iname 'i' is already tagged 'l.0'--cannot retag as 'g.0'", lp.tag_inames,
  lp.tag_inames(vec, { i = "l.0" }), { i = "g.0" })
expect_error("LoopyError", "already tagged 'unr'--cannot retag as 'l.1'", lp.tag_inames,
  lp.tag_inames(grid, "i:unr, j:l.1"), "i:like.j")
expect_error("ArgumentError", "tag string expected", lp.tag_inames, vec, { i = 3 })

-- join_inames
expect_error("LoopyError", "join_inames: unknown iname 'z'", lp.join_inames, grid, { "i", "z" })
expect_error("LoopyError", "iname 'j' has no constant length", lp.join_inames, grid, { "i", "j" })
expect_error("LoopyError", "listed twice", lp.join_inames, grid, { "i", "i" })
expect_error("LoopyError", "depends on iname 'i'", lp.join_inames, nested, { "i" })
expect_error("LoopyError", "belong to different domains", lp.join_inames, nested, { "j", "i" })
expect_error("LoopyError", "new iname 'a' is already used", lp.join_inames,
  lp.make_kernel("{ [i,j]: 0<=i,j<4 }", "out[i,j] = a[i,j]"), { "i", "j" }, "a")
expect_error("LoopyError", "runs in only some of the inames",
  lp.join_inames, lp.make_kernel("{ [i,j]: 0<=i,j<4 }", "out[i] = a[i]\nb[i,j] = 1"), { "i", "j" })
expect_error("LoopyError", "does not use all of the joined inames",
  lp.join_inames, lp.make_kernel("{ [i,j]: 0<=i,j<4 }", "out[0] = sum(i, a[i, 0])"), { "i", "j" })

-- duplicate_inames / rename_iname
expect_error("LoopyError", "duplicate_inames: unknown iname 'k'", lp.duplicate_inames, vec, "k")
expect_error("LoopyError", "new iname 'n' is already used", lp.duplicate_inames, vec, "i", { new_inames = { "n" } })
expect_error("LoopyError", "one entry per iname", lp.duplicate_inames, grid, "i,j", { new_inames = { "x" } })
expect_error("LoopyError", "new iname 'x' is given twice", lp.duplicate_inames, grid, "i,j", { new_inames = "x, x" })
expect_error("LoopyError", "tag given for 'j'", lp.duplicate_inames, grid, "i", { tags = { j = "l.0" } })
expect_error("LoopyError", "whose bounds depend on 'i'", lp.duplicate_inames, nested, "i")
expect_error("LoopyError", "rename_iname: unknown iname 'k'", lp.rename_iname, vec, "k", "q")
expect_error("LoopyError", "iname 'j' conflicts with an existing identifier", lp.rename_iname, grid, "i", "j")
expect_error("LoopyError", "new iname 'a' is already used", lp.rename_iname, grid, "i", "a")
expect_error("LoopyError", "inames 'i' and 'j' do not iterate over the same domain", lp.rename_iname, grid, "i", "j",
  { existing_ok = true })
expect_error("ArgumentError", "option 'existing_ok': boolean expected", lp.rename_iname, grid, "i", "j",
  { existing_ok = "yes" })
expect_error("LoopyError", "can only be rewritten for all instructions", lp.split_iname,
  lp.make_kernel("{ [i]: 0<=i<n }", "f(x) := x + i\nout[i] = f(a[i]) {id=one}\nb[i] = 1 {id=two}"), "i", 2,
  { within = "id:one" })

-- remove_unused_inames / fix_parameters
expect_error("LoopyError", "remove_unused_inames: unknown iname 'q'", lp.remove_unused_inames, vec, "q")
expect_error("LoopyError", "'q' is not a parameter of kernel 'loopy_kernel'", lp.fix_parameters, vec, { q = 3 })
expect_error("LoopyError", "'i' is not a parameter", lp.fix_parameters, vec, { i = 3 })
expect_error("LoopyError", "n = 3 contradicts the assumptions", lp.fix_parameters, lp.assume(vec, "n mod 4 = 0"), { n = 3 })
expect_error("LoopyError", "parameter 'n' bounds a domain and needs an integer value", lp.fix_parameters, vec, { n = 2.5 })
expect_error("LoopyError", "no parameters given", lp.fix_parameters, vec, {})
expect_error("ArgumentError", "number expected", lp.fix_parameters, vec, { n = "16" })

print("iname_errors: ok")
