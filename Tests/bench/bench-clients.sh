#!/usr/bin/env bash
# The benchmark's two clients side by side (the lab notebook's "Benchmark
# client", `git show 858c18a:docs/PERFORMANCE.md`): for each scenario and client, a fresh release daemon pinned to
# core 0 and foldsync-bench pinned to core 1; one JSON line per run in $OUT.
#   Tests/bench/bench-clients.sh [RUNS] [SCENARIO...]   (scenarios: c1k c1k-ramp c10k)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
runs="${1:-3}"
shift || true
if [[ $# -gt 0 ]]; then scenarios=("$@"); else scenarios=(c1k c1k-ramp c10k); fi
out="${OUT:-.build/bench-results/clients}"
mkdir -p "$out"
dir="$(mktemp -d)"
trap 'stop_daemon; rm -rf "$dir"' EXIT

for s in "${scenarios[@]}"; do
    case "$s" in
        c1k) args=(--connections 1000 --rate 20 --duration 10) ;;
        c1k-ramp) args=(--connections 1000 --ramp) ;;
        c10k) args=(--connections 10000 --rate 5 --duration 10) ;;
        *) echo "unknown scenario $s" >&2; exit 2 ;;
    esac
    for run in $(seq "$runs"); do
        for client in epoll lws; do
            rm -f "$dir"/b.db*
            PIN="taskset -c 0" start_daemon "$bin/foldsyncd" "$dir/daemon.log" --db "$dir/b.db"
            [[ -n "$port" ]] || { echo "daemon did not start" >&2; cat "$dir/daemon.log" >&2; exit 1; }
            sleep 0.5
            load="$(cut -d' ' -f1 /proc/loadavg)"
            line="$(timeout 600 taskset -c 1 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --pid "$daemon_pid" \
                --client "$client" "${args[@]}" --json 2>"$dir/bench.err" || true)"
            echo "{\"scenario\":\"$s\",\"run\":$run,\"load\":$load,\"result\":${line:-null}}" >>"$out/$s.jsonl"
            echo "$s run $run $client: done (load $load)" >&2
            stop_daemon
        done
    done
done
