-- OKL's C preprocessor: macros with arguments, # and ##, conditionals, includes, the defines option. The
-- kernels' results show what the preprocessor produced.
local lp = require("loom")
local T = require("helpers")

local source = [==[
#include "okl_sizes.h"
#include "okl_sizes.h"
#define CAT(a, b) a ## b
#define FIELD(n) CAT(value_, n)
#define TWICE(x) (2 * (x))
#undef UNUSED
#if defined(MODE) && MODE == 2
#  define OFFSET 200
#elif defined MODE
#  define OFFSET 100
#else
#  define OFFSET 0
#endif
#ifdef FLAG
#  if FLAG
#    define BONUS 7
#  else
#    define BONUS 3
#  endif
#endif
#ifndef BONUS
#  define BONUS 1
#endif

@kernel void pre(const int n, int *out) {
  for (int i = 0; i < n; ++i; @tile(TILE, @outer, @inner)) {
    const int FIELD(1) = SCALE(i);
    out[i] = value_1 + TWICE(OFFSET) + BONUS;
  }
}
]==]

local function run(defines)
  local knl = lp.parse_okl(source, { defines = defines, include_paths = { "tests/okl/include" } }).pre
  local out = lp.zeros({ 20 }, "int32")
  knl(lp.c.executor {}, { n = 20, out = out })
  return out
end

-- FACTOR comes from the defines option.
local cases = {
  { { FACTOR = 3 }, function(i) return 3 * i + 0 + 1 end },
  { { FACTOR = 2, MODE = 1, FLAG = true }, function(i) return 2 * i + 200 + 7 end },
  { { FACTOR = "(1 + 1)", MODE = 2, FLAG = false }, function(i) return 2 * i + 400 + 3 end },
}
for k, case in ipairs(cases) do T.check_array(run(case[1]), case[2], "preprocessor case " .. k) end

-- Errors point at the line of the use, in the file where it is.
local err = T.expect_error("OKLError", "unknown name 'FACTOR'", lp.parse_okl, source, { include_paths = { "tests/okl/include" } })
T.check_equal(err.line, 27, "line of a macro's use")
T.expect_error("OKLError", "stringizing (#s) in macro 'LEN' is not supported", lp.parse_okl, "#define LEN(s) #s\nint x = LEN(a);")
T.expect_error("ArgumentError", "option 'defines'", lp.parse_okl, source, { defines = { N = {} } })
T.expect_error("ArgumentError", "unknown option", lp.parse_okl, source, { define = {} })

print("okl preprocessor: ok")
