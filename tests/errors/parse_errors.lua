-- Malformed domains and instructions are ParseErrors that quote the culprit; instruction errors carry the
-- line (within the instruction text) and the column of the offending token.
local lp = require("loom")
local h = require("helpers")

-- "[ -> {...}" lacks the ']' of its parameter list (found by fuzz/fuzz_domain: it was an InternalError);
-- "{ exists{" left isl's reader with tokens it never freed (fuzz/fuzz_domain: a leak, which the sanitizer
-- build's LeakSanitizer reports at exit).
for _, domain in ipairs({ "{ [i]: 0<=i<n ", "{ [i]: 0<=i<n and }", "hello", "[ -> { [i]: 0<=i<n }", "{ exists{" }) do
  local quoted = "'" .. domain:gsub("%s+$", "") .. "'"
  h.expect_error("ParseError", { "malformed domain", quoted }, lp.make_kernel, domain, "out[i] = a[i]")
end

-- The place where isl stopped, and the token it found there, in the coordinates of the text as written
-- (Loom declares undeclared parameters before isl reads it).
for _, case in ipairs({
  { "{ [i]: 0<=i<n an i < 3 }", "unexpected token, at 'an' (line 1, column 15)", 1, 15 },
  { "[n] -> { [i]: 0<=i<n an i < 3 }", "at 'an' (line 1, column 22)", 1, 22 },
  { "{ [i]: 0<=i<n and\n i < 3 ) }", "at ')' (line 2, column 8)", 2, 8 },
  { "{ [i]: 0<=i<n and j }", "missing operator, at '}' (line 1, column 21)", 1, 21 },
}) do
  local ok, err = pcall(lp.make_kernel, case[1], "out[i] = a[i]")
  h.check(not ok and err.kind == "ParseError" and h.contains(err.message, case[2]), "domain %q: %s", case[1], tostring(err))
  h.check(err.line == case[3] and err.column == case[4], "domain %q at %s:%s", case[1], tostring(err.line), tostring(err.column))
end

-- isl evaluates a power of two literals with GMP, which aborts the process past what it can represent (found
-- by fuzz/fuzz_domain): Loom refuses powers of more than 4096 bits and passes the rest on.
h.expect_error("ParseError", { "the power 2^6666666666 is too large", "(line 1, column 14)" }, lp.make_kernel,
  "{ [i]: 0<=i<2^6666666666 }", "out[i] = a[i]")
h.expect_error("ParseError", "the power 10^1300 is too large", lp.make_kernel, "{ [i]: 0<=i<10^1300 }", "out[i] = 1")
h.check_equal(lp.make_kernel("{ [i]: 0 <= i < 2 ^ 10 }", "out[i] = 1").args[1].shape[1], "1024", "2 ^ 10")
h.check_equal(lp.make_kernel("{ [i]: 0 <= i < 1^99999999999 }", "out[i] = 1").args[1].shape[1], "1", "1^99999999999")
-- isl divides a literal by a literal (`a // b`) itself, with GMP, which killed the process (SIGFPE) where the
-- divisor is 0 (found by fuzz/fuzz_pipeline on the lent machine; reliability.md 24): a ParseError, also for a
-- divisor isl takes as a power (`0^3`) or across one of its comments; the rest passes on.
h.expect_error("ParseError", { "malformed domain '{[i, j, k]: 0<=i,j,k<1//0}'", "division by zero: '//' by the literal 0",
  "(line 1, column 23)" }, lp.make_kernel, "{[i, j, k]: 0<=i,j,k<1//0}", "y[i] = 1")
for _, bound in ipairs({ "5 // 00", "-5//0", "5//0^3", "5//0^1^0", "5//0x5", "5 // # a comment\n 0", "5//\n0 + 1" }) do
  h.expect_error("ParseError", "division by zero", lp.make_kernel, "{ [i]: 0<=i<" .. bound .. " }", "out[i] = 1")
end
for bound, extent in pairs({ ["12//5"] = "2", ["5//0^0"] = "5", ["50//10"] = "5", ["5 # 1//0\n"] = "5" }) do
  h.check_equal(lp.make_kernel("{ [i]: 0<=i<" .. bound .. " }", "out[i] = 1").args[1].shape[1], extent, bound)
end
h.expect_error("ParseError", "division by zero", lp.assume, lp.make_kernel("{ [i]: 0<=i<n }", "out[i] = 1"), "n > 3//0")
-- Found by fuzz/fuzz_domain on the lent machine: the power of a name makes isl build a polynomial of that
-- degree (gigabytes) before it finds that a set has none; text that starts with a number is PolyLib's matrix
-- format to isl, whose leading numbers are sizes it allocates (terabytes); an integer beyond 64 bits wrapped
-- to another value when isl's results became code.
h.expect_error("ParseError", { "the power '^' of a name is not affine", "(line 1, column 3)" }, lp.make_kernel,
  "{U^77777777777 [i]: 0<=i<4}", "out[0] = 1")
h.expect_error("ParseError", { "a domain starts with '{'", "(line 1, column 3)" }, lp.make_kernel, "  77777777777 7 [",
  "out[0] = 1")
-- isl reads one set and ignores what follows: an instruction pasted after the domain was dropped, its names
-- taken as parameters and an iname renamed k' behind Loom's back (fuzz_pipeline; reliability.md finding 20).
h.expect_error("ParseError", { "a domain ends with its closing '}'", "(line 1, column 33)" }, lp.make_kernel,
  "{[i,j,k]: 0<=i,j<72 and 0<=k<32}AC[i,j] = sum(k' A[i,ci_] * B[k,j])", "")
