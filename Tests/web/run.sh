#!/usr/bin/env bash
# The dashboard's browser tests: a real foldsyncd, headless Chromium, Selenium.
# Builds nothing: expects .build/debug/foldsyncd (and .build/debug/foldsync
# for the `watch` test). Needs Debian's chromium, chromium-driver,
# fonts-wqy-microhei and python3-venv; pip installs selenium into
# .build/web-venv. Exit status non-zero on any failure; the daemon is always
# stopped.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DAEMON=$ROOT/.build/debug/foldsyncd
if [ ! -x "$DAEMON" ]; then
  echo "web tests: $DAEMON is missing; run 'swift build --product foldsyncd' first" >&2
  exit 1
fi
for bin in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$bin" ] || { echo "web tests: $bin is missing; apt-get install chromium chromium-driver fonts-wqy-microhei" >&2; exit 1; }
done

VENV=$ROOT/.build/web-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import selenium" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "selenium>=4.20,<5"
fi
export SE_OFFLINE=true SE_AVOID_STATS=true   # never let Selenium Manager reach the network

TMP=$(mktemp -d "${TMPDIR:-/tmp}/foldsync-web.XXXXXX")
export FOLDSYNC_WEB_DB=$TMP/web.db FOLDSYNC_WEB_LOG=$TMP/daemon.log FOLDSYNC_WEB_PIDFILE=$TMP/daemon.pid
stop_daemon() {
  local pid
  pid=$(cat "$FOLDSYNC_WEB_PIDFILE" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
}
cleanup() { stop_daemon; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$DAEMON" --listen 127.0.0.1:0 --db "$FOLDSYNC_WEB_DB" --web-root clients/web >"$FOLDSYNC_WEB_LOG" 2>&1 &
echo $! >"$FOLDSYNC_WEB_PIDFILE"
PORT=""
for _ in $(seq 150); do
  PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$FOLDSYNC_WEB_LOG" | head -n1)
  [ -n "$PORT" ] && break
  kill -0 "$(cat "$FOLDSYNC_WEB_PIDFILE")" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$PORT" ]; then
  echo "web tests: foldsyncd did not start:" >&2; cat "$FOLDSYNC_WEB_LOG" >&2; exit 1
fi
export FOLDSYNC_WEB_PORT=$PORT
echo "web tests: foldsyncd on 127.0.0.1:$PORT"

mkdir -p .build/web-artifacts
status=0
(cd Tests/web && "$VENV/bin/python" -m unittest -v "${@:-test_dashboard}") || status=$?
if [ $status -ne 0 ]; then
  echo "web tests: FAILED; daemon log follows" >&2
  tail -n 40 "$FOLDSYNC_WEB_LOG" >&2
fi
exit $status
