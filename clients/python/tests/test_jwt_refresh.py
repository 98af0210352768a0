"""The token function with short-lived JWTs (HS256, minted in jwt_tokens.py):
called again on every `authExpiring` so that one connection outlives many
tokens, and at the reconnect after a token did expire.

The daemon warns 1 s before `exp` and allows no leeway: a token that is not
renewed ends the connection (1008 `token expired`) at its `exp`."""
from __future__ import annotations

import asyncio
import os
import time
from typing import List, Optional, Tuple

import foldsync
from foldsync.tokens import TokenSource
from harness import DaemonCase, DaemonExited
from jwt_tokens import key_file, mint_jwt

LIFETIME = 3  # seconds; `exp` is whole seconds, so 2-3 s in fact


class JWTRefreshTests(DaemonCase):
    async def asyncSetUp(self) -> None:
        self.key, self.keyfile = key_file()
        self.addCleanup(os.remove, self.keyfile)
        self.daemon_args = ("--jwt-key", f"HS256:{self.keyfile}", "--jwt-refresh-before", "1", "--jwt-leeway", "0")
        self.unsupported: Optional[DaemonExited] = None
        try:
            await super().asyncSetUp()
        except DaemonExited as e:
            self.unsupported = e

    def require_jwt(self) -> None:
        if self.unsupported is not None:
            self.fail("foldsyncd does not support JWTs (it refused --jwt-key / --jwt-refresh-before / "
                      "--jwt-leeway). The daemon said:\n" + self.unsupported.log.strip()[-600:])

    async def started(self, token: TokenSource) -> Tuple[foldsync.Client, List[foldsync.ConnectionState]]:
        client = foldsync.Client(self.daemon.url, token)
        states: List[foldsync.ConnectionState] = []
        client.on_state(states.append)
        await self.bounded(client.start())
        self.addAsyncCleanup(client.close)
        return client, states

    async def outlives_tokens(self, token: TokenSource, calls: List[float]) -> None:
        client, states = await self.started(token)
        board = await self.bounded(client.subscribe("default"))
        first_expiry = int((client.identity or {}).get("expires") or 0)
        self.assertTrue(first_expiry, client.identity)
        await self.holds("the first connection", lambda: [s.state for s in states] == ["connecting", "connected"], 8)
        self.assertGreaterEqual(len(calls), 3, f"the token function was called {len(calls)} times in 8 s")
        self.assertGreater((client.identity or {}).get("expires", 0), first_expiry + 4,
                           "the daemon did not take the renewed tokens")
        self.assertEqual(await self.bounded(board.toggle("s1")), 1)
        self.assertEqual(board.state, self.daemon.board("default", token=mint_jwt(self.key, 60))["state"])

    async def test_sync_function_renews_on_auth_expiring(self) -> None:
        self.require_jwt()
        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            return mint_jwt(self.key, LIFETIME)
        await self.outlives_tokens(token, calls)

    async def test_async_function_renews_on_auth_expiring(self) -> None:
        self.require_jwt()
        calls: List[float] = []

        async def token() -> str:
            await asyncio.sleep(0.01)  # a real one would ask an identity provider
            calls.append(time.monotonic())
            return mint_jwt(self.key, LIFETIME)
        await self.outlives_tokens(token, calls)

    async def test_fresh_token_after_an_expiry_close(self) -> None:
        self.require_jwt()
        calls: List[float] = []

        def token() -> str:
            calls.append(time.monotonic())
            # The renewal at the first authExpiring hands over a dead token:
            # the daemon refuses it, and closes at the first token's exp.
            return mint_jwt(self.key, -60 if len(calls) == 2 else LIFETIME)
        client, states = await self.started(token)
        board = await self.bounded(client.subscribe("default"))
        await self.wait_for("the expiry close", lambda: any(s.state == "disconnected" for s in states), timeout=8)
        await self.wait_for("connected again", lambda: states[-1].state == "connected", timeout=10)
        names = [s.state for s in states]
        self.assertEqual(names[:5], ["connecting", "connected", "disconnected", "connecting", "connected"], states)
        self.assertIn("1008", states[2].reason or "")
        self.assertIn("token expired", states[2].reason or "")
        self.assertGreaterEqual(len(calls), 3)
        # Connected again on the third token, which is good.
        self.assertGreater((client.identity or {}).get("expires", 0), time.time())
        rev = await self.bounded(board.toggle("s2"))
        self.assertEqual((rev, board.rev), (1, 1))
        self.assertEqual(board.state, self.daemon.board("default", token=mint_jwt(self.key, 60))["state"])
