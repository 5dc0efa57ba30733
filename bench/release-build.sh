# Sourced by the benchmarks: one release build for all of them. With --build-tests and
# -enable-testing it serves the cull binaries and the benchmark tests alike; a script that
# built with other flags would make the next one rebuild everything (minutes on two cores).
#   release_build        build, quietly; on failure print the log's tail and exit
release_build() {
  local log
  log=$(mktemp)
  echo "building (release)..." >&2
  swift build -c release --build-tests -Xswiftc -enable-testing >"$log" 2>&1 || { tail -30 "$log" >&2; rm -f "$log"; exit 1; }
  rm -f "$log"
}
