#!/usr/bin/env bash
# The Python client's tests against a real foldsyncd: installs ./clients/python
# (not editable: proves the package installs) and pytest into
# .build/py-client-venv and runs pytest on clients/python/tests with that
# venv's python; arguments go to pytest. Builds nothing: the daemon is
# $FOLDSYNCD, else .build/debug/foldsyncd. Exit status non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
export FOLDSYNCD=${FOLDSYNCD:-$ROOT/.build/debug/foldsyncd}
if [ ! -x "$FOLDSYNCD" ]; then
  echo "python client tests: no foldsyncd at $FOLDSYNCD; set FOLDSYNCD or run 'swift build --product foldsyncd' first" >&2
  exit 1
fi
VENV=$ROOT/.build/py-client-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
# setuptools builds in place: a build/ left from an earlier run could still
# hold a module since deleted, and ship it.
rm -rf clients/python/build clients/python/src/foldsync.egg-info
# --force-reinstall: the same version number must still pick up changed sources.
"$VENV/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps ./clients/python
"$VENV/bin/pip" install --quiet --disable-pip-version-check ./clients/python 'pytest>=7'
rm -rf clients/python/build clients/python/src/foldsync.egg-info
# Run from the tests folder so that `import foldsync` can only find the
# installed copy (conftest.py checks). No cache: nothing written into the tree.
# faulthandler_timeout: a test stuck past it prints every thread's stack.
cd clients/python/tests
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider -o faulthandler_timeout=120 "$@" .
