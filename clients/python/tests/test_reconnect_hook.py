"""The application's say on reconnecting: `connect(url, reconnect=hook)`
and `client.reconnect()`, across a real daemon restart, on both transports."""
from __future__ import annotations

import asyncio
import logging
from typing import List

import foldsync
from harness import DaemonCase


class ReconnectHookTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.ends: List[foldsync.Ended] = []
        self.states: List[foldsync.ConnectionState] = []

    def names(self, since: int = 0) -> List[str]:
        return [s.state for s in self.states[since:]]

    async def start(self, client: foldsync.Client) -> foldsync.Client:
        client.on_state(self.states.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        return client

    async def test_false_waits_for_reconnect_which_resumes(self) -> None:
        allow = False

        async def hook(end: foldsync.Ended) -> bool:  # an async hook is awaited
            self.ends.append(end)
            return allow
        client = await self.start(self.new_client(reconnect=hook))
        board = await self.bounded(client.subscribe("default"))
        changes = board.changes()

        await self.in_thread(self.daemon.stop)
        await self.wait_for("disconnected", lambda: client.state == "disconnected")
        self.assertEqual(client.status.delay_ms, None, "a retry was scheduled")
        self.assertEqual(len(self.ends), 1)
        self.assertTrue(self.ends[0].opened)
        if self.transport == "websocket":
            self.assertEqual((self.ends[0].code, client.status.code), (1001, 1001))
        self.assertEqual(self.ends[0].reason, client.status.reason)
        kept = asyncio.ensure_future(board.toggle("s1"))  # waits in the outbox for reconnect()
        # A change it has not seen, made while it was away.
        await self.in_thread(self.daemon.start)
        rev = await self.in_thread(self.daemon.action, "default", {"type": "toggle", "section": "s0"})
        # Longer than the first retries would have waited: nothing came back on its own.
        await self.holds("disconnected", lambda: client.state == "disconnected" and not kept.done(), 1.5)
        self.assertEqual(self.names(), ["connecting", "connected", "disconnected"])
        self.assertEqual(len(self.ends), 1)

        allow = True
        await client.reconnect()
        await self.wait_for("connected again", lambda: client.state == "connected")
        change = await self.next_from_daemon(changes)
        self.assertEqual((change.rev, change.resynced), (rev, False), "resumed with `since`")
        self.assertEqual(await self.bounded(kept), rev + 1, "sent after the resubscribe")
        self.assertMirrors(board)

        # On a live connection: dropped, and back at once, with no disconnected in between.
        mark = len(self.states)
        await client.reconnect()
        await self.wait_for("connected again", lambda: self.names(mark)[-1:] == ["connected"])
        self.assertEqual(self.names(mark), ["connecting", "connected"])
        self.assertEqual(len(self.ends), 1, "reconnect() is not a connection that ended")
        self.assertEqual(await self.bounded(board.toggle("s1")), rev + 2)
        self.assertMirrors(board)

    async def test_a_hook_that_raises_is_taken_as_yes(self) -> None:
        def hook(end: foldsync.Ended) -> bool:
            self.ends.append(end)
            raise RuntimeError("the application's own bug")
        client = await self.start(self.new_client(reconnect=hook))
        await self.bounded(client.subscribe("default"))  # on the stream, what notices the restart
        with self.assertLogs("foldsync", logging.ERROR) as logs:
            await self.in_thread(self.daemon.restart)
            await self.wait_for("disconnected", lambda: "disconnected" in self.names())
            await self.wait_for("connected again", lambda: self.names()[-1:] == ["connected"], 15)
        self.assertTrue(any("reconnect hook raised" in line for line in logs.output), logs.output)
        gone = [s for s in self.states if s.state == "disconnected"][0]
        self.assertIsNotNone(gone.delay_ms, "the retry was scheduled as without a hook")
        self.assertGreaterEqual(len(self.ends), 1)

    async def test_false_before_the_first_connection_fails_connect(self) -> None:
        await self.in_thread(self.daemon.stop)

        def hook(end: foldsync.Ended) -> bool:
            self.ends.append(end)
            return False
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(self.connect(reconnect=hook))
        self.assertEqual(caught.exception.code, "disconnected")
        self.assertEqual(len(self.ends), 1)
        self.assertFalse(self.ends[0].opened)

    async def test_a_hook_must_be_callable(self) -> None:
        with self.assertRaises(TypeError):
            self.connect(reconnect=True)


class StreamReconnectHookTests(ReconnectHookTests):
    transport = "stream"
