"""The daemon under test, its HTTP API, and the waits every test needs.

The daemon is $FOLDSYNCD, else .build/debug/foldsyncd of the repository;
each test starts its own on a free loopback port with a fresh SQLite file,
and may stop it and start it again on the same port and store."""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterator, Optional, Tuple

import foldsync

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
VECTORS = os.path.join(ROOT, "Tests", "vectors")
CASES = os.path.join(ROOT, "clients", "contract", "cases.json")


def daemon_path() -> str:
    path = os.environ.get("FOLDSYNCD") or os.path.join(ROOT, ".build", "debug", "foldsyncd")
    if not os.access(path, os.X_OK):
        raise AssertionError(f"no foldsyncd at {path}: set FOLDSYNCD, or run `swift build --product foldsyncd`")
    return path


def conformance_dir() -> str:
    """The JSON Patch suite: $FOLDSYNC_CONFORMANCE_DIR (the suite or its
    parent), else ../shared/conformance beside the repository, else
    /work/shared/conformance. Never copied into the project."""
    env = os.environ.get("FOLDSYNC_CONFORMANCE_DIR")
    places = [env] if env else [os.path.join(ROOT, "..", "shared", "conformance"), "/work/shared/conformance"]
    for d in places:
        for cand in (d, os.path.join(d, "json-patch-tests")):
            if os.path.isfile(os.path.join(cand, "tests.json")):
                return cand
    raise AssertionError(f"JSON Patch conformance suite not found in {places}; set FOLDSYNC_CONFORMANCE_DIR")


def hash_token(secret: str) -> str:
    return subprocess.run([daemon_path(), "hash-token"], input=secret.encode(), capture_output=True,
                          check=True).stdout.decode().strip()


class Daemon:
    """One foldsyncd; `stop()` and `start()` again keep its port and store."""

    def __init__(self, *args: str, db: Optional[str] = None) -> None:
        self.args = list(args)
        self.tmp = tempfile.mkdtemp(prefix="foldsync-py-")
        self.db = db or os.path.join(self.tmp, "fold.db")
        self.log = os.path.join(self.tmp, "daemon.log")
        self.port = 0
        self.proc: Optional[subprocess.Popen[bytes]] = None

    def start(self) -> None:
        """Starts it and waits (at most 15 s) until /healthz answers."""
        mark = os.path.getsize(self.log) if os.path.exists(self.log) else 0
        with open(self.log, "ab") as logf:
            self.proc = subprocess.Popen(
                [daemon_path(), "--listen", f"127.0.0.1:{self.port}", "--db", self.db, *self.args],
                stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise DaemonExited(self.proc.returncode, self.log_text(mark))
            if self.port == 0:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log_text(mark))
                if m:
                    self.port = int(m.group(1))
            if self.port and self.healthy():
                return
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"foldsyncd did not come up:\n{self.log_text(mark)}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def restart(self) -> None:
        """SIGTERM (the daemon closes every connection with 1001), then the
        same port and store again."""
        self.stop()
        self.start()

    def metric(self, name: str) -> float:
        """One unlabelled sample of /metrics (public while no tokens are set)."""
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/metrics")
        with urllib.request.urlopen(req, timeout=10) as r:
            text = r.read().decode()
        m = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        assert m, f"no {name} in /metrics"
        return float(m.group(1))

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    @contextlib.contextmanager
    def sibling(self) -> Iterator["Daemon"]:
        """Another daemon on this one's store and another port, while this
        one is stopped: changes made there happen while our clients cannot
        connect, however long they wait."""
        assert self.proc is None or self.proc.poll() is not None, "stop the daemon first"
        other = Daemon(*self.args, db=self.db)
        other.start()
        try:
            yield other
        finally:
            other.remove()

    def log_text(self, offset: int = 0) -> str:
        with open(self.log, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def request(self, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Tuple[int, Any]:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                raw = r.read()
                return r.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, json.loads(raw) if raw else None

    def ok(self, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Any:
        status, answer = self.request(method, path, body, token)
        assert 200 <= status < 300, (method, path, status, answer)
        return answer

    def board(self, name: str, token: Optional[str] = None) -> Dict[str, Any]:
        return self.ok("GET", f"/api/boards/{name}", token=token)

    def action(self, name: str, action: Dict[str, Any]) -> int:
        return self.ok("POST", f"/api/boards/{name}/actions", action)["rev"]


class DaemonExited(AssertionError):
    def __init__(self, code: int, log: str) -> None:
        super().__init__(f"foldsyncd exited with {code}:\n{log}")
        self.log = log


def board_doc(*ids: str, mode: str = "single") -> Dict[str, Any]:
    return {"mode": mode, "sections": [
        {"id": s, "title": s.upper(), "items": ["a", "b"], "expanded": False} for s in ids]}


class DaemonCase(unittest.IsolatedAsyncioTestCase):
    """A fresh daemon for each test; `daemon_args` adds options. `transport`
    is what the clients under test use: a subclass that sets "stream" runs
    the same tests over the event stream."""

    daemon_args: Tuple[str, ...] = ()
    transport = "websocket"

    async def asyncSetUp(self) -> None:
        self.daemon = Daemon(*self.daemon_args)
        self.addCleanup(self.daemon.remove)
        await self.in_thread(self.daemon.start)

    def new_client(self, token: Any = None, **options: Any) -> foldsync.Client:
        """A Client of this case's transport (not started)."""
        return foldsync.Client(self.daemon.url, token, transport=self.transport, **options)

    def connect(self, token: Any = None, **options: Any) -> foldsync.connect:
        """foldsync.connect() with this case's transport."""
        return foldsync.connect(self.daemon.url, token, transport=self.transport, **options)

    def assertMirrors(self, board: foldsync.Board, token: Optional[str] = None) -> None:
        """The mirror equals GET /api/boards/NAME: the confirmed state, rev
        and epoch; and, with no action of ours pending, the state shown is it."""
        got = self.daemon.board(board.name, token=token)
        self.assertEqual((board.confirmed, board.rev, board.epoch), (got["state"], got["rev"], got["epoch"]))
        if not board.pending:
            self.assertIs(board.state, board.confirmed)

    async def in_thread(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Blocking work (starting a daemon, HTTP) off the loop, so that the
        clients under test keep running meanwhile."""
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    async def wait_for(self, what: str, check: Callable[[], Any], timeout: float = 10.0) -> Any:
        """Polls `check` every 50 ms until it returns something true."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = check()
            if value:
                return value
            await asyncio.sleep(0.05)
        self.fail(f"timed out after {timeout} s waiting for {what}")

    async def holds(self, what: str, check: Callable[[], Any], seconds: float) -> None:
        """Fails as soon as `check` stops holding, within `seconds`: the
        length of an observation, not a wait for something to happen."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not check():
                self.fail(f"{what} stopped holding")
            await asyncio.sleep(0.05)

    async def next_of(self, stream: AsyncIterator[Any], timeout: float = 10.0) -> Any:
        return await asyncio.wait_for(stream.__anext__(), timeout)

    async def next_from_daemon(self, changes: AsyncIterator[foldsync.Change], timeout: float = 10.0) -> foldsync.Change:
        """The next change the daemon made, past the local ones of our own actions."""
        while True:
            change = await self.next_of(changes, timeout)
            if not change.local:
                return change

    async def bounded(self, aw: Awaitable[Any], timeout: float = 10.0) -> Any:
        return await asyncio.wait_for(aw, timeout)
