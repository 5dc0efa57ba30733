#!/usr/bin/env bash
# Issue 9's end-to-end figures in one run: `cull run` on the generated library of 200,000 small
# photos and 20,000 edited copies (bench/e2e-library.py, made if missing) into a new database,
# timed with the whole process tree's peak RSS (bench/tree-measure.py: the coordinator and its
# local workers), scored against the library's truth (pairwise precision and recall of the
# duplicate groups, similar groups left out), then the immediate rescan against its target
# (bench/rescan.sh: 2x `find` plus 2x a one-photo run, rounds interleaved).
#
#   bench/e2e.sh [LIBRARY=/tmp/e2e] [ROUNDS=7]
#
# COLD=1 (the default, as root) drops the page cache first, as the acceptance's 10 minutes
# mean: then the disk's speed is part of the figure (bench/RESULTS.md, "End to end", has a run
# where it was most of it); COLD=0 keeps whatever is cached. Release build of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
library=${1:-/tmp/e2e} rounds=${2:-7} cold=${COLD:-1}
shared=${SHARED:-../shared/corpus}
source bench/release-build.sh
release_build
[ -f "$library/truth.csv" ] || python3 bench/e2e-library.py "$library"
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
if [ "$cold" = 1 ]; then
  if [ "$(id -u)" -eq 0 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; else echo "e2e: not root, page cache kept (COLD=0)" >&2; fi
fi
echo "e2e: cull run $library (page cache $([ "$cold" = 1 ] && echo dropped || echo kept))"
python3 bench/tree-measure.py "$scratch/run.csv" -- .build/release/cull run "$library" --db "$scratch/e2e.sqlite" --format csv
tail -n 2 "$scratch/run.csv.err" | grep '^cull:' || true
# Duplicate groups only: similar groups are other shots, never duplicates.
awk -F, 'NR == 1 || $2 != "similar"' "$scratch/run.csv" | cut -d, -f1-5 > "$scratch/duplicates.csv"
python3 "$shared/score.py" "$library" "$scratch/duplicates.csv" | grep -E 'precision='
bash bench/rescan.sh "$library" "$scratch/e2e.sqlite" "$rounds" | tail -n 1
