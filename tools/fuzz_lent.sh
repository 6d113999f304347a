#!/usr/bin/env bash
# Long fuzz runs on another machine (many cores, no isl), with the fuzz build made here (docs/reliability.md).
#   bash tools/fuzz_lent.sh bundle [TARGET...]     here: fuzz-bundle/ = the targets (default all four), isl and gmp,
#                                                  seeds, corpus; name only those the run gives workers, as all four
#                                                  with their corpora pass the lent machine's 64 MiB
#   bash tools/fuzz_lent.sh run SECONDS JOBS OUT   there: each target in libFuzzer's fork mode with JOBS workers
#                                                  for SECONDS, going on past crashes and slow inputs
# JOBS_domain, JOBS_instructions, JOBS_pipeline, JOBS_okl override JOBS for one target (0 leaves it out), so
# that the cores go where the executions are missing: JOBS_pipeline=10 JOBS_okl=6 bash tools/fuzz_lent.sh ...
# MODE=jobs runs JOBS independent fuzzers on one shared corpus (-jobs/-workers) instead of fork mode: twice the
# executions on a 2-core machine, as fast on the lent one (docs/reliability.md); a worker stops at its first finding.
# OUT gets few files (the lent machine returns at most eight): OUT/TARGET/log for each target run,
# OUT/findings.tgz (TARGET/crash-*, timeout-*, oom-*, leak-*: replay them with build-fuzz/fuzz/fuzz_TARGET) and
# OUT/corpus.tgz (each target's corpus as the run left it: unpack into build-fuzz/fuzz/corpus to go on from it).
# findings.tgz also holds reports/TARGET/sanitizer.PID, the sanitizer reports of the jobs, whose logs fork mode
# deletes: a leak is reported when a job exits, after many inputs, and its stack is all there is to go on.
set -uo pipefail
cd "$(dirname "$0")/.."

targets=(domain instructions pipeline okl)

case "${1:-}" in
  bundle)
    shift
    [ $# -gt 0 ] && targets=("$@")
    rm -rf fuzz-bundle && mkdir -p fuzz-bundle/lib
    for t in "${targets[@]}"; do
      strip -o "fuzz-bundle/fuzz_$t" "build-fuzz/fuzz/fuzz_$t"
      mkdir -p "fuzz-bundle/corpus/$t"
      cp -r "build-fuzz/fuzz/seeds/$t/." "fuzz-bundle/corpus/$t/"
      cp -r "build-fuzz/fuzz/corpus/$t/." "fuzz-bundle/corpus/$t/" 2>/dev/null
    done
    ldd build-fuzz/fuzz/fuzz_pipeline | awk '/=> \//{print $3}' | grep -E 'libisl|libgmp' | xargs -I{} cp {} fuzz-bundle/lib/
    git rev-parse HEAD > fuzz-bundle/commit
    du -sh fuzz-bundle
    ;;
  run)
    seconds=${2:?seconds} jobs=${3:?jobs} out=${4:?output folder}
    export LD_LIBRARY_PATH="$PWD/fuzz-bundle/lib"
    work=$(mktemp -d)
    ran=() && declare -A workers
    for t in "${targets[@]}"; do
      var="JOBS_$t" && n=${!var:-$jobs}
      [ "$n" -gt 0 ] || continue
      if [ ! -x "fuzz-bundle/fuzz_$t" ]; then echo "== $t: not in the bundle, not run"; continue; fi
      ran+=("$t") && workers[$t]=$n
      mkdir -p "$work/findings/$t" "$work/corpus/$t" "$work/reports/$t" "$out/$t"
      cp -r "fuzz-bundle/corpus/$t/." "$work/corpus/$t/"
      # -detect_leaks=0 per input, as in CI (isl keeps memory between calls); -timeout=10: an input slower than
      # 10 s is kept as a finding, not one over CI's 1 s, which a loaded machine reaches by chance.
      if [ "${MODE:-fork}" = jobs ]; then
        parallel=(-jobs="$n" -workers="$n" -rss_limit_mb=6000)
      else
        parallel=(-fork="$n" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
      fi
      (cd "$out/$t" && ASAN_OPTIONS="detect_leaks=1:log_path=$work/reports/$t/sanitizer" \
        UBSAN_OPTIONS="log_path=$work/reports/$t/sanitizer" "$OLDPWD/fuzz-bundle/fuzz_$t" "${parallel[@]}" \
        -max_total_time="$seconds" -timeout=10 -detect_leaks=0 -artifact_prefix="$work/findings/$t/" \
        "$work/corpus/$t" > log 2>&1) &
    done
    wait
    for t in "${ran[@]}"; do
      if [ "${MODE:-fork}" = jobs ]; then
        total=$(for f in "$out/$t"/fuzz-*.log; do grep -oE '^#[0-9]+' "$f" | tail -1 | tr -d '#'; done | awk '{s += $1} END {print s}')
        echo "== $t (${workers[$t]} workers): $total executions over the workers' last #N lines"
        tail -q -n 3 "$out/$t"/fuzz-*.log > "$out/$t/tails" && rm -f "$out/$t"/fuzz-*.log
      else
        echo "== $t (${workers[$t]} workers): $(grep -E '^#[0-9]+' "$out/$t/log" | tail -1)"
      fi
      ls "$work/findings/$t" | sed 's/^/   finding: /'
      grep -h -m1 -E 'ERROR:|runtime error:' "$work/reports/$t"/* 2>/dev/null | sed 's/^/   report: /'
    done
    tar czf "$out/findings.tgz" -C "$work" findings reports
    tar czf "$out/corpus.tgz" -C "$work" corpus
    rm -rf "$work"
    ;;
  *)
    echo "usage: bash tools/fuzz_lent.sh bundle [TARGET...] | [JOBS_TARGET=N ...] bash tools/fuzz_lent.sh run SECONDS JOBS OUT" >&2
    exit 2
    ;;
esac
