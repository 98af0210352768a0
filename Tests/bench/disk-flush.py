#!/usr/bin/env python3
"""The disk's flush, measured without foldsyncd: what one durable commit waits for.

Writes 8 KiB into a 4 MiB file written once beforehand (as foldsyncd reserves
its WAL) and calls fdatasync, RATE times a second for SECONDS, the way a
commit of one change does at 20 changes/s. Prints one JSON line: the median,
p99 and slowest flush, and every flush over 10 ms with its time into the run.
bench-peer.sh runs it before and after a window: a foldsyncd run whose p99 is
far above its p50 usually holds one of these stalls, and uWS, which keeps
nothing, never waits for one.

    Tests/bench/disk-flush.py [--dir DIR] [--seconds 20] [--rate 20]
"""
import argparse
import json
import os
import tempfile
import time

parser = argparse.ArgumentParser()
parser.add_argument("--dir", default=None, help="a directory on the disk to measure (default: the temp dir)")
parser.add_argument("--seconds", type=float, default=20)
parser.add_argument("--rate", type=float, default=20)
args = parser.parse_args()

size = 4 << 20
block = b"\x5a" * 8192
with tempfile.TemporaryDirectory(dir=args.dir) as d:
    path = os.path.join(d, "flush.bin")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.pwrite(fd, b"\0" * size, 0)
        os.fsync(fd)
        flushes, stalls = [], []
        start = time.monotonic()
        count = max(1, int(args.seconds * args.rate))
        for i in range(count):
            due = start + i / args.rate
            pause = due - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            os.pwrite(fd, block, (i * len(block)) % size)
            t0 = time.monotonic()
            os.fdatasync(fd)
            took = time.monotonic() - t0
            flushes.append(took)
            if took > 0.010:
                stalls.append([round(t0 - start, 2), round(took * 1000, 1)])
    finally:
        os.close(fd)

flushes.sort()
def ms(x):
    return round(x * 1000, 3)
print(json.dumps({
    "flushes": len(flushes),
    "seconds": args.seconds,
    "median_ms": ms(flushes[len(flushes) // 2]),
    "p99_ms": ms(flushes[min(len(flushes) - 1, int(len(flushes) * 0.99))]),
    "max_ms": ms(flushes[-1]),
    "over_10ms": len(stalls),
    "stalls_at_s_ms": stalls,
}))
