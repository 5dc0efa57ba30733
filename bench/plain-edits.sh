#!/usr/bin/env bash
# Colour edits of plain graphics (bench/plain-edits.py): does the judge keep a graphic and its
# colour-edited copy together? Builds the set, runs `cull run` on it, then bench/judge-pairs.sh
# on every (original, copy) pair; prints each edit's count of each relation (near is right;
# distinct means the plain-graphic colour check or the hue check split them, none that no
# pairing confirmed them) and score.py's pairwise figures for the groups `cull run` formed.
#
#   bench/plain-edits.sh [OUT=/tmp/cull-plain-edits] [GRAPHICS=150] [EDITS=colour|geometry]
# EDITS geometry: crops, frames and turns of the graphics instead of colour edits.
# Needs Pillow and NumPy, and $SHARED (../shared/corpus) for score.py.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/cull-plain-edits}
graphics=${2:-150}
edits=${3:-colour}
rm -rf "$out" && mkdir -p "$out"
python3 bench/plain-edits.py "$out/set" --graphics "$graphics" --edits "$edits"
source bench/release-build.sh
release_build
.build/release/cull run "$out/set" --db "$out/cull.sqlite" --format csv >"$out/groups.csv" 2>/dev/null
python3 - "$out/groups.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["kind"] != "similar"]
with open(sys.argv[1] + ".dup", "w", newline="") as fh:
    writer = csv.DictWriter(fh, fieldnames=["group", "kind", "path", "keeper", "distance"], extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
PY
bench/judge-pairs.sh "$out/cull.sqlite" "$out/set/pairs.tsv" >/dev/null
echo "relation of each (original, copy) pair, per edit:"
python3 - "$out/set/pairs.tsv.out" <<'PY'
import collections, sys
counts = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    fields = line.rstrip("\n").split("\t")
    counts[fields[0]][fields[3]] += 1
for edit in sorted(counts):
    print(f"  {edit:13s}", "  ".join(f"{relation} {n}" for relation, n in sorted(counts[edit].items())))
total = collections.Counter()
for c in counts.values():
    total.update(c)
print("  all          ", "  ".join(f"{relation} {n}" for relation, n in sorted(total.items())))
PY
echo "groups formed by cull run (score.py; similar groups left out):"
python3 "${SHARED:-../shared/corpus}/score.py" "$out/set" "$out/groups.csv.dup"
