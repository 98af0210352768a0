"""A real daemon restart (SIGTERM, then the same port and store) under a
subscribed client, while a writer keeps changing the board: the client
comes back, resumes with `since`, and sees every rev exactly once."""
from __future__ import annotations

import time
from typing import List

import foldsync
from harness import DaemonCase


class RestartTests(DaemonCase):
    # Room for every write made while the client is away, however slow its
    # return: a resume, never a `pruned` snapshot.
    daemon_args = ("--history-per-board", "10000")

    async def test_resume_across_a_restart_misses_and_repeats_nothing(self) -> None:
        client = foldsync.Client(self.daemon.url)
        states: List[foldsync.ConnectionState] = []
        client.on_state(states.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        board = await self.bounded(client.subscribe("default"))
        seen: List[foldsync.Change] = []
        board.on_change(seen.append)
        titles = iter(range(1_000_000))

        def write() -> int:
            return self.daemon.action("default", {"type": "setTitle", "section": f"s{next(titles) % 3}",
                                                  "title": f"t{time.monotonic_ns()}"})
        for _ in range(5):
            await self.in_thread(write)
        await self.wait_for("rev 5", lambda: board.rev == 5)

        await self.in_thread(self.daemon.stop)
        await self.wait_for("disconnected", lambda: client.state == "disconnected")
        await self.in_thread(self.daemon.start)
        # The writer starts as soon as the daemon is back, before the client
        # is (its first retry waits 250-500 ms), and goes on past its return:
        # missed patches and live ones both.
        reconnected_at = None
        deadline = time.monotonic() + 20
        for n in range(5000):
            self.assertLess(time.monotonic(), deadline, "the client did not reconnect within 20 s")
            await self.in_thread(write)
            if reconnected_at is None and client.state == "connected":
                reconnected_at = n
            if reconnected_at is not None and n >= reconnected_at + 20:
                break
        print("reconnected after", reconnected_at, "writes, at rev", 5 + (reconnected_at or 0), "of", 5 + n + 1)
        self.assertIsNotNone(reconnected_at, "the client did not reconnect within 5000 writes")
        self.assertGreater(reconnected_at or 0, 0, "no write happened while the client was away")

        final = await self.in_thread(self.daemon.board, "default")
        await self.wait_for(f"rev {final['rev']}", lambda: board.rev == final["rev"])
        self.assertEqual([c.rev for c in seen], list(range(1, final["rev"] + 1)), "a rev missed or repeated")
        self.assertEqual([c for c in seen if c.resynced], [])
        self.assertTrue(all(c.ops for c in seen))
        self.assertEqual((board.state, board.epoch), (final["state"], final["epoch"]))
        # The restarted daemon answered a subscribe carrying `since` with patches.
        self.assertGreaterEqual(await self.in_thread(self.daemon.metric, "foldsync_resumes_total"), 1)
        self.assertEqual(await self.in_thread(self.daemon.metric, "foldsync_resyncs_total"), 0)
