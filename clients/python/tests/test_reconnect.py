"""The daemon goes away and comes back on the same port and store: backoff,
resume with `since`, and resyncs with their reasons."""
from __future__ import annotations

import asyncio
import signal
from typing import Callable, List

import foldsync
from harness import Daemon, DaemonCase, board_doc


class ReconnectTests(DaemonCase):
    daemon_args = ("--history-per-board", "3", "--history-days", "0")

    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        self.client = self.new_client()
        self.states: List[foldsync.ConnectionState] = []
        self.client.on_state(self.states.append)
        await self.bounded(self.client.start())
        self.addAsyncCleanup(self.client.close)

    def names(self, since: int = 0) -> List[str]:
        return [s.state for s in self.states[since:]]

    async def go_away(self) -> int:
        """Stops the daemon; returns where the states after it begin."""
        mark = len(self.states)
        await self.in_thread(self.daemon.stop)
        await self.wait_for("disconnected", lambda: "disconnected" in self.names(mark))
        return mark

    async def while_away(self, work: Callable[[Daemon], None]) -> None:
        """Runs `work` against a daemon on the same store and another port
        (off the loop: the client keeps trying meanwhile)."""
        def run() -> None:
            with self.daemon.sibling() as other:
                work(other)
        await self.in_thread(run)

    async def come_back(self) -> None:
        await self.in_thread(self.daemon.start)
        await self.wait_for("connected again", lambda: self.client.state == "connected", timeout=15)

    async def test_reconnect_with_backoff(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        mark = await self.go_away()
        first = self.states[mark]
        self.assertEqual(first.state, "disconnected")
        if self.transport == "websocket":
            self.assertIn("1001", first.reason or "")
            self.assertEqual(first.code, 1001)
        else:  # no close code on a stream: the reason says which one ended
            self.assertIn("event stream of 'default'", first.reason or "")
            self.assertIsNone(first.code)
        self.assertTrue(250 <= (first.delay_ms or 0) <= 500, first)
        kept = asyncio.ensure_future(board.toggle("s1"))  # waits in the outbox
        # A refused attempt doubles the delay.
        await self.wait_for("a second attempt refused", lambda: self.names(mark).count("disconnected") >= 2)
        second = [s for s in self.states[mark:] if s.state == "disconnected"][1]
        self.assertTrue(second.reason)
        self.assertTrue(500 <= (second.delay_ms or 0) <= 1000, second)
        await self.come_back()
        after = self.names(mark)
        self.assertEqual(after[:2], ["disconnected", "connecting"])
        self.assertEqual(after[-2:], ["connecting", "connected"])
        self.assertEqual(set(after), {"disconnected", "connecting", "connected"})
        for s in self.states[mark:]:
            if s.state == "disconnected":
                self.assertTrue(s.reason and 0 < (s.delay_ms or 0) <= 10_000, s)
        self.assertEqual(await self.bounded(kept), 1)
        self.assertEqual(await self.bounded(board.toggle("s1")), 2)
        self.assertEqual(board.state, self.daemon.board("default")["state"])

    async def test_pending_action_is_kept_when_the_connection_drops(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        assert self.daemon.proc is not None
        self.daemon.proc.send_signal(signal.SIGSTOP)  # it reads nothing more: no ack can come
        try:
            pending = asyncio.ensure_future(board.toggle("s1"))
            await asyncio.sleep(0.3)
            self.assertFalse(pending.done())
        finally:
            self.daemon.proc.kill()  # its sockets close with it
            await self.in_thread(self.daemon.proc.wait)
        await asyncio.sleep(0.5)
        self.assertFalse(pending.done(), "kept in the outbox")
        await self.come_back()
        self.assertEqual(await self.bounded(pending), 1, "sent again, applied once")
        self.assertEqual(self.daemon.board("default")["rev"], 1)
        self.assertEqual(board.state, self.daemon.board("default")["state"])

    async def test_resume_since(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        changes = board.changes()
        await self.go_away()
        await self.while_away(lambda other: [
            other.action("default", {"type": "toggle", "section": section}) for section in ("s0", "s1", "s2")])
        await self.come_back()
        got = [await self.next_of(changes) for _ in range(3)]
        self.assertEqual([c.rev for c in got], [1, 2, 3])
        self.assertEqual([c.resynced for c in got], [False] * 3)
        self.assertTrue(all(c.ops for c in got))
        self.assertEqual(board.state, self.daemon.board("default")["state"])
        self.assertEqual(board.rev, 3)

    async def test_resync_epoch_changed(self) -> None:
        self.daemon.ok("PUT", "/api/boards/b", board_doc("x", "y"))
        board = await self.bounded(self.client.subscribe("b"))
        old_epoch = board.epoch
        changes = board.changes()
        await self.go_away()
        def remake(other: Daemon) -> None:
            other.ok("DELETE", "/api/boards/b")
            other.ok("PUT", "/api/boards/b", board_doc("z"))
        await self.while_away(remake)
        await self.come_back()
        change = await self.next_of(changes)
        self.assertEqual((change.resynced, change.reason, change.ops), (True, "epoch", None))
        got = self.daemon.board("b")
        self.assertNotEqual(change.epoch, old_epoch)
        self.assertEqual((change.state, change.rev, change.epoch), (got["state"], got["rev"], got["epoch"]))
        self.assertEqual(board.state, got["state"])

    async def test_resync_pruned(self) -> None:
        board = await self.bounded(self.client.subscribe("default"))
        changes = board.changes()
        await self.go_away()
        # More changes than --history-per-board 3 keeps.
        await self.while_away(lambda other: [
            other.action("default", {"type": "setTitle", "section": "s0", "title": f"t{n}"}) for n in range(6)])
        await self.come_back()
        change = await self.next_of(changes)
        self.assertEqual((change.resynced, change.reason, change.rev), (True, "pruned", 6))
        self.assertEqual(board.state, self.daemon.board("default")["state"])

    async def test_deleted_and_made_again_while_connected(self) -> None:
        self.daemon.ok("PUT", "/api/boards/b", board_doc("x"))
        board = await self.bounded(self.client.subscribe("b"))
        changes = board.changes()
        self.daemon.ok("DELETE", "/api/boards/b")
        gone = await self.next_of(changes)
        self.assertTrue(gone.deleted)
        self.assertIsNone(board.state)
        self.daemon.ok("PUT", "/api/boards/b", board_doc("y"))
        back = await self.next_of(changes)
        self.assertEqual((back.resynced, back.reason), (True, "epoch"))
        self.assertEqual(board.state, self.daemon.board("b")["state"])


class StreamReconnectTests(ReconnectTests):
    transport = "stream"
