"""Why a snapshot is a resync, decided by the board from the messages alone
through the session machine (no daemon needed, board_driver.py; test_resynced.py provokes `lagging` from the daemon)."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List

from foldsync.change import Change

from board_driver import DrivenBoard

DOC = {"mode": "single", "sections": [{"id": "s1", "title": "t", "items": [], "expanded": False}]}


def snapshot(epoch: str, rev: int) -> Dict[str, Any]:
    return {"type": "snapshot", "board": "b", "epoch": epoch, "rev": rev, "state": DOC}


def patch(epoch: str, rev: int) -> Dict[str, Any]:
    return {"type": "patch", "board": "b", "epoch": epoch, "rev": rev,
            "ops": [{"op": "replace", "path": "/sections/0/title", "value": str(rev)}]}


class BoardReasonTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.board = DrivenBoard("b")
        self.assertEqual(self.board.sent, [{"type": "subscribe", "board": "b"}])
        self.board.receive(snapshot("e1", 3))
        self.seen: List[Change] = []
        self.board.on_change(self.seen.append)

    def answers_lost(self) -> int:
        """Whether the last message said the daemon dropped this connection's
        answers: the actions in flight were sent again."""
        return len([m for m in self.board.last_sent if "key" in m])

    def in_flight(self) -> None:
        """An action that awaits its answer (its own change is not counted)."""
        self.board.called("c-1", {"type": "expandAll"})
        self.seen.clear()

    async def test_first_snapshot_answers_subscribe(self) -> None:
        self.assertEqual(self.seen, [])
        self.assertEqual((self.board.epoch, self.board.rev), ("e1", 3))

    async def test_unsolicited_snapshot_is_lagging(self) -> None:
        self.in_flight()
        self.board.receive(snapshot("e1", 9))
        self.assertEqual([(c.resynced, c.reason, c.rev) for c in self.seen], [(True, "lagging", 9)])
        self.assertEqual(self.answers_lost(), 1)

    async def test_snapshot_answering_since_is_pruned(self) -> None:
        self.in_flight()
        self.assertEqual(self.board.reconnect()["since"], {"epoch": "e1", "rev": 3})
        self.board.receive(snapshot("e1", 9))
        self.assertEqual([c.reason for c in self.seen], ["pruned"])
        self.assertEqual(self.answers_lost(), 0)

    async def test_other_epoch_is_epoch(self) -> None:
        self.in_flight()
        self.board.reconnect()
        self.board.receive(snapshot("e2", 1))
        self.assertEqual([c.reason for c in self.seen], ["epoch"])
        self.assertEqual(self.answers_lost(), 0)

    async def test_snapshot_after_deleted_is_epoch(self) -> None:
        self.board.receive({"type": "deleted", "board": "b"})
        self.board.receive(snapshot("e2", 0))
        self.assertEqual([(c.deleted, c.reason) for c in self.seen], [(True, None), (False, "epoch")])

    async def test_gap_resubscribes_without_since(self) -> None:
        # As Tests/vectors/session.json: the snapshot that answers is the whole board (`pruned`).
        self.board.receive(patch("e1", 4))
        again = self.board.receive(patch("e1", 6))
        self.assertEqual(again, {"type": "subscribe", "board": "b"})
        self.assertEqual([(c.rev, c.resynced) for c in self.seen], [(4, False)])
        self.board.receive(patch("e1", 5))
        self.assertEqual([c.rev for c in self.seen], [4, 5])
