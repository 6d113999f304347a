#!/usr/bin/env bash
# What LOOM_WITH_OPENCL=OFF relies on, checked in the usual build: no object of the engine but the OpenCL executor
# calls OpenCL, so that leaving that one out (backends/opencl/no_opencl.cpp stands in) leaves nothing unresolved.
#   opencl_optional.sh OBJECT...
set -euo pipefail
status=0
for object in "$@"; do
  case "$object" in */opencl_executor.cpp.o) continue ;; esac
  if calls=$(nm --undefined-only "$object" | grep -E ' cl[A-Z][A-Za-z]+$'); then
    echo "$object calls OpenCL:"
    echo "$calls"
    status=1
  fi
done
[ $status -eq 0 ] && echo "only the OpenCL executor calls OpenCL ($# objects)"
exit $status
