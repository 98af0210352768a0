"""`foldsync.connect(...)`: awaited, or used with `async with`."""
from __future__ import annotations

from typing import Any, Generator, Optional

from .client import WEBSOCKET_RETRY_MS, Client, ReconnectHook
from .outbox import MAX_ACTIONS, MAX_AGE
from .stream_transport import STREAM_IDLE_MS
from .tokens import TokenSource
from .transport import AUTO


class connect:
    """`async with foldsync.connect(url, token=...) as client:` closes the
    client at the end; `client = await foldsync.connect(...)` leaves that to
    you (`await client.close()`). Either way it returns once connected.

    A refused first attempt (a wrong token: 401/403, a wrong path: 404)
    raises FoldError; anything else (the daemon is not up yet) is retried
    with backoff, for at most `timeout` seconds when given.

    `transport`: "auto" (the WebSocket, the event stream when only HTTP gets
    through), "websocket" or "stream" (docs/CLIENTS.md, Transports); the URL
    is the WebSocket's either way.

    `reconnect`: a function (sync or async) asked each time a connection
    ends, with how (`Ended`: reason, code, opened); False leaves the client
    `disconnected` (`delay_ms` None) until `await client.reconnect()`. Said
    before the first connection, connect() raises FoldError `disconnected`.
    One that raises is logged and taken as True.

    `outbox_max_actions` (1000) and `outbox_max_age` (600 s): the outbox's
    bounds. Actions wait in the outbox while the client is not connected
    and are sent again with their key after a connection ended before their
    answer; past the bounds they fail with `expired` (never applied), or a
    sent one is settled (outbox.py, docs/CLIENTS.md)."""

    def __init__(self, url: str = "ws://127.0.0.1:7681/ws", token: TokenSource = None, *,
                 timeout: Optional[float] = None, open_timeout: float = 10.0, transport: str = AUTO,
                 websocket_retry_ms: int = WEBSOCKET_RETRY_MS, stream_idle_ms: int = STREAM_IDLE_MS,
                 reconnect: Optional[ReconnectHook] = None, outbox_max_actions: int = MAX_ACTIONS,
                 outbox_max_age: float = MAX_AGE) -> None:
        # Checked now, as Client would: a wrong transport is the caller's mistake, not a failed connect.
        Client.check(url, transport, reconnect)
        self._make = lambda: Client(url, token, open_timeout=open_timeout, transport=transport,
                                    websocket_retry_ms=websocket_retry_ms, stream_idle_ms=stream_idle_ms,
                                    reconnect=reconnect, outbox_max_actions=outbox_max_actions,
                                    outbox_max_age=outbox_max_age)
        self._timeout = timeout
        self._client: Optional[Client] = None

    async def _open(self) -> Client:
        self._client = self._make()
        await self._client.start(self._timeout)
        return self._client

    def __await__(self) -> Generator[Any, None, Client]:
        return self._open().__await__()

    async def __aenter__(self) -> Client:
        return await self._open()

    async def __aexit__(self, *exc: object) -> None:
        if self._client is not None:
            await self._client.close()
