#!/usr/bin/env bash
# Smoke test of the benchmark: starts the debug daemon on port 0 with a temp
# store, runs foldsync-bench for 2 s with 50 connections on each client
# (--client epoll, then --client lws), and fails unless delivery was complete
# and the daemon reported the phase's commits;
# then writer mode, which must pass its check.
# Every wait is bounded.
#   Tests/bench/bench-smoke.sh            (builds the debug products first)
#   BUILD=0 Tests/bench/bench-smoke.sh    (uses what is built)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh

if [[ "${BUILD:-1}" == 1 ]]; then
    timeout 1800 swift build --product foldsyncd >&2
    timeout 1800 swift build --product foldsync-bench >&2
fi
bin="$(swift build --show-bin-path)"

dir="$(mktemp -d)"
trap 'stop_daemon; rm -rf "$dir"' EXIT

start_daemon "$bin/foldsyncd" "$dir/daemon.log" --db "$dir/smoke.db"
if [[ -z "$port" ]]; then
    echo "bench-smoke: the daemon did not start" >&2
    cat "$dir/daemon.log" >&2
    exit 1
fi

# Each client in turn: the benchmark's own epoll loop, then libwebsockets'.
status=0
for client in epoll lws; do
    summary="$(timeout 60 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --pid "$daemon_pid" \
        --connections 50 --rate 20 --duration 2 --warmup 0.5 --client "$client" --json)" || true
    echo "$summary"
    if [[ "$summary" == *'"completeness_percent":100.000'* && "$summary" == *'"complete":true'* \
          && "$summary" == *"\"client\":\"$client\""* && "$summary" == *'"subprotocol":"foldsync.v1.batch"'* ]]; then
        echo "bench-smoke: complete delivery (--client $client)" >&2
    else
        echo "bench-smoke: delivery was not complete (--client $client)" >&2
        status=1
    fi
    # The phase's commits, read from the daemon's /metrics: at least one per change sent.
    commits=0
    [[ "$summary" =~ \"commits\":\{\"count\":([0-9]+), ]] && commits="${BASH_REMATCH[1]}"
    if (( commits > 0 )) && [[ "$summary" =~ \"over_10ms\":[0-9]+, && "$summary" == *'"slowest_at_most_ms":'* ]]; then
        echo "bench-smoke: the daemon's commits reported ($commits, --client $client)" >&2
    else
        echo "bench-smoke: no commit figures from the daemon (--client $client)" >&2
        status=1
    fi
done

# Writer mode (the cluster benchmark's (b) and (c), here on one daemon): every
# action answered, and the check against GET passes (nothing acknowledged
# lost, every rev acknowledged once, the accordion held on the shared board).
for shared in "" --shared-board; do
    summary="$(timeout 60 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --writers 5 --window 4 --duration 1 $shared --json 2>/dev/null)" || true
    echo "$summary"
    if [[ "$summary" == *'"check_ok":true'* && "$summary" == *'"errors":0'* && "$summary" == *'"unanswered":0'* ]]; then
        echo "bench-smoke: writers checked ${shared:-(a board each)}" >&2
    else
        echo "bench-smoke: writer check failed ${shared:-(a board each)}" >&2
        status=1
    fi
done

# The side-by-side peer (Tests/bench/uws_broadcast.py, socketify from PyPI in
# a venv) and --protocol broadcast: complete delivery, or fail.
venv="${PEER_VENV:-.build/peer-venv}"
if ! "$venv/bin/python" -c "import socketify" 2>/dev/null; then
    python3 -m venv "$venv" && "$venv/bin/pip" install -q "socketify==0.0.31" || { echo "bench-smoke: cannot install socketify" >&2; exit 1; }
fi
"$venv/bin/python" Tests/bench/uws_broadcast.py >"$dir/peer.log" 2>&1 &
peer_pid=$!
peer_port=""
for _ in $(seq 100); do
    peer_port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$dir/peer.log" | head -1 | cut -d: -f2 || true)"
    [[ -n "$peer_port" ]] && break
    sleep 0.1
done
if [[ -z "$peer_port" ]]; then
    echo "bench-smoke: the uWebSockets peer did not start: $(tail -3 "$dir/peer.log")" >&2
    status=1
else
    summary="$(timeout 60 "$bin/foldsync-bench" --url "ws://127.0.0.1:$peer_port/ws" --pid "$peer_pid" --protocol broadcast \
        --connections 50 --rate 20 --duration 2 --warmup 0.5 --json)" || true
    echo "$summary"
    if [[ "$summary" == *'"completeness_percent":100.000'* && "$summary" == *'"complete":true'* ]]; then
        echo "bench-smoke: complete delivery (uWebSockets peer, --protocol broadcast)" >&2
    else
        echo "bench-smoke: delivery was not complete (uWebSockets peer)" >&2
        status=1
    fi
    # A peer that keeps nothing has no commits to report.
    if [[ "$summary" == *'"commits":'* ]]; then
        echo "bench-smoke: commit figures reported for the peer" >&2
        status=1
    fi
fi

# The disk's flush alone (bench-peer.sh runs it around every window): one JSON line with its figures.
flush="$(timeout 30 python3 Tests/bench/disk-flush.py --seconds 1 --rate 20)" || true
echo "$flush"
if python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["flushes"] == 20 and 0 < d["median_ms"] <= d["p99_ms"] <= d["max_ms"]' "$flush" 2>/dev/null; then
    echo "bench-smoke: disk flush measured" >&2
else
    echo "bench-smoke: disk-flush.py gave no figures" >&2
    status=1
fi
kill -KILL "$peer_pid" 2>/dev/null || true
wait "$peer_pid" 2>/dev/null || true
exit "$status"
