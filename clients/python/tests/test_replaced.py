"""A board replaced under a connected client.

`PUT /api/boards/NAME` on an existing board keeps its epoch: the history
goes on, and the daemon broadcasts the replacement as one patch (the epoch
changes only when a board is deleted and created again, or the store is
restored: docs/PROTOCOL.md, "Position"). So the application sees an ordinary
change, not a resync. A board deleted and created again has a new epoch:
the application sees the deletion, then a change with resynced true, reason
"epoch"."""
from __future__ import annotations

from typing import List

import foldsync
from harness import DaemonCase, board_doc


class ReplacedTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        await super().asyncSetUp()
        await self.in_thread(self.daemon.ok, "PUT", "/api/boards/b", board_doc("x", "y"))
        self.client = await self.bounded(foldsync.connect(self.daemon.url))
        self.addAsyncCleanup(self.client.close)
        self.board = await self.bounded(self.client.subscribe("b"))
        self.seen: List[foldsync.Change] = []
        # The daemon's changes: not the local ones our own actions make.
        self.board.on_change(lambda c: None if c.local else self.seen.append(c))

    async def assertMirrors(self) -> None:
        got = await self.in_thread(self.daemon.board, "b")
        await self.wait_for(f"the mirror at rev {got['rev']}", lambda: self.board.rev == got["rev"])
        self.assertEqual((self.board.state, self.board.epoch), (got["state"], got["epoch"]))

    async def test_put_keeps_the_epoch_and_is_a_patch(self) -> None:
        epoch, rev = self.board.epoch, self.board.rev
        answer = await self.in_thread(self.daemon.ok, "PUT", "/api/boards/b", board_doc("p", "q", "r", mode="multi"))
        self.assertEqual((answer["epoch"], answer["rev"]), (epoch, rev + 1))
        await self.wait_for("the replacement", lambda: self.seen)
        [change] = self.seen
        self.assertEqual((change.resynced, change.reason, change.rev, change.epoch), (False, None, rev + 1, epoch))
        self.assertTrue(change.ops)
        self.assertEqual(self.board.state, board_doc("p", "q", "r", mode="multi"))
        await self.assertMirrors()
        # The same document again is a no-op: no change at all.
        self.assertEqual(await self.bounded(self.board.act({"type": "replace", "state": board_doc("p", "q", "r",
                                                                                               mode="multi")})),
                         rev + 1)
        # Replaced over the WebSocket: the same, a patch.
        new_rev = await self.bounded(self.board.act({"type": "replace", "state": board_doc("z")}))
        self.assertEqual([(c.rev, c.resynced) for c in self.seen], [(rev + 1, False), (new_rev, False)])
        await self.assertMirrors()

    async def test_deleted_and_created_again_is_an_epoch_resync(self) -> None:
        old_epoch = self.board.epoch
        await self.bounded(self.board.toggle("x"))
        await self.in_thread(self.daemon.ok, "DELETE", "/api/boards/b")
        await self.wait_for("the deletion", lambda: any(c.deleted for c in self.seen))
        self.assertIsNone(self.board.state)
        await self.in_thread(self.daemon.ok, "PUT", "/api/boards/b", board_doc("n", "m"))
        await self.wait_for("the board again", lambda: len(self.seen) == 3)
        toggled, gone, back = self.seen
        self.assertEqual((toggled.rev, toggled.resynced), (1, False))
        self.assertTrue(gone.deleted)
        self.assertEqual((back.resynced, back.reason, back.ops, back.deleted), (True, "epoch", None, False))
        got = await self.in_thread(self.daemon.board, "b")
        self.assertNotEqual(back.epoch, old_epoch)
        self.assertEqual((back.epoch, back.rev, back.state), (got["epoch"], got["rev"], got["state"]))
        # The new history goes on from there, as patches.
        rev = await self.bounded(self.board.toggle("m"))
        self.assertEqual(self.seen[-1].rev, rev)
        self.assertFalse(self.seen[-1].resynced)
        await self.assertMirrors()
