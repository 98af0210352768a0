#!/usr/bin/env bash
# The package on a Debian root that never saw Swift, as root:
#   1. lintian on the package: no error;
#   2. a minimal root (debootstrap --variant=minbase, cached under
#      .build/package-cache/) in a temporary folder; apt install ./the.deb there;
#   3. the user, the folders, the enabled units; systemd-analyze verify on the
#      installed units; ldd of the installed binaries names only files of the
#      root's Debian packages; --version with the host's toolchain hidden;
#   4. --check-config (ExecStartPre): 0 on the installed file, 2 and the reason
#      on a bad one;
#   5. the unit's ExecStart run as the foldsync user from the installed
#      configuration (its listen line edited locally), driven from outside
#      over loopback: a WebSocket subscribe and toggle, the dashboard's page
#      and the HTTP API; `foldsync load` and `foldsync show` inside the root;
#   6. a rebuilt package with a higher version installed over it: the boards
#      and the edited conffile survive;
#   7. apt remove keeps the data, the configuration and the user; apt purge
#      says what it deletes, and nothing of the package is left.
#
#   Tests/package/run.sh [DEB]     (default: .build/deb/foldsync_VERSION_amd64.deb, from make deb;
#                                   VERSION: packaging/deb-version.sh's)
#
# Environment: FOLDSYNC_STATIC_BIN (the executables make deb packaged, to
# rebuild the next version from), FOLDSYNC_DEB_SUITE (bookworm),
# FOLDSYNC_DEB_MIRROR (http://deb.debian.org/debian), FOLDSYNC_KEEP_ROOT=1
# (leave the root for a look after a failure), FOLDSYNC_NEXT_DEB (the next
# version, built already: Tests/debian/run.sh builds it on its release),
# FOLDSYNC_LINTIAN=elsewhere (the caller ran its release's lintian).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive

