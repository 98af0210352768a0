"""Optimistic state against the real daemon, over a slow link (relay.py with
`latency`): an action shows on `board.state` from its call, `board.confirmed`
stays the daemon's board, and the two meet again at the action's answer. A
refused action is rolled back, and the change that says so carries it.

Run over both transports: on the stream the action is a POST, and its patch
carries no `by`."""
from __future__ import annotations

import asyncio
from typing import Any, List

import foldsync
from harness import DaemonCase, board_doc
from relay import Relay

LATENCY = 0.15  # seconds each way: an answer comes at least 0.3 s after its call
SECTIONS = [f"s{n}" for n in range(8)]


def expanded(state: Any, section: str) -> bool:
    return bool(next(s for s in state["sections"] if s["id"] == section)["expanded"])


class OptimisticTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        # Run after the client and the relay closed: a SIGTERM while the
        # daemon still counts a stream waits out its shutdown timeout.
        self.addAsyncCleanup(self.wait_for, "the daemon to count no connection",
                             lambda: self.daemon.metric("foldsync_connections") == 0, 5)
        await self.in_thread(self.daemon.ok, "PUT", "/api/boards/o", board_doc(*SECTIONS, mode="multi"))
        self.relay = Relay(self.daemon.port, latency=LATENCY)
        await self.relay.start()
        self.addAsyncCleanup(self.relay.close)
        self.client = foldsync.Client(self.relay.url, transport=self.transport)
        await self.bounded(self.client.start())
        self.addAsyncCleanup(self.client.close)
        self.board = await self.bounded(self.client.subscribe("o"))
        self.seen: List[foldsync.Change] = []
        self.board.on_change(self.seen.append)

    async def test_a_toggle_shows_at_its_call_and_meets_the_daemon_at_its_ack(self) -> None:
        board, start = self.board, self.board.rev
        confirmed = board.confirmed
        toggle = asyncio.ensure_future(board.toggle("s1"))
        await asyncio.sleep(0)  # the action's first step: into the outbox, and shown
        self.assertFalse(toggle.done(), "not even sent yet")
        self.assertTrue(expanded(board.state, "s1"))
        self.assertIs(board.confirmed, confirmed)
        self.assertEqual((board.rev, board.pending), (start, [f"{self.client.client_id}-1"]))
        [local] = self.seen
        self.assertEqual((local.local, local.rev, local.ops, local.rolled_back), (True, start, None, None))
        self.assertIs(local.state, board.state)
        self.assertIs(local.confirmed, confirmed)
        # Still shown, and only shown, until the answer comes back over the slow link.
        await self.holds("the toggle shown, not confirmed",
                         lambda: expanded(board.state, "s1") and not expanded(board.confirmed, "s1")
                         or toggle.done(), LATENCY)
        rev = await self.bounded(toggle)
        self.assertEqual((rev, board.rev, board.pending), (start + 1, start + 1, []))
        self.assertIs(board.state, board.confirmed)
        self.assertMirrors(board)
        patch = self.seen[-1]
        self.assertEqual((patch.local, patch.rev, patch.resynced), (False, rev, False))
        self.assertEqual(patch.ops, [{"op": "replace", "path": "/sections/1/expanded", "value": True}])
        self.assertTrue(expanded(patch.state, "s1") and expanded(patch.confirmed, "s1"))
        self.assertEqual(len(self.seen), 2, "no change at the ack: the state shown stayed the same")

    async def test_a_run_of_toggles_never_shows_one_flipped_twice(self) -> None:
        # Each section is toggled once while someone else retitles them over
        # HTTP: every state ever shown has each section collapsed until its
        # toggle is called and expanded from then on.
        board = self.board
        shown: List[Any] = []  # the state right after each call
        board.on_change(lambda c: shown.append(c.state))

        def retitle() -> None:
            for n in range(12):
                self.daemon.action("o", {"type": "setTitle", "section": SECTIONS[n % 8], "title": f"t{n}"})

        async def toggles() -> List[int]:
            calls = []
            for section in SECTIONS:
                calls.append(asyncio.ensure_future(board.toggle(section)))
                await asyncio.sleep(0)
                self.assertTrue(expanded(board.state, section), f"{section} shown at its call")
                shown.append(board.state)
                await asyncio.sleep(0.04)  # several in flight at once
            return list(await asyncio.gather(*calls))

        revs, _ = await self.bounded(asyncio.gather(toggles(), self.in_thread(retitle)), 30)
        self.assertEqual(revs, sorted(set(revs)))
        for section in SECTIONS:
            flags = [expanded(state, section) for state in shown]
            first = flags.index(True)
            self.assertTrue(all(flags[first:]), f"{section} shown flipped back: {flags}")
        daemon = [c for c in self.seen if not c.local]
        self.assertEqual([c.rev for c in daemon], list(range(daemon[0].rev, daemon[-1].rev + 1)))
        await self.wait_for("the mirror at the last rev", lambda: board.rev == self.daemon.board("o")["rev"])
        self.assertEqual(board.pending, [])
        self.assertIs(board.state, board.confirmed)
        self.assertTrue(all(expanded(board.state, s) for s in SECTIONS))
        self.assertMirrors(board)

    async def test_an_action_refused_by_the_daemon_is_rolled_back(self) -> None:
        # Another client removes s2 while this one does not see it yet (the
        # relay holds what the daemon sends it): its toggle of s2 is shown,
        # then refused `not_found`, and rolled back.
        board = self.board
        self.relay.hold(rb"^GET /(ws|api/boards/o/events) ")
        async with foldsync.connect(self.daemon.url) as other:
            await self.bounded((await self.bounded(other.subscribe("o"))).act(
                {"type": "removeSection", "section": "s2"}))
        toggle = asyncio.ensure_future(board.toggle("s2"))
        await asyncio.sleep(0)
        self.assertTrue(expanded(board.state, "s2"), "shown: this client still sees s2")
        key = board.pending[0]
        self.relay.release()
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(toggle)
        self.assertEqual(caught.exception.code, "not_found")
        rolled = [c for c in self.seen if c.rolled_back is not None]
        self.assertEqual(len(rolled), 1)
        change = rolled[0]
        self.assertIs(change, self.seen[-1])
        self.assertTrue(change.local)
        self.assertEqual((change.rolled_back.key, change.rolled_back.action),
                         (key, {"type": "toggle", "section": "s2", "board": "o"}))
        self.assertEqual(change.rolled_back.error.code, "not_found")
        self.assertIs(change.state, change.confirmed)
        if self.transport == "websocket":
            # The daemon answers in order: the removal came first and had
            # already taken s2 from the state shown; told all the same.
            self.assertNotIn("s2", [s["id"] for s in change.state["sections"]])
        self.assertEqual(board.pending, [])
        self.assertIs(board.state, board.confirmed)
        self.assertMirrors(board)

    async def test_an_action_cancelled_before_it_was_sent_is_rolled_back(self) -> None:
        board = self.board
        self.relay.refuse = True
        self.relay.cut_all()
        await self.wait_for("disconnected", lambda: self.client.state == "disconnected")
        toggle = asyncio.ensure_future(board.toggle("s3"))
        await asyncio.sleep(0)
        self.assertTrue(expanded(board.state, "s3"), "shown while offline")
        toggle.cancel()
        await asyncio.gather(toggle, return_exceptions=True)
        change = self.seen[-1]
        self.assertTrue(change.local)
        self.assertEqual(change.rolled_back.error.code, "expired")
        self.assertFalse(expanded(change.state, "s3"))
        self.assertIs(board.state, board.confirmed)
        self.assertEqual(board.pending, [])


class StreamOptimisticTests(OptimisticTests):
    transport = "stream"
