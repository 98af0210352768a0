#!/usr/bin/env python3
"""Medians of the runs in a results folder (default bench-results/, written by
bench-suite.sh; bench-cluster.sh's folder too, writer runs included)."""
import json, pathlib, statistics, sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "bench-results")
for f in sorted(root.glob("*.jsonl")):
    runs = [json.loads(l) for l in f.read_text().splitlines() if l.startswith("{")]
    if not runs:
        continue
    med = lambda get: statistics.median(get(r) for r in runs)
    if "ramp" in runs[0]:
        best = [r.get("ramp_best_rate", 0) for r in runs]
        print(f"{f.stem}: runs {len(runs)}, best rates {best}, median {statistics.median(best)}")
        continue
    if runs[0].get("mode") == "writers":
        print(f"{f.stem}: runs {len(runs)}, acked changes/s median {med(lambda r: r['acks_per_second']):.0f} "
              f"(runs {[round(r['acks_per_second']) for r in runs]}), ack p50 {med(lambda r: r['ack_ms']['p50']):.2f} "
              f"p99 {med(lambda r: r['ack_ms']['p99']):.2f} ms, errors {[r['errors'] for r in runs]}, "
              f"unanswered {[r['unanswered'] for r in runs]}, checks {[r['check_ok'] for r in runs]}, "
              f"accordion {[r['accordion_holds'] for r in runs]}")
        continue
    cpu = [r["daemon_cpu_us_per_delivery"] for r in runs if "daemon_cpu_us_per_delivery" in r]
    rss = [r["daemon_peak_rss_mib"] for r in runs if "daemon_peak_rss_mib" in r]
    print(f"{f.stem}: runs {len(runs)}, complete {[r['completeness_percent'] for r in runs]}, "
          f"p50 {med(lambda r: r['latency_ms']['p50']):.2f} p99 {med(lambda r: r['latency_ms']['p99']):.2f} "
          f"max {med(lambda r: r['latency_ms']['max']):.2f} ms, p99s {[r['latency_ms']['p99'] for r in runs]}, "
          f"gaps {[r.get('gaps', 0) for r in runs]}, "
          + (f"cpu/delivery {statistics.median(cpu):.2f} us, " if cpu else "")
          + (f"rss {statistics.median(rss):.1f} MiB, " if rss else "")
          + f"setup {med(lambda r: r['setup_seconds']):.2f} s, "
          f"msgs/frame {med(lambda r: r['messages_in'] / max(r['frames_in'], 1)):.2f}, patch {runs[0]['patch_bytes']} B")
