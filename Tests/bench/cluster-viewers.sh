#!/usr/bin/env bash
# Viewers that vanish at scale: three daemons on one PostgreSQL,
# each holding VIEWERS subscribed connections (default 19,000), spread by
# three foldsync-bench processes (`--urls`, one board each, each under this
# machine's 20,000-descriptor limit); the connections sit quiet for HOLD
# seconds (default 30), then one change a second for 10 s is written through
# the first daemon. The daemons PING every PING seconds (default 5, rather
# than the daemon's 30, so the keep-alive's cost shows within the run: with
# lws' own keep-alive (ad2d37f) this dropped 39-46% of the viewers without a
# close frame, and a 30 s or 50 s hold did so in 2 runs of 3).
#
# Fails unless, for every bench: no connection ended without a close frame,
# and every viewer still connected got every change; and, for every daemon,
# the close reasons in /metrics add up to opened minus open.
#   Tests/bench/cluster-viewers.sh            (builds the release products first)
#   BUILD=0 VIEWERS=6000 HOLD=40 Tests/bench/cluster-viewers.sh
#   DAEMON_BIN=/path/to/other/foldsyncd ...   (another build of the daemon, same benchmark)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
bin="${BIN:-$bin}"
[[ "${BUILD:-1}" == 0 ]] || build_release
viewers="${VIEWERS:-19000}"
hold="${HOLD:-30}"
ping="${PING:-5}"

dir="$(mktemp -d /tmp/foldsync-viewers.XXXXXX)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    stop_postgres "$dir"
    [[ -n "${KEEP:-}" ]] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM
start_postgres "$dir"
as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres viewers

urls=(); ports=()
for i in 0 1 2; do
    "${DAEMON_BIN:-$bin/foldsyncd}" --listen 127.0.0.1:0 --store "postgresql://postgres@127.0.0.1:$pgport/viewers" \
        --max-actions-per-second 1000000 --action-burst 1000000 --ping-interval "$ping" >"$dir/d$i.log" 2>&1 &
    pids+=($!)
    port="$(listening_port "$dir/d$i.log")"
    [[ -n "$port" ]] || { echo "daemon $i did not start: $(cat "$dir/d$i.log")" >&2; exit 1; }
    ports+=("$port"); urls+=("ws://127.0.0.1:$port/ws")
done
echo "cluster-viewers: 3 daemons (${ports[*]}), PostgreSQL on $pgport; 3 benches x $viewers viewers, hold $hold s; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

benches=()
for b in 0 1 2; do
    timeout 900 "$bin/foldsync-bench" --urls "$(IFS=,; echo "${urls[*]}")" --board "viewers-$b" --connections "$viewers" \
        --hold "$hold" --rate 1 --duration 10 --warmup 0 --grace 30 --json >"$dir/b$b.json" 2>"$dir/b$b.err" &
    benches+=($!)
done
for p in "${benches[@]}"; do wait "$p" || true; done

failed=0
for b in 0 1 2; do
    if ! python3 - "$dir/b$b.json" "$b" <<'PY'
import json, sys
path, b = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"bench {b}: no report ({e})"); sys.exit(1)
ok = True
silent = r.get("closed_without_close_frame", -1)
print(f"bench {b}: set up {r['setup_seconds']} s, {r.get('subscribers')} viewers, "
      f"{r.get('deliveries_received')}/{r.get('deliveries_expected')} deliveries, p99 {r.get('latency_ms', {}).get('p99')} ms, "
      f"ended early {r.get('ended_early')}, connect failures {r.get('connect_failures')}")
if silent != 0:
    print(f"bench {b}: {silent} connections ended without a close frame"); ok = False
if r.get("connect_failures", 1) != 0:
    print(f"bench {b}: {r.get('connect_failures')} connections failed to set up"); ok = False
if r.get("deliveries_received", -1) < r.get("deliveries_expected", 0):
    print(f"bench {b}: viewers still connected missed changes"); ok = False
sys.exit(0 if ok else 1)
PY
    then failed=1; sed 's/^/    /' "$dir/b$b.err" | head -5 >&2; fi
done

for i in 0 1 2; do
    m="$(curl -s --max-time 30 "http://127.0.0.1:${ports[$i]}/metrics" || true)"
    if ! python3 - "$i" <<PY
import re, sys
text = """$m"""
closes = {k: int(v) for k, v in re.findall(r'^foldsync_connections_closed_total\{reason="([^"]+)"\} (\d+)$', text, re.M)}
def g(name):
    m = re.search(r'^' + name + r' (\d+)$', text, re.M)
    return int(m.group(1)) if m else -1
opened, open_ = g("foldsync_connections_opened_total"), g("foldsync_connections")
nonzero = {k: v for k, v in closes.items() if v}
print(f"daemon {sys.argv[1]}: opened {opened}, open {open_}, closed {nonzero}")
sys.exit(0 if closes and sum(closes.values()) == opened - open_ else 1)
PY
    then echo "daemon $i: the close reasons do not add up" >&2; failed=1; fi
done
[[ "$failed" == 0 ]] && echo "cluster-viewers: ok" >&2
exit "$failed"
