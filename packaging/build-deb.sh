#!/usr/bin/env bash
# Builds foldsync_VERSION_amd64.deb from executables already built (make static):
# stages them with the man pages (made by their hidden --man), the dashboard,
# the docs, the configuration and the units (made from systemd/ for /usr and a
# system user) beside packaging/debian/, then runs dpkg-buildpackage (debhelper:
# stripping, dpkg-shlibdeps, the units' maintainer-script snippets, conffiles).
#
#   packaging/build-deb.sh [--version V] [--bin DIR] [--out DIR]
#
# VERSION defaults to packaging/deb-version.sh's: --version's with ~debNNu1 for
# the Debian release this runs on, whose codename the changelog names.
set -euo pipefail
cd "$(dirname "$0")/.."

version="" bin=".build/static/release" out=".build/deb"
while [ $# -gt 0 ]; do
  case "$1" in
    --version) version="$2"; shift 2 ;;
    --bin) bin="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--version V] [--bin DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -n "$version" ] || version=$(packaging/deb-version.sh)
codename=$(packaging/deb-version.sh --codename)
for exe in foldsyncd foldsync; do
  [ -x "$bin/$exe" ] || { echo "build-deb: $bin/$exe is missing (make static)" >&2; exit 1; }
done
if [ "$("$bin/foldsyncd" --version)" != "foldsyncd ${version%%[+~-]*}" ]; then
  echo "build-deb: $bin/foldsyncd says '$("$bin/foldsyncd" --version)', the package would be $version" >&2
  exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
src="$out/foldsync-$version"
rm -rf "$src" "$out/foldsync_${version}_"*
mkdir -p "$src"/stage/{bin,man,web,js,doc,etc}
cp -r packaging/debian "$src/debian"

# The changelog dpkg reads the version from; its date is the last commit's, so
# that a rebuild of one commit gives the same package.
when=$(git log -1 --format=%ct 2>/dev/null || date +%s)
cat >"$src/debian/changelog" <<EOF
foldsync ($version) $codename; urgency=medium

  * Release $version: the daemon, the terminal client and the dashboard
    (the project's history is its git log).

 -- $(sed -n 's/^Maintainer: //p' packaging/debian/control)  $(date -u -R -d "@$when")
EOF

# The units of systemd/ (written for make install's /usr/local and a dynamic
# user), for /usr and the package's system user.
for unit in foldsyncd.service foldsync-backup.service foldsync-backup.timer; do
  sed -e 's|/usr/local/bin/|/usr/bin/|g' \
      -e 's|^Documentation=.*|Documentation=man:foldsyncd(8) file:///usr/share/doc/foldsync/|' \
      -e 's|^DynamicUser=yes$|User=foldsync\nGroup=foldsync|' \
      -e '/^User=foldsyncd$/d' \
      -e 's|^# The daemon.s own dynamic user (named after its unit), so the store stays$|# The daemon'"'"'s user, so the store stays|' \
      "systemd/$unit" >"$src/debian/foldsync.$unit"
done
if grep -q -e '/usr/local' -e 'DynamicUser' "$src"/debian/foldsync.foldsync*.service "$src"/debian/foldsync.foldsync*.timer; then
  echo "build-deb: a unit still names /usr/local or a dynamic user" >&2
  exit 1
fi

cp "$bin/foldsyncd" "$bin/foldsync" "$src/stage/bin/"
"$bin/foldsyncd" --man >"$src/stage/man/foldsyncd.8"
"$bin/foldsync" --man >"$src/stage/man/foldsync.1"
# The page and its modules; package.json only tells node's test runner they are modules.
find clients/web -maxdepth 1 -type f ! -name package.json -exec cp {} "$src/stage/web/" \;
# The client library, which the daemon serves at /lib/ from the js folder beside the web root (the page imports it).
cp clients/js/*.js clients/js/foldsync.d.ts "$src/stage/js/"
cp README.md docs/OPERATIONS.md docs/PACKAGING.md docs/PROTOCOL.md docs/SECURITY.md docs/CLUSTER.md "$src/stage/doc/"
sed -e 's|/usr/local/share/foldsync/web|/usr/share/foldsync/web|' systemd/foldsyncd.conf.example >"$src/stage/etc/foldsyncd.conf"

# -d: the Build-Depends (the Swift toolchain) are not Debian packages; the binaries are built already.
(cd "$src" && SOURCE_DATE_EPOCH=$when dpkg-buildpackage -b -d -us -uc --no-check-builddeps >"$out/dpkg-buildpackage.log" 2>&1) || {
  tail -40 "$out/dpkg-buildpackage.log" >&2
  exit 1
}
deb="$out/foldsync_${version}_amd64.deb"
[ -f "$deb" ] || { echo "build-deb: $deb was not made (see $out/dpkg-buildpackage.log)" >&2; exit 1; }
echo "$deb"
