"""Why a snapshot is a resync, decided by the board from the messages alone
(no daemon needed; test_resynced.py provokes `lagging` from the daemon)."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List

from foldsync.board import Board
from foldsync.change import Change

DOC = {"mode": "single", "sections": [{"id": "s1", "title": "t", "items": [], "expanded": False}]}


def snapshot(epoch: str, rev: int) -> Dict[str, Any]:
    return {"type": "snapshot", "board": "b", "epoch": epoch, "rev": rev, "state": DOC}


def patch(epoch: str, rev: int) -> Dict[str, Any]:
    return {"type": "patch", "board": "b", "epoch": epoch, "rev": rev,
            "ops": [{"op": "replace", "path": "/sections/0/title", "value": str(rev)}]}


class Owner:
    """What the board asks of its client here: to count the answers it lost."""

    def __init__(self) -> None:
        self.answers_lost = 0

    def _answers_lost(self) -> None:
        self.answers_lost += 1


class BoardReasonTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.owner = Owner()
        self.board = Board(self.owner, "b")  # type: ignore[arg-type]
        self.seen: List[Change] = []
        self.board.on_change(self.seen.append)
        self.assertEqual(self.board.subscribe_message(), {"type": "subscribe", "board": "b"})
        self.board.receive(snapshot("e1", 3))

    async def test_first_snapshot_answers_subscribe(self) -> None:
        self.assertEqual(self.seen, [])
        self.assertEqual((self.board.epoch, self.board.rev), ("e1", 3))

    async def test_unsolicited_snapshot_is_lagging(self) -> None:
        self.board.receive(snapshot("e1", 9))
        self.assertEqual([(c.resynced, c.reason, c.rev) for c in self.seen], [(True, "lagging", 9)])
        self.assertEqual(self.owner.answers_lost, 1)

    async def test_snapshot_answering_since_is_pruned(self) -> None:
        self.assertEqual(self.board.subscribe_message()["since"], {"epoch": "e1", "rev": 3})
        self.board.receive(snapshot("e1", 9))
        self.assertEqual([c.reason for c in self.seen], ["pruned"])
        self.assertEqual(self.owner.answers_lost, 0)

    async def test_other_epoch_is_epoch(self) -> None:
        self.board.subscribe_message()
        self.board.receive(snapshot("e2", 1))
        self.assertEqual([c.reason for c in self.seen], ["epoch"])
        self.assertEqual(self.owner.answers_lost, 0)

    async def test_snapshot_after_deleted_is_epoch(self) -> None:
        self.board.receive({"type": "deleted", "board": "b"})
        self.board.receive(snapshot("e2", 0))
        self.assertEqual([(c.deleted, c.reason) for c in self.seen], [(True, None), (False, "epoch")])

    async def test_gap_resubscribes_with_since(self) -> None:
        self.board.receive(patch("e1", 4))
        again = self.board.receive(patch("e1", 6))
        self.assertEqual(again, {"type": "subscribe", "board": "b", "since": {"epoch": "e1", "rev": 4}})
        self.assertEqual([(c.rev, c.resynced) for c in self.seen], [(4, False)])
        self.board.receive(patch("e1", 5))
        self.assertEqual([c.rev for c in self.seen], [4, 5])
