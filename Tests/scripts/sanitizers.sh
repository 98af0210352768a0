#!/usr/bin/env bash
# The whole test suite under ThreadSanitizer, then AddressSanitizer: the
# tests and the daemon they start are both instrumented (FOLDSYNCD_BIN points
# the live tests at the sanitized daemon). Any report fails the run: the
# sanitized daemon exits 66 (TSan) or 1 (ASan), which the tests check.
# ASan's quarantine is kept small so the tests' RSS bounds still mean something.
set -euo pipefail
cd "$(dirname "$0")/../.."
for s in thread address; do
  scratch=".build-$s"
  swift build --build-tests --sanitize=$s --scratch-path "$scratch"
  FOLDSYNCD_BIN="$PWD/$scratch/debug/foldsyncd" \
  TSAN_OPTIONS="halt_on_error=0" ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=8" \
    swift test --skip-build --sanitize=$s --scratch-path "$scratch"
done
