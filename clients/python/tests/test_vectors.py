"""Tests/vectors: the cases the Swift and JavaScript clients run too, here
against this package's backoff and mirror."""
from __future__ import annotations

import json
import os
import unittest
from typing import Any, Dict

from foldsync.backoff import BASE_MS, CAP_MS, Backoff, backoff_delay
from foldsync.mirror import BoardMirror
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
