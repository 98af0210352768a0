"""A client that falls behind (PROTOCOL.md, Guarantees 2), provoked for
real: a relay (relay.py) stops passing the daemon's bytes on while changes
pour in, until the daemon has dropped this connection's queue and put a
snapshot in its place. On the WebSocket the actions waiting lose their
answer with it: the library sends them again with their keys, and the
daemon answers each with its first rev (`duplicate`), applying nothing
twice. On the stream an action's answer comes with its POST, nothing is
lost, and the action resolves."""
from __future__ import annotations

import asyncio
from typing import Any, Dict, List

import foldsync
from harness import DaemonCase
from relay import Relay

# ~30 KB per change: the relay's small buffers and the daemon's queue of 8
# frames fill after about a hundred.
ITEMS = [f"{n}" + "x" * 3000 for n in range(10)]
# However large the kernel's buffers grow, a held connection is resynced well before this.
MAX_CHANGES = 2000


class ResyncedTests(DaemonCase):
    daemon_args = ("--max-queue-frames", "8", "--slow-client-timeout", "120")
    held = rb"^GET /ws "

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        # Run after the client and the relay closed: the daemon notices a
        # stream's reader gone within a second, and a SIGTERM before that
        # waits out its shutdown timeout for the lagging stream.
        self.addAsyncCleanup(self.wait_for, "the daemon to count no connection",
                             lambda: self.daemon.metric("foldsync_connections") == 0, 5)
        self.relay = Relay(self.daemon.port, receive_buffer=4096)
        await self.relay.start()
        self.addAsyncCleanup(self.relay.close)
        self.client = foldsync.Client(self.relay.url, transport=self.transport)
        self.messages: List[Dict[str, Any]] = []
        self.client.on_message(self.messages.append)
        await self.bounded(self.client.start())
        self.addAsyncCleanup(self.client.close)

    def change_until_resynced(self, resyncs: int) -> None:
        """Changes (HTTP, not through the relay) until the daemon counts `resyncs` resyncs."""
        for n in range(MAX_CHANGES):
            if n % 8 == 0 and self.daemon.metric("foldsync_resyncs_total") >= resyncs:
                return
            self.daemon.action("default", {"type": "setItems", "section": f"s{n % 3}", "items": [str(n), *ITEMS]})
        self.fail(f"no resync after {MAX_CHANGES} changes")

    async def fall_behind(self) -> "List[asyncio.Future[int]]":
        """Holds the daemon's side of the client's connection until the
        daemon resynced it, then calls three actions: the daemon commits
        them, and their answers are queued behind the snapshot, where the
        next resync drops them. Returns the actions, still waiting."""
        self.relay.hold(self.held)
        await self.in_thread(self.change_until_resynced, 1)
        actions = [asyncio.ensure_future(a) for a in (
            self.board.toggle("s1"),
            self.board.act({"type": "setTitle", "section": "s0", "title": "first"}),
            self.board.act({"type": "setTitle", "section": "s2", "title": "third"}))]

        def committed() -> bool:
            sections = self.daemon.board("default")["state"]["sections"]
            return bool(sections[1]["expanded"]) and sections[2]["title"] == "third"
        await self.wait_for("the actions committed", committed)
        await self.in_thread(self.change_until_resynced, 2)
        self.assertFalse(any(a.done() for a in actions))
        return actions

    async def test_actions_waiting_through_a_lagging_resync_resolve_once(self) -> None:
        self.board = await self.bounded(self.client.subscribe("default"))
        changes = self.board.changes()
        actions = await self.fall_behind()
        # Their answers never came: dropped with the queue.
        self.assertFalse([m for m in self.messages if m["type"] in ("ack", "error")])
        self.relay.release()
        change = await self.next_from_daemon(changes, 30)
        while not change.resynced:  # what the kernel's buffers held before the daemon's queue filled
            self.assertIsNotNone(change.ops)
            change = await self.next_from_daemon(changes, 30)
        self.assertEqual((change.reason, change.ops), ("lagging", None))
        # Sent again with their keys: each answered with the rev of its commit.
        revs = [await self.bounded(a) for a in actions]
        self.assertEqual(revs, sorted(set(revs)), "three commits, in the order called")
        # Every answer the client saw is a repeat's: nothing was applied twice.
        acks = [m for m in self.messages if m["type"] == "ack"]
        self.assertEqual({(m["rev"], m.get("duplicate")) for m in acks}, {(r, True) for r in revs})
        self.assertGreaterEqual(self.daemon.metric("foldsync_duplicate_actions_total"), 3)
        self.assertEqual(self.client.state, "connected")
        await self.wait_for("the mirror to catch up", lambda: self.board.rev == self.daemon.board("default")["rev"])
        self.assertMirrors(self.board)
        # Applied once: a second toggle would have folded s1 again.
        self.assertTrue(self.board.state["sections"][1]["expanded"])
        self.assertEqual(self.board.pending, [])
        self.assertIs(self.board.state, self.board.confirmed)
        # The connection carries on: the next action is answered.
        rev = await self.bounded(self.board.toggle("s1"))
        self.assertEqual(rev, self.board.rev)


class StreamResyncedTests(ResyncedTests):
    transport = "stream"
    held = rb"^GET /api/boards/default/events "

    async def test_actions_waiting_through_a_lagging_resync_resolve_once(self) -> None:
        # On the stream the daemon's answer to the toggle is its POST's, which no resync drops.
        self.board = await self.bounded(self.client.subscribe("default"))
        changes = self.board.changes()
        self.relay.hold(self.held)
        await self.in_thread(self.change_until_resynced, 1)
        toggle = asyncio.ensure_future(self.board.toggle("s1"))
        await self.wait_for("the toggle committed", lambda: self.daemon.board("default")["state"]["sections"][1]["expanded"])
        await asyncio.sleep(0.2)
        # Its answer is here, waiting for the board's stream to show the change.
        self.assertFalse(toggle.done())
        self.relay.release()
        change = await self.next_from_daemon(changes, 30)
        while not change.resynced:
            change = await self.next_from_daemon(changes, 30)
        self.assertEqual(change.reason, "lagging")
        rev = await self.bounded(toggle)
        self.assertEqual(self.board.state["sections"][1]["expanded"], True)
        kinds = [m["type"] for m in self.messages if m["type"] in ("snapshot", "ack")]
        self.assertEqual(kinds, ["snapshot", "snapshot", "ack"], "the ack came after the lagging snapshot")
        self.assertLessEqual(rev, self.board.rev)
