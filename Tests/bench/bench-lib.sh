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

# start_daemon FOLDSYNCD LOG [ARGS...]: the daemon in the background on a free
# loopback port, with the action limits lifted (one publisher may send
# everything), plus ARGS; `PIN="taskset -c 0"` pins it. Sets daemon_pid and
# port (empty when it did not start within 15 s). stop_daemon ends it: TERM,
# then KILL after 10 s.
daemon_pid=""
start_daemon() {
    local exe=$1 log=$2; shift 2
    ${PIN:-} "$exe" --listen 127.0.0.1:0 --max-actions-per-second 1000000 --action-burst 1000000 "$@" >"$log" 2>&1 &
    daemon_pid=$!
    port="$(listening_port "$log")"
}
stop_daemon() {
    if [[ -n "$daemon_pid" ]] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill -TERM "$daemon_pid" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$daemon_pid" 2>/dev/null || true
    fi
    daemon_pid=""
}

# start_postgres DIR: a PostgreSQL server of its own in DIR (initdb, loopback,
# a free port, fsync on, trust auth); sets pgport. Stop it with
# stop_postgres DIR. As root the server runs as the postgres user.
pgbin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
as_pg() { if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi; }
start_postgres() {
    local dir=$1
    [[ "$(id -u)" == 0 ]] && chown postgres:postgres "$dir"
    pgport="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    as_pg "$pgbin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-locale >/dev/null
    as_pg "$pgbin/pg_ctl" -D "$dir/data" -l "$dir/pg.log" -w \
        -o "-c listen_addresses=127.0.0.1 -c port=$pgport -c unix_socket_directories=$dir -c max_connections=200" start >/dev/null
}
stop_postgres() { as_pg "$pgbin/pg_ctl" -D "$1/data" -m immediate -w stop >/dev/null 2>&1 || true; }
