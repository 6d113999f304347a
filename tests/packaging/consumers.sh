#!/usr/bin/env bash
# Installs the build into a fresh prefix and uses it as each kind of consumer would, out of tree: a CMake project
# (find_package(loom)), a program built with pkg-config, a stock lua5.4 (require of loom.so and of stdlib's
# modules) and the installed loom executable.  consumers.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
unset LUA_PATH LUA_PATH_5_4 LUA_CPATH LUA_CPATH_5_4  # only what the prefix holds

echo "== CMake: find_package(loom)"
cmake -S "$here/cmake_consumer" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH=$prefix/lib "$work/cmake/host"

echo "== pkg-config loom"
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs loom lua5.4)
# shellcheck disable=SC2086  # the flags are words
cc -o "$work/pkg-config-host" "$here/host.c" $flags -Wl,-rpath,"$prefix/lib"
"$work/pkg-config-host"

# Every module of stdlib/ as installed, by name (loom/tune.lua is loom.tune), and a probe put beside them: found
# through the prefix's share/lua/5.4 without any LUA_PATH by the installed executable.
mkdir -p "$prefix/share/lua/5.4/loom"
echo 'return "probe"' >"$prefix/share/lua/5.4/loom/packaging_probe.lua"
modules=$(cd "$prefix/share/lua/5.4" && find loom -name '*.lua' | sed 's|\.lua$||; s|/|.|g' | tr '\n' ' ')
check="local lp = require('loom'); assert(lp.make_kernel)
for name in ('$modules'):gmatch('%S+') do assert(require(name), name) end
assert(require('loom.packaging_probe') == 'probe')
print('require: ok (' .. select(2, ('$modules'):gsub('%S+', '')) .. ' modules under share/lua/5.4/loom)')"

echo "== stock lua5.4: require('loom')"
LUA_CPATH="$prefix/lib/lua/5.4/?.so" LUA_PATH="$prefix/share/lua/5.4/?.lua" lua5.4 -e "$check"

echo "== installed loom executable"
"$prefix/bin/loom" -e "$check"
