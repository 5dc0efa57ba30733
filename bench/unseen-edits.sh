#!/usr/bin/env bash
# Edits no corpus makes (bench/unseen-edits.py), scored with the defaults:
#   - score.py on `cull run`'s exact and near rows (pairwise precision, recall, F1, per edit);
#   - per edit, where each copy went: in a duplicate group with its original, in a similar group
#     with a file of its family, in a duplicate group of its original's copies only, in groups of
#     other photos, or in none;
#   - which file each duplicate group suggests keeping, and why.
# Usage: bench/unseen-edits.sh [OUT_DIR [DEV_DIR [HOLDOUT_DIR]]]  (defaults /tmp/unseen,
# /tmp/dev-corpus, /tmp/holdout-corpus; the edits are made if OUT_DIR has no truth.csv). Needs
# ../shared/corpus/score.py, Pillow, numpy and a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/corpus}
out=${1:-/tmp/unseen}
dev=${2:-/tmp/dev-corpus}
holdout=${3:-/tmp/holdout-corpus}
[ -f "$out/truth.csv" ] || python3 bench/unseen-edits.py "$out" "$dev" "$holdout"
source bench/release-build.sh
release_build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
.build/release/cull run "$out/photos" --db "$work/unseen.sqlite" --format csv > "$work/unseen.csv" 2> "$work/unseen.err"
tail -1 "$work/unseen.err"
python3 bench/duplicate-rows.py "$work/unseen.csv" "$work/duplicates.csv"
python3 - "$out" "$work/unseen.csv" <<'PY'
import collections, csv, os, sys
root, predicted = sys.argv[1:3]
rows = list(csv.DictReader(open(predicted)))
truth = {os.path.join(root, r["path"]): (r["group"], r["transform"]) for r in csv.DictReader(open(os.path.join(root, "truth.csv")))}
groups = collections.defaultdict(dict)  # path -> {group: kind}; a photo may be in a duplicate and a similar group
for r in rows:
    groups[r["path"]][r["group"]] = r["kind"]
original = {g: p for p, (g, t) in truth.items() if t == "original"}
members = collections.defaultdict(list)  # group -> its files
for p, (g, _) in truth.items():
    members[g].append(p)
where = collections.defaultdict(collections.Counter)
for path, (group, edit) in truth.items():
    if edit == "original":
        continue
    mine, theirs = groups.get(path, {}), groups.get(original[group], {})
    # Similar groups join a duplicate group through its keeper, which may be another file of
    # the family than the original; copies of one photo may also be grouped apart from it.
    family = [p for p in members[group] if p != path]
    kin = [kind for g, kind in mine.items() if any(g in groups.get(p, {}) for p in family)]
    where[edit]["with its original" if any(kind != "similar" and g in theirs for g, kind in mine.items())
                else "similar to its family" if "similar" in kin else "with copies only" if kin
                else "with other photos" if mine else "alone"] += 1
places = ["with its original", "similar to its family", "with copies only", "with other photos", "alone"]
print(f"{'edit':<15}" + "".join(f"{p:>23}" for p in places))
for edit in sorted(where):
    print(f"{edit:<15}" + "".join(f"{where[edit][p]:>23}" for p in places))
keepers = collections.Counter((truth[r["path"]][1], r["keeper_reason"]) for r in rows
                              if r["keeper"] == "1" and r["kind"] != "similar" and r["path"] in truth)
print("keepers of duplicate groups (edit, reason): " + ", ".join(f"{e} {why} {n}" for (e, why), n in keepers.most_common()))
PY
python3 "$shared/score.py" "$out" "$work/duplicates.csv"
