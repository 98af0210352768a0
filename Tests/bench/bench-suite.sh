#!/usr/bin/env bash
# foldsyncd alone (the lab notebook's "Figures now", `git show 858c18a:docs/PERFORMANCE.md`): each scenario against a fresh release
# daemon pinned to core 0, the benchmark pinned to core 1, JSON lines into
# $OUT (default .build/bench-results/suite). Usage:
#   Tests/bench/bench-suite.sh [scenario...]   (default: all; REPEAT=3; DAEMON_ARGS="--event-loop poll")
# The publisher sends up to thousands of actions a second on one connection,
# far over the daemon's default per-connection rate limit (100/s, meant for
# people), so the limit is lifted here (LIMIT_ARGS).
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
build_release
out="${OUT:-.build/bench-results/suite}"
mkdir -p "$out"
repeat="${REPEAT:-3}"

run() {  # run NAME BENCH-ARGS...
    local name=$1; shift
    for i in $(seq "$repeat"); do
        local dir; dir="$(mktemp -d)"
        # shellcheck disable=SC2086
        taskset -c 0 "$bin/foldsyncd" --listen 127.0.0.1:0 --db "$dir/b.db" ${LIMIT_ARGS:---max-actions-per-second 1000000 --action-burst 1000000} ${DAEMON_ARGS:-} >"$dir/d.log" 2>&1 &
        local pid=$! port
        port="$(listening_port "$dir/d.log")"
        if [[ -n "$port" ]]; then
            timeout 600 taskset -c 1 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --pid "$pid" --json "$@" \
                | sed "s/^{/{\"scenario\":\"$name\",\"run\":$i,/" | tee -a "$out/$name.jsonl" || true
        else
            echo "daemon did not start" >&2
        fi
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        rm -rf "$dir"
    done
}

scenarios=("$@")
[[ ${#scenarios[@]} -eq 0 ]] && scenarios=(c1k-r20 c1k-ramp c1k-ramp-nobatch idle10k c10k-r5 n100-r20 n5k-r20 n15k-r5 big-board-r20)
for s in "${scenarios[@]}"; do
    case "$s" in
        c1k-r20) run "$s" --connections 1000 --rate 20 --duration 10 ;;
        c1k-ramp) run "$s" --connections 1000 --ramp ;;
        c1k-ramp-nobatch) run "$s" --connections 1000 --ramp --no-batch ;;
        idle10k) run "$s" --connections 100 --rate 200 --duration 10 --idle 10000 ;;
        c10k-r5) run "$s" --connections 10000 --rate 5 --duration 10 ;;
        n100-r20) run "$s" --connections 100 --rate 20 --duration 10 ;;
        n5k-r20) run "$s" --connections 5000 --rate 20 --duration 10 ;;
        n15k-r5) run "$s" --connections 15000 --rate 5 --duration 10 ;;
        big-board-r20) run "$s" --connections 1000 --rate 20 --duration 10 --sections 1000 --items 10 ;;
        *) echo "unknown scenario $s" >&2; exit 2 ;;
    esac
done