suite=${FOLDSYNC_DEB_SUITE:-bookworm}
mirror=${FOLDSYNC_DEB_MIRROR:-http://deb.debian.org/debian}
bin=${FOLDSYNC_STATIC_BIN:-.build/static/release}
deb=${1:-.build/deb/foldsync_$(packaging/deb-version.sh)_amd64.deb}
[ -f "$deb" ] || { echo "package-test: $deb is missing (make deb)" >&2; exit 1; }
# The package's own version (~deb12u1, ~deb13u1: the release it was built for).
version=$(dpkg-deb -f "$deb" Version)
program_version=${version%%[+~-]*}
next_version="$version+pkgtest1"
work=.build/package-test
cache=.build/package-cache/$suite-minbase.tar
mkdir -p "$work" "$(dirname "$cache")"

step() { echo "== package-test: $*"; }
fail() { echo "package-test: FAIL: $*" >&2; exit 1; }

root=""
daemon=""
cleanup() {
  set +e
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
  [ -n "$root" ] || return
  for m in "$root/dev" "$root/proc"; do mountpoint -q "$m" && umount -l "$m"; done
  if grep -q " $root/" /proc/mounts; then
    echo "package-test: $root still has mounts; left in place" >&2
  elif [ "${FOLDSYNC_KEEP_ROOT:-0}" = 1 ]; then
    echo "package-test: the root is kept in $root" >&2
  else
    rm -rf --one-file-system "$root"
  fi
}
trap cleanup EXIT

in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
as_foldsync() { chroot --userspec=foldsync:foldsync "$root" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 "$@"; }

if [ "${FOLDSYNC_LINTIAN:-}" = elsewhere ]; then
  # Tests/debian/run.sh ran the package's own release's lintian in its build root.
  step "lintian: run by the caller, with $suite's lintian"
else
  step "lintian $deb"
  lintian --info "$deb" >"$work/lintian.txt" 2>&1 || true
  cat "$work/lintian.txt"
  if grep -q '^E:' "$work/lintian.txt"; then fail "lintian reports errors"; fi
fi

if [ -n "${FOLDSYNC_NEXT_DEB:-}" ]; then
  next_deb=$FOLDSYNC_NEXT_DEB
  step "the next version ($next_version): $next_deb"
  [ "$(dpkg-deb -f "$next_deb" Version)" = "$next_version" ] || fail "$next_deb is not version $next_version"
else
  step "the next version ($next_version), repackaged from $bin"
  next_deb=$(packaging/build-deb.sh --version "$next_version" --bin "$bin" --out "$work/next" | tail -1)
fi

root=$(mktemp -d "${TMPDIR:-/tmp}/foldsync-root.XXXXXX")
# mkdtemp makes it 0700: no user but root could run anything inside.
chmod 0755 "$root"
if [ -f "$cache" ]; then
  step "a $suite root from the cache ($cache)"
  tar -C "$root" -xf "$cache"
else
  step "debootstrap --variant=minbase $suite (cached afterwards in $cache)"
  debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
  tar -C "$root" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
fi
[ ! -e "$root/opt/swift" ] || fail "the root has a Swift toolchain"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
cp /etc/resolv.conf "$root/etc/resolv.conf"

step "apt install ./$(basename "$deb") in the root"
cp "$deb" "$root/tmp/foldsync.deb"
cp "$next_deb" "$root/tmp/foldsync-next.deb"
in_root apt-get update -q >"$work/apt-update.log" 2>&1 || { cat "$work/apt-update.log"; fail "apt-get update in the root"; }
in_root apt-get install -y -q /tmp/foldsync.deb >"$work/apt-install.log" 2>&1 || { cat "$work/apt-install.log"; fail "apt install"; }
grep -E '^(Setting up|Unpacking) ' "$work/apt-install.log" | sed 's/^/  /'
in_root dpkg-query -W -f='${Status} ${Version}\n' foldsync | grep -qx "install ok installed $version" || fail "foldsync $version is not installed"

step "what the package installed"
for f in /usr/bin/foldsyncd /usr/bin/foldsync /usr/share/foldsync/web/index.html /usr/share/man/man8/foldsyncd.8.gz \
         /usr/share/man/man1/foldsync.1.gz /usr/share/doc/foldsync/copyright /usr/share/doc/foldsync/changelog.gz \
         /lib/systemd/system/foldsyncd.service /lib/systemd/system/foldsync-backup.service /lib/systemd/system/foldsync-backup.timer \
         /etc/foldsync/foldsyncd.conf; do
  [ -e "$root$f" ] || fail "$f is missing"
done
in_root getent passwd foldsync | grep -q ':/var/lib/foldsync:' || fail "no foldsync system user"
[ "$(in_root stat -c '%U:%G %a' /var/lib/foldsync)" = "foldsync:foldsync 700" ] || fail "/var/lib/foldsync: $(in_root stat -c '%U:%G %a' /var/lib/foldsync)"
[ "$(in_root stat -c '%U:%G %a' /etc/foldsync/foldsyncd.conf)" = "root:foldsync 640" ] || fail "the conffile's mode"
grep -qx /etc/foldsync/foldsyncd.conf "$root/var/lib/dpkg/info/foldsync.conffiles" || fail "foldsyncd.conf is not a conffile"
# Enabled on install (no systemd runs in the root, so nothing is started).
[ -L "$root/etc/systemd/system/multi-user.target.wants/foldsyncd.service" ] || fail "foldsyncd.service is not enabled"
[ -L "$root/etc/systemd/system/timers.target.wants/foldsync-backup.timer" ] || fail "foldsync-backup.timer is not enabled"
# The man page is the option table: every option --help lists is in it (roff writes - as \-).
zcat "$root/usr/share/man/man8/foldsyncd.8.gz" >"$work/foldsyncd.8"
for key in $(as_foldsync /usr/bin/foldsyncd --help | sed -n 's/^  --\([a-z-]*\).*/\1/p'); do
  grep -qF -- "$(printf '%s' "--$key" | sed 's/-/\\-/g')" "$work/foldsyncd.8" || fail "foldsyncd(8) lacks --$key"
done
zcat "$root/usr/share/man/man1/foldsync.1.gz" | grep -qF 'add\-section' || fail "foldsync(1) lacks its commands"

step "systemd-analyze verify on the installed units"
# The host's systemd (the root has none) on copies whose programs point into the root.
rm -rf "$work/units" && mkdir -p "$work/units"
for u in foldsyncd.service foldsync-backup.service foldsync-backup.timer; do
  sed "s|/usr/bin/foldsyncd|$root/usr/bin/foldsyncd|g" "$root/lib/systemd/system/$u" >"$work/units/$u"
done
out=$(cd "$work/units" && systemd-analyze verify --man=no ./foldsyncd.service ./foldsync-backup.service ./foldsync-backup.timer 2>&1) \
  || fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify: $out"
[ -x "$root/bin/kill" ] || fail "ExecReload's /bin/kill is not in the root (Depends: procps)"
grep -qx 'ExecStartPre=/usr/bin/foldsyncd --check-config' "$root/lib/systemd/system/foldsyncd.service" || fail "no ExecStartPre=--check-config"
grep -qx 'User=foldsync' "$root/lib/systemd/system/foldsyncd.service" || fail "the unit does not run as foldsync"

step "ldd: only the root's Debian packages"
for exe in /usr/bin/foldsyncd /usr/bin/foldsync; do
  libs=$(in_root ldd "$exe")
  if echo "$libs" | grep -q 'not found'; then fail "$exe: $(echo "$libs" | grep 'not found')"; fi
  if echo "$libs" | grep -qi swift; then fail "$exe needs Swift's libraries"; fi
  for lib in $(echo "$libs" | sed -n 's/.*=> \(\/[^ ]*\) .*/\1/p'); do
    in_root dpkg -S "$lib" >/dev/null 2>&1 || in_root dpkg -S "$(in_root readlink -f "$lib")" >/dev/null 2>&1 \
      || in_root dpkg -S "${lib#/usr}" >/dev/null 2>&1 || fail "$exe: $lib belongs to no package"
  done
  echo "  $exe: $(echo "$libs" | grep -c '=>') libraries, each from a Debian package"
done
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift || echo /opt/swift/usr/bin/swift)")")")")
if [ -d "$toolchain" ]; then
  # In the root, with its own libraries (a Debian 13 package needs Debian 13's), and the host's toolchain hidden too.
  got=$(unshare -m sh -c "mount --make-rprivate / && mount -t tmpfs none '$toolchain' && exec chroot '$root' env -i PATH=/usr/bin:/bin /usr/bin/foldsyncd --version")
  [ "$got" = "foldsyncd $program_version" ] || fail "with $toolchain hidden: '$got'"
  echo "  with $toolchain hidden: $got"
