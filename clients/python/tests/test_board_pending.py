"""What a board tells its readers about its pending actions, driven
message by message through the session machine (no daemon, board_driver.py;
test_optimistic.py runs it live): a local
change at the call, the daemon's changes with `state` and `confirmed`, and
a rollback every time an action is given up."""
from __future__ import annotations

import unittest
from typing import Any, Dict, List

from foldsync.change import Change
from foldsync.errors import FoldError

from board_driver import DrivenBoard

DOC = {"mode": "multi", "sections": [{"id": s, "title": s.upper(), "items": [], "expanded": False}
                                     for s in ("s0", "s1", "s2")]}
TOGGLE = {"type": "toggle", "section": "s1", "board": "b", "key": "c-1"}


def patch(rev: int, section: int, value: Any, by: str = "me", field: str = "expanded") -> Dict[str, Any]:
    return {"type": "patch", "board": "b", "epoch": "e1", "rev": rev, "by": by,
            "ops": [{"op": "replace", "path": f"/sections/{section}/{field}", "value": value}]}


def flags(state: Any) -> List[bool]:
    return [s["expanded"] for s in state["sections"]]


class BoardPendingTests(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.board = DrivenBoard("b", client="c")
        self.board.receive({"type": "snapshot", "board": "b", "epoch": "e1", "rev": 1, "state": DOC})
        self.seen: List[Change] = []
        self.board.on_change(self.seen.append)

    async def test_a_call_shows_at_once_and_its_patch_and_ack_keep_it_once(self) -> None:
        self.board.called("c-1", TOGGLE)
        [local] = self.seen
        self.assertEqual((local.local, local.rev, local.ops, flags(local.state)), (True, 1, None, [False, True, False]))
        self.assertIs(local.confirmed, DOC)
        self.assertEqual(self.board.pending, ["c-1"])
        self.board.receive(patch(2, 1, True))
        self.assertEqual(flags(self.seen[-1].state), [False, True, False], "not flipped back by its own patch")
        self.assertFalse(self.seen[-1].local)
        self.board.answered("c-1", 2, None)
        self.assertEqual(len(self.seen), 2, "the ack changes nothing shown")
        self.assertEqual(self.board.pending, [])
        self.assertIs(self.board.state, self.board.confirmed)

    async def test_another_sessions_patch_is_shown_under_the_action(self) -> None:
        self.board.called("c-1", TOGGLE)
        self.board.receive(patch(2, 0, "Zero", by="other", field="title"))
        change = self.seen[-1]
        self.assertEqual((change.state["sections"][0]["title"], flags(change.state)), ("Zero", [False, True, False]))
        self.assertEqual(flags(change.confirmed), [False, False, False])
        self.assertEqual(change.ops, [{"op": "replace", "path": "/sections/0/title", "value": "Zero"}])

    async def test_a_refusal_rolls_back_and_says_so(self) -> None:
        self.board.called("c-1", TOGGLE)
        self.board.answered("c-1", None, FoldError("not_found", "no section 's1'", "b"))
        change = self.seen[-1]
        self.assertTrue(change.local)
        self.assertEqual((change.rolled_back.key, change.rolled_back.action, change.rolled_back.error.code),
                         ("c-1", {"type": "toggle", "section": "s1", "board": "b"}, "not_found"))
        self.assertIs(change.state, DOC)
        self.assertEqual(self.board.pending, [])

    async def test_a_rollback_is_told_even_when_nothing_shown_changes(self) -> None:
        # The rules refuse it here (no section s9): never shown, rolled back all the same.
        gone = {"type": "toggle", "section": "s9", "board": "b", "key": "c-1"}
        self.board.called("c-1", gone)
        self.assertEqual(self.seen, [], "nothing shown changed at the call")
        self.assertEqual(self.board.pending, ["c-1"], "kept: the daemon decides")
        self.board.answered("c-1", None, FoldError("not_found", "no section 's9'", "b"))
        [change] = self.seen
        self.assertEqual((change.local, change.rolled_back.key), (True, "c-1"))
        self.assertIs(change.state, change.confirmed)

    async def test_a_resync_keeps_the_action_on_the_new_board(self) -> None:
        self.board.called("c-1", TOGGLE)
        other = {"mode": "multi", "sections": [{"id": "s1", "title": "One", "items": [], "expanded": False}]}
        self.board.receive({"type": "snapshot", "board": "b", "epoch": "e1", "rev": 7, "state": other})
        change = self.seen[-1]
        self.assertEqual((change.resynced, change.reason, change.rev), (True, "lagging", 7))
        self.assertIs(change.confirmed, other)
        self.assertEqual(flags(change.state), [True])
