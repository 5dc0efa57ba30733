#!/usr/bin/env bash
# Why were two photos grouped (or not)? What PairJudge sees of pairs of a `cull run` database
# (Tests/CoordinatorTests/Benchmarks/JudgeInternalsMeasurement): for each pair, the relation
# over every pairing candidate search can make, the vignette between the frames if one is found
# (rules 42) and a band laid across either (rules 46), the plain colours of both frames, and for each
# pairing within its limit its difference, hues, colour order and local change.
#
#   bench/judge-pairs.sh DB.sqlite PAIRS.tsv          PAIRS.tsv: LABEL<TAB>PATH_A<TAB>PATH_B
#   bench/judge-pairs.sh DB.sqlite --wrong CULL.csv CORPUS_DIR [N=400]
#       the first N wrongly grouped (keeper, member) pairs of `cull run --format csv` against
#       CORPUS_DIR/truth.csv (similar groups left out)
# Prints the output file's name and the count of each relation.
# The pairings judged: every one search can make (default); CULL_BENCH_JUDGE_REACH=1 those
# within the default plan's radii; =frames those and the whole frames (as search returns them
# when the frames' hashes come within reach too).
# CULL_BENCH_JUDGE_WINDOW=x,y,width,height: where the second file's frame truly lies in the
# first (a crop of known geometry): its difference from there as the registered part, as exact
# area averages and as the descent's point samples (4 and 8 a cell a side).
set -euo pipefail
cd "$(dirname "$0")/.."
db=$1
if [ "${2:-}" = "--wrong" ]; then
  pairs=$(mktemp --suffix=.tsv)
  python3 - "$3" "$4" "${5:-400}" >"$pairs" <<'PY'
import csv, collections, os, sys
result, corpus, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = {r["path"]: r["group"] for r in csv.DictReader(open(os.path.join(corpus, "truth.csv")))}
groups = collections.defaultdict(list)
for row in csv.DictReader(open(result)):
    if row["kind"] != "similar":
        groups[row["group"]].append(row)
listed = 0
for rows in groups.values():
    keeper = next(r["path"] for r in rows if r["keeper"] == "1")
    for row in rows:
        same = truth.get(os.path.relpath(row["path"], corpus)) == truth.get(os.path.relpath(keeper, corpus))
        if row["path"] != keeper and not same and listed < limit:
            print(f"wrong\t{keeper}\t{row['path']}")
            listed += 1
PY
else
  pairs=$2
fi
source bench/release-build.sh
release_build
CULL_BENCH_JUDGE="$db:$pairs" swift test -c release -Xswiftc -enable-testing --skip-build \
  --filter JudgeInternalsMeasurement 2>&1 | grep -E '^judge internals|✘'
echo "$pairs.out"
cut -f4 "$pairs.out" | sort | uniq -c