fi
[ "$(as_foldsync /usr/bin/foldsync --version)" = "foldsync $program_version" ] || fail "foldsync --version"

step "--check-config (the unit's ExecStartPre)"
as_foldsync /usr/bin/foldsyncd --check-config || fail "--check-config refuses the installed configuration"
printf 'listen = nowhere\nmax-boards = lots\n' >"$root/tmp/bad.conf"
chmod 0644 "$root/tmp/bad.conf"
set +e
why=$(as_foldsync /usr/bin/foldsyncd --check-config --config /tmp/bad.conf 2>&1)
rc=$?
set -e
[ $rc = 2 ] || fail "--check-config on a bad file: exit $rc (not 2)"
echo "$why" | grep -q listen && echo "$why" | grep -q max-boards || fail "--check-config did not say why: $why"
echo "$why" | sed 's/^/  /'

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The local edit that must survive the upgrade: another port (7681 may be taken here).
sed -i "s/^listen = .*/listen = 127.0.0.1:$port/" "$root/etc/foldsync/foldsyncd.conf"
echo "# edited by the package test" >>"$root/etc/foldsync/foldsyncd.conf"

# The unit's ExecStart, as the unit's user, with what systemd would hand over.
source Tests/package/daemon.sh
board_json() { curl -fsS "http://127.0.0.1:$port/api/boards/$1"; }
client() { chroot "$root" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 /usr/bin/foldsync --url "ws://127.0.0.1:$port/ws" "$@"; }

