#!/usr/bin/env bash
# Throughput on camera-like 12 MP JPEGs: cull's analysis in process and `cull run` end to end,
# beside the decode limit (djpeg -scale 1/8 on the same files and cores) and the imagehash peer,
# all measured in one run, interleaved, so a noisy machine slows every tool alike.
#
# Usage: bench/throughput.sh [N=200] [CACHE_DIR=/tmp/cull-throughput]
# Environment: REPS (rounds, default 7), PEER_REPS (rounds that also run the slow peer, default
# 3), PEER_N (peer on the first PEER_N photos only, scaled to photos/s; default N).
# The photos are generated once into CACHE_DIR and reused (about 4 MB each).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200}
cache=${2:-/tmp/cull-throughput}
reps=${REPS:-7}
peer_reps=${PEER_REPS:-3}
peer_n=${PEER_N:-$n}
shared=${SHARED:-../shared/corpus}
cores=$(nproc)
bin=.build/release

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v djpeg >/dev/null; then
  as_root apt-get update -q && as_root apt-get install -y -q libjpeg-turbo-progs
fi
python3 -c 'import imagehash' 2>/dev/null || python3 -m pip install -q imagehash

source bench/release-build.sh
release_build

# The photos (cached), then the set every tool sees: hard links to the first N, so `cull run`
# and the peer, which walk a whole folder, see exactly these.
source bench/camera-set.sh
camera_set "$n" "$cache" "set-$n"
set_dir=$camera_set_dir photos=$camera_photos
mapfile -t files < <(find "$photos" -maxdepth 1 -name 'photo-*.jpg' | sort | head -n "$n")
peer_dir="$set_dir"
if [ "$peer_n" -lt "$n" ]; then
  peer_dir="$cache/set-$n-peer-$peer_n" && rm -rf "$peer_dir" && mkdir -p "$peer_dir"
  ln -f "${files[@]:0:$peer_n}" "$peer_dir/"
