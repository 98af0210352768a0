#!/usr/bin/env bash
# What a key on every action costs the daemon in instructions, which move
# less with the machine's load than rates do (still with batching: compare
# counts taken in one window): the release daemon under
# callgrind (valgrind), 50 writers (a board each) without and with --keys,
# counted over every thread for WINDOW (20) seconds after 5 s of warm-up,
# over the changes applied in that window. Prints instructions per ack.
#   [SKIP_BUILD=1] [FOLDSYNCD=path] Tests/bench/bench-keys-instructions.sh
# Needs valgrind (callgrind_control, callgrind_annotate) and curl.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
for tool in valgrind callgrind_control callgrind_annotate curl; do
    command -v "$tool" >/dev/null || { echo "bench-keys-instructions needs $tool (apt-get install valgrind curl)" >&2; exit 1; }
done
[[ -n "${SKIP_BUILD:-}" ]] || build_release
daemon="${FOLDSYNCD:-$bin/foldsyncd}"
window="${WINDOW:-20}"
dir="$(mktemp -d /tmp/foldsync-bench-keys-ir.XXXXXX)"
pid=""
cleanup() { [[ -z "$pid" ]] || kill -KILL "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM

applied() { curl -s "http://127.0.0.1:$1/metrics" | awk '/^foldsync_changes_applied_total /{print $2}'; }

echo "window $(date -u +%FT%TZ) $(uptime) commit $(git rev-parse --short HEAD) daemon $daemon" >&2
for mode in plain keyed; do
    rm -f "$dir"/db* "$dir"/cg.*
    valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" --dump-instr=no "$daemon" --listen 127.0.0.1:0 \
        --db "$dir/db.sqlite" --max-actions-per-second 1000000 --action-burst 1000000 >"$dir/log" 2>&1 &
    pid=$!
    port=""
    for _ in $(seq 600); do
        port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$dir/log" | head -1 | cut -d: -f2 || true)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    [[ -n "$port" ]] || { echo "the daemon did not start under callgrind: $(tail -5 "$dir/log")" >&2; exit 1; }
    keys=(); [[ $mode == keyed ]] && keys=(--keys)
    "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --duration $((window + 10)) --writers 50 "${keys[@]}" >"$dir/bench.log" 2>&1 &
    bench=$!
    sleep 5
    callgrind_control -z "$pid" >/dev/null 2>&1
    before="$(applied "$port")"
    sleep "$window"
    callgrind_control -d "$pid" >/dev/null 2>&1
    after="$(applied "$port")"
    wait "$bench" || { echo "the benchmark failed: $(tail -3 "$dir/bench.log")" >&2; exit 1; }
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
    total="$(callgrind_annotate "$dir/cg.out.1" 2>/dev/null | awk '/PROGRAM TOTALS/{gsub(",", "", $1); print $1}')"
    acks=$((after - before))
    echo "$mode $total $acks" >>"$dir/counts"
    printf '%-6s %12s instructions over %6d acks: %6d per ack\n' "$mode" "$total" "$acks" $((total / acks))
done
awk '{per[$1] = $2 / $3} END { printf "plain / keyed: %.3f (keyed costs %.1f%% more a change)\n", per["plain"] / per["keyed"], 100 * (per["keyed"] / per["plain"] - 1) }' "$dir/counts"
