"""Tokens: a value, a function (sync or async) called at every connect, and
a JWT refreshed in band on `authExpiring`."""
from __future__ import annotations

import asyncio
import os
import time
from typing import List

import foldsync
from harness import DaemonCase, DaemonExited, hash_token
from jwt_tokens import key_file, mint_jwt

SECRET = "py-client-secret"


class StaticTokenTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        self.daemon_args = ("--token", f"alice read,fold,edit,admin {hash_token(SECRET)} *")
        await super().asyncSetUp()

    async def test_token_value_and_function(self) -> None:
        async with foldsync.connect(self.daemon.url, token=SECRET) as client:
            board = await self.bounded(client.subscribe("default"))
            self.assertEqual(await self.bounded(board.toggle("s1")), 1)
            self.assertEqual((client.identity or {}).get("name"), "alice")
            self.assertEqual((await self.bounded(board.history()))["rev"], 1)  # HTTP, with the same token
        with self.assertRaises(foldsync.FoldError) as caught:
            await self.bounded(foldsync.connect(self.daemon.url, token="not-the-secret"))
        self.assertEqual(caught.exception.code, "forbidden")
        # Without a token the upgrade is let through (a token may still come in band).
        async with foldsync.connect(self.daemon.url) as anonymous:
            with self.assertRaises(foldsync.FoldError) as caught:
                await self.bounded(anonymous.subscribe("default"))
            self.assertEqual(caught.exception.code, "forbidden")

        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return SECRET
        client = foldsync.Client(self.daemon.url, token)
        attempts: List[str] = []
        client.on_state(lambda s: attempts.append(s.state))
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        self.assertEqual(len(calls), 1)
        await self.bounded(client.subscribe("default"))
        await self.in_thread(self.daemon.stop)
        await self.wait_for("disconnected", lambda: client.state == "disconnected")
        await self.in_thread(self.daemon.start)
        await self.wait_for("connected again", lambda: attempts[-1] == "connected", timeout=15)
        # Called once per attempt, refused ones included.
        self.assertEqual(len(calls), attempts.count("connecting"))
        self.assertGreaterEqual(len(calls), 2)
        self.assertEqual(client.status.state, "connected")

        async def async_token() -> str:
            await asyncio.sleep(0)
            calls.append(time.monotonic())
            return SECRET
        before = len(calls)
        async with foldsync.connect(self.daemon.url, token=async_token) as other:
            board = await self.bounded(other.subscribe("default"))
            self.assertEqual(await self.bounded(board.toggle("s1")), 2)
        self.assertEqual(len(calls), before + 1)


class JWTTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        self.key, self.keyfile = key_file()
        self.addCleanup(os.remove, self.keyfile)
        # No leeway: without the renewal the connection would end at the first token's exp.
        self.daemon_args = ("--jwt-key", f"HS256:{self.keyfile}", "--jwt-refresh-before", "2", "--jwt-leeway", "0")
        self.unsupported = None
        try:
            await super().asyncSetUp()
        except DaemonExited as e:
            self.unsupported = e

    async def test_token_refreshed_on_auth_expiring(self) -> None:
        if self.unsupported is not None:
            self.fail("foldsyncd does not support JWTs yet (it refused --jwt-key / --jwt-refresh-before); "
                      "this case passes once the daemon has them. The daemon said:\n"
                      + self.unsupported.log.strip()[-600:])
        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return mint_jwt(self.key, 4)
        client = foldsync.Client(self.daemon.url, token)
        states: List[str] = []
        client.on_state(lambda s: states.append(s.state))
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        board = await self.bounded(client.subscribe("default"))
        self.assertIsNotNone((client.identity or {}).get("expires"), client.identity)
        await asyncio.sleep(7)  # past the first token's exp (4 s), refreshed 2 s before each
        self.assertGreaterEqual(len(calls), 2, "the token function was not called again on authExpiring")
        self.assertEqual(states, ["connecting", "connected"], "the connection did not outlive its first token")
        self.assertEqual(await self.bounded(board.toggle("s1")), 1)
