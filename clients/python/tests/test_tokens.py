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
        async with self.connect(SECRET) as client:
            board = await self.bounded(client.subscribe("default"))
            self.assertEqual(await self.bounded(board.toggle("s1")), 1)
            if self.transport == "websocket":
                self.assertEqual((client.identity or {}).get("name"), "alice")
            self.assertEqual((await self.bounded(board.history()))["rev"], 1)  # HTTP, with the same token
        if self.transport == "websocket":
            # The upgrade carries the token: a wrong one is refused at connect.
            with self.assertRaises(foldsync.FoldError) as caught:
                await self.bounded(self.connect("not-the-secret"))
            self.assertEqual(caught.exception.code, "forbidden")
        else:
            # /healthz needs no token: the stream's refusal answers the subscribe.
            async with self.connect("not-the-secret") as wrong:
                with self.assertRaises(foldsync.FoldError) as caught:
                    await self.bounded(wrong.subscribe("default"))
                self.assertEqual(caught.exception.code, "forbidden")
        # Without a token the upgrade is let through (a token may still come in band).
        async with self.connect() as anonymous:
            with self.assertRaises(foldsync.FoldError) as caught:
                await self.bounded(anonymous.subscribe("default"))
            self.assertEqual(caught.exception.code, "forbidden")

        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return SECRET
        client = self.new_client(token)
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
        async with self.connect(async_token) as other:
            board = await self.bounded(other.subscribe("default"))
            self.assertEqual(await self.bounded(board.toggle("s1")), 2)
        self.assertEqual(len(calls), before + 1)


class StreamStaticTokenTests(StaticTokenTests):
    transport = "stream"


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
        client = self.new_client(token)
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


class StreamJWTTests(JWTTests):
    transport = "stream"

    async def test_token_refreshed_on_auth_expiring(self) -> None:
        # No `authExpiring` on a stream: it ends at the token's expiry, and
        # the reconnect asks the function for a new one and resumes.
        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return mint_jwt(self.key, 4)
        client = self.new_client(token)
        states: List[foldsync.ConnectionState] = []
        client.on_state(states.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        board = await self.bounded(client.subscribe("default"))
        await self.wait_for("the stream's end at the expiry", lambda: client.state == "disconnected", timeout=8)
        self.assertIn("event stream of 'default'", states[-1].reason or "")
        await self.wait_for("connected again", lambda: client.state == "connected", timeout=10)
        self.assertGreaterEqual(len(calls), 2, "the token function was not asked again")
        self.assertIsNone(client.identity)
        self.assertEqual(await self.bounded(board.toggle("s1")), 1)
        self.assertMirrors(board, token=mint_jwt(self.key, 60))
