"""The promises every transport keeps, each run over the WebSocket and over
the event stream (GET .../events plus POST .../actions) against the real
daemon: subscribe, the mirror equal to GET, resume across a daemon restart
with nothing missed or repeated, a deleted and re-created board, presence,
and an expiring JWT (renewed in band on the WebSocket; on the stream, whose
end at the token's expiry is followed by a reconnect with a new token)."""
from __future__ import annotations

import asyncio
import os
import random
import time
from typing import Any, Dict, List

import foldsync
from harness import DaemonCase, board_doc
from jwt_tokens import key_file, mint_jwt


class Matrix(DaemonCase):
    # Room for every write made while a client is away, however slow its
    # return: a resume, never a `pruned` snapshot.
    daemon_args = ("--history-per-board", "10000")

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.c = self.new_client()
        self.states: List[foldsync.ConnectionState] = []
        self.c.on_state(self.states.append)
        await self.bounded(self.c.start())
        self.addAsyncCleanup(self.c.close)

    async def test_subscribe(self) -> None:
        self.daemon.action("default", {"type": "toggle", "section": "s2"})
        board = await self.bounded(self.c.subscribe("default"))
        self.assertEqual(self.c.transport, self.transport)
        self.assertEqual([s.state for s in self.states], ["connecting", "connected"])
        self.assertEqual(board.rev, 1)
        self.assertMirrors(board)
        self.assertIs(await self.bounded(self.c.subscribe("default")), board)
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(self.c.subscribe("no-such-board"))
        self.assertEqual(caught.exception.code, "not_found")

    async def test_mirror_equals_get(self) -> None:
        self.daemon.ok("PUT", "/api/boards/m", board_doc("a", "b", "c", "d", mode="multi"))
        board = await self.bounded(self.c.subscribe("m"))
        seen: List[foldsync.Change] = []
        board.on_change(seen.append)
        rng = random.Random(7)
        for n in range(30):
            section = rng.choice("abcd")
            if n % 3 == 0:  # someone else, over HTTP
                rev = await self.in_thread(self.daemon.action, "m", {"type": "toggle", "section": section})
                await self.wait_for(f"rev {rev}", lambda: board.rev == rev)
            elif n % 3 == 1:
                rev = await self.bounded(board.toggle(section))
                self.assertEqual(seen[-1].rev, rev, "the change came before the ack")
            else:
                rev = await self.bounded(board.act({"type": "setTitle", "section": section, "title": f"t{n}"}))
            self.assertMirrors(board)
        self.assertEqual([c.rev for c in seen if not c.local], list(range(1, 31)))
        self.assertFalse(any(c.resynced for c in seen))

    async def test_resume_across_a_restart_misses_and_repeats_nothing(self) -> None:
        board = await self.bounded(self.c.subscribe("default"))
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
        await self.wait_for("disconnected", lambda: self.c.state == "disconnected")
        await self.in_thread(self.daemon.start)
        # The writer starts as soon as the daemon is back, before the client
        # is (its first retry waits 250-500 ms), and goes on past its return:
        # missed patches and live ones both.
        reconnected_at = None
        deadline = time.monotonic() + 20
        for n in range(5000):
            self.assertLess(time.monotonic(), deadline, "the client did not reconnect within 20 s")
            await self.in_thread(write)
            if reconnected_at is None and self.c.state == "connected":
                reconnected_at = n
            if reconnected_at is not None and n >= reconnected_at + 20:
                break
        self.assertIsNotNone(reconnected_at, "the client did not reconnect within 5000 writes")
        self.assertGreater(reconnected_at or 0, 0, "no write happened while the client was away")

        final = await self.in_thread(self.daemon.board, "default")
        await self.wait_for(f"rev {final['rev']}", lambda: board.rev == final["rev"])
        self.assertEqual([c.rev for c in seen], list(range(1, final["rev"] + 1)), "a rev missed or repeated")
        self.assertEqual([c for c in seen if c.resynced], [])
        self.assertTrue(all(c.ops for c in seen))
        self.assertEqual((board.state, board.epoch), (final["state"], final["epoch"]))
        self.assertEqual(self.c.transport, self.transport)
        # The restarted daemon answered a resume (`since`, or Last-Event-ID) with patches.
        self.assertGreaterEqual(await self.in_thread(self.daemon.metric, "foldsync_resumes_total"), 1)
        self.assertEqual(await self.in_thread(self.daemon.metric, "foldsync_resyncs_total"), 0)

    async def test_deleted_and_recreated_is_an_epoch_resync(self) -> None:
        self.daemon.ok("PUT", "/api/boards/b", board_doc("x"))
        board = await self.bounded(self.c.subscribe("b"))
        old_epoch = board.epoch
        changes = board.changes()
        self.daemon.ok("DELETE", "/api/boards/b")
        gone = await self.next_of(changes)
        self.assertTrue(gone.deleted)
        self.assertEqual((board.state, board.rev, board.epoch), (None, None, None))
        self.daemon.ok("PUT", "/api/boards/b", board_doc("y", "z"))
        back = await self.next_of(changes)
        self.assertEqual((back.resynced, back.reason, back.ops), (True, "epoch", None))
        self.assertNotEqual(back.epoch, old_epoch)
        self.assertMirrors(board)
        # And it goes on from there.
        self.assertEqual(await self.bounded(board.toggle("z")), board.rev)
        self.assertMirrors(board)

    async def test_presence(self) -> None:
        board = await self.bounded(self.c.subscribe("default"))
        counts: List[foldsync.Presence] = []
        board.on_presence(counts.append)
        async with foldsync.connect(self.daemon.url, transport="websocket") as watcher:
            theirs = await self.bounded(watcher.subscribe("default"))
            await self.wait_for("two viewers, both following", lambda: counts and counts[-1] == foldsync.Presence(2, 2))
            self.assertEqual((board.viewers, board.following), (2, 2))
            await self.wait_for("the watcher's count", lambda: (theirs.viewers, theirs.following) == (2, 2))
            await self.c.follow(False)
            self.assertFalse(self.c.following)
            if self.transport == "websocket":
                await self.wait_for("one follower", lambda: (theirs.viewers, theirs.following) == (2, 1))
            else:
                # No `view` on a stream: it always counts as following (docs/CLIENTS.md).
                await self.holds("both counted following", lambda: (theirs.viewers, theirs.following) == (2, 2), 1)
        await self.wait_for("one viewer again", lambda: counts[-1].viewers == 1)


