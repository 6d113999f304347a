-- OKL's structure rules and what Loom cannot represent: each is an OKLError with OCCA's message (where OCCA has
-- one) and the line of the offending code.
local lp = require("loom")
local h = require("helpers")

-- Expects parse_okl(src) to fail with an OKLError containing `text` at `line`.
local function rejects(line, text, src, opts)
  local err = h.expect_error("OKLError", text, lp.parse_okl, src, opts)
  h.check_equal(err.line, line, "line of '" .. text .. "'")
  h.check(h.contains(err.message, "<okl>:" .. line .. ":"), "message names file and line: %s", err.message)
end

-- A kernel body around `body`, which starts on line 2.
local function kernel(body) return "@kernel void k(const int n, float *a) {\n" .. body .. "\n}" end
local outer_inner = "for (int i = 0; i < n; ++i; @outer) {\n  for (int j = 0; j < 4; ++j; @inner) {\n    BODY\n  }\n}"
local function in_inner(stmt) return kernel((outer_inner:gsub("BODY", stmt))) end

-- Kernels and their loops.
rejects(1, "No [@kernel] functions found", "void f(float *a) { a[0] = 1; }")
rejects(1, "[@kernel] functions must have a [void] return type", "@kernel int k(int *a) { return 0; }")
rejects(1, "[@kernel] requires at least one [@outer] for-loop", kernel("a[0] = 1;"))
rejects(2, "Missing an [@inner] loop", kernel("for (int i = 0; i < n; ++i; @outer) { a[i] = 1; }"))
rejects(4, "Cannot have [@outer] loop inside an [@inner] loop",
  kernel("for (int i = 0; i < n; ++i; @outer) {\n for (int j = 0; j < 4; ++j; @inner) {\n for (int k = 0; k < 4; ++k; @outer) {} } }"))
rejects(2, "Cannot have [@inner] loop outside of an [@outer] loop", kernel("for (int j = 0; j < 4; ++j; @inner) { a[j] = 1; }"))
rejects(5, "Mismatch of [@inner] loops", kernel([[for (int i = 0; i < n; ++i; @outer) {
  for (int j = 0; j < 4; ++j; @inner) { a[j] = 1; }
  for (int j = 0; j < 4; ++j; @inner) {
    for (int k = 0; k < 4; ++k; @inner) { a[k] = 2; }
  }
}]]))
rejects(5, "Mismatch of [@outer] loops", kernel([[for (int i = 0; i < n; ++i; @outer) {
  for (int j = 0; j < 4; ++j; @inner) { a[j] = 1; }
  for (int o = 0; o < 4; ++o; @outer) {
    for (int j = 0; j < 4; ++j; @inner) { a[j] = 2; }
  }
}]]))
rejects(2, "Cannot have @inner and @outer", kernel("for (int i = 0; i < n; ++i; @outer @inner) {}"))
rejects(2, "There can't be more than 3 nested [@outer] loops", kernel([[for (int i = 0; i < n; ++i; @outer)
for (int i2 = 0; i2 < n; ++i2; @outer)
for (int i3 = 0; i3 < n; ++i3; @outer)
for (int i4 = 0; i4 < n; ++i4; @outer)
for (int j = 0; j < 4; ++j; @inner) { a[j] = 1; }]]))
rejects(4, "use the same axis 0", kernel([[for (int i = 0; i < n; ++i; @outer) {
  for (int j = 0; j < 4; ++j; @inner(0)) {
    for (int k = 0; k < 4; ++k; @inner(0)) { a[k] = 1; }
  }
}]]))

-- @shared and @exclusive placement.
rejects(4, "Cannot define [@shared] variables inside an [@inner] loop", in_inner("@shared float s[4];"))
rejects(2, "Must define [@exclusive] variables between [@outer] and [@inner] loops", kernel("@exclusive float e;\n" .. (outer_inner:gsub("BODY", "a[j] = 1;"))))
rejects(3, "[@shared] variables must be arrays", kernel("for (int i = 0; i < n; ++i; @outer) {\n  @shared float s;\n  for (int j = 0; j < 4; ++j; @inner) { a[j] = 1; }\n}"))
rejects(3, "[@shared] variables must have sizes known at compile-time",
  kernel("for (int i = 0; i < n; ++i; @outer) {\n  @shared float s[n];\n  for (int j = 0; j < 4; ++j; @inner) { s[j] = 1; }\n}"))

-- break and continue directly in OKL loops.
rejects(4, "[break] cannot be used directly inside [@outer] or [@inner] loops", in_inner("break;"))
rejects(4, "[continue] cannot be used directly inside", in_inner("if (j > 2) continue;"))

