#!/usr/bin/env bash
# Installs what cull needs (scripts/setup.sh), builds everything and runs the whole test suite:
# unit tests and the process-level integration tests (real coordinator and worker processes
# on loopback, real SQLite files, generated JPEGs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build
swift test
