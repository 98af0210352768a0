"""transport="auto" (the default) against the real daemon behind a relay
(relay.py) that breaks WebSocket upgrades while passing plain HTTP, as a
proxy does: the client falls back to the event stream and keeps syncing,
and goes back to the WebSocket once upgrades get through again. And what
must not send it to the stream: a daemon that is simply down, or
transport="websocket"."""
from __future__ import annotations

import asyncio
from typing import Awaitable, List, Tuple

import foldsync
from harness import DaemonCase, board_doc
from relay import Relay


class AutoTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.relay = Relay(self.daemon.port)
        await self.relay.start()
        self.addAsyncCleanup(self.relay.close)

    def watched(self, client: foldsync.Client) -> Tuple[List[foldsync.ConnectionState], List[foldsync.TransportChange]]:
        states: List[foldsync.ConnectionState] = []
        switches: List[foldsync.TransportChange] = []
        client.on_state(states.append)
        client.on_transport(switches.append)
        self.addAsyncCleanup(client.close)
        return states, switches

    async def test_falls_back_to_the_stream_and_switches_back(self) -> None:
        self.daemon.ok("PUT", "/api/boards/auto", board_doc("a", "b", "c", mode="multi"))
        self.relay.mode = "cut"
        client = foldsync.Client(self.relay.url, websocket_retry_ms=1500)
        states, switches = self.watched(client)
        self.assertEqual(client.transport, "websocket", "auto starts on the WebSocket")
        await self.bounded(client.start())
        board = await self.bounded(client.subscribe("auto"))
        self.assertEqual(client.transport, "stream")
        self.assertEqual(len(switches), 1)
        self.assertEqual(switches[0].transport, "stream")
        self.assertIn("WebSocket", switches[0].reason)
        self.assertEqual(self.relay.upgrades_refused, 2, "two failed upgrades in a row, then the stream")
        self.assertEqual([s.state for s in states],
                         ["connecting", "disconnected", "connecting", "disconnected", "connecting", "connected"])
        self.assertMirrors(board)

        # Syncing on the stream: a change from elsewhere, and our own action.
        seen: List[foldsync.Change] = []
        board.on_change(seen.append)
        remote = await self.in_thread(self.daemon.action, "auto", {"type": "expand", "section": "a"})
        await self.wait_for(f"rev {remote} on the stream", lambda: board.rev == remote)
        self.assertEqual(await self.bounded(board.toggle("b")), board.rev)
        self.assertIsNone(client.session)
        # The WebSocket is tried again (every 1.5 s here) and still cut.
        refused = self.relay.upgrades_refused
        await self.wait_for("another WebSocket try", lambda: self.relay.upgrades_refused > refused, timeout=5)
        self.assertEqual((client.transport, client.state), ("stream", "connected"))
        self.assertMirrors(board)

        # Upgrades get through again: the client switches back, without a state change.
        count = len(states)
        self.relay.mode = None
        await self.wait_for("the switch back to the WebSocket", lambda: client.transport == "websocket", timeout=8)
        self.assertEqual([s.transport for s in switches], ["stream", "websocket"])
        self.assertEqual(len(states), count, "no state change on a switch")
        self.assertEqual(client.state, "connected")
        self.assertIsInstance(client.session, str, "a WebSocket session again")
        # Resubscribed with since: nothing missed, no resync; changes keep coming.
        later = await self.in_thread(self.daemon.action, "auto", {"type": "expand", "section": "c"})
        await self.wait_for(f"rev {later} on the WebSocket", lambda: board.rev == later)
        self.assertEqual([c.rev for c in seen if not c.local], list(range(seen[0].rev, later + 1)),
                         "every rev once, in order (and a local change for our toggle)")
        self.assertFalse(any(c.resynced for c in seen))
        self.assertEqual(await self.bounded(board.toggle("a")), board.rev)
        self.assertMirrors(board)

    async def test_a_stripped_upgrade_is_not_a_wrong_url(self) -> None:
        # The daemon answers the upgrade that lost its header with 404, as for
        # a wrong path; with HTTP answering beside it, connect() falls back
        # instead of failing.
        self.relay.mode = "strip"
        async with foldsync.connect(self.relay.url) as client:
            board = await self.bounded(client.subscribe("default"))
            self.assertEqual(client.transport, "stream")
            self.assertEqual(self.relay.upgrades_refused, 2)
            self.assertEqual(await self.bounded(board.toggle("s1")), 1)
            self.assertMirrors(board)
        # A wrong path is still refused at once (HTTP does not answer there either).
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(foldsync.connect(f"ws://127.0.0.1:{self.daemon.port}/nowhere/ws"))
        self.assertEqual(caught.exception.code, "not_found")

    async def test_a_daemon_that_is_down_does_not_send_the_client_to_the_stream(self) -> None:
        client = foldsync.Client(self.daemon.url)
        states, switches = self.watched(client)
        await self.bounded(client.start())
        await self.bounded(client.subscribe("default"))
        mark = len(states)
        await self.in_thread(self.daemon.stop)
        # Several WebSocket attempts fail, but HTTP fails too.
        await self.wait_for("three failed attempts",
                            lambda: [s.state for s in states[mark:]].count("disconnected") >= 3, timeout=15)
        await self.in_thread(self.daemon.start)
        await self.wait_for("connected again", lambda: client.state == "connected", timeout=15)
        self.assertEqual(client.transport, "websocket")
        self.assertEqual(switches, [])

    async def test_websocket_never_falls_back_and_stream_never_tries_the_websocket(self) -> None:
        self.relay.mode = "cut"
        ws = foldsync.Client(self.relay.url, transport="websocket")
        states, switches = self.watched(ws)
        ws_start = asyncio.ensure_future(self.settled(ws.start()))
        await self.wait_for("three failed attempts", lambda: [s.state for s in states].count("disconnected") >= 3,
                            timeout=15)
        self.assertEqual((ws.transport, switches), ("websocket", []))
        self.assertNotEqual(ws.state, "connected")
        await ws.close()
        await self.bounded(ws_start)
        refused = self.relay.upgrades_refused
        async with foldsync.connect(self.relay.url, transport="stream", websocket_retry_ms=200) as st:
            board = await self.bounded(st.subscribe("default"))
            await self.holds("no WebSocket tried", lambda: self.relay.upgrades_refused == refused, 1)
            self.assertEqual(st.transport, "stream")
            self.assertMirrors(board)

    @staticmethod
    async def settled(start: Awaitable[None]) -> None:
        try:
            await start
        except foldsync.FoldError:
            pass  # closed before it ever connected
