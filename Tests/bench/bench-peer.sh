#!/usr/bin/env bash
# foldsyncd beside uWebSockets, measured by the same client in one window.
#
# Each scenario runs REPEAT times (default 3); within a repeat the servers
# take turns (interleaved), each a fresh process pinned to core 0, the
# benchmark pinned to core 1. foldsyncd runs on its defaults (libev loop,
# SQLite, every change committed before anyone sees it) with only the
# per-connection action limit lifted for the one publisher. The peer is
# uWS pub/sub (Tests/bench/uws_broadcast.py, PyPI socketify in a venv made
# here), measured with `foldsync-bench --protocol broadcast`.
#
#   Tests/bench/bench-peer.sh [scenario...]      REPEAT=3 OUT=.build/bench-results/peer
#   SERVERS="foldsyncd uws foldsyncd-poll" ...     (add the poll() loop to the rotation)
#   SERVERS="foldsyncd foldsyncd-shm uws" ...      (and the store on tmpfs, /dev/shm: the
#                                                  same daemon without the disk's flush, to
#                                                  tell the flush's share of a latency)
#   BASELINE=/path/to/old/foldsyncd SERVERS="baseline foldsyncd uws" ...  (an earlier build, for before/after)
#   DEB13_ROOT=/root/of/trixie DEB13_BIN=/path/foldsyncd SERVERS="foldsyncd foldsyncd-deb13 uws" ...
#                                                  (a build run in a Debian 13 root: Tests/debian/bench-peer.sh)
#   Tests/bench/bench-peer-summary.py OUT        (the table; the script prints it at the end)
#   DISK_SECONDS=20                                (the disk's flush alone before and after; 0 skips)
#
# Scenarios: c1k-r20, c1k-ramp (batching), c1k-ramp-plain, c10k-r5, idle10k.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
build_release
venv="${PEER_VENV:-.build/peer-venv}"
if ! "$venv/bin/python" -c "import socketify" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "socketify==0.0.31"
fi
out="${OUT:-.build/bench-results/peer}"
mkdir -p "$out"
repeat="${REPEAT:-3}"
read -r -a servers <<<"${SERVERS:-foldsyncd uws}"

{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(uname -srm), $(nproc) cores"
    echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "foldsyncd: $(git rev-parse --short HEAD) release; peer: socketify 0.0.31 (uWS)"
} | tee "$out/window.txt" >&2

disk_flush() {  # disk_flush WHEN: the disk's flush without a server (DISK_SECONDS=0 skips)
    [[ "${DISK_SECONDS:-20}" == 0 ]] && return 0
    python3 Tests/bench/disk-flush.py --seconds "${DISK_SECONDS:-20}" \
        | sed "s/^{/{\"when\":\"$1\",/" | tee -a "$out/disk-flush.jsonl" >&2
}
disk_flush before

start_server() {  # start_server KIND DIR -> sets pid, port
    local kind=$1 dir=$2
    case "$kind" in
        foldsyncd|foldsyncd-poll|foldsyncd-shm|baseline|foldsyncd-deb13)
            local loop=() exe=("$bin/foldsyncd") db=$dir/b.db
            [[ $kind == foldsyncd-shm ]] && db=$(mktemp -d /dev/shm/foldsync-bench.XXXXXX)/b.db
            [[ $kind == foldsyncd-poll ]] && loop=(--event-loop poll)
            [[ $kind == baseline ]] && exe=("$BASELINE")
            # chroot execs the daemon: its pid is the daemon's; the root sees this /tmp (Tests/debian/bench-peer.sh).
            [[ $kind == foldsyncd-deb13 ]] && exe=(chroot "$DEB13_ROOT" "$DEB13_BIN")
            taskset -c 0 "${exe[@]}" --listen 127.0.0.1:0 --db "$db" \
                --max-actions-per-second 1000000 --action-burst 1000000 "${loop[@]}" >"$dir/s.log" 2>&1 &
            ;;
        uws)
            taskset -c 0 "$venv/bin/python" Tests/bench/uws_broadcast.py >"$dir/s.log" 2>&1 &
            ;;
    esac
    pid=$!
    port="$(listening_port "$dir/s.log")"
}

stop_server() {
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

run() {  # run SCENARIO KIND BENCH-ARGS...
    local name=$1 kind=$2; shift 2
    local dir; dir="$(mktemp -d)"
    start_server "$kind" "$dir"
    if [[ -n "$port" ]]; then
        local wire=()
        [[ $kind == uws ]] && wire=(--protocol broadcast)
        timeout 900 taskset -c 1 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --pid "$pid" --server-core 0 --json "${wire[@]}" "$@" \
            | sed "s/^{/{\"scenario\":\"$name\",\"server\":\"$kind\",\"run\":$i,/" | tee -a "$out/$name.jsonl" || true
    else
        echo "$kind did not start: $(tail -3 "$dir/s.log")" >&2
    fi
    stop_server
    rm -rf "$dir" /dev/shm/foldsync-bench.*
}

ramp_rates="200,500,1000,1500,2000,3000,5000,7500,10000"
scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=(c1k-r20 c1k-ramp c1k-ramp-plain c10k-r5 idle10k)
for s in "${scenarios[@]}"; do
    for i in $(seq "$repeat"); do
        for kind in "${servers[@]}"; do
            case "$s" in
                c1k-r20) run "$s" "$kind" --connections 1000 --rate 20 --duration 10 ;;
                c1k-ramp) run "$s" "$kind" --connections 1000 --ramp --rates "$ramp_rates" --step 5 ;;
                # uWS has no batching to turn off: its plain figure is c1k-ramp's.
                c1k-ramp-plain) [[ $kind == uws ]] || run "$s" "$kind" --connections 1000 --ramp --rates "$ramp_rates" --step 5 --no-batch ;;
                c10k-r5) run "$s" "$kind" --connections 10000 --rate 5 --duration 10 ;;
                idle10k) run "$s" "$kind" --connections 100 --rate 200 --duration 10 --idle 10000 ;;
                *) echo "unknown scenario $s" >&2; exit 2 ;;
            esac
        done
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/window.txt" >&2
disk_flush after
python3 Tests/bench/bench-peer-summary.py "$out"
