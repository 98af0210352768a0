"""The RFC 6902 applier against the shared conformance suite
(json-patch-tests: tests.json and spec_tests.json), read where it lives."""
from __future__ import annotations

import copy
import json
import os
import unittest
from typing import Any, Dict, List

from foldsync.patch import PatchError, apply_patch, json_equal
from harness import conformance_dir


def records(name: str) -> List[Dict[str, Any]]:
    with open(os.path.join(conformance_dir(), name), encoding="utf-8") as f:
        every = json.load(f)
    return [dict(r, where=f"{name}#{i} {r.get('comment', '')}") for i, r in enumerate(every)
            if not r.get("disabled") and "doc" in r and "patch" in r]


class ConformanceTests(unittest.TestCase):
    def run_suite(self, name: str) -> None:
        cases = records(name)
        self.assertGreater(len(cases), 10, name)
        for r in cases:
            with self.subTest(r["where"]):
                before = copy.deepcopy(r["doc"])
                if "error" in r:
                    with self.assertRaises(PatchError, msg=r["error"]):
                        apply_patch(r["doc"], r["patch"])
                else:
                    got = apply_patch(r["doc"], r["patch"])
                    if "expected" in r:
                        self.assertTrue(json_equal(got, r["expected"]), f"{got!r} != {r['expected']!r}")
                # Never in place, whether it applied or not.
                self.assertTrue(json_equal(r["doc"], before))

    def test_tests_json(self) -> None:
        self.run_suite("tests.json")

    def test_spec_tests_json(self) -> None:
        self.run_suite("spec_tests.json")


class ApplierTests(unittest.TestCase):
    def test_shares_what_did_not_change(self) -> None:
        doc = {"sections": [{"id": "a", "expanded": False}, {"id": "b", "expanded": False}]}
        out = apply_patch(doc, [{"op": "replace", "path": "/sections/1/expanded", "value": True}])
        self.assertIs(out["sections"][0], doc["sections"][0])
        self.assertIsNot(out["sections"][1], doc["sections"][1])
        self.assertFalse(doc["sections"][1]["expanded"])

    def test_json_equality(self) -> None:
        self.assertTrue(json_equal(1, 1.0))
        self.assertFalse(json_equal(True, 1))
        self.assertFalse(json_equal(0, False))
        self.assertFalse(json_equal(None, False))
        self.assertTrue(json_equal({"a": [1, {"b": None}]}, {"a": [1.0, {"b": None}]}))

    def test_failed_patch_changes_nothing(self) -> None:
        doc = {"a": [1, 2]}
        with self.assertRaises(PatchError):
            apply_patch(doc, [{"op": "add", "path": "/a/-", "value": 3}, {"op": "test", "path": "/a/0", "value": 9}])
        self.assertEqual(doc, {"a": [1, 2]})
