"""The connection states over a whole life: connect, a daemon restart,
close()."""
from __future__ import annotations

from typing import List

import foldsync
from harness import DaemonCase


class StateSequenceTests(DaemonCase):
    async def test_state_sequence_over_a_life(self) -> None:
        client = foldsync.Client(self.daemon.url)
        seen: List[foldsync.ConnectionState] = []
        client.on_state(seen.append)
        stream = client.states()
        await self.bounded(client.start())
        board = await self.bounded(client.subscribe("default"))
        self.assertEqual([s.state for s in seen], ["connecting", "connected"])
        self.assertTrue(all(s.reason is None and s.delay_ms is None for s in seen))

        await self.in_thread(self.daemon.restart)
        await self.wait_for("connected again", lambda: len(seen) > 2 and seen[-1].state == "connected", timeout=15)
        again = seen[2:]
        # One disconnected/connecting pair, or more when an attempt came while
        # the daemon was still starting (refused, then the next delay).
        names = " ".join(s.state for s in again)
        self.assertRegex(names, r"^disconnected connecting( disconnected connecting)* connected$")
        first = again[0]
        self.assertIn("1001", first.reason or "", "the close frame of a daemon shutting down")
        self.assertTrue(250 <= (first.delay_ms or 0) <= 500, first)
        for s in again:
            if s.state == "disconnected":
                self.assertTrue(s.reason and s.delay_ms is not None and 0 < s.delay_ms <= 10_000, s)
            else:
                self.assertEqual((s.reason, s.delay_ms), (None, None), s)
        self.assertEqual(await self.bounded(board.toggle("s0")), 1)

        count = len(seen)
        await self.bounded(client.close())
        self.assertEqual([s.state for s in seen[count:]], ["closed"])
        self.assertEqual(client.state, "closed")
        # The stream saw the same, and ended.
        self.assertEqual([s async for s in stream], seen)
        # Nothing after `closed`, not even when the daemon goes away and comes back.
        await self.wait_for("the daemon to count no connection",
                            lambda: self.daemon.ok("GET", "/healthz")["connections"] == 0)
        await self.in_thread(self.daemon.restart)
        # A client still trying would be back within its first delay, 500 ms at most.
        await self.holds("no state after closed, no connection",
                         lambda: len(seen) == count + 1
                         and self.daemon.ok("GET", "/healthz")["connections"] == 0, 1.5)
