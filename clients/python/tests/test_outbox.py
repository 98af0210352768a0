"""The outbox (outbox.py) against the real daemon, through a relay
(relay.py, actions=True) that plays a poor link: it cuts the connection
right after forwarding an action (the daemon commits it, the answer is
lost), or drops the action and cuts, or turns every connection away.
Every action resolves once, and the board changes once per action.

Run over both transports: on the stream the key travels as the
`Idempotency-Key` header and `settle` is a POST."""
from __future__ import annotations

import asyncio
import os
import random
from typing import Any, Dict, List

import websockets

import foldsync
from harness import DaemonCase
from relay import Relay

ROUNDS = 200


class OutboxTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.relay = Relay(self.daemon.port, actions=True)
        await self.relay.start()
        self.addAsyncCleanup(self.relay.close)
        self.messages: List[Dict[str, Any]] = []

    async def client(self, **options: Any) -> foldsync.Client:
        client = foldsync.Client(self.relay.url, transport=self.transport, **options)
        client.on_message(self.messages.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        return client

    async def offline(self, client: foldsync.Client) -> None:
        """Every connection dropped and every new one turned away."""
        self.relay.refuse = True
        self.relay.cut_all()
        await self.wait_for("disconnected", lambda: client.state == "disconnected")

    def sent(self, key: str) -> List[str]:
        """The types of what went out with `key`, as the relay saw it."""
        return [a.get("type", "?") for a in self.relay.actions if a.get("key") == key]

    def keys(self, kind: str) -> List[str]:
        return [a.get("key", "") for a in self.relay.actions if a.get("type") == kind]

    def flag(self, section: str, board: str = "default") -> bool:
        state = self.daemon.board(board)["state"]
        return bool(next(s for s in state["sections"] if s["id"] == section)["expanded"])

    async def test_action_kept_while_offline(self) -> None:
        client = await self.client()
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0
        await self.offline(client)
        toggle = asyncio.ensure_future(board.toggle("s1"))
        await self.holds("the toggle waiting", lambda: not toggle.done(), 0.6)
        self.assertEqual(client.outbox_size, 1)
        self.assertEqual(self.keys("toggle"), [], "sent while offline")
        self.assertEqual(self.daemon.board("default")["rev"], start)
        self.relay.refuse = False
        rev = await self.bounded(toggle, 15)
        self.assertEqual(rev, start + 1)
        self.assertGreaterEqual(board.rev or 0, rev, "the change is seen before the action resolves")
        self.assertEqual(self.daemon.board("default")["rev"], start + 1, "the board changed once")
        self.assertTrue(self.flag("s1"))
        self.assertMirrors(board)
        [key] = self.keys("toggle")
        self.assertRegex(key, r"^[0-9a-f]{16}-1$")
        self.assertEqual(key, f"{client.client_id}-1")
        self.assertEqual(client.outbox_size, 0)

    async def test_action_cut_before_ack_applied_once(self) -> None:
        client = await self.client()
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0
        self.relay.cut_at_action("after")
        rev = await self.bounded(board.toggle("s1"), 15)
        self.assertEqual(self.relay.cuts, 1)
        self.assertEqual(rev, start + 1, "the rev of the first commit")
        self.assertEqual(self.daemon.board("default")["rev"], start + 1, "the board changed once")
        self.assertTrue(self.flag("s1"))
        [first, again] = self.keys("toggle")
        self.assertEqual(first, again, "sent again with the same key")
        acks = [m for m in self.messages if m["type"] == "ack"]
        self.assertEqual([a.get("duplicate") for a in acks], [True], "the daemon's answer to the repeat")
        self.assertMirrors(board)

    async def test_cut_between_commit_and_ack_never_shows_the_action_twice(self) -> None:
        """The resume brings the toggle's patch made by the old connection's
        session: it is still ours, so no change shows the toggle undone."""
        client = await self.client()
        board = await self.bounded(client.subscribe("default"))
        for round in range(1, 5):
            shown: List[Any] = []
            stop = board.on_change(lambda c: shown.append(next(s["expanded"] for s in c.state["sections"] if s["id"] == "s1")))
            before = self.flag("s1")
            self.relay.cut_at_action("after")
            await self.bounded(board.toggle("s1"), 15)
            stop()
            self.assertTrue(shown, f"round {round}: changes seen")
            self.assertEqual(set(shown), {not before}, f"round {round}: every change shows the toggle once: {shown}")
        self.assertEqual(self.relay.cuts, 4)
        self.assertMirrors(board)

    async def test_action_cut_before_sent_applied_once(self) -> None:
        client = await self.client()
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0
        self.relay.cut_at_action("before")
        rev = await self.bounded(board.toggle("s1"), 15)
        self.assertEqual(self.relay.cuts, 1)
        self.assertEqual(rev, start + 1)
        self.assertEqual(self.daemon.board("default")["rev"], start + 1, "the board changed once")
        self.assertTrue(self.flag("s1"))
        [first, again] = self.keys("toggle")
        self.assertEqual(first, again)
        acks = [m for m in self.messages if m["type"] == "ack"]
        self.assertEqual([a.get("duplicate") for a in acks], [None], "applied by the copy sent again")
        self.assertMirrors(board)

    async def test_outbox_bounds_expire(self) -> None:
        client = await self.client(outbox_max_actions=3, outbox_max_age=1)
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0
        await self.offline(client)
        waiting = [asyncio.ensure_future(board.toggle(s)) for s in ("s0", "s1", "s2")]
        await asyncio.sleep(0.1)
        self.assertFalse([w for w in waiting if w.done()], "kept while offline")
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(board.toggle("s0"))
        self.assertEqual(caught.exception.code, "expired")
        self.assertIn("the outbox holds 3 actions, its bound; this one was not sent", caught.exception.message)
        # Past the age, still offline: refused by the timer, not at the reconnect.
        for w in waiting:
            with self.assertRaises(foldsync.FoldError) as caught:
                await self.bounded(w, 4)
            self.assertEqual(caught.exception.code, "expired")
            self.assertIn("waited 1 s without a connection; it was never sent", caught.exception.message)
        # Still offline: between two refused attempts, or within one.
        self.assertIn(client.state, ("disconnected", "connecting"))
        self.assertEqual(client.outbox_size, 0)
        self.relay.refuse = False
        await self.wait_for("connected again", lambda: client.state == "connected", 15)
        await asyncio.sleep(0.3)
        self.assertEqual(self.keys("toggle"), [], "an expired action was sent")
        self.assertEqual(self.daemon.board("default")["rev"], start, "an expired action was applied")

    async def test_sent_action_past_age_is_settled(self) -> None:
        client = await self.client(outbox_max_age=1)
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0

        # It reached the daemon; the answer was lost and the client kept away past the age.
        self.relay.cut_at_action("after", refuse=True)
        applied = asyncio.ensure_future(board.toggle("s1"))
        await self.wait_for("the cut", lambda: self.relay.cuts == 1)
        await self.holds("the toggle waiting", lambda: not applied.done(), 1.6)
        self.relay.refuse = False
        rev = await self.bounded(applied, 15)
        self.assertEqual(rev, start + 1)
        [key] = set(self.keys("toggle"))
        self.assertEqual(self.sent(key), ["toggle", "settle"], "settled, not sent again")
        self.assertEqual(self.daemon.board("default")["rev"], start + 1)
        self.assertMirrors(board)

        # The relay dropped it: settling voids the key.
        self.relay.cut_at_action("before", refuse=True)
        dropped = asyncio.ensure_future(board.toggle("s2"))
        await self.wait_for("the cut", lambda: self.relay.cuts == 2)
        await self.holds("the toggle waiting", lambda: not dropped.done(), 1.6)
        self.relay.refuse = False
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(dropped, 15)
        self.assertEqual(caught.exception.code, "expired")
        [key] = set(self.keys("toggle")) - {key}
        self.assertEqual(self.sent(key), ["toggle", "settle"])
        self.assertEqual(self.daemon.board("default")["rev"], start + 1, "never applied")
        self.assertFalse(self.flag("s2"))
        # And never will be: the daemon refuses the key itself.
        async with websockets.connect(self.daemon.url, subprotocols=["foldsync.v1"]) as ws:  # type: ignore[list-item]
            self.assertIn('"hello"', await asyncio.wait_for(ws.recv(), 5))
            await ws.send('{"type":"toggle","board":"default","section":"s2","id":"raw","key":"%s"}' % key)
            answer = await asyncio.wait_for(ws.recv(), 5)
        self.assertRegex(str(answer), r'"code":\s*"expired"')
        self.assertEqual(self.daemon.board("default")["rev"], start + 1)

    async def test_random_cuts_exactly_once(self) -> None:
        seed = int(os.environ.get("FOLDSYNC_TEST_SEED") or random.randrange(2**32))
        print(f"random cuts: seed {seed} (FOLDSYNC_TEST_SEED={seed} repeats its choices)")
        rng = random.Random(seed)
        holder: List[foldsync.Client] = []

        async def at_once(end: foldsync.Ended) -> bool:
            # Back without the backoff's wait: 200 rounds, two in three cut.
            await holder[0].reconnect()
            return False
        client = await self.client(reconnect=at_once)
        holder.append(client)
        board = await self.bounded(client.subscribe("default"))
        before = self.daemon.board("default")
        start = before["rev"]
        flags = {s["id"]: s["expanded"] for s in before["state"]["sections"]}
        self.assertEqual(await self.bounded(board.act({"type": "setMode", "mode": "multi"})), start + 1)
        toggles = {f"s{n}": 0 for n in range(3)}
        revs: List[int] = []
        cuts = {"after": 0, "before": 0}
        try:
            for n in range(ROUNDS):
                section = f"s{rng.randrange(3)}"
                how = rng.choice([None, "before", "after"])
                if how is not None:
                    self.relay.cut_at_action(how)
                    cuts[how] += 1
                revs.append(await self.bounded(board.toggle(section), 20))
                toggles[section] += 1
        except BaseException as e:
            raise AssertionError(f"seed {seed}, round {len(revs)}: {e!r}") from e
        print("cuts:", cuts, "made:", self.relay.cuts)
        self.assertEqual(self.relay.cuts, cuts["after"] + cuts["before"])
        self.assertEqual(revs, list(range(start + 2, start + 2 + ROUNDS)), f"seed {seed}: applied once each, in order")
        got = self.daemon.board("default")
        self.assertEqual(got["rev"], start + 1 + ROUNDS)
        for section, count in toggles.items():
            self.assertEqual(self.flag(section), flags[section] != (count % 2 == 1), f"seed {seed}: {section}")
        await self.wait_for("the mirror at the last rev", lambda: board.rev == got["rev"])
        self.assertMirrors(board)

    async def test_cancelled_actions_are_removed_or_settled(self) -> None:
        client = await self.client()
        outcomes: List[foldsync.Outcome] = []
        client.on_outbox(outcomes.append)
        board = await self.bounded(client.subscribe("default"))
        start = board.rev or 0

        # Not sent yet: removed, never applied.
        await self.offline(client)
        unsent = asyncio.ensure_future(board.toggle("s1"))
        await asyncio.sleep(0.1)
        unsent.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await unsent
        self.assertEqual(len(outcomes), 1)
        self.assertEqual((outcomes[0].board, outcomes[0].rev, outcomes[0].error and outcomes[0].error.code),
                         ("default", None, "expired"))
        self.assertIn("cancelled before it was sent", outcomes[0].error.message if outcomes[0].error else "")
        self.assertEqual(client.outbox_size, 0)
        self.relay.refuse = False
        await self.wait_for("connected again", lambda: client.state == "connected", 15)

        # Sent, its answer lost, then cancelled: settled in the background.
        self.relay.cut_at_action("after", refuse=True)
        sent = asyncio.ensure_future(board.toggle("s2"))
        await self.wait_for("the cut", lambda: self.relay.cuts == 1)
        sent.cancel()
        with self.assertRaises(asyncio.CancelledError):
            await sent
        self.assertEqual(client.outbox_size, 1, "kept, to be settled")
        self.relay.refuse = False
        await self.wait_for("the outcome", lambda: len(outcomes) == 2, 15)
        self.assertEqual((outcomes[1].rev, outcomes[1].error), (start + 1, None))
        self.assertEqual(outcomes[1].action, {"type": "toggle", "board": "default", "section": "s2"})
        self.assertEqual(self.sent(outcomes[1].key), ["toggle", "settle"])
        self.assertEqual(self.daemon.board("default")["rev"], start + 1, "applied once, by the first copy")
        self.assertEqual(client.outbox_size, 0)


class StreamOutboxTests(OutboxTests):
    transport = "stream"

