#!/usr/bin/env python3
"""The daemon's start on a large store: BOARDS boards of SECTIONS sections
each, with CHANGES changes of history each, written through the HTTP API
of a first daemon; then RUNS starts of the daemon on that store, each timed
from exec to its READY=1 (sd_notify, the socket this script listens on), with
its resident memory once ready, and a board's first and second GET, and the
same for an empty store beside it.
Prints one JSON line per start and the medians.

    bench-cold-start.py [--bin .build-release/release/foldsyncd] [--boards 1000]
                        [--sections 1000] [--changes 10] [--runs 3] [--keep DIR]

Loopback only; every wait is bounded."""
import argparse, concurrent.futures, http.client, json, os, signal, socket, statistics, subprocess, sys, tempfile, time


def start(binary, db, extra=()):
    """Starts the daemon; returns (process, port, seconds to READY=1, RSS in KiB at READY=1).
    A start that fails leaves no daemon behind."""
    started = []
    try:
        return _start(binary, db, extra, started)
    except BaseException:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait()
        raise


def _start(binary, db, extra, started):
    notify_dir = tempfile.mkdtemp(prefix="fs-notify-")
    path = os.path.join(notify_dir, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0.2)
    env = dict(os.environ, NOTIFY_SOCKET=path)
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--db", db, "--max-boards", "100000",
                          "--max-actions-per-second", "1000000", "--action-burst", "1000000", *extra],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    started.append(p)
    ready = None
    deadline = t0 + 300
    while ready is None and time.monotonic() < deadline:
        if p.poll() is not None:
            raise SystemExit(f"the daemon stopped at start: {p.stderr.read()}")
        try:
            msg = sock.recv(4096).decode()
        except socket.timeout:
            continue
        if "READY=1" in msg.split("\n"):
            ready = time.monotonic() - t0
    sock.close()
    os.unlink(path)
    os.rmdir(notify_dir)
    if ready is None:
        p.kill()
        raise SystemExit("no READY=1 within 300 s")
    rss = rss_kib(p.pid)
    port = None
    line_deadline = time.monotonic() + 30
    while port is None and time.monotonic() < line_deadline:
        line = p.stderr.readline()
        if "listening on 127.0.0.1:" in line:
            port = int(line.split("listening on 127.0.0.1:", 1)[1].split()[0])
    if port is None:
        p.kill()
        raise SystemExit("no 'listening on' line")
    return p, port, ready, rss


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def stop(p):
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        raise SystemExit("the daemon did not stop within 120 s")


def request(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"content-type": "application/json"})
    r = c.getresponse()
    data = r.read()
    c.close()
    if r.status >= 300:
        raise SystemExit(f"{method} {path}: {r.status} {data[:200]!r}")
    return data


def fill(binary, db, boards, sections, changes):
    p, port, _, _ = start(binary, db)
    t0 = time.monotonic()

    def one(b):
        name = f"b{b:04d}"
        doc = {"mode": "multi", "sections": [
            {"id": f"s{i}", "title": f"Section {i} of {name}", "items": [f"item {i}.1", f"item {i}.2"], "expanded": False}
            for i in range(sections)]}
        request(port, "PUT", f"/api/boards/{name}", doc)
        for k in range(changes):
            request(port, "POST", f"/api/boards/{name}/actions", {"type": "toggle", "section": f"s{k % sections}"})

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(one, range(boards)))
    filled = time.monotonic() - t0
    stop(p)
    return filled


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--bin", default=".build-release/release/foldsyncd")
    a.add_argument("--boards", type=int, default=1000)
    a.add_argument("--sections", type=int, default=1000)
    a.add_argument("--changes", type=int, default=10)
    a.add_argument("--runs", type=int, default=3)
    a.add_argument("--keep", help="a folder for the stores (kept, and reused when it holds them)")
    args = a.parse_args()
    folder = args.keep or tempfile.mkdtemp(prefix="fs-cold-")
    os.makedirs(folder, exist_ok=True)
    big = os.path.join(folder, f"big-{args.boards}x{args.sections}x{args.changes}.db")
    empty = os.path.join(folder, "empty.db")
    if not os.path.exists(big):
        s = fill(args.bin, big, args.boards, args.sections, args.changes)
        print(f"filled {args.boards} boards x {args.sections} sections, {args.changes} changes each, in {s:.1f} s; "
              f"store {os.path.getsize(big) / 1048576:.0f} MiB", file=sys.stderr)
    if not os.path.exists(empty):
        stop(start(args.bin, empty)[0])
    results = {"big": [], "empty": []}
    for _ in range(args.runs):
        for label, db in (("big", big), ("empty", empty)):
            p, port, ready, rss = start(args.bin, db)
            time.sleep(2)
            settled = rss_kib(p.pid)
            boards = len(json.loads(request(port, "GET", "/api/boards"))["boards"])
            # A board's first GET after start (read from the store when the daemon holds only the catalog), then a second.
            name = "b0500" if label == "big" else "default"
            gets = []
            for _ in range(2):
                t0 = time.monotonic()
                request(port, "GET", f"/api/boards/{name}")
                gets.append(round((time.monotonic() - t0) * 1000, 2))
            stop(p)
            r = {"store": label, "boards": boards, "ready_s": round(ready, 3), "rss_ready_kib": rss, "rss_2s_kib": settled,
                 "first_get_ms": gets[0], "second_get_ms": gets[1]}
            results[label].append(r)
            print(json.dumps(r))
    for label, rs in results.items():
        print(f"{label}: {rs[0]['boards']} boards; READY=1 after {statistics.median(r['ready_s'] for r in rs):.3f} s, "
              f"RSS {statistics.median(r['rss_ready_kib'] for r in rs) / 1024:.1f} MiB at ready, "
              f"{statistics.median(r['rss_2s_kib'] for r in rs) / 1024:.1f} MiB 2 s later; a board's first GET "
              f"{statistics.median(r['first_get_ms'] for r in rs):.1f} ms, its second {statistics.median(r['second_get_ms'] for r in rs):.1f} ms "
              f"(medians of {len(rs)})")
    if not args.keep:
        for f in os.listdir(folder):
            os.unlink(os.path.join(folder, f))
        os.rmdir(folder)


if __name__ == "__main__":
    main()
