#!/usr/bin/env bash
# Runs every Lua test and example on another machine's OpenCL device (a GPU), with the build made here.
#   bash tools/gpu_suite.sh bundle          here: gpu-bundle/ = stripped build/loom + the shared libraries it needs
#   bash tools/gpu_suite.sh run [PATTERN]   there: each script with LOOM_CL_DEVICE=PATTERN (default NVIDIA)
# The machine needs an OpenCL ICD and a C compiler (for the C executor), not Lua, isl or libffi.
set -uo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  bundle)
    rm -rf gpu-bundle && mkdir -p gpu-bundle/lib
    strip -o gpu-bundle/loom build/loom
    # Everything loom links that is not part of the C/C++ runtime or the OpenCL loader of the target machine.
    ldd build/loom | awk '/=> \//{print $3}' | grep -E 'libisl|libffi|liblua|libgmp' | xargs -I{} cp {} gpu-bundle/lib/
    du -sh gpu-bundle
    ;;
  run)
    export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib" LOOM_CL_DEVICE="${2:-NVIDIA}" LUA_PATH="tests/?.lua;;"
    export LOOM_CACHE_DIR="${TMPDIR:-/tmp}/loom-gpu-cache"
    ./gpu-bundle/loom -e 'print("device: " .. require("loom").cl.queue{}.device)' || exit 1
    failed=0
    for script in tests/correctness/*.lua tests/errors/*.lua tests/loopy/*.lua tests/okl/*.lua examples/*.lua; do
      if out=$(timeout 300 ./gpu-bundle/loom "$script" 2>&1); then
        echo "ok   $script"
      else
        failed=$((failed + 1))
        echo "FAIL $script"
        echo "$out" | tail -4 | sed 's/^/     /'
      fi
    done
    echo "$failed failed"
    [ "$failed" -eq 0 ]
    ;;
  *)
    echo "usage: bash tools/gpu_suite.sh bundle | run [PATTERN]" >&2
    exit 2
    ;;
esac
