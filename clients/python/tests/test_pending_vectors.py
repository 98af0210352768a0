"""Tests/vectors/pending.json: the optimistic state every library shows,
step by step, against this package's PendingActions and the confirmed
board it is fed (the Swift and JavaScript libraries read the same cases)."""
from __future__ import annotations

import unittest
from typing import Any, Dict, Optional

from foldsync.patch import apply_patch
from foldsync.pending_actions import PendingActions
from test_vectors import load


class PendingVectorTests(unittest.TestCase):
    def test_pending_vectors(self) -> None:
        file = load("pending.json")
        self.assertEqual(len(file["cases"]), 14)
        for case in file["cases"]:
            confirmed: Any = case["confirmed"]["board"]
            rev: Optional[int] = case["confirmed"]["rev"]
            pending = PendingActions()
            for n, step in enumerate(case["steps"]):
                rolled_back: Optional[str] = None
                if "act" in step:
                    a: Dict[str, Any] = step["act"]
                    pending.add(a["key"], a["action"], a.get("ifRev"))
                elif "patch" in step:
                    p = step["patch"]
                    before, confirmed, rev = confirmed, apply_patch(confirmed, p["ops"]), p["rev"]
                    pending.patched(before, confirmed, p["rev"], p.get("by"), [case["session"]])
                elif "ack" in step:
                    pending.acked(step["ack"]["key"], step["ack"]["rev"])
                elif "refused" in step:
                    gone = pending.remove(step["refused"]["key"])
                    rolled_back = gone.key if gone else None
                elif "snapshot" in step:
                    confirmed, rev = step["snapshot"]["board"], step["snapshot"]["rev"]
                else:
                    self.fail(f"unknown step {step}")
                pending.settle(rev)
                with self.subTest(case=case["name"], step=n):
                    self.assertEqual(pending.shown(confirmed, rev), step["state"])
                    self.assertEqual(pending.keys, step["pending"])
                    self.assertEqual(rolled_back, step.get("rolledBack"))
                    if not pending.keys:
                        self.assertIs(pending.shown(confirmed, rev), confirmed, "nothing pending: no copy")

    def test_envelope_is_not_the_rules_business(self) -> None:
        board = {"mode": "multi", "sections": [{"id": "s1", "title": "S1", "items": [], "expanded": False}]}
        pending = PendingActions()
        pending.add("k1", {"type": "toggle", "section": "s1", "board": "b", "key": "k1", "id": "py1"}, None)
        self.assertTrue(pending.shown(board, 3)["sections"][0]["expanded"])
        self.assertFalse(board["sections"][0]["expanded"], "the confirmed board is not changed")

    def test_nothing_shown_without_a_board(self) -> None:
        pending = PendingActions()
        pending.add("k1", {"type": "toggle", "section": "s1"})
        self.assertIsNone(pending.shown(None, None))
