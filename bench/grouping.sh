#!/usr/bin/env bash
# Grouping at library scale, in a release build.
#
# Usage: bench/grouping.sh [candidates SIZES | grouper SIZES]
#   candidates 100000,300000,1000000 (default): candidate search on realistic feature rows
#     (Tests/CoordinatorTests/Benchmarks: rows drawn from the features of really analysed
#     photos, planted copies made by the corpora's real edits), every method in the same run:
#     the brute-force popcount floor (up to CULL_BENCH_FLOOR_MAX rows, default 300000),
#     multi-index hashing of the whole frames at 4 and 5 pieces, and CandidateSearch (frames,
#     crops, overlays) with the default plan on every row and other plans on a sample of rows,
#     with the peak RSS, and how many planted copies each plan can reach; then FAISS's binary
#     indexes (flat, multi-index hashing, an inverted file) on the same rows' frames
#     (bench/faiss-peer.py, through Debian's python3-faiss, installed if missing). CULL_BENCH_PLANS=
#     all | additions | batches | overlay-batches times other plans or variants in the same run
#     (CandidateSearchBenchmark.swift says which).
#   grouper 100000,300000,1000000 (default sizes): the whole Grouper (search, judging every
#     candidate on the thumbnails, clustering) on the same realistic rows, the features read
#     through a GroupingFeatureSource as from the store, with the peak RSS and how many planted
#     copies end in their photo's group. The rows carry their real sources' chroma layouts, so the
#     judge's colour checks cost what they cost on colour photos; CULL_BENCH_CHROMA=0 leaves
#     them out (the benchmark before the twenty-second session). The rows' layouts are disguised
#     by family, so that copies relate to their photo as the real edits made them (Disguise in
#     Tests/CoordinatorTests/Benchmarks/RealisticLibrary.swift); CULL_BENCH_DISGUISE=tone puts
#     every row through a tone map of its own (the benchmark before the twenty-fifth session);
#     CULL_BENCH_HUES=0 leaves each family's chroma layouts in their source's hues.
#     Also printed: planted families found, how many the search's probes can pair at all and how
#     many an exact search within the same radii could (where the others were lost), and
#     duplicate groups joining rows of different photos. CULL_BENCH_PIECE_RADIUS=2 probes at
#     piece radius 2 (exact to 8 bits at 3 pieces): what the default's speed costs in families.
#     Why families are missed and rows joined to other photos' groups: BenchmarkMisses
#     (CULL_BENCH_MISSES=ROWS, Tests/CoordinatorTests/Benchmarks/BenchmarkMisses.swift).
# The feature model is made once (bench/feature-model.py) from `cull run` on the development,
# holdout and hard corpora (built if missing; they need Debian's and PyPI's registries once).
# A model made by another analysis pipeline than the build's is refused: delete it to remake it.
# The first run builds the tests in release mode (about 5 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-candidates}
sizes=${2:-}
shared=${SHARED:-../shared/corpus}
model=${CULL_FEATURE_MODEL:-/tmp/cull-feature-model.json}
source bench/release-build.sh
release_build
case $mode in
  candidates|grouper)
    if [ ! -f "$model" ]; then
      source bench/analysed-corpora.sh
      work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
      analysed_corpora "$work"
      python3 bench/feature-model.py "$model" "${specs[@]}"
    fi
    ;;&
  # Each size in a process of its own: the peak RSS printed is the process's (VmHWM), and a
  # larger size measured after a smaller one in the same process would report the larger of
  # the two runs' peaks.
  candidates)
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    /usr/bin/python3 -c 'import faiss' 2>/dev/null || { as_root apt-get update -q && as_root apt-get install -y -q python3-faiss; }
    frames=$(mktemp); trap 'rm -f "$frames"; rm -rf "${work:-}"' EXIT  # the model's work directory too, if made above
    for size in $(echo "${sizes:-100000,300000,1000000}" | tr ',' ' '); do
      CULL_FEATURE_MODEL=$model CULL_BENCH_CANDIDATES=$size CULL_BENCH_FRAMES_OUT=$frames \
        swift test -c release -Xswiftc -enable-testing --skip-build --filter CandidateSearchBenchmark 2>&1 | grep -E '^candidates|✘'
      /usr/bin/python3 bench/faiss-peer.py "$frames" --floor-max "${CULL_BENCH_FLOOR_MAX:-300000}"
    done
    ;;
  grouper)
    for size in $(echo "${sizes:-100000,300000,1000000}" | tr ',' ' '); do
      CULL_FEATURE_MODEL=$model CULL_BENCH_GROUPING=$size swift test -c release -Xswiftc -enable-testing --skip-build \
        --filter GroupingScaleBenchmark 2>&1 | grep -E '^grouping|✘'
    done
    ;;
  *) echo "usage: bench/grouping.sh [candidates|grouper] [SIZES]" >&2; exit 64 ;;
esac
