#!/usr/bin/env bash
# The game loop of host.cpp against every way a script can go wrong: it must report each, keep running its frames
# (the built-in update stands in), and pick up each new version of the script file (hot reload). Then a short run
# on OpenCL where Loom has it.  test.sh HOST sim.lua WORK_DIR WITH_OPENCL(ON|OFF)
set -euo pipefail
host=$1 sim=$2 work=$3 opencl=$4
rm -rf "$work"
mkdir -p "$work"
script=$work/script.lua log=$work/log
cp "$sim" "$script"
"$host" "$script" --particles 2000 --fps 500 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT

fail() {
  cat "$log"
  echo "FAILED: $*"
  exit 1
}

# Waits until the log holds `text` at least `count` times.
wait_for() {
  local text=$1 count=${2:-1}
  for _ in $(seq 600); do
    [ "$(grep -cF -- "$text" "$log" || true)" -ge "$count" ] && return 0
    kill -0 $pid 2>/dev/null || fail "the host stopped before printing '$text'"
    sleep 0.1
  done
  fail "timed out waiting for '$text'"
}

# A new version of the script (a new file, renamed over the old one: its modification time changes).
replace() {
  printf '%s\n' "$1" >"$script.new"
  mv "$script.new" "$script"
}

stage=0
# Installs `code` and waits for the host to report `text` about it, then for 100 more frames.
expect() {
  local code=$1 text=$2
  stage=$((stage + 1))
  local frames_before
  frames_before=$(grep -c '^frames ' "$log" || true)
  replace "$code"
  wait_for "$text" "${3:-1}"
  wait_for "frames " $((frames_before + 2))
  echo "stage $stage: ok ($text)"
}

wait_for "loaded $script (c, frame 0)"
wait_for "frames 1-100:"
expect 'error("the script gives up")' "cannot load $script"
grep -qF 'the script gives up' "$log" || fail "the load error is not reported"
expect 'return function() error("boom in update") end' "boom in update"
expect 'local t = {} return function() local s = "x" while true do s = s .. s; t[#t + 1] = s end end' "not enough memory"
expect 'local lp, t = require("loom"), {} return function() while true do t[#t + 1] = lp.zeros({1 << 20}, "float64") end end' \
  "MemoryError: an array of"
expect 'return function() while true do end end' "LimitError: "  # the instruction budget, or the deadline on a loaded machine
expect 'return function() return "lots" end' "update returned a string, not a number"
expect 'return 42' "the script returned a number, not the update function"
expect "$(cat "$sim")" "loaded $script (c" 2

kill -INT $pid
wait $pid || fail "the host exited with status $?"
trap - EXIT
grep -qF "stopped after" "$log" || fail "the host did not stop cleanly"
echo "failures survived, script reloaded"

if [ "$opencl" = ON ]; then
  "$host" "$sim" --opencl --particles 2000 --frames 200 --fps 1000 >"$log" 2>&1 || fail "OpenCL run: status $?"
  grep -qF "loaded $sim (opencl, frame 0)" "$log" || fail "OpenCL run: the script did not load"
  grep -qF "frames 101-200:" "$log" || fail "OpenCL run: frames missing"
  echo "OpenCL: ok"
fi
