#!/usr/bin/env bash
# Runs every Lua test and example on another machine's OpenCL device (a GPU), with the build made here.
#   bash tools/gpu_suite.sh bundle          here: gpu-bundle/ = stripped build/loom + the shared libraries it needs
#   bash tools/gpu_suite.sh run [PATTERN]   there: each script with LOOM_CL_DEVICE=PATTERN (default NVIDIA)
#   bash tools/gpu_suite.sh recipes [PATTERN]  there: bench/recipes.lua beside PyTorch, then tune.search over
#                                           recipes.gemm (docs/performance.md keeps the results)
# The machine needs an OpenCL ICD and a C compiler (for the C executor), not Lua, isl or libffi; the recipes
# also python3 with PyTorch.
set -uo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  bundle)
    rm -rf gpu-bundle && mkdir -p gpu-bundle/lib
    strip -o gpu-bundle/loom build/loom
    # Everything loom links that is not part of the C/C++ runtime or the OpenCL loader of the target machine.
    ldd build/loom | awk '/=> \//{print $3}' | grep -E 'libisl|libffi|liblua|libgmp' | xargs -I{} cp {} gpu-bundle/lib/
    cp -r stdlib gpu-bundle/  # the executable finds require("loom.tune") beside itself
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
  recipes)
    export LD_LIBRARY_PATH="$PWD/gpu-bundle/lib" LOOM_CL_DEVICE="${2:-NVIDIA}"
    export LOOM_CACHE_DIR="${TMPDIR:-/tmp}/loom-gpu-cache"
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
    ./gpu-bundle/loom bench/recipes.lua opencl
    ./gpu-bundle/loom bench/tune_gemm.lua opencl --n=4096 --jobs=8 --budget="${BUDGET:-48}"
    ;;
  *)
    echo "usage: bash tools/gpu_suite.sh bundle | run [PATTERN] | recipes [PATTERN]" >&2
    exit 2
    ;;
esac
