"""Tests/vectors: the cases the Swift and JavaScript clients run too, here
against this package's backoff, mirror and board rules."""
from __future__ import annotations

import copy
import json
import os
import unittest
from typing import Any, Dict

from foldsync.backoff import BASE_MS, CAP_MS, Backoff, backoff_delay
from foldsync.errors import FoldError
from foldsync.mirror import BoardMirror
from foldsync.rules import apply_action
from harness import VECTORS


def load(name: str) -> Dict[str, Any]:
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return json.load(f)


class VectorTests(unittest.TestCase):
    def test_backoff_vectors(self) -> None:
        file = load("backoff.json")
        self.assertEqual((BASE_MS, CAP_MS), (file["baseMs"], file["capMs"]))
        self.assertTrue(file["cases"])
        for c in file["cases"]:
            with self.subTest(**c):
                self.assertEqual(backoff_delay(c["attempt"], lambda: c["random"]), c["delayMs"])

    def test_backoff_counts_attempts_and_resets(self) -> None:
        b = Backoff(random=lambda: 1.0)
        self.assertEqual([b.next_delay_ms() for _ in range(7)], [500, 1000, 2000, 4000, 8000, 10000, 10000])
        b.reset()
        self.assertEqual(b.next_delay_ms(), 500)

    def test_mirror_vectors(self) -> None:
        # The vector's outcomes are the mirror's kinds one for one:
        # changed, unchanged, presence, deleted, outOfStep.
        file = load("mirror.json")
        self.assertTrue(file["cases"])
        for c in file["cases"]:
            m = BoardMirror(c["board"])
            for n, step in enumerate(c["steps"]):
                with self.subTest(case=c["name"], step=n):
                    out = m.apply(step["message"])
                    self.assertEqual(out.kind, step["outcome"])
                    if "reason" in step:
                        self.assertEqual(out.reason, step["reason"])
                    if "rev" in step:
                        if step["rev"] is None:
                            self.assertIsNone(m.state)
                        else:
                            self.assertEqual(m.rev, step["rev"])
                    if "state" in step:
                        self.assertEqual(m.state, step["state"])
                    if "viewers" in step:
                        self.assertEqual((out.viewers, out.following), (step["viewers"], step.get("following")))

    def test_action_vectors(self) -> None:
        # Each case: a board, one action, and the board after it (unchanged:
        # a no-op) or the error code. The input is never changed.
        file = load("actions.json")
        self.assertEqual(len(file["cases"]), 43)
        for c in file["cases"]:
            with self.subTest(c["name"]):
                board, action = copy.deepcopy(c["board"]), copy.deepcopy(c["action"])
                if "error" in c:
                    with self.assertRaises(FoldError) as caught:
                        apply_action(board, action)
                    self.assertEqual(caught.exception.code, c["error"])
                else:
                    after, changed = apply_action(board, action)
                    self.assertEqual(after, c["after"])
                    self.assertEqual(changed, c["after"] != c["board"])
                    # The canonical key order, as the daemon serves it.
                    self.assertEqual(json.dumps(after), json.dumps(c["after"]))
                self.assertEqual((board, action), (c["board"], c["action"]))
