#!/usr/bin/env bash
# Long fuzz runs on another machine (many cores, no isl), with the fuzz build made here (docs/reliability.md).
#   bash tools/fuzz_lent.sh bundle                 here: fuzz-bundle/ = the three targets, isl and gmp, seeds, corpus
#   bash tools/fuzz_lent.sh run SECONDS JOBS OUT   there: each target in libFuzzer's fork mode with JOBS workers
#                                                  for SECONDS, going on past crashes and slow inputs; OUT gets
#                                                  each target's log and the inputs that crashed or were slow
set -uo pipefail
cd "$(dirname "$0")/.."

targets=(domain instructions pipeline)

case "${1:-}" in
  bundle)
    rm -rf fuzz-bundle && mkdir -p fuzz-bundle/lib
    for t in "${targets[@]}"; do
      strip -o "fuzz-bundle/fuzz_$t" "build-fuzz/fuzz/fuzz_$t"
      mkdir -p "fuzz-bundle/corpus/$t"
      cp -r "build-fuzz/fuzz/seeds/$t/." "fuzz-bundle/corpus/$t/"
      cp -r "build-fuzz/fuzz/corpus/$t/." "fuzz-bundle/corpus/$t/" 2>/dev/null
    done
    ldd build-fuzz/fuzz/fuzz_pipeline | awk '/=> \//{print $3}' | grep -E 'libisl|libgmp' | xargs -I{} cp {} fuzz-bundle/lib/
    du -sh fuzz-bundle
    ;;
  run)
    seconds=${2:?seconds} jobs=${3:?jobs} out=${4:?output folder}
    export LD_LIBRARY_PATH="$PWD/fuzz-bundle/lib" ASAN_OPTIONS=detect_leaks=1
    for t in "${targets[@]}"; do
      mkdir -p "$out/$t"
      # -detect_leaks=0 per input, as in CI (isl keeps memory between calls); -timeout=10: an input slower than
      # 10 s is kept as a finding, not one over CI's 1 s, which a loaded machine reaches by chance.
      ./fuzz-bundle/fuzz_$t -fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
        -max_total_time="$seconds" -timeout=10 -detect_leaks=0 -artifact_prefix="$out/$t/" \
        "fuzz-bundle/corpus/$t" > "$out/$t/log" 2>&1 &
    done
    wait
    for t in "${targets[@]}"; do
      echo "== $t: $(grep -E '^#[0-9]+' "$out/$t/log" | tail -1)"
      ls "$out/$t" | grep -v '^log$' | sed 's/^/   finding: /'
    done
    ;;
  *)
    echo "usage: bash tools/fuzz_lent.sh bundle | run SECONDS JOBS OUT" >&2
    exit 2
    ;;
esac
