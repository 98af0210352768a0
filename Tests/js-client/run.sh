#!/usr/bin/env bash
# The JavaScript client library's tests (clients/js): the contract's cases
# against a real foldsyncd, the RFC 6902 suite, the shared vectors. Builds
# nothing: the daemon is $FOLDSYNCD, else .build/debug/foldsyncd. Needs node
# 20 or later (no npm packages). Exit status non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
export FOLDSYNCD=${FOLDSYNCD:-$PWD/.build/debug/foldsyncd}
if [ ! -x "$FOLDSYNCD" ]; then
  echo "js-client tests: $FOLDSYNCD is missing; run 'swift build --product foldsyncd' or set FOLDSYNCD" >&2
  exit 1
fi
# Node 22 has a WebSocket of its own; Node 20 needs the flag (and 22 refuses
# a flag it no longer knows only from version 23 on, so ask rather than guess).
flags=()
if ! node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)'; then flags+=(--experimental-websocket); fi
# Files run side by side (at least two at once, whatever the cores): most of
# their time is spent waiting on the daemon, and quiet.test.mjs waits three
# minutes on its own.
jobs=$(( $(nproc) > 2 ? $(nproc) : 2 ))
exec node "${flags[@]}" --test --test-concurrency="$jobs" Tests/js-client/
