-- Raises a Loom error that nothing catches: a stock lua5.4 must report it with this file's position and the
-- traceback of the raise (tests/CMakeLists.txt matches "uncaught_error.lua:5: ParseError: ", then the traceback).
local lp = require("loom")

lp.make_kernel("{ [i]: 0<=i<n", "out[i] = 1")
