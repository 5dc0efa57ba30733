# Sourced by bench/throughput.sh and bench/nas.sh: camera-like 12 MP JPEGs with EXIF thumbnails (or DNGs)
# (cull-bench generate, cached in CACHE/photos-4000x3000-q92 and reused), and a folder holding
# hard links to the first N of them, so that a tool walking the whole folder sees exactly those.
#
#   camera_set N CACHE NAME [FORMAT]   sets camera_photos (the cache of photos) and
#                             camera_set_dir (CACHE/NAME, made afresh); needs $bin/cull-bench
#                             built. FORMAT: jpeg (default) or dng (raw files, 16-bit sensor
#                             data after a 1600-pixel JPEG preview, cached in photos-4000x3000-dng).
camera_set() {
  local n=$1 cache=$2 name=$3 format=${4:-jpeg}
  local extension=jpg suffix=q92
  if [ "$format" = dng ]; then extension=dng suffix=dng; fi
  camera_photos="$cache/photos-4000x3000-$suffix"
  "$bin/cull-bench" generate --out "$camera_photos" --count "$n" --format "$format" >&2
  camera_set_dir="$cache/$name"
  rm -rf "$camera_set_dir" && mkdir -p "$camera_set_dir"
  local files
  mapfile -t files < <(find "$camera_photos" -maxdepth 1 -name "photo-*.$extension" | sort | head -n "$n")
  ln -f "${files[@]}" "$camera_set_dir/"
}
