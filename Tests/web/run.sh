#!/usr/bin/env bash
# The dashboard's browser tests: a real foldsyncd, headless Chromium, Selenium.
# Builds nothing: expects .build/debug/foldsyncd, or $FOLDSYNCD (and
# .build/debug/foldsync, or $FOLDSYNC_CLIENT, for the `watch` test). Needs
# Debian's chromium, chromium-driver, fonts-wqy-microhei and python3-venv;
# pip installs selenium into .build/web-venv. Exit status non-zero on any
# failure; the daemon is always stopped.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
DAEMON=${FOLDSYNCD:-$ROOT/.build/debug/foldsyncd}
export FOLDSYNCD=$DAEMON   # harness.py restarts it
if [ ! -x "$DAEMON" ]; then
  echo "web tests: $DAEMON is missing; run 'swift build --product foldsyncd' first, or set FOLDSYNCD" >&2
  exit 1
fi
for bin in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$bin" ] || { echo "web tests: $bin is missing; apt-get install chromium chromium-driver fonts-wqy-microhei" >&2; exit 1; }
done

VENV=$ROOT/.build/web-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import selenium, jwt" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "selenium>=4.20,<5" "pyjwt>=2.8,<3"
fi
export SE_OFFLINE=true SE_AVOID_STATS=true   # never let Selenium Manager reach the network

TMP=$(mktemp -d "${TMPDIR:-/tmp}/foldsync-web.XXXXXX")
export FOLDSYNC_WEB_DB=$TMP/web.db FOLDSYNC_WEB_LOG=$TMP/daemon.log FOLDSYNC_WEB_PIDFILE=$TMP/daemon.pid
# A second daemon with tokens (test_tokens.py): fresh random secrets each run,
# only their hashes in its configuration file. The editor's secret holds a
# space and a slash, which a WebSocket subprotocol may not carry: the page
# must fall back to the `auth` message for it.
export FOLDSYNC_WEB_TOKEN_DB=$TMP/tokens.db FOLDSYNC_WEB_TOKEN_LOG=$TMP/tokens.log
export FOLDSYNC_WEB_TOKEN_PIDFILE=$TMP/tokens.pid FOLDSYNC_WEB_TOKEN_CONFIG=$TMP/tokens.conf
secret() { head -c 18 /dev/urandom | base64 | tr '+/' '-_'; }
export FOLDSYNC_WEB_SECRET_VIEWER="v-$(secret)" FOLDSYNC_WEB_SECRET_ADMIN="a-$(secret)"
export FOLDSYNC_WEB_SECRET_EDITOR="e $(secret)/x" FOLDSYNC_WEB_SECRET_OPSONLY="o-$(secret)"
export FOLDSYNC_WEB_SECRET_READER="r-$(secret)"
hash_token() { printf %s "$1" | "$DAEMON" hash-token; }

stop_daemon() {   # $1: its pidfile
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
}
cleanup() { stop_daemon "$FOLDSYNC_WEB_PIDFILE"; stop_daemon "$FOLDSYNC_WEB_TOKEN_PIDFILE"; rm -rf "$TMP"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

(
  umask 077
  echo "auth-timeout = 2"
  echo "token = viewer read,fold $(hash_token "$FOLDSYNC_WEB_SECRET_VIEWER")"
  echo "token = editor read,fold,edit $(hash_token "$FOLDSYNC_WEB_SECRET_EDITOR")"
  echo "token = admin read,fold,edit,admin $(hash_token "$FOLDSYNC_WEB_SECRET_ADMIN")"
  echo "token = opsonly read,fold,edit $(hash_token "$FOLDSYNC_WEB_SECRET_OPSONLY") ops-*"
  echo "token = reader read $(hash_token "$FOLDSYNC_WEB_SECRET_READER")"
) >"$FOLDSYNC_WEB_TOKEN_CONFIG"

# start_daemon DB LOG PIDFILE [ARGS...]: starts one in the background and
# prints its port once it listens.
start_daemon() {
  local db=$1 log=$2 pidfile=$3 port=""
  shift 3
  "$DAEMON" --listen 127.0.0.1:0 --db "$db" --web-root clients/web "$@" >"$log" 2>&1 &
  echo $! >"$pidfile"
  for _ in $(seq 150); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log" | head -n1)
    [ -n "$port" ] && break
    kill -0 "$(cat "$pidfile")" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "web tests: foldsyncd did not start:" >&2; cat "$log" >&2; return 1
  fi
  echo "$port"
}
FOLDSYNC_WEB_PORT=$(start_daemon "$FOLDSYNC_WEB_DB" "$FOLDSYNC_WEB_LOG" "$FOLDSYNC_WEB_PIDFILE")
FOLDSYNC_WEB_TOKEN_PORT=$(start_daemon "$FOLDSYNC_WEB_TOKEN_DB" "$FOLDSYNC_WEB_TOKEN_LOG" "$FOLDSYNC_WEB_TOKEN_PIDFILE" \
  --config "$FOLDSYNC_WEB_TOKEN_CONFIG")
export FOLDSYNC_WEB_PORT FOLDSYNC_WEB_TOKEN_PORT
echo "web tests: foldsyncd on 127.0.0.1:$FOLDSYNC_WEB_PORT; with tokens on 127.0.0.1:$FOLDSYNC_WEB_TOKEN_PORT"

mkdir -p .build/web-artifacts
status=0
[ $# -gt 0 ] || set -- test_dashboard test_optimistic test_tokens test_jwt test_large_board test_history test_focus test_library
(cd Tests/web && "$VENV/bin/python" -m unittest -v "$@") || status=$?
if [ $status -ne 0 ]; then
  echo "web tests: FAILED; daemon logs follow" >&2
  tail -n 40 "$FOLDSYNC_WEB_LOG" >&2
  echo "web tests: the daemon with tokens:" >&2
  tail -n 20 "$FOLDSYNC_WEB_TOKEN_LOG" >&2
fi
exit $status
