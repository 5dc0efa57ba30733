#!/usr/bin/env bash
# Grouping at library scale: how long `Grouper` takes for N synthetic photos (random hashes and
# thumbnails, every tenth photo with two near copies), in a release build.
# Usage: bench/grouping.sh [N,N,...]   (default 20000,100000; each size is one run)
# The first run builds the tests in release mode (about 5 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${1:-20000,100000}
swift build -c release --build-tests -Xswiftc -enable-testing >/dev/null
CULL_BENCH_GROUPING=$sizes swift test -c release -Xswiftc -enable-testing --skip-build \
  --filter GroupingScaleBenchmark 2>&1 | grep -E '^grouping|✘'
