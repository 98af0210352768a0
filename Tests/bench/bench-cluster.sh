#!/usr/bin/env bash
# The cluster figures of docs/PERFORMANCE.md ("Several daemons"), side by side
# in one run against a PostgreSQL server this script starts (initdb in a
# temporary directory, loopback, a free port, fsync on: commits are durable)
# and a SQLite daemon for comparison. JSON lines into $OUT (default
# .build/bench-results/cluster), medians printed by bench-summary.py.
#   Tests/bench/bench-cluster.sh [scenario...]   (default: all; REPEAT=3)
# Scenarios:
#   a-single   1,000 subscribers on one SQLite daemon, 20 changes/s
#   a-cluster  1,000 subscribers over two daemons, 20 changes/s published on a third
#   b-single / b-cluster   50 writers (a board each), every ack after commit
#   c-single / c-cluster   50 writers on one single-mode board (contended)
# In (a) the servers (daemons, and PostgreSQL) share core 0 and the benchmark
# has core 1, as in bench-suite.sh; (b) and (c) are not pinned.
# Other sessions on this machine pause while /tmp/foldsync-quiet exists: the
# script waits for a quiet machine (load < 1.5, at most until $QUIET_UNTIL,
# default 12:10 UTC), creates it and always removes it (QUIET=0: neither).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
bin="${BIN:-$bin}"
[[ -n "${SKIP_BUILD:-}" ]] || build_release
out="${OUT:-.build/bench-results/cluster}"
mkdir -p "$out"
repeat="${REPEAT:-3}"
duration="${DURATION:-10}"
limits=(--max-actions-per-second 1000000 --action-burst 1000000)

pgdir="$(mktemp -d /tmp/foldsync-bench-pg.XXXXXX)"
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    stop_postgres "$pgdir"
    rm -rf "$pgdir"
    [[ "${QUIET:-1}" == 0 ]] || rm -f /tmp/foldsync-quiet
}
trap cleanup EXIT INT TERM

if [[ "${QUIET:-1}" != 0 ]]; then
    until="${QUIET_UNTIL:-12:10}"
    while awk -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN { exit !(l >= 1.5) }' && [[ "$(date -u +%H:%M)" < "$until" ]]; do
        echo "waiting for a quiet machine: $(uptime)" >&2
        sleep 30
    done
    touch /tmp/foldsync-quiet
    echo "quiet window from $(date -u +%H:%M:%S) UTC: $(uptime)" | tee -a "$out/conditions.txt" >&2
fi

start_postgres "$pgdir"
echo "postgresql $("$pgbin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pgport, synchronous_commit on, fsync on" >> "$out/conditions.txt"
dbs=0

# daemon CORES ARGS...: starts foldsyncd (taskset CORES, "" for none); prints "PID PORT".
daemon() {
    local cores=$1; shift
    local log; log="$(mktemp "$pgdir/d.XXXXXX.log")"
    if [[ -n "$cores" ]]; then
        taskset -c "$cores" "$bin/foldsyncd" --listen 127.0.0.1:0 "${limits[@]}" "$@" >"$log" 2>&1 &
    else
        "$bin/foldsyncd" --listen 127.0.0.1:0 "${limits[@]}" "$@" >"$log" 2>&1 &
    fi
    local pid=$!
    local port; port="$(listening_port "$log")"
    [[ -n "$port" ]] || { echo "daemon did not start: $(cat "$log")" >&2; return 1; }
    echo "$pid $port"
}

stop_all() {
    for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do
        for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null || true
    done
    pids=()
}

# run NAME NODES CORES BENCH-CORES BENCH-ARGS...: NODES daemons (0: one SQLite daemon), then the benchmark.
run() {
    local name=$1 nodes=$2 cores=$3 bcores=$4; shift 4
    for i in $(seq "$repeat"); do
        local urls=() dir; dir="$(mktemp -d "$pgdir/run.XXXXXX")"
        if [[ "$nodes" == 0 ]]; then
            read -r pid port < <(daemon "$cores" --db "$dir/b.db")
            pids+=("$pid"); urls+=("ws://127.0.0.1:$port/ws")
        else
            dbs=$((dbs + 1))
            as_pg "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres "bench_$dbs"
            for _ in $(seq "$nodes"); do
                read -r pid port < <(daemon "$cores" --store "postgresql://postgres@127.0.0.1:$pgport/bench_$dbs")
                pids+=("$pid"); urls+=("ws://127.0.0.1:$port/ws")
            done
        fi
        local args=()
        case "$name" in
            a-single) args=(--url "${urls[0]}" --pid "${pids[0]}") ;;
            a-cluster) args=(--urls "${urls[0]},${urls[1]}" --publisher-url "${urls[2]}") ;;
            *) args=(--urls "$(IFS=,; echo "${urls[*]}")") ;;
        esac
        local taskset=()
        [[ -n "$bcores" ]] && taskset=(taskset -c "$bcores")
        timeout 600 "${taskset[@]}" "$bin/foldsync-bench" "${args[@]}" --json --duration "$duration" "$@" \
            | sed "s/^{/{\"scenario\":\"$name\",\"run\":$i,/" | tee -a "$out/$name.jsonl" || true
        stop_all
        rm -rf "$dir"
    done
}

scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=(a-single a-cluster b-single b-cluster c-single c-cluster)
for s in "${scenarios[@]}"; do
    case "$s" in
        a-single) run "$s" 0 0 1 --connections 1000 --rate 20 ;;
        a-cluster) run "$s" 3 0 1 --connections 1000 --rate 20 ;;
        b-single) run "$s" 0 "" "" --writers 50 --window 8 ;;
        b-cluster) run "$s" 3 "" "" --writers 50 --window 8 ;;
        c-single) run "$s" 0 "" "" --writers 50 --window 8 --shared-board ;;
        c-cluster) run "$s" 3 "" "" --writers 50 --window 8 --shared-board ;;
        *) echo "unknown scenario $s" >&2; exit 2 ;;
    esac
done
echo "finished $(date -u +%H:%M:%S) UTC: $(uptime)" >> "$out/conditions.txt"
python3 Tests/bench/bench-summary.py "$out" | tee "$out/summary.txt"
