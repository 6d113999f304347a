#!/usr/bin/env bash
# The rockspec as a LuaRocks user builds it: `luarocks make` into a fresh tree, then a stock lua5.4 that knows
# only that tree requires the module and the standard library and runs a kernel on the C target.
#   rockspec.sh WORK_DIR
# The suite registers it where the build compiles through ccache (tests/CMakeLists.txt): the rockspec's build
# type is the suite's, so its compiles are the build's own, found in the cache.
set -euo pipefail
work=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work"
cd "$root"
rm -rf build.luarocks  # what an earlier run configured: a fresh build, as a user's first
if ! luarocks --lua-version=5.4 --tree="$work/tree" make loom-scm-1.rockspec >"$work/luarocks.log" 2>&1; then
  cat "$work/luarocks.log"
  exit 1
fi
unset LUA_PATH LUA_PATH_5_4 LUA_CPATH LUA_CPATH_5_4
eval "$(luarocks --lua-version=5.4 --tree="$work/tree" path)"
lua5.4 -e "
local lp = require('loom')
assert(package.searchpath('loom', package.cpath):find('$work/tree', 1, true), 'loom.so not from the tree')
local knl = lp.make_kernel('{ [i]: 0<=i<n }', 'out[i] = 2*a[i] + 1')
local out = knl(lp.c.executor{}, {a = lp.arange(10, 'float64')})
for i = 0, 9 do assert(out:get(i) == 2 * i + 1, 'out[' .. i .. ']') end
assert(require('loom.tune').search and require('loom.recipes').gemm)
print('luarocks make: ok (' .. package.searchpath('loom', package.cpath) .. ')')"
