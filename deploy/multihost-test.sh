#!/usr/bin/env bash
# Rehearses a multi-machine deployment on one machine: three network namespaces ("hosts") on a
# private bridge, the coordinator in one and a worker in each of the other two (CURVE keys as
# deploy/README.md sets them up), a generated library on shared disk, scans driven by the CLI.
# The second scan has one worker's network link cut while it holds jobs (the coordinator
# declares it gone and requeues them, the other host finishes) and restored (it rejoins); its
# groups must equal a single-host `cull run` of the same library. Needs root and iproute2.
# Cleans up after itself. Usage: deploy/multihost-test.sh [BIN_DIR]   (default .build/debug)
set -euo pipefail
bin=$(cd "${1:-.build/debug}" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "multihost-test: needs root (network namespaces)" >&2; exit 1; }
command -v ip >/dev/null || { apt-get install -y -q iproute2 >/dev/null; }

# Interface names are at most 15 characters.
tag=cu$(( $$ % 10000 ))
net=10.213.$(( $$ % 200 + 20 ))
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for host in c w1 w2; do ip netns del "$tag-$host" 2>/dev/null || true; done
  ip link del "$tag-br" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

ip link add "$tag-br" type bridge
ip link set "$tag-br" up
n=1
for host in c w1 w2; do
  ns="$tag-$host"
  ip netns add "$ns"
  ip link add "$tag$host-a" type veth peer name "$tag$host-b"
  ip link set "$tag$host-a" master "$tag-br" up
  ip link set "$tag$host-b" netns "$ns"
  ip -n "$ns" addr add "$net.$n/24" dev "$tag$host-b"
  ip -n "$ns" link set "$tag$host-b" up
  ip -n "$ns" link set lo up
  n=$((n + 1))
done
coordinator="$net.1"

"$bin/cull" sample-library "$work/library" --scenes 6 >/dev/null
# Keys, as deploy/README.md sets them up: the coordinator's pair, one per worker host, the
# workers' public keys in the coordinator's authorised folder.
mkdir -p "$work/authorized"
"$bin/cull" keygen "$work/coordinator" >/dev/null
for host in w1 w2; do
  "$bin/cull" keygen "$work/$host" >/dev/null
  cp "$work/$host.public" "$work/authorized/"
done
ip netns exec "$tag-c" env CULL_CONFIG=none "$bin/cull" serve --db "$work/cull.sqlite" --work "tcp://$coordinator:5555" \
  --control tcp://127.0.0.1:5556 --heartbeat 250ms \
  --key "$work/coordinator.secret" --authorized "$work/authorized" 2>"$work/serve.log" &
pids+=($!)
for host in w1 w2; do
  # Reads of 150 ms (a slow NAS): the second scan lasts long enough to cut a link in it.
  ip netns exec "$tag-$host" env CULL_CONFIG=none CULL_WORKER_FAULTS=read-delay-ms=150 "$bin/cull-worker" \
    --connect "tcp://$coordinator:5555" --id "$host" --compute-threads 1 --fetch-threads 2 \
    --heartbeat 250ms --key "$work/$host.secret" --server-key "$work/coordinator.public" 2>"$work/$host.log" &
  pids+=($!)
done

in_coord() { ip netns exec "$tag-c" "$bin/cull" "$@" --control tcp://127.0.0.1:5556; }
for _ in $(seq 1 50); do
  [ "$(in_coord workers 2>/dev/null | grep -cE '^  w[12]')" = 2 ] && break
  sleep 0.2
done
in_coord workers
in_coord scan "$work/library" --wait
in_coord groups --format csv > "$work/groups.csv"
groups=$(tail -n +2 "$work/groups.csv" | cut -d, -f1 | sort -u | wc -l)
status=$(in_coord status --format json)
echo "$status" | python3 -c '
import json, sys
s = json.load(sys.stdin)
done = {w["workerId"]: int(w.get("photosDone", 0)) for w in s["workers"]}
print("photos per worker:", done)
assert len(done) == 2 and all(v > 0 for v in done.values()), "both hosts must have analysed photos"
'
[ "$groups" = 6 ] || { echo "multihost-test: expected 6 groups, got $groups" >&2; exit 1; }
echo "multihost-test: ok (6 groups, coordinator on $coordinator, workers on two other hosts)"

# The link cut: a second library, scanned while w1's link goes down and comes back.
"$bin/cull" sample-library "$work/library2" --scenes 12 >/dev/null
workers_json() { in_coord status --format json | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(" ".join("%s:%s" % (w["workerId"], w.get("inFlightJobs", 0)) for w in s.get("workers", [])))'; }
scan=$(in_coord scan "$work/library2" | awk '{print $2}')
for _ in $(seq 1 100); do
  case " $(workers_json) " in *" w1:"[1-9]*) break;; esac
  sleep 0.1
done
echo "multihost-test: cutting w1's link while it holds jobs ($(workers_json))"
ip link set "${tag}w1-a" down
for _ in $(seq 1 100); do
  case " $(workers_json) " in *" w1:"*) sleep 0.1;; *) break;; esac
done
case " $(workers_json) " in *" w1:"*) echo "multihost-test: w1 was not declared gone" >&2; exit 1;; esac
requeued=$(in_coord status --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"].get("jobsRequeued", 0))')
echo "multihost-test: w1 declared gone, $requeued jobs requeued; restoring its link"
ip link set "${tag}w1-a" up
for _ in $(seq 1 300); do
  case " $(workers_json) " in *" w1:"*) break;; esac
  sleep 0.1
done
case " $(workers_json) " in *" w1:"*) echo "multihost-test: w1 rejoined";; *) echo "multihost-test: w1 did not rejoin within 30 s" >&2; exit 1;; esac
[ "$requeued" -gt 0 ] || { echo "multihost-test: no jobs were requeued" >&2; exit 1; }
for _ in $(seq 1 600); do
  state=$(in_coord status --format json | python3 -c "import json,sys; print(next((s['state'] for s in json.load(sys.stdin)['scans'] if str(s['scanId']) == '$scan'), ''))")
  [ "$state" = done ] && break
  sleep 0.1
done
[ "$state" = done ] || { echo "multihost-test: the scan after the link cut ended '$state'" >&2; exit 1; }
in_coord groups --scan "$scan" --format csv > "$work/cut.csv"
CULL_CONFIG=none "$bin/cull" run "$work/library2" --db "$work/single.sqlite" --format csv > "$work/single.csv" 2>/dev/null
python3 - "$work/cut.csv" "$work/single.csv" <<'PY'
import csv, sys
def groups(path):
    found = {}
    for row in csv.DictReader(open(path)):
        found.setdefault((row["group"], row["kind"]), set()).add(row["path"])
    return sorted((kind, sorted(members)) for (_, kind), members in found.items())
cut, single = groups(sys.argv[1]), groups(sys.argv[2])
assert cut == single, f"groups differ: {len(cut)} after the link cut, {len(single)} on one host"
print(f"multihost-test: {len(cut)} groups after the link cut, the same as a single-host run")
PY
echo "multihost-test: ok (link cut and restored mid-scan)"
