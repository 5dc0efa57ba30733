#!/usr/bin/env bash
# The hard development set (../shared/corpus/build-corpus.py --hard) and the other corpora, scored
# the way issue 9 asks, with the defaults, in one run:
#   - duplicates: `cull run`'s exact and near rows scored by score.py (pairwise precision, recall,
#     F1, and per negative transform how many files were wrongly grouped as duplicates);
#   - similar shots: how many burst frames (the hard set's burst_pan and burst_zoom negatives)
#     are in a similar group with a file of their own scene, and how many similar groups mix
#     scenes.
#   - crops drawn anywhere in the frame (bench/free-crop-corpus.py, from the development and
#     holdout originals: an edit none of the three corpora makes), scored the same way.
# Usage: bench/hard-set.sh [HARD_DIR [DEV_DIR [HOLDOUT_DIR [FREE_CROP_DIR]]]]  (defaults
# /tmp/hard-corpus, /tmp/dev-corpus, /tmp/holdout-corpus, /tmp/freecrop; built if missing, which
# needs Debian's and PyPI's registries once). Needs ../shared/corpus (build-corpus.py, score.py)
# and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/corpus}
hard=${1:-/tmp/hard-corpus}
dev=${2:-/tmp/dev-corpus}
holdout=${3:-/tmp/holdout-corpus}
[ -f "$hard/truth.csv" ] || python3 "$shared/build-corpus.py" --out "$hard" --hard
[ -f "$dev/truth.csv" ] || python3 "$shared/build-corpus.py" --out "$dev"
[ -f "$holdout/truth.csv" ] || python3 bench/holdout-corpus.py "$holdout"
freecrop=${4:-/tmp/freecrop}
[ -f "$freecrop/truth.csv" ] || python3 bench/free-crop-corpus.py "$freecrop" "$dev" "$holdout" --per-photo 12
source bench/release-build.sh
release_build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for corpus in "$hard" "$dev" "$holdout" "$freecrop"; do
  name=$(basename "$corpus")
  .build/release/cull run "$corpus/photos" --db "$work/$name.sqlite" --format csv > "$work/$name.csv" 2> "$work/$name.err"
  echo "== $name"; tail -1 "$work/$name.err"
  python3 bench/duplicate-rows.py "$work/$name.csv" "$work/$name.duplicates.csv"
  python3 - "$corpus" "$work/$name.csv" <<'PY'
import collections, csv, os, sys
root, predicted = sys.argv[1:3]
rows = list(csv.DictReader(open(predicted)))
truth = {os.path.join(root, r["path"]): (r["group"], r["transform"]) for r in csv.DictReader(open(os.path.join(root, "truth.csv")))}
scene = lambda path: truth[path][0].split("#")[0]
similar = collections.defaultdict(set)
for r in rows:
    if r["kind"] == "similar" and r["path"] in truth:
        similar[r["group"]].add(r["path"])
bursts = [p for p, (_, t) in truth.items() if t.startswith("burst")]
with_scene = sum(1 for p in bursts if any(p in m and any(q != p and scene(q) == scene(p) for q in m) for m in similar.values()))
mixing = sum(1 for m in similar.values() if len({scene(p) for p in m}) > 1)
print(f"similar: {with_scene} of {len(bursts)} burst frames in a similar group with their scene; "
      f"{len(similar)} similar groups, {mixing} mixing scenes")
PY
  python3 "$shared/score.py" "$corpus" "$work/$name.duplicates.csv" | grep -E "precision|fp |wrong pairs"
done
