"""Every case of clients/contract/cases.json has a test named test_<id>
somewhere in this suite."""
from __future__ import annotations

import json
import os
import unittest
from typing import Iterator, Set

from harness import CASES


def test_names(suite: unittest.TestSuite) -> Iterator[str]:
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from test_names(t)
        else:
            yield t._testMethodName  # type: ignore[attr-defined]


class ContractTests(unittest.TestCase):
    def test_every_case_has_a_test(self) -> None:
        with open(CASES, encoding="utf-8") as f:
            ids = [c["id"] for c in json.load(f)["cases"]]
        self.assertTrue(ids)
        here = os.path.dirname(os.path.abspath(__file__))
        names: Set[str] = set(test_names(unittest.defaultTestLoader.discover(here, top_level_dir=here)))
        missing = [i for i in ids if f"test_{i}" not in names]
        self.assertEqual(missing, [], f"cases in {CASES} without a test_<id> in clients/python/tests")