h.expect_error("LoopyError", "the integer 2222222222222222222222222222 does not fit in 64 bits", lp.make_kernel,
  "{ [i,j]: 0<=2222222222222222222222222222i<n and 0<=j<3 }", "out[i,j] = 1")
h.expect_error("LoopyError", "the integer 99999999999999999999 does not fit in 64 bits", lp.make_kernel,
  "{ [i]: 0<=i<99999999999999999999 }", "out[i] = 1")
h.check_equal(lp.make_kernel("[n] -> { [i]: 0<=i<n }", "out[i] = 1").args[2].shape[1], "n", "a domain with parameters")
-- Found by fuzz/fuzz_domain on the lent machine (third run): digits that end a name are no literal, so that
-- `z1^99999999999990999999` is the power of the name z1 (isl built its polynomial: gigabytes), not of 1.
h.expect_error("ParseError", { "the power '^' of a name is not affine", "(line 1, column 15)" }, lp.make_kernel,
  "{ [i]: 0<=i<z1^99999999999990999999 }", "out[i] = 1")
-- Same run: isl's reader makes each `!=` a disjunction (and `a, b != c, d` compares every pair), so that the
-- pieces of a domain double with each; `0<=x0,...,x13 != i,j,k<n` took minutes and gigabytes. The reading
-- gets 100000 isl operations, and a domain at most 64 pieces.
h.expect_error("LoopyError", { "domain '{ [i,j,c]: 0<=x0,x1,x2,x3 != i,j,k<n }' is too complex",
  "within 100000 operations" }, lp.make_kernel, "{ [i,j,c]: 0<=x0,x1,x2,x3 != i,j,k<n }", "out[i,j,c] = 1")
-- Out of operations, isl's reader may go on to report a syntax error of its own: the domain is as complex.
h.expect_error("LoopyError", "domain '{ [i]: 0<=i<n and x0,x1 != y0,y1,y2,y3,y4 }' is too complex", lp.make_kernel,
  "{ [i]: 0<=i<n and x0,x1 != y0,y1,y2,y3,y4 }", "out[i] = 1")
h.expect_error("LoopyError", { "is a union of 128 pieces (isl basic sets); at most 64" }, lp.make_kernel,
  "{ [i]: 0<=i<n and x != y0,y1,y2,y3,y4,y5,y6 }", "out[i] = 1")
h.check_contains(lp.generate_code(lp.make_kernel("{ [i]: 0<=i<n and x != y0,y1,y2,y3,y4,y5 }", "out[i] = 1",
  { lp.GlobalArg("out", "int32", { shape = "n" }), "..." })), "out[i] = 1")
-- The pieces of a product of domains multiply: 9 by 9 is too many, 9 by 1 is not.
local odd = "and i != 1 and i != 3 and i != 5 and i != 7 and i != 9 and i != 11 and i != 13 and i != 15"
h.expect_error("LoopyError", { "the domains of inames 'i' and 'j' together are a union of 81 pieces" },
  lp.make_kernel, { "{ [i]: 0<=i<20 " .. odd .. " }", "{ [j]: 0<=j<20 " .. odd:gsub("i", "j") .. " }" }, "out[i, j] = 1")
local holes = lp.make_kernel({ "{ [i]: 0<=i<20 " .. odd .. " }", "{ [j]: 0<=j<3 }" }, "out[i, j] = i + j",
  { lp.GlobalArg("out", "int32", { shape = "20, 3" }) })
h.on_each_executor(function(exec, name)
  local out = holes(exec, { out = lp.zeros({ 20, 3 }, "int32") })
  h.check_array(out, function(i, j) return (i % 2 == 1 and i < 16) and 0 or i + j end, name .. " domain with holes")
end)

-- The second domain of a forest is the culprit.
h.expect_error("ParseError", "'{ [j]: 0<=j<'", lp.make_kernel, { "{ [i]: 0<=i<n }", "{ [j]: 0<=j<" }, "out[i] = a[i]")

-- Each case: instructions, a fragment of the message, line, column.
local CASES = {
  { "out[i] = 2*a[i", "unclosed '['", 1, 13 },
  { "out[i] = a[i]\nout[i] = 2 * + * a[i]", "unexpected token '*'", 2, 16 },
  { "out[i] == a[i]", "unexpected token '=='", 1, 8 },
  { "out[i] = 1.5.5", "unexpected token '.5'", 1, 13 },
  { "out[i] = a[i] {id=x", "unclosed '{'", 1, 15 },
  { "out[i] = a[i] {bogus=1}", "unknown instruction attribute 'bogus'", 1, 16 },
  { { "out[i] = a[i]", "b[i] = (a[i] + 1" }, "unclosed '('", 2, 8 },
}

for _, case in ipairs(CASES) do
  local insns, text, line, column = table.unpack(case)
  local err = h.expect_error("ParseError", text, lp.make_kernel, "{ [i]: 0<=i<n }", insns)
  local culprit = type(insns) == "table" and insns[line] or select(line, insns:match("([^\n]*)\n?([^\n]*)"))
  h.check(err.message:find(culprit, 1, true), "the message '%s' quotes the instruction '%s'", err.message, culprit)
  h.check_equal(err.line, line, text .. ": line")
  h.check_equal(err.column, column, text .. ": column")
end

print("parse_errors: ok")
