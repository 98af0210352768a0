#!/usr/bin/env bash
# The same commit on another Debian release (default: Debian 13, trixie,
# libwebsockets 4.3), as root. In a debootstrapped root of that release with
# the host's Swift toolchain bound at /opt/swift (Tests/debian/root.sh):
#   suite    the whole Swift suite, unit and live (the real daemon on that
#            release's libwebsockets, SQLite, OpenSSL and PostgreSQL), built
#            from a copy of the checkout in .build/debian-SUITE/src;
#   deb      make deb there (foldsync_VERSION~debNNu1_amd64.deb, and the next
#            version for the package test's upgrade), lintian of that release;
#   package  the package test (Tests/package/run.sh) on a fresh root of it;
#   upgrade  a Debian 12 host with the Debian 12 package and boards in its
#            store upgraded to this release, then this package installed over
#            it (Tests/package/upgrade.sh).
#
#   Tests/debian/run.sh [suite] [deb] [package] [upgrade]    (default: all four)
#
# Environment: FOLDSYNC_DEBIAN_SUITE (trixie), FOLDSYNC_DEB12 (the Debian 12
# package for the upgrade; default: make deb's on this host),
# FOLDSYNC_CONFORMANCE_DIR (bound inside for the JSON Patch suite).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
export LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
source Tests/debian/root.sh

suite=${FOLDSYNC_DEBIAN_SUITE:-trixie}
# The upgrade starts from this host's own package: a Debian 12 one.
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] || { echo "debian-$suite: runs on a Debian 12 host (this is ${PRETTY_NAME:-unknown}); on Debian 13, make test runs the suite itself" >&2; exit 1; }
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(suite deb package upgrade)
work=$PWD/.build/debian-$suite
root=$work/root
src=$work/src
mkdir -p "$work"

step() { echo "== debian-$suite: $*"; }
fail() { echo "debian-$suite: FAIL: $*" >&2; exit 1; }
cleanup() { root_release "$root"; }
trap cleanup EXIT

root_release "$root"
rm -rf --one-file-system "$root"
step "a $suite root with the build and test packages ($work)"
debian_root "$suite" "$root" "${trixie_build_packages[@]}" || fail "the $suite root"
grep -q "VERSION_CODENAME=$suite" "$root/etc/os-release" || fail "the root is not $suite: $(grep CODENAME "$root/etc/os-release")"
echo "  $(. "$root/etc/os-release"; echo "$PRETTY_NAME"), libwebsockets $(in_root "$root" dpkg-query -W -f='${Version}' libwebsockets-dev)"

# A copy of the checkout (tracked and new files), so that its .build is this
# release's alone: the tests find their executables under the package's .build.
step "the checkout copied to $src"
checkout_copy "$src"
mkdir -p "$src/.build"
root_bind "$root" /opt/swift "$src"
mount -o remount,bind,ro "$root/opt/swift"
conformance=${FOLDSYNC_CONFORMANCE_DIR:-}
if [ -z "$conformance" ]; then
  for d in "$PWD/../shared/conformance" /work/shared/conformance; do [ -f "$d/json-patch-tests/tests.json" ] && { conformance=$(cd "$d" && pwd); break; }; done
fi
[ -n "$conformance" ] || fail "the JSON Patch conformance suite (../shared/conformance) is missing"
root_bind "$root" "$conformance"
build() { in_root "$root" sh -c "cd '$src' && $*"; }
# This release's package version (~debNNu1), as its make deb names it.
version=$(build packaging/deb-version.sh)

for s in "${steps[@]}"; do
  case "$s" in
  suite)
    step "swift build --build-tests on $suite"
    t0=$SECONDS
    build "swift build --build-tests >'$src/.build/root-build.log' 2>&1" || { tail -30 "$src/.build/root-build.log"; fail "the build"; }
    echo "  built in $((SECONDS - t0)) s"
    step "the Swift suite on $suite (the live tests against its libwebsockets)"
    t0=$SECONDS
    build "FOLDSYNC_CONFORMANCE_DIR='$conformance' FOLDSYNC_JWT_PYTHON=/usr/bin/python3 swift test --skip-build --experimental-maximum-parallelization-width 8" \
      >"$work/suite.log" 2>&1 || { grep -E "error|failed|✘" "$work/suite.log" | tail -60; fail "the suite (log: $work/suite.log)"; }
    grep -E "^(Test Suite 'All tests'|Executed|✔ Test run|.*Test run with)" "$work/suite.log" | tail -4 | sed 's/^/  /'
    echo "  ran in $((SECONDS - t0)) s"
    ;;
  deb)
    step "make deb on $suite"
    t0=$SECONDS
    build "make deb >'$src/.build/root-deb.log' 2>&1" || { tail -30 "$src/.build/root-deb.log"; fail "make deb"; }
    deb=$src/.build/deb/foldsync_${version}_amd64.deb
    [ -f "$deb" ] || fail "$deb was not made"
    build "packaging/build-deb.sh --version '$version+pkgtest1' --bin .build/static/release --out .build/deb-next >'$src/.build/root-deb-next.log' 2>&1" \
      || { tail -30 "$src/.build/root-deb-next.log"; fail "the next version"; }
    echo "  $(basename "$deb") in $((SECONDS - t0)) s: $(du -h "$deb" | cut -f1)"
    step "lintian ($suite's) on it"
    in_root "$root" lintian --info "$deb" >"$work/lintian.txt" 2>&1 || true
    sed 's/^/  /' "$work/lintian.txt"
    ! grep -q '^[EW]:' "$work/lintian.txt" || fail "lintian reports errors or warnings"
    in_root "$root" dpkg-deb -f "$deb" Version Depends | sed 's/^/  /'
    listing=$(in_root "$root" dpkg-deb -c "$deb")
    grep -q ' \./usr/lib/systemd/system/foldsyncd.service$' <<<"$listing" || fail "the unit is not under /usr/lib/systemd/system"
    echo "  the units under /usr/lib/systemd/system (merged /usr)"
    ;;
  package)
    step "the package test on a fresh $suite root"
    root_release "$root"
    FOLDSYNC_DEB_SUITE=$suite FOLDSYNC_STATIC_BIN=$src/.build/static/release FOLDSYNC_NEXT_DEB=$src/.build/deb-next/foldsync_${version}+pkgtest1_amd64.deb \
      FOLDSYNC_LINTIAN=elsewhere Tests/package/run.sh "$src/.build/deb/foldsync_${version}_amd64.deb"
    ;;
  upgrade)
    root_release "$root"
    old=${FOLDSYNC_DEB12:-.build/deb/foldsync_$(packaging/deb-version.sh)_amd64.deb}
    [ -f "$old" ] || fail "$old is missing (make deb on the Debian 12 host)"
    step "Debian 12 with $(basename "$old") upgraded to $suite, then $(basename "$src/.build/deb/foldsync_${version}_amd64.deb")"
    Tests/package/upgrade.sh "$old" "$src/.build/deb/foldsync_${version}_amd64.deb" "$suite"
    ;;
  *) fail "no step $s (suite, deb, package, upgrade)" ;;
  esac
done
echo "debian-$suite: ok (${steps[*]})"
