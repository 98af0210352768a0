#!/usr/bin/env bash
# bench-peer.sh with the daemon built on Debian 13 (libwebsockets 4.3.5)
# beside the Debian 12 build and uWebSockets, in one window, as root: the
# trixie root of Tests/debian/run.sh, a release build there (the same commit,
# a copy of the checkout), run by chroot with the host's /tmp bound in.
#   Tests/debian/bench-peer.sh [scenario...]      (REPEAT, OUT as bench-peer.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "$(id -u)" != 0 ]; then exec sudo -E "$0" "$@"; fi
source Tests/debian/root.sh
work=$PWD/.build/debian-trixie
root=$work/root
src=$work/src
trap 'root_release "$root"' EXIT
root_release "$root"
rm -rf --one-file-system "$root"
debian_root trixie "$root" "${trixie_build_packages[@]}"
checkout_copy "$src"
root_bind "$root" /opt/swift "$src" /tmp
in_root "$root" sh -c "cd '$src' && swift build -c release --build-path .build-release --product foldsyncd 2>&1 | tail -1"
DEB13_ROOT=$root DEB13_BIN=$src/.build-release/release/foldsyncd SERVERS="${SERVERS:-foldsyncd foldsyncd-deb13 uws}" \
  Tests/bench/bench-peer.sh "$@"
