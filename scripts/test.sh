#!/usr/bin/env bash
# Installs what cull needs (scripts/setup.sh), builds everything and runs the whole test suite:
# unit tests and the process-level integration tests (real coordinator and worker processes
# on loopback, real SQLite files, generated JPEGs). As root it first rehearses a multi-host
# deployment (deploy/multihost-test.sh: three network namespaces, CURVE, a worker's link cut
# mid-scan and restored, the groups compared with a one-host run), on its own: run inside the
# parallel test suite, its daemons starved the suite's timing-sensitive tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build
if [ "$(id -u)" -eq 0 ]; then
  bash deploy/multihost-test.sh .build/debug
else
  echo "test: skipping deploy/multihost-test.sh (network namespaces need root)"
fi
swift test
