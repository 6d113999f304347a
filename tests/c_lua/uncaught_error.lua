-- Raises a Loom error that nothing catches: a stock lua5.4 must report it with this file's position
-- (tests/CMakeLists.txt matches "uncaught_error.lua:5: ParseError: ").
local lp = require("loom")

lp.make_kernel("{ [i]: 0<=i<n", "out[i] = 1")
