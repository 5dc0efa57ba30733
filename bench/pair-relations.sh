#!/usr/bin/env bash
# What PairJudge sees of real pairs (Tests/CoordinatorTests/Benchmarks/PairRelationMeasurement):
# for every real edit and every similar-shot or look-alike negative of the development, holdout
# and hard corpora, the pairing that confirms most easily, its difference, how many interior
# cells changed, and the strongest 3x3 patch of change (also after fine alignment).
#
# Usage: bench/pair-relations.sh   (corpora in /tmp/{dev,holdout,hard}-corpus, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared/corpus}
[ -f /tmp/dev-corpus/truth.csv ] || python3 "$shared/build-corpus.py" --out /tmp/dev-corpus
[ -f /tmp/holdout-corpus/truth.csv ] || python3 bench/holdout-corpus.py /tmp/holdout-corpus
[ -f /tmp/hard-corpus/truth.csv ] || python3 "$shared/build-corpus.py" --out /tmp/hard-corpus --hard
swift build -c release --build-tests -Xswiftc -enable-testing >/dev/null
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
specs=()
for c in dev holdout hard; do
  .build/release/cull run "/tmp/$c-corpus/photos" --db "$work/$c.sqlite" --format csv >/dev/null
  specs+=("/tmp/$c-corpus:$work/$c.sqlite")
done
CULL_BENCH_RELATIONS=$(IFS=,; echo "${specs[*]}") swift test -c release -Xswiftc -enable-testing --skip-build \
  --filter PairRelationMeasurement 2>&1 | grep -E '^relations|✘'
