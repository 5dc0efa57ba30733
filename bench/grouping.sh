#!/usr/bin/env bash
# Grouping at library scale, in a release build.
#
# Usage: bench/grouping.sh [candidates SIZES | grouper SIZES | acceptance SIZES]
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
#     CULL_BENCH_TURNS=0 does not look for copies turned 90° (what the turned lookups cost);
#     CULL_BENCH_SQUARES=0 does not look for copies cropped to a square (what those lookups cost).
#     Why families are missed and rows joined to other photos' groups: BenchmarkMisses
#     (CULL_BENCH_MISSES=ROWS, Tests/CoordinatorTests/Benchmarks/BenchmarkMisses.swift).
#     CULL_BENCH_ROUNDS=N groups each size N times in turn and reports the median round.
#   acceptance 100000,300000,1000000 (default sizes): issue 9's figures in one run: candidates
#     (the popcount floor, multi-index hashing, FAISS), then grouper with CULL_BENCH_ROUNDS
#     (default 3) rounds a size, then a summary: each size's median time and peak RSS, and the
#     growth from the smallest size to the largest beside the growth in rows, and whether a
#     million rows hold each of the issue's lines (60 s, 1 GiB, every planted family found).
#   store 1000000 (default size): what a finished scan of that many realistic photos does
#     between its last outcome and its stored groups, through a real SQLite store (the regroup
#     check's digest, reading the rows, grouping with the store as the feature source, writing
#     the groups: StoreGroupingBenchmark), then the in-memory grouper on the same rows for
#     comparison. The database (CULL_BENCH_STORE, default /tmp/cull-store-SIZE.sqlite, about
#     4.4 GB at a million) is made on the first run, through the walk, dispatch and result
#     fence, and kept for the next.
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
  candidates|grouper|acceptance|store) ;;
  *) echo "usage: bench/grouping.sh [candidates|grouper|acceptance|store] [SIZES]" >&2; exit 64 ;;
esac
[ "$mode" = store ] && sizes=${sizes:-1000000}
sizes=$(echo "${sizes:-100000,300000,1000000}" | tr ',' ' ')
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
if [ ! -f "$model" ]; then
  source bench/analysed-corpora.sh
  mkdir "$scratch/corpora"
  analysed_corpora "$scratch/corpora"
  python3 bench/feature-model.py "$model" "${specs[@]}"
fi
if [ "$mode" = store ]; then
  for size in $sizes; do
    CULL_FEATURE_MODEL=$model CULL_BENCH_STORE=${CULL_BENCH_STORE:-/tmp/cull-store-$size.sqlite} CULL_BENCH_STORE_ROWS=$size \
      swift test -c release -Xswiftc -enable-testing --skip-build --filter StoreGroupingBenchmark 2>&1 | grep -E '^store grouping|✘'
    CULL_FEATURE_MODEL=$model CULL_BENCH_GROUPING=$size swift test -c release -Xswiftc -enable-testing --skip-build \
      --filter GroupingScaleBenchmark 2>&1 | grep -E '^grouping [0-9]+ photos(:|, seconds)|✘'
  done
  exit 0
fi
# Each size in a process of its own: the peak RSS printed is the process's (VmHWM), and a
# larger size measured after a smaller one in the same process would report the larger of
# the two runs' peaks.
if [ "$mode" != grouper ]; then
  as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
  /usr/bin/python3 -c 'import faiss' 2>/dev/null || { as_root apt-get update -q && as_root apt-get install -y -q python3-faiss; }
  for size in $sizes; do
    CULL_FEATURE_MODEL=$model CULL_BENCH_CANDIDATES=$size CULL_BENCH_FRAMES_OUT=$scratch/frames.u64 \
      swift test -c release -Xswiftc -enable-testing --skip-build --filter CandidateSearchBenchmark 2>&1 | grep -E '^candidates|✘'
    /usr/bin/python3 bench/faiss-peer.py "$scratch/frames.u64" --floor-max "${CULL_BENCH_FLOOR_MAX:-300000}"
  done
fi
if [ "$mode" != candidates ]; then
  [ "$mode" = acceptance ] && export CULL_BENCH_ROUNDS=${CULL_BENCH_ROUNDS:-3}
  for size in $sizes; do
    CULL_FEATURE_MODEL=$model CULL_BENCH_GROUPING=$size swift test -c release -Xswiftc -enable-testing --skip-build \
      --filter GroupingScaleBenchmark 2>&1 | grep -E '^grouping|✘' | tee -a "$scratch/grouped.txt"
  done
fi
if [ "$mode" = acceptance ]; then
  # The first line of each size holds its (median) time and peak RSS; another its families.
  # A million rows are held to the issue's lines (60 s, 1 GiB, every planted family found);
  # the smaller sizes to none.
  python3 - "$scratch/grouped.txt" <<'PY'
import re, sys
runs, families = {}, {}
for line in open(sys.argv[1]):
    m = re.match(r"grouping (\d+) photos: ([\d.]+) s, .*?(\d+) MiB after", line)
    if m:
        runs[int(m.group(1))] = (float(m.group(2)), int(m.group(3)))
    m = re.match(r"grouping (\d+) photos: planted families found .*?: (\d+)/(\d+)", line)
    if m:
        families[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
def mark(holds):
    return "holds" if holds else "NOT MET"
for rows, (seconds, rss) in sorted(runs.items()):
    found, planted = families.get(rows, (0, 0))
    print(f"acceptance: {rows} photos grouped in {seconds:.2f} s (median round), peak RSS {rss} MiB, "
          f"planted families found {found}/{planted}")
    if rows == 1_000_000:
        print(f"acceptance: a million photos in 60 s: {mark(seconds <= 60)}; peak RSS under 1 GiB: {mark(rss <= 1024)}; "
              f"every planted family found: {mark(found == planted)} ({planted - found} not found)")
if len(runs) > 1:
    (small, (t0, _)), (large, (t1, _)) = min(runs.items()), max(runs.items())
    print(f"acceptance: growth from {small} to {large} photos: time x{t1 / t0:.2f} for rows x{large / small:.1f} "
          f"(x{(t1 / t0) / (large / small):.2f} of linear)")
PY
fi
