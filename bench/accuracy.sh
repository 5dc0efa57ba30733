#!/usr/bin/env bash
# Accuracy on the development corpus, cull beside the imagehash peer, measured in one run.
# Usage: bench/accuracy.sh [CORPUS_DIR [HOLDOUT_DIR]]   (defaults /tmp/dev-corpus and
# /tmp/holdout-corpus; built if missing). The holdout corpus (bench/holdout-corpus.py) holds other
# photos and other edits than the development corpus: the features were not tuned on it.
# Needs ../shared/corpus (build-corpus.py, score.py, peer_imagehash.py) and network access to
# Debian's and PyPI's registries the first time (the corpus script fetches its photos).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/corpus}
corpus=${1:-/tmp/dev-corpus}
holdout=${2:-/tmp/holdout-corpus}
[ -f "$corpus/truth.csv" ] || python3 "$shared/build-corpus.py" --out "$corpus"
[ -f "$holdout/truth.csv" ] || python3 bench/holdout-corpus.py "$holdout"
python3 -c 'import imagehash' 2>/dev/null || python3 -m pip install -q imagehash
python3 -c 'import piexif' 2>/dev/null || python3 -m pip install -q piexif
command -v heif-enc >/dev/null || apt-get install -y -q libheif-examples >/dev/null
source bench/release-build.sh
release_build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The JPEG part of the corpus, as a corpus of its own (copies, so every tool walks it alike).
python3 - "$corpus" "$work/jpeg" <<'PY'
import csv, os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
rows = [r for r in csv.DictReader(open(os.path.join(src, "truth.csv"))) if r["path"].endswith(".jpg")]
for r in rows:
    os.makedirs(os.path.dirname(os.path.join(dst, r["path"])), exist_ok=True)
    shutil.copy2(os.path.join(src, r["path"]), os.path.join(dst, r["path"]))
with open(os.path.join(dst, "truth.csv"), "w", newline="") as fh:
    w = csv.writer(fh); w.writerow(["path", "group", "transform"])
    w.writerows([r["path"], r["group"], r["transform"]] for r in rows)
PY

cull_groups() {  # root name [cull options] -> path,group CSV relative to root
  local root=$1 name=$2; shift 2
  .build/release/cull run "$root/photos" --db "$work/$name.sqlite" --format csv "$@" 2>"$work/$name.err" \
    | python3 -c 'import csv,os,sys
root=sys.argv[1]; w=csv.writer(sys.stdout); w.writerow(["path","group"])
for r in csv.DictReader(sys.stdin): w.writerow([os.path.relpath(r["path"], root), r["group"]])' "$root" > "$work/$name.csv"
  tail -1 "$work/$name.err" >&2 || true
}

for part in jpeg all holdout; do
  case $part in jpeg) root=$work/jpeg ;; all) root=$corpus ;; holdout) root=$holdout ;; esac
  echo "== $part formats: $root"
  cull_groups "$root" "cull-$part"
  echo "-- cull"; python3 "$shared/score.py" "$root" "$work/cull-$part.csv"
  python3 "$shared/peer_imagehash.py" "$root" "$work/peer-$part.csv" 2>&1 | tail -1
  echo "-- imagehash phash (peer, default)"; python3 "$shared/score.py" "$root" "$work/peer-$part.csv"
  python3 "$shared/peer_imagehash.py" "$root" "$work/peer-exif-$part.csv" --exif 2>&1 | tail -1
  echo "-- imagehash phash --exif (peer, EXIF-aware)"; python3 "$shared/score.py" "$root" "$work/peer-exif-$part.csv"
done

# --previews: the development corpus with camera-style previews embedded (bench/with-previews.py),
# cull with previews never and auto on the same files.
python3 bench/with-previews.py "$corpus" "$work/previews" >&2
for mode in never auto; do
  echo "== development corpus with embedded previews, cull --previews $mode"
  cull_groups "$work/previews" "cull-previews-$mode" --previews "$mode"
  python3 "$shared/score.py" "$work/previews" "$work/cull-previews-$mode.csv"
done