fi
# A tiny JPEG: running djpeg on it N times measures what starting a process costs.
"$bin/cull-bench" generate --out "$cache/tiny" --count 1 --width 64 --height 48 >/dev/null
tiny="$cache/tiny/photo-00000.jpg"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
list="$work/files"
printf '%s\0' "$set_dir"/*.jpg > "$list"
results="$work/results.tsv"

# Warm the page cache: every tool reads from memory, none pays for the disk.
cat "$set_dir"/*.jpg > /dev/null

# `cull run --previews never|auto` is measured both ways once `cull run` has the option.
run_has_previews=false
if "$bin/cull" run --help 2>&1 | grep -q -- '--previews'; then run_has_previews=true; fi

# Every measurement keeps its wall time and the CPU time of all it started (the shell's reaped
# children, djpeg under xargs and cull's worker processes included): on a machine shared with
# other work, CPU per photo moves far less than photos per second.
clock_ticks=$(getconf CLK_TCK)
start_clock() { local stat; read -ra stat < "/proc/$$/stat"; cpu0=$(( stat[15] + stat[16] )); wall0=$EPOCHREALTIME; }
cpu_ticks_since_start() { local stat; read -ra stat < "/proc/$$/stat"; echo $(( stat[15] + stat[16] - cpu0 )); }
wall_since_start() { awk -v a="$wall0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }'; }
# record KEY PHOTOS SECONDS CPU_TICKS, for the current $round
record() { printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$round" "$2" "$3" "$4" >> "$results"; }

# Each tool runs once over the set. Wall time includes starting its processes.
decode_limit() {
  start_clock
  xargs -0 -n 1 -P "$cores" djpeg -scale 1/8 -outfile /dev/null < "$list"
  record djpeg "$n" "$(wall_since_start)" "$(cpu_ticks_since_start)"
}
decode_gray() {
  start_clock
  xargs -0 -n 1 -P "$cores" djpeg -grayscale -scale 1/8 -outfile /dev/null < "$list"
  record djpeg-gray "$n" "$(wall_since_start)" "$(cpu_ticks_since_start)"
}
process_startup() {  # as many djpeg processes on a 64x48 file: what starting them costs
  start_clock
  for ((i = 0; i < n; i++)); do printf '%s\0' "$tiny"; done | xargs -0 -n 1 -P "$cores" djpeg -scale 1/8 -outfile /dev/null
  record djpeg-startup "$n" "$(wall_since_start)" "$(cpu_ticks_since_start)"
}
in_process() {  # PREVIEWS: the time cull-bench measures around the analysis itself
  local rate
  start_clock
  rate=$("$bin/cull-bench" analyze "$set_dir" --jobs "$cores" --repeat 1 --previews "$1" | awk '/^median/ { print $2 }')
  record "analyze-$1" "$n" "$(awk -v n="$n" -v r="$rate" 'BEGIN { printf "%.4f", n / r }')" "$(cpu_ticks_since_start)"
}
end_to_end() {  # PREVIEWS: a fresh database, so every photo is analysed
  local db="$work/run-$round-$1.sqlite" flags=() wall
  if $run_has_previews; then flags=(--previews "$1"); fi
  start_clock
  "$bin/cull" run "$set_dir" --db "$db" --format csv "${flags[@]}" > /dev/null 2> "$work/run.err"
  wall=$(wall_since_start)
  grep -q "scanned $n files.*: $n new or changed, 0 unchanged, 0 could not be analysed" "$work/run.err" || { echo "cull run did not analyse all $n:" >&2; cat "$work/run.err" >&2; exit 1; }
  record "run-$1" "$n" "$wall" "$(cpu_ticks_since_start)"
  rm -f "$db" "$db-wal" "$db-shm"
}
peer() {  # its own figure times the hashing alone (a pool.map); the whole command is kept too
  local line
  start_clock
  line=$(python3 "$shared/peer_imagehash.py" "$peer_dir" "$work/peer.csv" 2>&1 | tail -1)
  record peer-wall "$peer_n" "$(wall_since_start)" "$(cpu_ticks_since_start)"
  record peer "$peer_n" "$(sed -E 's/.* in ([0-9.]+)s .*/\1/' <<<"$line")" -
}

