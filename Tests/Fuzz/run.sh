#!/usr/bin/env bash
# Builds each libFuzzer target over FoldCore's sources and runs it for a fixed
# time (default 60 s each). Crashes land in Tests/Fuzz/crashes/; keep each one as a
# regression case in Tests/Fuzz/regressions/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=.build/fuzz
mkdir -p "$out" Tests/Fuzz/crashes
core=$(find Sources/FoldCore -name '*.swift')
for target in FuzzMessages FuzzHTTPBody; do
  swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name FoldCore \
    $core "Tests/Fuzz/$target.swift" -o "$out/$target"
  corpus="$out/corpus-$target"
  mkdir -p "$corpus"
  cp Tests/Fuzz/seeds/* "$corpus/" 2>/dev/null || true
  echo "== $target for ${seconds}s"
  "$out/$target" -max_total_time="$seconds" -max_len=4096 -artifact_prefix=Tests/Fuzz/crashes/ "$corpus"
done
