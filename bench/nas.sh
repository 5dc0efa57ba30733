#!/usr/bin/env bash
# Issue 12's NAS measurement: camera-like 12 MP JPEGs (with EXIF thumbnails, as cull-bench
# writes them) read through a FUSE passthrough that limits bandwidth to about 1 GbE (110 MB/s,
# all requests together) and adds 1 ms to every read request (bench/throttled-mount.py). Per
# round, each on a fresh mount (nothing cached): the ceiling, every file read whole through the
# mount by as many readers as cores; then `cull run` on the mount (defaults: previews auto, a
# worker per core), into a new database. Prints the bytes read per photo beside the file size,
# and photos/s beside the ceiling's; medians over the rounds.
#
# Usage: bench/nas.sh [N=200] [CACHE_DIR=/tmp/cull-throughput]   (RATE, LATENCY, ROUNDS=3,
#        FORMAT=jpeg; FORMAT=dng: 12 MP raw files, a 1600-pixel preview before 24 MB of sensor data;
#        FORMAT=heic: those JPEGs as a phone's HEIC, a 320-pixel thumbnail item after the image)
# Needs root or sudo once (Debian's fuse and libfuse2, and fusepy from PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cache=${2:-/tmp/cull-throughput}
rate=${RATE:-110e6}
latency=${LATENCY:-0.001}
rounds=${ROUNDS:-3}
cores=$(nproc)
bin=.build/release

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v fusermount >/dev/null || ! ldconfig -p | grep -q 'libfuse.so.2'; then
  as_root apt-get update -q && as_root apt-get install -y -q fuse libfuse2
fi
python3 -c 'import fuse' 2>/dev/null || python3 -m pip install -q fusepy

source bench/release-build.sh
release_build

source bench/camera-set.sh
format=${FORMAT:-jpeg}
extension=jpg
[ "$format" = dng ] && extension=dng
[ "$format" = heic ] && extension=heic
camera_set "$n" "$cache" "nas-set-$format-$n" "$format"
set_dir=$camera_set_dir
total_bytes=$(du -b --apparent-size -c "$set_dir"/*."$extension" | tail -1 | cut -f1)

work=$(mktemp -d)
mnt="$work/mnt" && mkdir -p "$mnt"
fs_pid=
unmount() {
  if mountpoint -q "$mnt"; then fusermount -u "$mnt"; fi
  if [ -n "$fs_pid" ]; then wait "$fs_pid" 2>/dev/null || true; fs_pid=; fi
}
trap 'unmount; rm -rf "$work"' EXIT
mount_nas() {
  python3 bench/throttled-mount.py "$set_dir" "$mnt" --rate "$rate" --latency "$latency" 2>"$work/fs.log" &
  fs_pid=$!
  for _ in $(seq 100); do mountpoint -q "$mnt" && return 0; sleep 0.1; done
  echo "the mount did not come up:" >&2; cat "$work/fs.log" >&2; exit 1
}
served() { cat "$mnt/.nas-stats" | cut -d' ' -f1; }
now() { date +%s.%N; }

ceilings=() culls=() per_photo=()
for round in $(seq "$rounds"); do
  mount_nas
  t0=$(now)
  find "$mnt" -maxdepth 1 -name "*.$extension" -print0 | xargs -0 -P "$cores" -n 4 cat > /dev/null
  t1=$(now)
  whole=$(served)
  unmount
  ceiling=$(echo "$n / ($t1 - $t0)" | bc -l)

  mount_nas
  rm -f "$work"/run.sqlite*
  t0=$(now)
  "$bin/cull" run "$mnt" --db "$work/run.sqlite" --format csv > "$work/groups.csv" 2> "$work/run.log" || { cat "$work/run.log" >&2; exit 1; }
  t1=$(now)
  read_bytes=$(served)
  unmount
  rate_cull=$(echo "$n / ($t1 - $t0)" | bc -l)
  bytes_photo=$(echo "$read_bytes / $n" | bc -l)
  ceilings+=("$ceiling") culls+=("$rate_cull") per_photo+=("$bytes_photo")
  printf 'round %d: ceiling %.1f photos/s (%.0f MB read whole); cull run %.1f photos/s, %.0f bytes read per photo (%.1f%% of the mean file)\n' \
    "$round" "$ceiling" "$(echo "$whole / 1000000" | bc -l)" "$rate_cull" "$bytes_photo" "$(echo "100 * $read_bytes / $total_bytes" | bc -l)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mc=$(median "${ceilings[@]}") mr=$(median "${culls[@]}") mb=$(median "${per_photo[@]}")
printf 'median over %d rounds, %d photos of %.2f MB on average, %s B/s and %s s a request: ceiling (whole files) %.1f photos/s; cull run %.1f photos/s (%.2fx the ceiling), %.0f bytes read per photo (%.1f%% of the file; targets: >= 10x the ceiling, <= 5%%)\n' \
  "$rounds" "$n" "$(echo "$total_bytes / $n / 1000000" | bc -l)" "$rate" "$latency" "$mc" "$mr" "$(echo "$mr / $mc" | bc -l)" "$mb" \
  "$(echo "100 * $mb * $n / $total_bytes" | bc -l)"
