#!/usr/bin/env bash
# Installs what cull needs to build, test and run on Debian (bookworm or later).
# Idempotent: run it as often as you like. Needs root or sudo.
set -euo pipefail

packages=(
  pkg-config
  libzmq3-dev           # ZeroMQ: coordinator <-> worker transport (CZeroMQ)
  libturbojpeg0-dev     # libjpeg-turbo's TurboJPEG API: DCT-scaled JPEG decode (CTurboJPEG)
  libpng-dev            # PNG decode (CPNG)
  libwebp-dev           # WebP decode with scaling (CWebP)
  libheif-dev           # HEIC/HEIF decode (CHeif; HEVC through libde265)
  libtiff-dev           # TIFF decode (CTIFF)
  libraw-dev            # camera RAW decode: DNG, NEF, CR2, CR3, ARW, RAF, ORF, RW2 (CLibRaw)
  libexif-dev           # EXIF of JPEG and HEIF photos: capture time, camera, orientation, thumbnail (CExif)
  libheif-examples      # heif-enc: tests write HEICs with thumbnail items (--previews)
  libjpeg-turbo-progs   # jpegtran: tests crop JPEGs losslessly keeping their EXIF (stale previews)
  libsqlite3-dev        # SQLite for GRDB
  libsystemd-dev        # sd_notify: READY, STATUS, WATCHDOG, STOPPING under systemd (CSystemd)
  python3               # sample-library scripts and corpus scoring
  chromium              # tests: the HTML review is rendered headless and its screenshot checked
  fonts-dejavu-core     # a font for that rendering
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

command -v swift >/dev/null || { echo "setup: no Swift toolchain on PATH; install Swift 6 (swift.org) first" >&2; exit 1; }
echo "setup: ok"
