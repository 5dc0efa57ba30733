# Sourced by bench/throughput.sh and bench/nas.sh: camera-like 12 MP JPEGs with EXIF thumbnails (or DNGs)
# (cull-bench generate, cached in CACHE/photos-4000x3000-q92 and reused), and a folder holding
# hard links to the first N of them, so that a tool walking the whole folder sees exactly those.
#
#   camera_set N CACHE NAME [FORMAT]   sets camera_photos (the cache of photos) and
#                             camera_set_dir (CACHE/NAME, made afresh); needs $bin/cull-bench
#                             built. FORMAT: jpeg (default) or dng (raw files, 16-bit sensor
#                             data after a 1600-pixel JPEG preview, cached in photos-4000x3000-dng)
#                             or heic (those JPEGs through heif-enc, a 320-pixel thumbnail item,
#                             cached in photos-4000x3000-heic).
camera_set() {
  local n=$1 cache=$2 name=$3 format=${4:-jpeg}
  local extension=jpg suffix=q92
  if [ "$format" = dng ]; then extension=dng suffix=dng; fi
  if [ "$format" = heic ]; then
    # A phone's HEIC: the camera JPEG re-encoded by libheif's heif-enc (libheif-examples) at
    # quality 50, with a 320-pixel thumbnail item and the JPEG's EXIF block.
    extension=heic suffix=heic
    "$bin/cull-bench" generate --out "$cache/photos-4000x3000-q92" --count "$n" --format jpeg >&2
    camera_photos="$cache/photos-4000x3000-heic"
    mkdir -p "$camera_photos"
    find "$cache/photos-4000x3000-q92" -maxdepth 1 -name 'photo-*.jpg' | sort | head -n "$n" |
      while read -r jpeg; do
        heic="$camera_photos/$(basename "$jpeg" .jpg).heic"
        [ -f "$heic" ] || printf '%s\0%s\0' "$heic" "$jpeg"
      done | xargs -0 -r -n 2 -P "$(nproc)" sh -c 'heif-enc -q 50 -t 320 -o "$0.tmp.heic" "$1" > /dev/null && mv "$0.tmp.heic" "$0"'
  else
    camera_photos="$cache/photos-4000x3000-$suffix"
    "$bin/cull-bench" generate --out "$camera_photos" --count "$n" --format "$format" >&2
  fi
  camera_set_dir="$cache/$name"
  rm -rf "$camera_set_dir" && mkdir -p "$camera_set_dir"
  local files
  mapfile -t files < <(find "$camera_photos" -maxdepth 1 -name "photo-*.$extension" | sort | head -n "$n")
  ln -f "${files[@]}" "$camera_set_dir/"
}
