#!/usr/bin/env bash
# Refused WebSocket upgrades as a strict RFC 6455 client sees them: Python's
# `websockets` (pip-installed into .build/strict-venv) must read each
# refusal's status; and an old client's mirror built with PyPI's `jsonpatch`
# must equal GET through the extensions' changes (test_old_client_mirror). Builds nothing: expects .build/debug/foldsyncd. Needs
# python3-venv. Exit status non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export FOLDSYNC_DAEMON=${FOLDSYNC_DAEMON:-$ROOT/.build/debug/foldsyncd}
if [ ! -x "$FOLDSYNC_DAEMON" ]; then
  echo "strict-client tests: $FOLDSYNC_DAEMON is missing; run 'swift build --product foldsyncd' first" >&2
  exit 1
fi
VENV=$ROOT/.build/strict-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import websockets, jsonpatch" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "websockets>=14,<18" "jsonpatch>=1.33,<2"
fi
cd Tests/strict-client && exec "$VENV/bin/python" -m unittest -v test_refusals test_old_client_mirror
