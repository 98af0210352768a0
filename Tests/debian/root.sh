# A Debian build root for one suite, sourced by Tests/debian/run.sh and
# Tests/package/upgrade.sh (as root):
#   debian_root SUITE DIR PACKAGE...   a minbase root at DIR with PACKAGE...
#                                      installed (cached, per suite and list,
#                                      under .build/package-cache/)
#   root_bind DIR PATH...              PATH bound at the same path inside
#   root_release DIR                   unmounts all of it (idempotent)
#   in_root DIR COMMAND...             COMMAND inside, with a clean environment
#   checkout_copy DEST                 the checkout's tracked and new files at DEST
#   trixie_build_packages              what a trixie root builds, tests and packages with
# The Swift toolchain is not a Debian package: a build root gets the host's
# /opt/swift bound read-only at the same path, so the same toolchain builds
# for each release against that release's C libraries.

debian_mirror=${FOLDSYNC_DEB_MIRROR:-http://deb.debian.org/debian}

# The toolchain's own runtime needs (Swift's Linux install guide), the C
# libraries' -dev packages, and the tools the suite drives (tmux, strace,
# PostgreSQL, systemd-analyze, openssl; the JWT tests' PyJWT is the
# release's own package, not pip's).
trixie_build_packages=(build-essential libcurl4t64 libxml2 libncurses6 libtinfo6 libsqlite3-0 libuuid1 zlib1g libedit2 git ca-certificates
  libwebsockets-dev libwebsockets-evlib-ev libwebsockets-evlib-uv libsqlite3-dev libssl-dev libpq-dev pkg-config
  python3 python3-jwt python3-cryptography procps openssl strace postgresql tmux systemd curl
  debhelper dpkg-dev binutils lintian)

# A copy of the checkout (tracked and new files, not .build), so that a
# root's build is that release's alone. tar keeps each file's time, so an
# unchanged file is not rebuilt on a second run.
checkout_copy() {
  mkdir -p "$1"
  git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$1" -xpf -
}

debian_root() {
  local suite=$1 dir=$2; shift 2
  local key; key=$(printf '%s\n' "$suite" "$@" | sha256sum | cut -c1-12)
  # A bare root is the package test's (Tests/package/run.sh): one cache for both.
  local cache=.build/package-cache/$suite-build-$key.tar
  [ $# -gt 0 ] || cache=.build/package-cache/$suite-minbase.tar
  mkdir -p "$dir" .build/package-cache
  chmod 0755 "$dir"
  if [ -f "$cache" ]; then
    tar -C "$dir" -xf "$cache"
  else
    debootstrap --variant=minbase "$suite" "$dir" "$debian_mirror" >"$dir.debootstrap.log" 2>&1 \
      || { tail -20 "$dir.debootstrap.log" >&2; return 1; }
    cp /etc/resolv.conf "$dir/etc/resolv.conf"
    if [ $# -gt 0 ]; then
      mount -t proc proc "$dir/proc"
      chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 \
        apt-get install -y -q --no-install-recommends "$@" >"$dir.apt.log" 2>&1 \
        || { umount "$dir/proc"; tail -30 "$dir.apt.log" >&2; return 1; }
      umount "$dir/proc"
      chroot "$dir" apt-get clean
    fi
    tar -C "$dir" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
  fi
  cp /etc/resolv.conf "$dir/etc/resolv.conf"
  # The root a mount of its own: inside, / is then a mount point, as on a
  # machine, which `unshare -m` (a test's private mount namespace) needs.
  mountpoint -q "$dir" || mount --bind "$dir" "$dir"
  mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
  mountpoint -q "$dir/dev" || mount --rbind /dev "$dir/dev"
  mountpoint -q "$dir/sys" || mount --rbind /sys "$dir/sys"
}

root_bind() {
  local dir=$1 path; shift
  for path in "$@"; do
    mkdir -p "$dir$path"
    mountpoint -q "$dir$path" || mount --bind "$path" "$dir$path"
  done
}

root_release() {
  local dir=$1 m
  [ -d "$dir" ] || return 0
  # Deepest first: a bind inside another comes off before it.
  for m in $(awk -v d="$dir" 'index($2, d "/") == 1 || $2 == d { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

in_root() {
  local dir=$1; shift
  chroot "$dir" env -i PATH=/opt/swift/usr/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive TERM=xterm-256color "$@"
}
