#!/usr/bin/env bash
# The single daemon's durable write rate beside a baseline build: 50
# writers, every ack after its commit, the daemon on core 0 and the
# benchmark on core 1, servers interleaved, REPEAT (3) runs each; JSON lines
# into $OUT (default .build/bench-results/writers) and medians printed.
#   BASELINE=/path/to/old/foldsyncd [PREVIOUS=/path/to/foldsyncd] Tests/bench/bench-writers.sh [scenario...]
# BASELINE joins the write-rate scenarios (docs/PERFORMANCE.md's is commit
# 84dd24e, the build before history), PREVIOUS every scenario (the build
# before a change).
# Scenarios:
#   each     50 writers, a board each
#   shared   50 writers on one single-mode board
#   keys     50 writers (a board each), without and with a key on every
#            action (exactly-once: the key is written in the same commit)
#   readers  50 writers (a board each) beside 64 history readers, each asking
#            for the latest 1,000 entries twice a second, with and without
#            the readers (the current build, and PREVIOUS when given)
set -euo pipefail
cd "$(dirname "$0")/../.."
source Tests/bench/bench-lib.sh
[[ -n "${SKIP_BUILD:-}" ]] || build_release
out="${OUT:-.build/bench-results/writers}"
mkdir -p "$out"
# One window per run: its medians are of its own runs only.
rm -f "$out/results.jsonl" "$out/keybytes.jsonl"
repeat="${REPEAT:-3}"
duration="${DURATION:-10}"
scenarios=("$@")
[[ ${#scenarios[@]} -gt 0 ]] || scenarios=(each shared readers)
dir="$(mktemp -d /tmp/foldsync-bench-writers.XXXXXX)"
pid=""
cleanup() { [[ -z "$pid" ]] || kill -KILL "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT INT TERM

echo "window $(date -u +%FT%TZ) $(uptime) commit $(git rev-parse --short HEAD) baseline ${BASELINE:-none}" | tee -a "$out/conditions.txt" >&2

# one SERVER-BIN LABEL SCENARIO BENCH-ARGS...: a fresh daemon and database, one benchmark run.
one() {
    local daemon=$1 label=$2 scenario=$3; shift 3
    rm -f "$dir"/db*
    taskset -c 0 "$daemon" --listen 127.0.0.1:0 --db "$dir/db.sqlite" \
        --max-actions-per-second 1000000 --action-burst 1000000 >"$dir/log" 2>&1 &
    pid=$!
    local port; port="$(listening_port "$dir/log")"
    [[ -n "$port" ]] || { echo "daemon did not start: $(cat "$dir/log")" >&2; exit 1; }
    local line
    line="$(taskset -c 1 "$bin/foldsync-bench" --url "ws://127.0.0.1:$port/ws" --pid "$pid" --duration "$duration" --json "$@")"
    echo "{\"server\":\"$label\",\"scenario\":\"$scenario\",\"result\":$line}" | tee -a "$out/results.jsonl"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

# key_bytes: the store's bytes per kept key (the key_commits table's pages over the keys
# its packs hold, SQLite's dbstat) in the database the last run left.
key_bytes() {
    command -v sqlite3 >/dev/null || { echo "key_bytes needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 1; }
    local line
    line="$(sqlite3 -separator ' ' "$dir/db.sqlite" "SELECT (SELECT coalesce(sum(count), 0) FROM key_commits), (SELECT sum(pgsize) FROM dbstat WHERE name = 'key_commits');")"
    echo "{\"server\":\"current\",\"scenario\":\"key-bytes\",\"result\":{\"keys\":${line% *},\"bytes\":${line#* }}}" | tee -a "$out/keybytes.jsonl"
}

for i in $(seq "$repeat"); do
    for s in "${scenarios[@]}"; do
        case "$s" in
        each)    [[ -z "${BASELINE:-}" ]] || one "$BASELINE" baseline each --writers 50
                 [[ -z "${PREVIOUS:-}" ]] || one "$PREVIOUS" previous each --writers 50
                 one "$bin/foldsyncd" current each --writers 50 ;;
        shared)  [[ -z "${BASELINE:-}" ]] || one "$BASELINE" baseline shared --writers 50 --shared-board
                 [[ -z "${PREVIOUS:-}" ]] || one "$PREVIOUS" previous shared --writers 50 --shared-board
                 one "$bin/foldsyncd" current shared --writers 50 --shared-board ;;
        keys)    one "$bin/foldsyncd" current keys-off --writers 50
                 one "$bin/foldsyncd" current keys-on --writers 50 --keys
                 key_bytes ;;
        readers) if [[ -n "${PREVIOUS:-}" ]]; then
                     one "$PREVIOUS" previous readers-off --writers 50
                     one "$PREVIOUS" previous readers-on --writers 50 --history-readers 64
                 fi
                 one "$bin/foldsyncd" current readers-off --writers 50
                 one "$bin/foldsyncd" current readers-on --writers 50 --history-readers 64 ;;
        *) echo "unknown scenario $s" >&2; exit 2 ;;
        esac
    done
done
python3 - "$out/results.jsonl" <<'PY'
import json, statistics, sys, collections
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    runs[(r["scenario"], r["server"])].append(r["result"])
for (scenario, server), rs in sorted(runs.items()):
    rate = statistics.median(x["acks_per_second"] for x in rs)
    p50 = statistics.median(x["ack_ms"]["p50"] for x in rs)
    p99 = statistics.median(x["ack_ms"]["p99"] for x in rs)
    ok = all(x["check_ok"] for x in rs)
    runlist = ", ".join("%.0f" % x["acks_per_second"] for x in rs)
    reads = ""
    if all("history_readers" in x for x in rs):
        n = statistics.median(x["history_readers"]["reads"] for x in rs)
        rp99 = statistics.median(x["history_readers"]["read_ms"]["p99"] for x in rs)
        reads = f", {n:.0f} history reads (p99 {rp99:.0f} ms)"
    print(f"{scenario:12} {server:9} runs {len(rs)}: {rate:9.0f} acks/s (runs {runlist}), ack p50 {p50:.2f} ms p99 {p99:.2f} ms{reads}, check {'ok' if ok else 'FAILED'}")
medians = {k: statistics.median(x["acks_per_second"] for x in rs) for k, rs in runs.items()}
if ("keys-on", "current") in medians and ("keys-off", "current") in medians:
    print(f"keys-on / keys-off: {medians[('keys-on', 'current')] / medians[('keys-off', 'current')]:.2f}x")
PY
if [[ -s "$out/keybytes.jsonl" ]]; then
    python3 - "$out/keybytes.jsonl" <<'PY'
import json, statistics, sys
rs = [json.loads(line)["result"] for line in open(sys.argv[1])]
per = [r["bytes"] / r["keys"] for r in rs if r["keys"]]
print(f"store bytes per kept key (SQLite key_commits table): median {statistics.median(per):.1f} over {len(per)} runs ({', '.join(str(r['keys']) for r in rs)} keys)")
PY
fi
