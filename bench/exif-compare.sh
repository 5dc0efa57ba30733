#!/usr/bin/env bash
# Issue 12, point 6: what reading EXIF with libexif would cost beside cull's own reader, on the
# camera-like 12 MP JPEGs of bench/throughput.sh (EXIF with Make, Model, capture time,
# orientation, pixel size and a 160x120 thumbnail), in the same run, ROUNDS times each:
# cull-bench's stage breakdown (JPEGMetadataReader.read per photo, one thread) and
# bench/exif-libexif.c (exif_data_new_from_data on the first 128 KiB, then the same tags and the
# thumbnail). Prints both per photo; bench/RESULTS.md weighs them against cull run's CPU per
# photo (bench/throughput.sh).
#
# Usage: bench/exif-compare.sh [N=200] [CACHE_DIR=/tmp/cull-throughput]   (ROUNDS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cache=${2:-/tmp/cull-throughput}
rounds=${ROUNDS:-3}
bin=.build/release
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
[ -f /usr/include/libexif/exif-data.h ] || { as_root apt-get update -q && as_root apt-get install -y -q libexif-dev; }
swift build -c release --product cull-bench >/tmp/cull-exif-build.log 2>&1 || { tail -30 /tmp/cull-exif-build.log; exit 1; }
source bench/camera-set.sh
camera_set "$n" "$cache" "exif-set-$n"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc -O2 bench/exif-libexif.c -lexif -o "$work/exif-libexif"
for round in $(seq "$rounds"); do
  ours=$("$bin/cull-bench" analyze "$camera_set_dir" --repeat 1 --breakdown | awk '$1 == "EXIF" { print $2 * 1000 }')
  theirs=$("$work/exif-libexif" 7 "$camera_set_dir"/*.jpg | awk '{ print $2 }')
  printf 'round %d: JPEGMetadataReader %.1f us per photo, libexif %.1f us per photo (%.2fx)\n' "$round" "$ours" "$theirs" "$(echo "$theirs / $ours" | bc -l)"
done
