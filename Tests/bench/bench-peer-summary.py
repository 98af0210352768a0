#!/usr/bin/env python3
"""The side-by-side table of a bench-peer.sh window: medians of the runs per
scenario and server, and foldsyncd's ratio to uWebSockets (lower is better for
latency, CPU and RSS; higher for rates). "core µs/delivery" is all of the
server's core (0) over the phase: the server and the kernel work it leaves to
ksoftirqd, which the server's own CPU time does not count. "commits > 10 ms" is
foldsyncd's own count per run (from /metrics): every change waits for its
commit, so one stalled disk flush is in that run's tail; disk-flush.jsonl is
the same disk measured without any server before and after the window."""
import json, pathlib, statistics, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results-peer")
window = root / "window.txt"
if window.exists():
    print(window.read_text().strip())
print()
print("| scenario | server | runs | complete % | p50 ms | p99 ms | CPU µs/delivery | core µs/delivery | peak RSS MiB | commits > 10 ms | best rate/s |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
ratios = []
for f in sorted(root.glob("*.jsonl")):
    if f.name == "disk-flush.jsonl":
        continue
    by = {}
    for line in f.read_text().splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            by.setdefault(r["server"], []).append(r)
    med = {}
    for server, runs in sorted(by.items()):
        m = lambda get: statistics.median(get(r) for r in runs)
        if "ramp_best_rate" in runs[0] or "ramp" in runs[0]:
            best = m(lambda r: r.get("ramp_best_rate") or 0)
            med[server] = {"rate": best}
            rates = [r.get("ramp_best_rate") or 0 for r in runs]
            print(f"| {f.stem} | {server} | {len(runs)} | | | | | | | | {best:g} (runs {', '.join(f'{x:g}' for x in rates)}) |")
            continue
        p99s = [r["latency_ms"]["p99"] for r in runs]
        d = {
            "complete": m(lambda r: r["completeness_percent"]),
            "p50": m(lambda r: r["latency_ms"]["p50"]),
            "p99": m(lambda r: r["latency_ms"]["p99"]),
            "cpu": m(lambda r: r.get("daemon_cpu_us_per_delivery") or 0),
            "core": m(lambda r: r.get("server_core_us_per_delivery") or 0),
            "rss": m(lambda r: r.get("daemon_peak_rss_mib") or 0),
        }
        med[server] = d
        core_text = f"{d['core']:.2f}" if d["core"] else "—"
        slow = [r["commits"]["over_10ms"] for r in runs if "commits" in r]
        slow_text = ", ".join(str(x) for x in slow) if slow else "—"
        print(f"| {f.stem} | {server} | {len(runs)} | {d['complete']:.1f} | {d['p50']:.2f} | {d['p99']:.2f} "
              f"(runs {', '.join(f'{x:.1f}' for x in p99s)}) | {d['cpu']:.2f} | {core_text} | {d['rss']:.1f} | {slow_text} | |")
    if "uws" in med:
        for server in med:
            if server == "uws":
                continue
            a, b = med[server], med["uws"]
            if "rate" in a:
                ratios.append(f"{f.stem}: {server} best rate {a['rate']:g}/s vs uWS {b['rate']:g}/s = {a['rate'] / max(b['rate'], 1):.2f}x")
            else:
                core = (f", core {a['core'] / b['core']:.2f}x" if a.get('core') and b.get('core') else "")
                ratios.append(f"{f.stem}: {server}/uWS p99 {a['p99'] / max(b['p99'], 1e-9):.2f}x, CPU per delivery "
                              f"{a['cpu'] / max(b['cpu'], 1e-9):.2f}x{core}, RSS {a['rss'] - b['rss']:+.1f} MiB")
print()
for r in ratios:
    print("- " + r)
disk = root / "disk-flush.jsonl"
if disk.exists():
    print()
    for line in disk.read_text().splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            print(f"- disk flush {d.get('when', '')}: {d['flushes']} in {d['seconds']:g} s, median {d['median_ms']:.2f} ms, "
                  f"p99 {d['p99_ms']:.2f} ms, max {d['max_ms']:.1f} ms, over 10 ms: {d['over_10ms']} "
                  + " ".join(f"(at {t:g} s: {ms:g} ms)" for t, ms in d["stalls_at_s_ms"]))
