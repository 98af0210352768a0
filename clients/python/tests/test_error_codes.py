"""Every error code an action can get over the WebSocket rejects with a
FoldError carrying that code and the daemon's message; the connection stays
usable after each.

Not here: `internal` is the store failing to commit (disk full, I/O error, a
lock held too long), which no client can cause; `too_large` is an HTTP body
over the limit, never a WebSocket answer (a message over the limit closes
the connection with 1009 instead)."""
from __future__ import annotations

import asyncio
from typing import Any, Awaitable, List, Union

import foldsync
from harness import DaemonCase, board_doc, hash_token


class ErrorCase(DaemonCase):
    async def refused(self, code: str, aw: Awaitable[Any]) -> foldsync.FoldError:
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(aw)
        self.assertEqual(caught.exception.code, code, caught.exception)
        self.assertTrue(caught.exception.message, f"{code} without a message")
        return caught.exception

    async def assertMirrors(self, board: foldsync.Board) -> None:
        got = await self.in_thread(self.daemon.board, board.name)
        await self.wait_for(f"the mirror at rev {got['rev']}", lambda: board.rev == got["rev"])
        self.assertEqual((board.state, board.epoch), (got["state"], got["epoch"]))


class ActionErrorTests(ErrorCase):
    async def test_each_code_is_a_typed_error(self) -> None:
        async with foldsync.connect(self.daemon.url) as client:
            board = await self.bounded(client.subscribe("default"))
            await self.refused("bad_request", board.act({"type": "toggle"}))
            await self.refused("bad_request", board.act({"type": "setTitle", "section": "s0", "title": 5}))
            await self.refused("unknown_type", board.act({"type": "frobnicate", "section": "s0"}))
            await self.refused("not_found", board.toggle("no-such-section"))
            self.assertEqual(await self.bounded(board.toggle("s0", if_rev=0)), 1)
            error = await self.refused("conflict", board.toggle("s1", if_rev=0))
            self.assertEqual(error.board, "default")
            await self.refused("invalid", board.expand_all())  # single mode
            await self.refused("invalid", board.act({"type": "moveSection", "section": "s0", "to": 99}))
            # Still usable, nothing changed by the refusals.
            self.assertEqual(client.state, "connected")
            self.assertEqual(await self.bounded(board.toggle("s1", if_rev=1)), 2)
            await self.assertMirrors(board)


class ForbiddenTests(ErrorCase):
    async def asyncSetUp(self) -> None:
        self.daemon_args = ("--token", f"viewer read {hash_token('read-only')} *",
                            "--token", f"editor read,fold,edit,admin {hash_token('full')} *")
        await super().asyncSetUp()

    async def test_read_only_token_is_forbidden(self) -> None:
        async with foldsync.connect(self.daemon.url, token="read-only") as client:
            board = await self.bounded(client.subscribe("default"))  # read is allowed
            await self.refused("forbidden", board.toggle("s0"))
            await self.refused("forbidden", board.act({"type": "setTitle", "section": "s0", "title": "x"}))
            self.assertEqual(client.state, "connected")
            async with foldsync.connect(self.daemon.url, token="full") as editor:
                theirs = await self.bounded(editor.subscribe("default"))
                rev = await self.bounded(theirs.toggle("s2"))
            await self.wait_for("the editor's change at the reader", lambda: board.rev == rev)
            self.assertEqual(board.state, self.daemon.board("default", token="full")["state"])


class RateLimitedTests(ErrorCase):
    daemon_args = ("--max-actions-per-second", "1", "--action-burst", "2")

    async def test_over_the_rate_is_rate_limited(self) -> None:
        await self.in_thread(self.daemon.ok, "PUT", "/api/boards/m", board_doc("a", "b", "c", "d", mode="multi"))
        async with foldsync.connect(self.daemon.url) as client:
            board = await self.bounded(client.subscribe("m"))  # one of the burst's two
            # Sent back to back: the daemon refuses these before reading them,
            # without their ids; each must still be answered.
            outcomes: List[Union[int, BaseException]] = await self.bounded(asyncio.gather(
                *(board.toggle(s) for s in ("a", "b", "c", "d")), return_exceptions=True))
            limited = [o for o in outcomes if isinstance(o, foldsync.FoldError) and o.code == "rate_limited"]
            revs = [o for o in outcomes if isinstance(o, int)]
            self.assertEqual(len(limited) + len(revs), 4, outcomes)
            self.assertGreaterEqual(len(limited), 2, outcomes)
            self.assertTrue(all(e.message for e in limited))
            self.assertEqual(sorted(revs), list(range(1, len(revs) + 1)), outcomes)
            # The connection stays: once the bucket refills an action passes.
            self.assertEqual(client.state, "connected")
            rev = await self.bounded(self.retry_until_allowed(board.expand_all))
            self.assertEqual(rev, len(revs) + 1)
            await self.assertMirrors(board)

    async def retry_until_allowed(self, action: Any) -> int:
        for _ in range(20):  # 1 a second: never more than a few tries
            try:
                return int(await action())
            except foldsync.FoldError as e:
                self.assertEqual(e.code, "rate_limited")
            await asyncio.sleep(0.5)
        self.fail("still rate_limited after 10 s at 1 action a second")
