"""The suite tests the installed package: a `foldsync` imported from the
source tree would prove nothing about what pip installs."""
import os

import foldsync

_SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src"))
if os.path.abspath(foldsync.__file__).startswith(_SOURCE + os.sep):
    raise ImportError(f"foldsync was imported from the source tree ({foldsync.__file__}), not the "
                      "installed copy: run clients/python/run-tests.sh")