-- The form of OKL loops.
rejects(2, "Iterator variable needs to be of type [char, short, int, long, ptrdiff_t, size_t]",
  kernel("for (float i = 0; i < n; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(3, "OKL for loop init-statement must be a simple declaration with initializer",
  kernel("int i;\nfor (i = 0; i < n; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "OKL for loops can only have 1 iterator variable",
  kernel("for (int i = 0, k = 1; i < n; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "Expected to compare [i] with one of these operators [<, <=, >=, >]",
  kernel("for (int i = 0; i != n; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "Expected comparing [i] with some bound",
  kernel("for (int i = 0; n > 2; ++i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "Expected update [i] with one of these operators [++, --, +=, -=]",
  kernel("for (int i = 1; i < n; i *= 2; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "OKL for loop range is empty or infinite!",
  kernel("for (int i = 0; i < n; --i; @outer) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(3, "OKL for loop range is empty or infinite!",
  kernel("for (int i = 0; i < n; ++i; @outer) {\n for (int j = 4; j < 4; ++j; @inner) {} }"))

-- Attribute arguments and placement.
rejects(2, "[@outer] argument must be 0, 1 or 2", kernel("for (int i = 0; i < n; ++i; @outer(3)) { for (int j = 0; j < 4; ++j; @inner) {} }"))
rejects(2, "[@tile] needs the tile size", kernel("for (int i = 0; i < n; ++i; @tile(@outer, @inner)) {}"))
rejects(2, "[@tile] loop kinds must be @outer or @inner", kernel("for (int i = 0; i < n; ++i; @tile(16, @shared)) {}"))
rejects(2, "[@tile] size must be an integer constant", kernel("for (int i = 0; i < n; ++i; @tile(n, @outer, @inner)) {}"))
rejects(2, "Unknown attribute [@fast]", kernel("@fast for (int i = 0; i < n; ++i; @outer) {}"))
rejects(4, "[@barrier] can only be applied to an empty statement", in_inner("@barrier a[j] = 1;"))
rejects(4, "[@dim] of 'm' has 2 dimensions, indexed with 1",
  "@kernel void k(const int n, float *m @dim(4, n)) {\nfor (int i = 0; i < n; ++i; @outer) {\n for (int j = 0; j < 4; ++j; @inner) {\n m(j) = 1; } } }")
rejects(1, "Missing dimensions, expected 2 argument(s)",
  "@kernel void k(const int n, float *m @dim(4, n) @dimOrder(0)) { for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) m(j, i) = 1; }")
rejects(1, "[@dimOrder] Duplicate index",
  "@kernel void k(const int n, float *m @dim(4, n) @dimOrder(0, 0)) { for (int i = 0; i < n; ++i; @outer) for (int j = 0; j < 4; ++j; @inner) m(j, i) = 1; }")

-- What Loom's loop model cannot represent: named, never lowered into something else.
rejects(4, "while loops are not representable", in_inner("while (a[j] > 0) a[j] -= 1;"))
-- A while loop that is a for loop but for what its update skips or what reads its variable afterwards.
rejects(4, "while loops are not representable", in_inner("int k = 0; while (k < 4) { if (j > 1) continue; a[k] = 1; k++; }"))
rejects(4, "while loops are not representable", in_inner("int k = 0; while (k < 4) { a[k] = 1; k++; } a[j] = k;"))
rejects(4, "while loops are not representable", in_inner("int k = 0; while (k < 4) { k += 2; a[k] = 1; k++; }"))
rejects(5, "while loops are not representable", "static void bump(int& x) { x += 1; }\n" ..
  in_inner("int k = 0; while (k < 4) { bump(k); a[j] += 1; k++; }"))
-- A do-while loop runs once whatever its condition: not the for loop where the condition fails at the start.
rejects(4, "do-while loops are not representable", in_inner("int k = 5; do { a[j] += 1; k++; } while (k < 4);"))
rejects(1, "'break' outside a loop", "void f(float *a) { break; }\n" .. in_inner("f(a);"))
rejects(4, "must be affine in the enclosing loop indices", in_inner("for (int k = 0; k < a[j]; ++k) a[k] = 0;"))
rejects(4, "loop index 'k' is modified in the loop body", in_inner("for (int k = 0; k < 8; ++k) { k += 1; }"))
rejects(4, "assignment inside an expression is not supported", in_inner("a[j] = (a[0] = 2) + 1;"))
rejects(4, "an [@atomic] block must hold exactly one update", in_inner("@atomic { a[0] += 1; a[1] += 1; }"))
rejects(4, "unknown function 'frobnicate'", in_inner("a[j] = frobnicate(j);"))
rejects(4, "unknown name 'q'", in_inner("a[j] = q;"))
rejects(4, "'.x' needs an element of a pointer to structs", in_inner("a[j] = a.x;"))
rejects(4, "'.x' on something that is not a struct", in_inner("a[j] = a[0].x;"))

-- The preprocessor.
rejects(1, "unterminated #if", "#if 1\n@kernel void k() {}")
rejects(2, "#error stop here", "#define X 1\n#error stop here")
rejects(1, "cannot find include file \"nowhere.okl\"", "#include \"nowhere.okl\"")
rejects(2, "macro 'F' takes 2 arguments, given 1", "#define F(a, b) a + b\nint x = F(1);")
rejects(1, "division by zero in a constant expression", "#if 1 / 0\n#endif")

-- Hostile input: errors, never crashes.
rejects(2, "nesting deeper than", kernel(string.rep("{", 5000)))
rejects(2, "nesting deeper than", kernel("a[0] = " .. string.rep("(", 5000) .. "1" .. string.rep(")", 5000) .. ";"))
rejects(2, "nesting deeper than", kernel("a[0] = a[1]" .. string.rep(" + a[1]", 100000) .. ";"))
rejects(2, "nesting deeper than", kernel("a[0]" .. string.rep("[0]", 100000) .. " = 1;"))
rejects(4, "kernel has more than 600 statements", in_inner(string.rep("a[j] = 1; ", 601)))
rejects(2, "integer literal '99999999999999999999999' is too large", kernel("a[0] = 99999999999999999999999;"))
local doubling, chain = {}, {}
for k = 1, 40 do doubling[#doubling + 1] = string.format("#define M%d M%d M%d", k, k + 1, k + 1) end
for k = 1, 300 do chain[#chain + 1] = string.format("#define C%d(x) C%d(x)", k, k + 1) end
rejects(41, "macro expansion produces more than", table.concat(doubling, "\n") .. "\nint x = M1;")
rejects(301, "macro expansion nested more than", table.concat(chain, "\n") .. "\nint x = C1(2);")
rejects(2, "unexpected character", kernel("a[0] = 1 $ 2;"))
rejects(1, "integer overflow in a constant expression", "#if 9223372036854775807 + 1\n#endif")

print("okl errors: ok")
