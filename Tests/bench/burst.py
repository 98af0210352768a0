#!/usr/bin/env python3
"""Durable changes per second under a burst: N connections each send M
actions at once (pipelined, no waiting), and the clock stops when every ack
has arrived. An ack means the change is committed (SQLite, synchronous=FULL).
Also prints the p99 time from an action to its patch on ANOTHER connection.

    python3 Tests/bench/burst.py ws://127.0.0.1:7681/ws [connections=50] [actions=200]

Needs the `websockets` package (pip install websockets). The daemon should
run with its rate limit lifted (--max-actions-per-second 1000000
--action-burst 1000000), since each connection sends M actions at once."""
import asyncio, json, sys, time
import websockets

async def main(url, n, m):
    board = "burst"
    async with websockets.connect(url) as admin:
        await admin.recv()
        state = {"mode": "multi", "sections": [{"id": f"s{i}", "title": str(i), "items": [], "expanded": False} for i in range(50)]}
        await admin.send(json.dumps({"type": "replace", "board": board, "state": state, "id": "init"}))
        while json.loads(await admin.recv()).get("id") != "init":
            pass
    conns = [await websockets.connect(url, max_queue=None) for _ in range(n)]
    for c in conns:
        await c.recv()  # hello
    watcher = await websockets.connect(url, max_queue=None)
    await watcher.recv()
    await watcher.send(json.dumps({"type": "subscribe", "board": board}))
    await watcher.recv()  # snapshot
    sent_at = {}
    seen = []

    async def watch():
        while len(seen) < n * m:
            msg = json.loads(await watcher.recv())
            if msg["type"] == "patch":
                title = next((op["value"] for op in msg["ops"] if op["path"].endswith("/title")), None)
                if title in sent_at:
                    seen.append(time.perf_counter() - sent_at[title])

    async def burst(i, c):
        acks = 0
        for j in range(m):
            key = f"{i}.{j}"
            sent_at[key] = time.perf_counter()
            await c.send(json.dumps({"type": "setTitle", "board": board, "section": f"s{i % 50}", "title": key, "id": key}))
        while acks < m:
            msg = json.loads(await c.recv())
            if msg["type"] == "ack":
                acks += 1
            elif msg["type"] == "error":
                raise SystemExit(f"refused: {msg}")

    w = asyncio.create_task(watch())
    t0 = time.perf_counter()
    await asyncio.gather(*(burst(i, c) for i, c in enumerate(conns)))
    elapsed = time.perf_counter() - t0
    await asyncio.wait_for(w, 30)
    seen.sort()
    p99 = seen[int(len(seen) * 0.99) - 1] * 1000
    print(json.dumps({"connections": n, "actions": n * m, "seconds": round(elapsed, 3),
                      "durable_changes_per_second": round(n * m / elapsed),
                      "action_to_patch_on_another_connection_ms": {"p50": round(seen[len(seen) // 2] * 1000, 2), "p99": round(p99, 2)}}))
    for c in conns + [watcher]:
        await c.close()

if __name__ == "__main__":
    url = sys.argv[1] if len(sys.argv) > 1 else "ws://127.0.0.1:7681/ws"
    asyncio.run(main(url, int(sys.argv[2]) if len(sys.argv) > 2 else 50, int(sys.argv[3]) if len(sys.argv) > 3 else 200))
