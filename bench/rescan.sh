#!/usr/bin/env bash
# Issue 9's rescan acceptance, measured in one run: an immediate rescan of an analysed library
# must take at most 2x `find DIR -printf '%s %T@ %p\n'` plus 2x `cull run` on a one-photo
# folder. Rounds interleave the three so a noisy machine slows them alike; prints each round
# and the medians with the ratio.
#
#   bench/rescan.sh LIBRARY DB [ROUNDS]   (LIBRARY analysed into DB by `cull run` before)
#
# Release build of this checkout (bench/release-build.sh); page cache warm (the first run read
# everything). Run on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
library=$1 db=$2 rounds=${3:-5}
cull=.build/release/cull
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/one"
cp "$(find "$library" -name '*.jpg' -print -quit)" "$scratch/one/"
now() { date +%s.%N; }
finds=() ones=() rescans=()
for round in $(seq "$rounds"); do
  t0=$(now); find "$library" -printf '%s %T@ %p\n' > /dev/null; t1=$(now)
  rm -f "$scratch"/one.sqlite*
  "$cull" run "$scratch/one" --db "$scratch/one.sqlite" --workers 1 --format csv > /dev/null 2>&1; t2=$(now)
  "$cull" run "$library" --db "$db" --format csv > "$scratch/rescan.csv" 2> /dev/null; t3=$(now)
  f=$(echo "$t1 - $t0" | bc) o=$(echo "$t2 - $t1" | bc) r=$(echo "$t3 - $t2" | bc)
  finds+=("$f") ones+=("$o") rescans+=("$r")
  printf 'round %d: find %.3f s, one-photo run %.3f s, rescan %.3f s\n' "$round" "$f" "$o" "$r"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mf=$(median "${finds[@]}") mo=$(median "${ones[@]}") mr=$(median "${rescans[@]}")
target=$(echo "2*$mf + 2*$mo" | bc)
printf 'median: find %.3f s, one-photo run %.3f s, rescan %.3f s; target 2x find + 2x one-photo run = %.3f s; rescan/target = %.2f\n' \
  "$mf" "$mo" "$mr" "$target" "$(echo "$mr / $target" | bc -l)"
