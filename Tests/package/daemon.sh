# The installed daemon in a root, run the way its unit runs it; sourced by
# Tests/package/run.sh and Tests/package/upgrade.sh, which set root, work
# and port and define fail:
#   start_daemon LABEL   the unit's ExecStart as foldsync; waits for /healthz
#                        and a log that names the dashboard ($work/daemon-LABEL.log)
#   stop_daemon          SIGTERM: exit status 0 and no -wal left behind

start_daemon() {
  local exec_start log=$work/daemon-$1.log
  exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/foldsyncd.service")
  chroot --userspec=foldsync:foldsync "$root" env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 STATE_DIRECTORY=/var/lib/foldsync $exec_start >"$log" 2>&1 &
  daemon=$!
  for _ in $(seq 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$daemon" 2>/dev/null || { cat "$log"; fail "the daemon stopped at start"; }
    sleep 0.1
  done
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$log"; fail "the daemon does not answer on $port"; }
  grep -q "dashboard: serving /usr/share/foldsync/web" "$log" || { cat "$log"; fail "the log does not say where the dashboard is"; }
  sed 's/^/  daemon: /' "$log"
}

stop_daemon() {
  kill -TERM "$daemon"
  wait "$daemon" || fail "the daemon's exit status on SIGTERM: $?"
  daemon=""
  [ ! -e "$root/var/lib/foldsync/foldsync.db-wal" ] || fail "a -wal is left after a clean stop"
}
