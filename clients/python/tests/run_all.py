"""Runs every test_*.py here and closes with the plain 'N passed, N failed'
line that CI reads; exits non-zero on any failure, or when nothing ran."""
from __future__ import annotations

import os
import sys
import unittest


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    bad = result.failures + result.errors + [(t, "") for t in result.unexpectedSuccesses]
    # A failed subtest counts its test once.
    failed = {getattr(t, "test_case", t).id() for t, _ in bad}
    passed = result.testsRun - len(failed) - len(result.skipped)
    skipped = f", {len(result.skipped)} skipped" if result.skipped else ""
    print(f"foldsync-python: {passed} passed, {len(failed)} failed{skipped}")
    return 0 if result.testsRun and result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
