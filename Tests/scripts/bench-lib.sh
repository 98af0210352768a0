# Shared by the benchmark scripts (sourced, not run): the release build they
# measure, and the port a server announces on its log's "listening on" line.
scratch=.build-release
bin="$scratch/release"

build_release() {
    timeout 3600 swift build -c release --product foldsyncd --scratch-path "$scratch" >&2
    timeout 3600 swift build -c release --product foldsync-bench --scratch-path "$scratch" >&2
}

# listening_port LOG: prints the port once LOG names it (at most 15 s), else nothing.
listening_port() {
    local port=""
    for _ in $(seq 150); do
        port="$(grep -o 'listening on 127.0.0.1:[0-9]*' "$1" | head -1 | cut -d: -f2 || true)"
        [[ -n "$port" ]] && break
        sleep 0.1
    done
    echo "$port"
}