step "the installed daemon, as foldsync, from the unit's ExecStart"
start_daemon 1
[ "$(in_root stat -c %U /var/lib/foldsync/foldsync.db)" = foldsync ] || fail "the store is not the foldsync user's"
toggled=$(python3 Tests/package/ws_toggle.py "$port" default s1) || fail "WebSocket subscribe and toggle"
echo "  WebSocket: $toggled"
echo "$toggled" | grep -q '"path": "/sections/1/expanded", "value": true' || fail "the toggle's patch: $toggled"
curl -fsS "http://127.0.0.1:$port/b/default" >"$work/page.html"
cmp -s "$work/page.html" "$root/usr/share/foldsync/web/index.html" || fail "/b/default is not the installed dashboard"
curl -fsS -o /dev/null "http://127.0.0.1:$port/app.js" || fail "the dashboard's script"
curl -fsS "http://127.0.0.1:$port/lib/foldsync.js" >"$work/lib.js" || fail "the client library at /lib/foldsync.js"
cmp -s "$work/lib.js" "$root/usr/share/foldsync/js/foldsync.js" || fail "/lib/foldsync.js is not the installed library"
curl -fsS -o /dev/null "http://127.0.0.1:$port/lib/mirror.js" || fail "the library's mirror, which the dashboard imports"
echo "  dashboard: /b/default is the installed index.html, /app.js and /lib/foldsync.js served"
echo '{"mode":"multi","sections":[{"id":"a","title":"Alpha","items":["one"],"expanded":true}]}' >"$root/tmp/ops.json"
client --board ops load /tmp/ops.json >/dev/null || fail "foldsync load in the root"
client show | tee "$work/show-1.txt" | sed 's/^/  foldsync show: /'
grep -q '^▾ s1 ' "$work/show-1.txt" || fail "foldsync show does not show s1 expanded"
before_default=$(board_json default)
before_ops=$(board_json ops)
stop_daemon

step "upgrade to $next_version over it"
in_root apt-get install -y -q /tmp/foldsync-next.deb >"$work/apt-upgrade.log" 2>&1 || { cat "$work/apt-upgrade.log"; fail "the upgrade"; }
in_root dpkg-query -W -f='${Version}\n' foldsync | grep -qx "$next_version" || fail "not upgraded"
grep -qx "listen = 127.0.0.1:$port" "$root/etc/foldsync/foldsyncd.conf" && grep -q 'edited by the package test' "$root/etc/foldsync/foldsyncd.conf" \
  || fail "the edited conffile did not survive the upgrade"
! ls "$root"/etc/foldsync/*.dpkg-* >/dev/null 2>&1 || fail "dpkg left $(ls "$root"/etc/foldsync/*.dpkg-*)"
echo "  the edited conffile is kept"
start_daemon 2
[ "$(board_json default)" = "$before_default" ] || fail "the default board changed over the upgrade: $(board_json default)"
[ "$(board_json ops)" = "$before_ops" ] || fail "the ops board changed over the upgrade"
client --board ops show | grep -q Alpha || fail "foldsync show of ops after the upgrade"
echo "  both boards are as they were: $(board_json default | head -c 120)…"
stop_daemon

step "apt remove: the data, the configuration and the user stay"
in_root apt-get remove -y -q foldsync >"$work/apt-remove.log" 2>&1 || { cat "$work/apt-remove.log"; fail "apt remove"; }
grep 'foldsync:' "$work/apt-remove.log" | sed 's/^/  /'
[ ! -e "$root/usr/bin/foldsyncd" ] && [ ! -e "$root/lib/systemd/system/foldsyncd.service" ] || fail "remove left the programs"
[ -f "$root/var/lib/foldsync/foldsync.db" ] || fail "remove deleted the store"
grep -q 'edited by the package test' "$root/etc/foldsync/foldsyncd.conf" || fail "remove deleted the configuration"
in_root getent passwd foldsync >/dev/null || fail "remove deleted the user"
in_root dpkg-query -W -f='${db:Status-Abbrev}\n' foldsync | grep -q '^rc' || fail "not in the config-files state"

step "apt purge: says what it deletes, then nothing is left"
in_root apt-get purge -y -q foldsync >"$work/apt-purge.log" 2>&1 || { cat "$work/apt-purge.log"; fail "apt purge"; }
grep 'foldsync:' "$work/apt-purge.log" | sed 's/^/  /'
grep -q 'purge: deleting /etc/foldsync, the store /var/lib/foldsync' "$work/apt-purge.log" || fail "purge did not say what it deletes"
! in_root getent passwd foldsync >/dev/null || fail "purge left the user"
! in_root getent group foldsync >/dev/null || fail "purge left the group"
left=$(cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp \) -prune -o -name '*foldsync*' -print)
[ -z "$left" ] || fail "purge left: $left"
echo "  nothing named foldsync is left (outside /tmp)"
echo "package-test: ok"
