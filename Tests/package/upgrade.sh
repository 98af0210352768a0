#!/usr/bin/env bash
# The upgrade a real host makes, as root: a Debian 12 root with the Debian 12
# package installed and boards in its store (changes with history, a board
# made by `foldsync load`), upgraded to the next release the way Debian says
# (the suite switched in sources.list, apt full-upgrade), then that
# release's package installed over it. The boards, their epochs, revs,
# states and history must be as they were, and the daemon serves them.
#
#   Tests/package/upgrade.sh DEB12 DEB13 [SUITE]     (SUITE: trixie)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
source Tests/debian/root.sh
old=$1 new=$2 suite=${3:-trixie}
work=$PWD/.build/package-upgrade
root=$work/root
mkdir -p "$work"
step() { echo "== package-upgrade: $*"; }
fail() { echo "package-upgrade: FAIL: $*" >&2; exit 1; }
daemon=""
cleanup() {
  set +e
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  root_release "$root"
}
trap cleanup EXIT
root_release "$root"
rm -rf --one-file-system "$root"

step "a bookworm root with $(basename "$old")"
debian_root bookworm "$root" || fail "the bookworm root"
cp "$old" "$root/tmp/old.deb"
cp "$new" "$root/tmp/new.deb"
in_root "$root" apt-get update -q >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get update"; }
in_root "$root" apt-get install -y -q /tmp/old.deb >>"$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; fail "installing $old"; }
in_root "$root" dpkg-query -W -f='  installed: foldsync ${Version}\n' foldsync

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -i "s/^listen = .*/listen = 127.0.0.1:$port/" "$root/etc/foldsync/foldsyncd.conf"
source Tests/package/daemon.sh
api() { curl -fsS "http://127.0.0.1:$port/api/$1"; }
act() { curl -fsS -X POST -H 'Content-Type: application/json' --data "$2" "http://127.0.0.1:$port/api/boards/$1/actions" >/dev/null; }
# Everything the upgrade must keep: each board's epoch, rev and state, and its history.
snapshot() {
  api boards
  for b in default ops; do api "boards/$b"; echo; api "boards/$b/history?limit=1000"; echo; done
}

step "boards and history under the Debian 12 package"
start_daemon 12
echo '{"mode":"multi","sections":[{"id":"a","title":"Alpha","items":["one"],"expanded":true},{"id":"b","title":"Beta","items":[],"expanded":false}]}' >"$root/tmp/ops.json"
chroot "$root" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 /usr/bin/foldsync --url "ws://127.0.0.1:$port/ws" --board ops load /tmp/ops.json >/dev/null \
  || fail "foldsync load"
for i in 1 2 3; do act default '{"type":"toggle","section":"s1"}'; act ops '{"type":"toggle","section":"b"}'; done
act ops '{"type":"setTitle","section":"a","title":"Alpha, kept across releases"}'
snapshot >"$work/before.txt"
grep -q 'kept across releases' "$work/before.txt" || fail "the boards were not written: $(head -c 400 "$work/before.txt")"
echo "  $(api boards)"
stop_daemon

step "apt full-upgrade to $suite"
sed -i "s/\bbookworm\b/$suite/g" "$root/etc/apt/sources.list"
t0=$SECONDS
in_root "$root" apt-get update -q >"$work/full-upgrade.log" 2>&1 || { tail -30 "$work/full-upgrade.log"; fail "apt-get update ($suite)"; }
in_root "$root" apt-get full-upgrade -y -q -o Dpkg::Options::=--force-confold >>"$work/full-upgrade.log" 2>&1 \
  || { tail -40 "$work/full-upgrade.log"; fail "apt full-upgrade"; }
echo "  $(. "$root/etc/os-release"; echo "$PRETTY_NAME") in $((SECONDS - t0)) s; foldsync: $(in_root "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Version}' foldsync)"
grep -q "VERSION_CODENAME=$suite" "$root/etc/os-release" || fail "the root is not $suite after the upgrade"

step "$(basename "$new") installed over it"
in_root "$root" apt-get install -y -q /tmp/new.deb >"$work/apt-new.log" 2>&1 || { tail -30 "$work/apt-new.log"; fail "installing $new"; }
grep -E '^(Unpacking|Setting up) foldsync|warning' "$work/apt-new.log" | sed 's/^/  /' || true
[ "$(in_root "$root" dpkg-query -W -f='${Version}' foldsync)" = "$(dpkg-deb -f "$new" Version)" ] || fail "the $suite package is not installed"
grep -qx "listen = 127.0.0.1:$port" "$root/etc/foldsync/foldsyncd.conf" || fail "the edited configuration was not kept"
start_daemon 13
snapshot >"$work/after.txt"
diff "$work/before.txt" "$work/after.txt" >"$work/diff.txt" || { cat "$work/diff.txt"; fail "the boards or their history changed over the upgrade"; }
echo "  boards, epochs, revs, states and history as they were: $(api boards)"
act ops '{"type":"toggle","section":"a"}'
[ "$(api boards/ops | python3 -c 'import json,sys; print(json.load(sys.stdin)["rev"])')" -gt "$(grep -o '"board":"ops"[^}]*' "$work/before.txt" | head -1 | sed 's/.*"rev":\([0-9]*\).*/\1/')" ] \
  || fail "the upgraded daemon did not take a new change"
echo "  a new change lands on top: $(api boards)"
stop_daemon
echo "package-upgrade: ok"
