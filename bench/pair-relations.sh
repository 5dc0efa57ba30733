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
source bench/release-build.sh
release_build
source bench/analysed-corpora.sh
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
analysed_corpora "$work"
CULL_BENCH_RELATIONS=$(IFS=,; echo "${specs[*]}") swift test -c release -Xswiftc -enable-testing --skip-build \
  --filter PairRelationMeasurement 2>&1 | grep -E '^relations|✘'
