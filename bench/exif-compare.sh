#!/usr/bin/env bash
# Issue 12, point 6: what cull's EXIF reading costs per photo on the camera-like 12 MP JPEGs of
# bench/throughput.sh (EXIF with Make, Model, capture time, orientation, pixel size and a
# 160x120 thumbnail), beside libexif called from C on the same files in the same run, ROUNDS
# times each: cull-bench's stage breakdown (JPEGMetadataReader.read per photo, one thread: the
# marker walk, then libexif through ExifReader, the thumbnail copied out) and
# bench/exif-libexif.c (exif_data_new_from_data on the first 128 KiB, then the same tags and the
# thumbnail). Until the eleventh session cull read EXIF with a hand-written parser; its figures
# are in bench/RESULTS.md. bench/RESULTS.md weighs both against cull run's CPU per photo.
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
source bench/release-build.sh
release_build
source bench/camera-set.sh
camera_set "$n" "$cache" "exif-set-$n"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc -O2 bench/exif-libexif.c -lexif -o "$work/exif-libexif"
for round in $(seq "$rounds"); do
  ours=$("$bin/cull-bench" analyze "$camera_set_dir" --repeat 1 --breakdown | awk '$1 == "EXIF" { print $2 * 1000 }')
  theirs=$("$work/exif-libexif" 7 "$camera_set_dir"/*.jpg | awk '{ print $2 }')
  printf 'round %d: cull (JPEGMetadataReader, libexif) %.1f us per photo, libexif from C %.1f us per photo (%.2fx)\n' "$round" "$ours" "$theirs" "$(echo "$theirs / $ours" | bc -l)"
done