class StreamMatrix(Matrix):
    transport = "stream"


class JWTMatrix(DaemonCase):
    """Tokens that live 3 s (whole seconds of `exp`: 2-3 s in fact), warned 1 s before, no leeway."""

    async def asyncSetUp(self) -> None:
        self.key, self.keyfile = key_file()
        self.addCleanup(os.remove, self.keyfile)
        self.daemon_args = ("--jwt-key", f"HS256:{self.keyfile}", "--jwt-refresh-before", "1",
                            "--jwt-leeway", "0", "--history-per-board", "10000")
        await super().asyncSetUp()

    async def test_an_expiring_jwt_is_renewed(self) -> None:
        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return mint_jwt(self.key, 3)
        client = self.new_client(token)
        states: List[foldsync.ConnectionState] = []
        warned: List[Dict[str, Any]] = []
        signed_in: List[Dict[str, Any]] = []
        client.on_state(states.append)
        client.on_auth_expiring(warned.append)
        client.on_authenticated(signed_in.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        board = await self.bounded(client.subscribe("default"))
        seen: List[foldsync.Change] = []
        board.on_change(seen.append)
        admin = mint_jwt(self.key, 600)
        # Changes keep coming for 8 s, past two or three of the client's tokens.
        deadline = time.monotonic() + 8
        n = 0
        while time.monotonic() < deadline:
            await self.in_thread(lambda: self.daemon.request("POST", "/api/boards/default/actions",
                                                             {"type": "toggle", "section": f"s{n % 3}"}, admin))
            n += 1
            await asyncio.sleep(0.2)
        await self.wait_for("the client back and caught up",
                            lambda: client.state == "connected" and board.rev == n, timeout=15)
        self.assertEqual([c.rev for c in seen], list(range(1, n + 1)), "a rev missed or repeated")
        self.assertFalse(any(c.resynced for c in seen))
        self.assertGreaterEqual(len(calls), 3, "the token function was not asked again")
        self.assertEqual(await self.bounded(board.toggle("s1")), n + 1)
        self.assertMirrors(board, token=admin)
        names = [s.state for s in states]
        if self.transport == "websocket":
            # In band: the connection outlives every token.
            self.assertEqual(names, ["connecting", "connected"])
            self.assertGreaterEqual(len(warned), 2)
            self.assertTrue(all(isinstance(w["in"], int) for w in warned), warned)
            self.assertGreater(signed_in[-1]["expires"], signed_in[0]["expires"])
            self.assertIs(client.identity, signed_in[-1])
        else:
            # No conversation: the stream ends at the token's expiry, and the
            # client comes back with a new token and resumes.
            self.assertGreaterEqual(names.count("disconnected"), 2, states)
            self.assertEqual(names[-1], "connected")
            self.assertEqual((warned, signed_in, client.identity), ([], [], None))


class StreamJWTMatrix(JWTMatrix):
    transport = "stream"