# cull-bench always has --previews (a no-op while the analysis has no preview path); `cull run`
# gets the auto variant only when it has the option.
tools=(decode_limit decode_gray process_startup "in_process never" "in_process auto" "end_to_end never")
if $run_has_previews; then tools+=("end_to_end auto"); fi
loads=()
for round in $(seq 1 "$reps"); do
  read -r load _ < /proc/loadavg && loads+=("$load")
  echo "round $round/$reps (load average $load)" >&2
  # Each round starts with a different tool, so no tool always runs first or last.
  for i in "${!tools[@]}"; do
    tool=${tools[$(( (i + round - 1) % ${#tools[@]} ))]}
    $tool  # unquoted on purpose: "in_process never" is a function and its argument
  done
  if [ "$round" -le "$peer_reps" ]; then peer; fi
done

echo
echo "$(date -u +%F), $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem/ { print $2 }') GiB;" \
  "$(djpeg -version 2>&1 | head -1); $(python3 -c 'import PIL, imagehash; print("Pillow", PIL.__version__, "imagehash", imagehash.__version__)')"
echo "$n photos, 4000x3000 q92 4:2:0 baseline with EXIF + thumbnail, $(du -sm --apparent-size "$set_dir" | cut -f1) MB;" \
  "$reps rounds (the peer in $peer_reps of them, over $peer_n photos); 1-minute load average at each round's start: ${loads[*]}"
python3 - "$results" "$clock_ticks" <<'PY'
import csv, statistics, sys
ticks_per_second = int(sys.argv[2])
data = {}  # key -> round -> (photos, seconds, cpu seconds or None)
for key, rnd, photos, seconds, ticks in csv.reader(open(sys.argv[1]), delimiter="\t"):
    cpu = None if ticks == "-" else int(ticks) / ticks_per_second
    data.setdefault(key, {})[int(rnd)] = (int(photos), float(seconds), cpu)

# The decode limit without process start-up: per round, djpeg's time less the time as many
# djpeg processes take on a 64x48 file.
data["djpeg-net"] = {
    r: (p, s - data["djpeg-startup"][r][1], c - data["djpeg-startup"][r][2])
    for r, (p, s, c) in data["djpeg"].items() if r in data.get("djpeg-startup", {})
}

def rates(key):
    return {r: p / s for r, (p, s, _) in data.get(key, {}).items()}

def cpu_ms(key):
    values = [c / p * 1000 for p, _, c in data.get(key, {}).values() if c is not None]
    return statistics.median(values) if values else None

def paired(key, reference):
    """Median over the rounds that ran both of this tool's rate over the reference's: the two
    ran minutes apart at most, under much the same load."""
    mine, theirs = rates(key), rates(reference)
    ratios = [mine[r] / theirs[r] for r in mine if r in theirs]
    return statistics.median(ratios) if ratios else None

limit_cpu = cpu_ms("djpeg")
rows = [
    ("decode limit: `djpeg -scale 1/8`, a process per photo, `xargs -P`", "djpeg"),
    ("decode limit less djpeg's process start-up", "djpeg-net"),
    ("`djpeg -grayscale -scale 1/8` (luma only, as the worker decodes)", "djpeg-gray"),
    ("cull-bench analyze, in process, previews never", "analyze-never"),
    ("cull-bench analyze, in process, previews auto", "analyze-auto"),
    ("`cull run` end to end, previews never", "run-never"),
    ("`cull run` end to end, previews auto", "run-auto"),
    ("imagehash peer, default phash: its hashing time", "peer"),
    ("imagehash peer, default phash: the whole command", "peer-wall"),
]
fmt = lambda v, spec: "–" if v is None else format(v, spec)
print("| tool | photos/s, median | range | CPU ms/photo | × decode limit | × decode limit, by CPU | × peer |")
print("| --- | ---: | --- | ---: | ---: | ---: | ---: |")
for name, key in rows:
    values = list(rates(key).values())
    if not values:
        continue
    cpu = cpu_ms(key)
    print(f"| {name} | {statistics.median(values):.1f} | {min(values):.1f}–{max(values):.1f} | {fmt(cpu, '.1f')} "
          f"| {fmt(paired(key, 'djpeg'), '.2f')} | {fmt(cpu and limit_cpu / cpu, '.2f')} | {fmt(paired(key, 'peer'), '.1f')} |")
print("\n× columns: medians of per-round ratios (each tool against the reference in the same round);")
print("by CPU: the decode limit's CPU time per photo over the tool's (what the ratio would be on idle cores).")
startup = statistics.median(s / p * 1000 for p, s, _ in data["djpeg-startup"].values())
print(f"djpeg process start-up: {startup:.2f} ms of wall time per photo (all cores busy)")

def target(label, key, reference, goal):
    ratio = paired(key, reference)
    if ratio is None:
        return
    verdict = "met" if ratio >= goal else f"MISSED: {ratio / goal:.2f} of the goal"
    print(f"target {label} ≥ {goal}× {reference}: {ratio:.2f}×, {verdict}")
target("cull run (previews never)", "run-never", "djpeg", 0.8)
target("cull run (previews never)", "run-never", "peer", 5)
target("cull run (previews auto)", "run-auto", "peer", 5)
target("in process (previews never)", "analyze-never", "djpeg", 0.9)
PY

# Where cull's time goes: each stage of one pass, on one thread.
echo
"$bin/cull-bench" analyze "$set_dir" --repeat 1 --breakdown | sed -n '/^per photo/,$p'
