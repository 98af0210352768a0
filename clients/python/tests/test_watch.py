"""`python -m foldsync watch` as a shell pipeline sees it: one flushed JSON
line per change while another connection changes the board."""
from __future__ import annotations

import asyncio
import json
import signal
import sys
from typing import Any, Dict, List

import foldsync
from harness import DaemonCase, hash_token

SECRET = "watch-secret"


class WatchCase(DaemonCase):
    async def watch(self, *extra: str) -> "asyncio.subprocess.Process":
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "foldsync", "watch", self.daemon.url, "default", *extra,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)

        async def reap() -> None:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
        self.addAsyncCleanup(reap)
        return proc

    async def line(self, proc: "asyncio.subprocess.Process") -> Dict[str, Any]:
        assert proc.stdout is not None
        raw = await asyncio.wait_for(proc.stdout.readline(), 10)
        if not raw.endswith(b"\n"):
            await proc.wait()
            self.fail(f"no line (exit {proc.returncode}); stderr: {await self.stderr(proc)}")
        return json.loads(raw)

    async def stderr(self, proc: "asyncio.subprocess.Process") -> str:
        if proc.returncode is None:
            proc.kill()
        assert proc.stderr is not None
        return (await asyncio.wait_for(proc.stderr.read(), 5)).decode()

    async def watch_changes(self, *extra: str, token: Any = None) -> None:
        proc = await self.watch(*extra)
        first = await self.line(proc)
        got = self.daemon.board("default", token=token)
        self.assertEqual(first, {"rev": got["rev"], "epoch": got["epoch"], "state": got["state"]})
        async with foldsync.connect(self.daemon.url, token=token) as other:
            board = await self.bounded(other.subscribe("default"))
            revs: List[int] = [await self.bounded(board.toggle("s1")),
                               await self.bounded(board.act({"type": "setTitle", "section": "s2", "title": "x"}))]
        for rev, ops in zip(revs, ([{"op": "replace", "path": "/sections/1/expanded", "value": True}],
                                   [{"op": "replace", "path": "/sections/2/title", "value": "x"}])):
            self.assertEqual(await self.line(proc),
                             {"rev": rev, "epoch": got["epoch"], "ops": ops, "resynced": False})
        proc.send_signal(signal.SIGTERM)
        self.assertEqual(await asyncio.wait_for(proc.wait(), 10), 0)


class WatchTests(WatchCase):
    async def test_watch_prints_json_lines(self) -> None:
        await self.watch_changes()

    async def test_watch_refused_board_exits_1(self) -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "foldsync", "watch", self.daemon.url, "no-such-board",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(proc.communicate(), 15)
        self.assertEqual(proc.returncode, 1)
        self.assertEqual(out, b"")
        self.assertIn(b"not_found", err)


class WatchTokenTests(WatchCase):
    async def asyncSetUp(self) -> None:
        self.daemon_args = ("--token", f"w read,fold,edit {hash_token(SECRET)} *")
        await super().asyncSetUp()

    async def test_watch_with_token_command(self) -> None:
        await self.watch_changes("--token-command", f"printf %s {SECRET}", token=SECRET)
