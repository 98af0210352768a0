#!/usr/bin/env bash
# The package version for the Debian release this runs on: the program's
# version (Sources/FoldCore/Support/Version.swift) with ~debNNu1, NN the
# release's major version (0.1.0~deb12u1 on Debian 12, 0.1.0~deb13u1 on
# Debian 13), so that a host upgraded from 12 to 13 takes the Debian 13
# package as an upgrade (~deb13u1 sorts after ~deb12u1, and both before a
# plain 0.1.0). `--codename` prints the release's codename instead, the
# changelog's distribution.
set -euo pipefail
cd "$(dirname "$0")/.."
. /etc/os-release
if [ "${1:-}" = --codename ]; then
  echo "${VERSION_CODENAME:?no VERSION_CODENAME in /etc/os-release}"
  exit 0
fi
version=$(sed -n 's/^ *public static let string = "\(.*\)"$/\1/p' Sources/FoldCore/Support/Version.swift)
[ -n "$version" ] || { echo "deb-version: no version in Sources/FoldCore/Support/Version.swift" >&2; exit 1; }
case "${ID:-}:${VERSION_ID:-}" in
  debian:[0-9]*) echo "$version~deb${VERSION_ID%%.*}u1" ;;
  *) echo "deb-version: not a Debian release with a number ($ID ${VERSION_ID:-testing/unstable}): give build-deb.sh --version" >&2; exit 1 ;;
esac
