#!/usr/bin/env bash
# The include graph points down the pipeline (README, "Layout"): a file includes headers of its own folder
# and of the folders before it below, never of a folder after it. Prints each include that points up and
# exits 1 if there is one; run by ctest (layering).
set -uo pipefail
cd "$(dirname "$0")/.."

# folder on disk, and the prefix its headers are included by
layers=(src/support:support src/isl:isl src/expr:expr src/ir:ir src/parse:parse src/analysis:analysis
        src/transform:transform src/schedule:schedule src/preprocess:preprocess src/codegen:codegen backends:backends lua:lua)

rank_of() {  # rank_of PREFIX: the position of the layer whose headers are included as PREFIX/, or nothing
  for i in "${!layers[@]}"; do
    [[ "${layers[$i]#*:}" == "$1" ]] && { echo "$i"; return; }
  done
}

status=0
for i in "${!layers[@]}"; do
  folder=${layers[$i]%%:*}
  while IFS=: read -r file line text; do
    prefix=$(sed -E 's/^#include "([a-z_]+)\/.*/\1/' <<< "$text")
    target=$(rank_of "$prefix")
    if [[ -n "$target" && "$target" -gt "$i" ]]; then
      echo "$file:$line: ${folder} includes ${prefix}/, a later layer: $text"
      status=1
    fi
  done < <(grep -rnE '^#include "[a-z_]+/' "$folder" --include='*.h' --include='*.cpp' --include='*.c')
done
[[ $status -eq 0 ]] && echo "layering holds: ${#layers[@]} layers, no include points up"
exit $status
