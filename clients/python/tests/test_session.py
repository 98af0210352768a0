"""The contract's cases on one running daemon: mirror, acks, errors, states,
follow and focus, and the helpers."""
from __future__ import annotations

import asyncio
from typing import List

import foldsync
from harness import DaemonCase, board_doc


class SessionTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.client = await self.bounded(self.connect())
        self.addAsyncCleanup(self.client.close)

    async def test_subscribe_mirror_equals_get(self) -> None:
        self.daemon.action("default", {"type": "toggle", "section": "s2"})
        board = await self.bounded(self.client.subscribe("default"))
        self.assertEqual(board.rev, 1)
        self.assertMirrors(board)
        again = await self.bounded(self.client.subscribe("default"))
        self.assertIs(again, board)

    async def test_ack_resolves_with_rev(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        seen: List[foldsync.Change] = []
        board.on_change(seen.append)
        rev = await self.bounded(board.toggle("s1"))
        self.assertEqual(rev, 1)
        # Shown at the call (a local change at rev 0), then its patch before its ack.
        self.assertEqual([(c.rev, c.local) for c in seen], [(0, True), (1, False)])
        seen = seen[1:]
        self.assertEqual(seen[0].ops, [{"op": "replace", "path": "/sections/1/expanded", "value": True}])
        self.assertEqual(seen[0].by, self.client.session)
        self.assertFalse(seen[0].resynced)
        self.assertMirrors(board)
        # A no-op is acknowledged with the current rev.
        self.assertEqual(await self.bounded(board.expand("s1")), 1)

    async def test_remote_change_applied(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        changes = board.changes()
        async with foldsync.connect(self.daemon.url) as other:
            theirs = await self.bounded(other.subscribe("default"))
            rev = await self.bounded(theirs.act({"type": "setTitle", "section": "s0", "title": "Today"}))
            change = await self.next_of(changes)
            self.assertEqual((change.rev, change.epoch, change.resynced), (rev, board.epoch, False))
            self.assertEqual(change.ops, [{"op": "replace", "path": "/sections/0/title", "value": "Today"}])
            self.assertEqual(change.state["sections"][0]["title"], "Today")
            self.assertEqual(change.by, other.session)
        self.assertIs(change.state, board.state)
        self.assertMirrors(board)

    async def test_error_is_typed(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(board.toggle("nope"))
        self.assertEqual(caught.exception.code, "not_found")
        self.assertTrue(caught.exception.message)
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(self.client.subscribe("no-such-board"))
        self.assertEqual(caught.exception.code, "not_found")
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(board.act({"type": "setMode", "mode": "sideways"}))
        self.assertIn(caught.exception.code, ("bad_request", "invalid"))
        # Still usable.
        self.assertEqual(await self.bounded(board.toggle("s0")), 1)
        self.assertEqual(self.client.state, "connected")

    async def test_states_in_order(self) -> None:
        client = self.new_client()
        seen: List[foldsync.ConnectionState] = []
        client.on_state(seen.append)
        stream = client.states()
        await self.bounded(client.start())
        self.assertEqual([s.state for s in seen], ["connecting", "connected"])
        self.assertEqual(client.state, "connected")
        await self.bounded(client.subscribe("default"))
        await self.bounded(client.close())
        self.assertEqual([s.state for s in seen], ["connecting", "connected", "closed"])
        self.assertEqual([s.state async for s in stream], ["connecting", "connected", "closed"])
        # Nothing reconnects: the daemon's count of connections drops to this
        # test's own client's (a WebSocket; nothing for a stream client that
        # subscribed to nothing), and no state follows `closed`.
        own = 1 if self.transport == "websocket" else 0
        await self.wait_for("the closed client's connection to end",
                            lambda: self.daemon.ok("GET", "/healthz")["connections"] == own)
        await asyncio.sleep(1.5)
        self.assertEqual(len(seen), 3)
        self.assertEqual(self.daemon.ok("GET", "/healthz")["connections"], own)
        with self.assertRaises(foldsync.FoldError) as caught:
            await client.subscribe("default")
        self.assertEqual(caught.exception.code, "closed")

    async def test_follow_and_focus(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        async with foldsync.connect(self.daemon.url) as other:
            theirs = await self.bounded(other.subscribe("default"))
            await self.wait_for("presence of two followers", lambda: (board.viewers, board.following) == (2, 2))
            rev = await self.bounded(board.focus("s2", 1))
            await self.wait_for("the focus at the other client", lambda: theirs.rev == rev)
            self.assertEqual(theirs.state["focus"], {"section": "s2", "item": 1})
            self.assertTrue(theirs.state["sections"][2]["expanded"])
            await other.follow(False)
            self.assertFalse(other.following)
            await self.wait_for("presence of one follower", lambda: (board.viewers, board.following) == (2, 1))
            # Ours too: on the stream it cannot be said, and the count stays (docs/CLIENTS.md).
            await self.client.follow(False)
            if self.transport == "websocket":
                await self.wait_for("presence of no follower", lambda: (theirs.viewers, theirs.following) == (2, 0))
            else:
                await self.holds("our stream counted following", lambda: theirs.following == 1, 1)
            await self.bounded(board.clear_focus())
            await self.wait_for("the focus cleared", lambda: "focus" not in theirs.state)

    async def test_helpers(self) -> None:
        self.daemon.ok("PUT", "/api/boards/multi", board_doc("a", "b", "c", mode="multi"))
        board = await self.bounded(self.client.subscribe("multi"))
        start = board.rev

        async def check(rev_of: "asyncio.Future[int]", expect: int) -> None:
            rev = await self.bounded(rev_of)
            self.assertEqual((rev, board.rev), (expect, expect))
            self.assertEqual(board.state, self.daemon.board("multi")["state"])

        await check(board.expand("a"), start + 1)
        await check(board.collapse("a"), start + 2)
        await check(board.expand_all(), start + 3)
        self.assertTrue(all(s["expanded"] for s in board.state["sections"]))
        await check(board.collapse_all(), start + 4)
        self.assertFalse(any(s["expanded"] for s in board.state["sections"]))
        await check(board.focus("b", 0), start + 5)
        await check(board.clear_focus(), start + 6)
        self.assertNotIn("focus", board.state)
        await check(board.toggle("c"), start + 7)
        await check(board.revert(start + 7), start + 8)
        self.assertFalse(board.state["sections"][2]["expanded"])
        history = await self.bounded(board.history())
        self.assertEqual(history["rev"], start + 8)
        self.assertEqual([e["rev"] for e in history["entries"]][-8:], list(range(start + 1, start + 9)))
        last = history["entries"][-1]["action"]
        self.assertEqual((last["type"], last["rev"]), ("revert", start + 7))
        page = await self.bounded(board.history(since=start + 6, limit=1))
        self.assertEqual([e["rev"] for e in page["entries"]], [start + 7])
        self.assertTrue(page["more"])


class StreamSessionTests(SessionTests):
    """The same cases with the client under test on the event stream (the
    other client of a case stays on the WebSocket)."""
    transport = "stream"
