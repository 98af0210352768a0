#!/usr/bin/env bash
# Builds the core's micro-benchmarks over FoldCore's sources (-O, as a
# release build) into .build/bench-core and runs them. Figures only: nothing
# here fails on a time. Not part of `make test`; `make bench-core` runs it.
set -euo pipefail
cd "$(dirname "$0")/../../.."
out=.build/bench-core
mkdir -p "$out"
core=$(find Sources/FoldCore -name '*.swift')
swiftc -O -parse-as-library -module-name FoldCore $core Tests/bench/core/ToggleBench.swift -o "$out/ToggleBench"
"$out/ToggleBench" "$@"
