#!/usr/bin/env bash
# Fuzzes cull's parsers of untrusted photo bytes with libFuzzer (issue 12, point 6).
#   scripts/fuzz.sh metadata [RUNS]   the EXIF metadata path, libexif included (default 1,000,000 inputs)
#   scripts/fuzz.sh analyzer [RUNS]   the whole analysis: detection, every decoder, features
#                                     (default 20,000 inputs; each decodes an image, about 40 a second under ASan)
# Builds the target with swiftc -sanitize=fuzzer,address from the sources it covers, seeds it
# with a generated sample library (real JPEG, PNG, WebP, HEIC and TIFF files with EXIF and
# thumbnails), and runs it: exit 0 and "no crash, no hang" after RUNS inputs, or libFuzzer's
# report and the crashing input in fuzz/out/. Needs the project built once (swift build).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-metadata}
runs=${2:-}
out=fuzz/out/$target
mkdir -p "$out/corpus" "$out/artifacts"
case "$target" in
  metadata)
    runs=${runs:-1000000}
    sources=(fuzz/MetadataFuzzTarget.swift Sources/Analysis/Metadata/*.swift)
    flags=(-I Sources/CExif -lexif) ;;
  analyzer)
    runs=${runs:-20000}
    # Everything the analysis runs; the file reader (which needs swift-crypto) and the sample
    # writers are left out.
    mapfile -t sources < <(ls fuzz/AnalyzerFuzzTarget.swift Sources/Analysis/*.swift Sources/Analysis/*/*.swift \
      | grep -v -e PhotoFetcher.swift -e /Samples/)
    flags=()
    for module in CTurboJPEG CPNG CWebP CHeif CTIFF CLibRaw CExif; do flags+=(-I "Sources/$module"); done
    for pc in libturbojpeg libpng libwebp libheif libtiff-4; do
      for flag in $(pkg-config --cflags-only-I "$pc"); do flags+=(-Xcc "$flag"); done
    done
    flags+=(-lturbojpeg -lpng16 -lwebp -lheif -ltiff -lraw -lexif) ;;
  *) echo "fuzz: unknown target $target (metadata or analyzer)" >&2; exit 64 ;;
esac
binary=$out/fuzz-$target
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name Analysis "${flags[@]}" "${sources[@]}" -o "$binary" \
  2>"$out/build.log" || { cat "$out/build.log" >&2; exit 1; }

# Seeds: a small generated library (every format cull reads, camera EXIF with thumbnails).
if [ -z "$(ls -A "$out/corpus")" ]; then
  seeds=$(mktemp -d)
  .build/debug/cull sample-library "$seeds/lib" --scenes 2 >/dev/null
  # Raw files too (a DNG with its preview before the sensor data), which the library lacks.
  .build/debug/cull-bench generate --out "$seeds/lib/dng" --count 2 --width 320 --height 240 --format dng >/dev/null
  find "$seeds/lib" -type f -size -2M -exec cp {} "$out/corpus/" \;
  rm -rf "$seeds"
fi
start=$(date +%s)
"$binary" "$out/corpus" -runs="$runs" -max_len=262144 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1 2>"$out/log" || {
  tail -40 "$out/log" >&2
  echo "fuzz: $target failed; the input is in $out/artifacts/" >&2
  exit 1
}
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$out/log" || true
echo "fuzz: $target: $runs inputs in $(( $(date +%s) - start )) s, no crash, no hang, no sanitizer report"
