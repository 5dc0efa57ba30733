#!/usr/bin/env bash
# Installs what cull needs (scripts/setup.sh), builds it, writes a sample library with known
# duplicates and runs `cull run` on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release
library=${1:-demo-library}
rm -rf "$library"
.build/release/cull sample-library "$library" --scenes 12
.build/release/cull run "$library" --db "$library/.cull.sqlite"
