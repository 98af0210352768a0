"""Every case of clients/contract/cases.json has a test named test_<id>
somewhere in this suite."""
from __future__ import annotations

import ast
import glob
import json
import os
import unittest
from typing import Set

from harness import CASES


def defined_tests(folder: str) -> Set[str]:
    """The test functions and methods defined in test_*.py, read from the
    source: a unittest method and a plain pytest function count alike."""
    names: Set[str] = set()
    for path in glob.glob(os.path.join(folder, "test_*.py")):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        names.update(node.name for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_"))
    return names


class ContractTests(unittest.TestCase):
    def test_every_case_has_a_test(self) -> None:
        with open(CASES, encoding="utf-8") as f:
            ids = [c["id"] for c in json.load(f)["cases"]]
        self.assertTrue(ids)
        names = defined_tests(os.path.dirname(os.path.abspath(__file__)))
        missing = [i for i in ids if f"test_{i}" not in names]
        self.assertEqual(missing, [], f"cases in {CASES} without a test_<id> in clients/python/tests")
