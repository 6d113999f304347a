-- LuaRocks: `luarocks make` in this directory builds the Lua module loom.so (and installs the Lua modules of
-- stdlib/) for the system's Lua 5.4, through CMake. The engine needs isl, libffi and, for OpenCL, an OpenCL ICD
-- loader with its headers (Debian: libisl-dev libffi-dev ocl-icd-opencl-dev opencl-headers), and a C++20
-- compiler; the C target runs kernels with the system's C compiler.
rockspec_format = "3.0"
package = "loom"
version = "scm-1"
source = {
  url = "git+file://.",
}
description = {
  -- The project has not chosen a license yet; LuaRocks requires the field.
  license = "unspecified",
  summary = "loopy's kernel model in Lua 5.4: write array kernels and their transformations as scripts",
  detailed = [[
Loop domains are isl sets, instructions are loopy's textual syntax, transformations are pure functions on
immutable kernels; kernels run through OpenCL or as C compiled by the system compiler.]],
}
dependencies = {
  "lua >= 5.4, < 5.5",
}
-- The build type is the one the project's own builds and tests use (-O2 -g), so that the test suite's
-- check of this rockspec (tests/packaging/rockspec.sh) builds the very objects it tested.
build = {
  type = "cmake",
  variables = {
    CMAKE_BUILD_TYPE = "RelWithDebInfo",
    LOOM_MODULE_ONLY = "ON",
    LUA_INCDIR = "$(LUA_INCDIR)",
    LOOM_LUA_CMOD_DIR = "$(LIBDIR)",
    LOOM_LUA_DIR = "$(LUADIR)",
  },
}
