#!/usr/bin/env bash
# Builds each libFuzzer target over FoldCore's sources (with AddressSanitizer)
# and runs it for a bounded time: `run.sh [SECONDS]`, 60 s each by default.
# Each starts from the seeds (Tests/Fuzz/seeds) and the corpus the fuzzers
# grew before, merged and committed (Tests/Fuzz/corpus/TARGET), in a copy
# under .build/fuzz: a run never writes into the checkout, except that a
# crash's input lands in Tests/Fuzz/crashes/ (keep it in Tests/Fuzz/regressions/
# once fixed) and the run fails.
# `MERGE=1 run.sh` afterwards merges what the run found into
# Tests/Fuzz/corpus/TARGET (libFuzzer's -set_cover_merge=1 keeps a small set
# with the same coverage), for committing; FuzzRegressionTests replays all of it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=.build/fuzz
mkdir -p "$out"
# A trap must reach libFuzzer (which then writes the crash file), not Swift's backtracer.
export SWIFT_BACKTRACE=enable=no
core=$(find Sources/FoldCore -name '*.swift')
for target in FuzzMessages FuzzHTTPBody; do
  # lld (shipped with the toolchain) links ASan without gold's export warnings.
  swiftc -O -sanitize=fuzzer,address -use-ld=lld -parse-as-library -module-name FoldCore \
    $core "Tests/Fuzz/$target.swift" -o "$out/$target"
  corpus="$out/corpus-$target"
  committed="Tests/Fuzz/corpus/$target"
  mkdir -p "$corpus"
  cp Tests/Fuzz/seeds/* "$corpus/"
  if [ -d "$committed" ]; then cp "$committed"/* "$corpus/"; fi
  if [ "${MERGE:-0}" = 1 ]; then
    mkdir -p "$committed"
    echo "== $target: merging $corpus into $committed"
    "$out/$target" -set_cover_merge=1 -max_len=4096 "$committed" "$corpus"
    continue
  fi
  echo "== $target for ${seconds}s"
  mkdir -p Tests/Fuzz/crashes
  "$out/$target" -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix=Tests/Fuzz/crashes/ "$corpus"
  rmdir Tests/Fuzz/crashes 2>/dev/null || true
done
