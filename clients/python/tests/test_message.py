"""client.on_message: every message of the daemon, after the client
handled it, on both transports."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import foldsync
from harness import DaemonCase


class MessageTests(DaemonCase):
    async def test_every_message_after_the_client_handled_it(self) -> None:
        client = self.new_client()
        self.addAsyncCleanup(client.close)
        # (type, rev, the board's rev and state when the listener ran, once subscribe() returned it)
        seen: List[Tuple[str, Optional[int], Optional[int], Any]] = []
        boards: List[foldsync.Board] = []

        def listen(m: Dict[str, Any]) -> None:
            b = boards[0] if boards else None
            seen.append((m["type"], m.get("rev"), b.rev if b else None, b.state if b else None))
        stop = client.on_message(listen)
        await self.bounded(client.start())
        board = await self.bounded(client.subscribe("default"))
        boards.append(board)
        await self.wait_for("presence", lambda: any(s[0] == "presence" for s in seen))
        rev = await self.bounded(board.toggle("s1"))
        await self.wait_for("the ack", lambda: any(s[0] == "ack" for s in seen))
        kinds = [s[0] for s in seen]
        self.assertEqual(kinds, ["hello", "snapshot", "presence", "patch", "ack"], seen)
        snapshot, patch = seen[1], seen[3]
        self.assertEqual(snapshot[1], 0)
        # The board had taken the patch already: its rev and state are the patch's.
        self.assertEqual((patch[1], patch[2]), (rev, rev))
        self.assertTrue(patch[3]["sections"][1]["expanded"])
        self.assertEqual(patch[3], self.daemon.board("default")["state"])
        stop()
        await self.bounded(board.toggle("s1"))
        self.assertEqual(len(seen), 5, "a stopped listener was called")


class StreamMessageTests(MessageTests):
    transport = "stream"
