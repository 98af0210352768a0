#!/usr/bin/env bash
# The Python client's tests against a real foldsyncd: installs ./clients/python
# (not editable: proves the package installs) into .build/py-client-venv and
# runs clients/python/tests with that venv's python. Builds nothing: the
# daemon is $FOLDSYNCD, else .build/debug/foldsyncd. Exit status non-zero on
# any failure.
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
"$VENV/bin/pip" install --quiet --disable-pip-version-check ./clients/python
rm -rf clients/python/build clients/python/src/foldsync.egg-info
# Run from the tests folder so that `import foldsync` can only find the installed copy.
cd clients/python/tests
exec "$VENV/bin/python" run_all.py
