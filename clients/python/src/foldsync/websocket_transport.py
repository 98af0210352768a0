"""The WebSocket transport: one conversation with the daemon, opened by
handshake.py. With foldsync.v1.batch one frame may hold several messages,
one a line (no encoded message holds a raw newline: PROTOCOL.md, "Batching")."""
from __future__ import annotations

import asyncio
import json
from typing import List, Optional

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, WebSocketException

from .handshake import open_socket
from .transport import WEBSOCKET, Deliver, Ended, Message, parse_message


class WebSocketConnection:
    name = WEBSOCKET
    in_band = True

    def __init__(self, ws: ClientConnection) -> None:
        self._ws = ws
        self._backlog: List[Message] = []  # read by first(), not yet delivered
        self._why: Optional[str] = None    # the reason close() was given

    @classmethod
    async def open(cls, url: str, token: Optional[str], timeout: float) -> "WebSocketConnection":
        """Raises handshake.Refused for an HTTP refusal, else OSError,
        asyncio.TimeoutError or a WebSocketException."""
        return cls(await open_socket(url, token, timeout))

    async def first(self) -> Optional[Message]:
        """The first message, which run() will still deliver; None when the
        connection ended before one came."""
        try:
            while not self._backlog:
                self._backlog = self._messages(await self._ws.recv())
        except (ConnectionClosed, OSError):
            return None
        return self._backlog[0]

    async def run(self, deliver: Deliver) -> Ended:
        why, code = "connection lost", None
        try:
            while self._backlog:
                await deliver(self._backlog.pop(0))
            while True:
                for m in self._messages(await self._ws.recv()):
                    await deliver(m)
        except ConnectionClosed as e:
            # The exception's close frame, not ws.close_code: the same in every websockets >= 13.
            if e.rcvd is not None:
                code = e.rcvd.code
                why = f"closed {e.rcvd.code}" + (f": {e.rcvd.reason}" if e.rcvd.reason else "")
            else:
                code = 1006
        except OSError as e:
            why, code = f"{type(e).__name__}: {e}", 1006
        return Ended(self._why or why, code, True)

    @staticmethod
    def _messages(frame: object) -> List[Message]:
        text = frame if isinstance(frame, str) else bytes(frame).decode("utf-8", "replace")  # type: ignore[arg-type]
        return [m for m in map(parse_message, text.split("\n")) if m is not None]

    async def send(self, message: Message) -> bool:
        try:
            await self._ws.send(json.dumps(message))
            return True
        except (ConnectionClosed, OSError):
            return False

    async def authenticate(self, token: str) -> bool:
        return await self.send({"type": "auth", "token": token})

    async def close(self, reason: Optional[str] = None, *, keep_answers: bool = False) -> None:
        if reason is not None and self._why is None:
            self._why = reason
        try:
            await asyncio.wait_for(self._ws.close(), 2)
        except (asyncio.TimeoutError, WebSocketException, OSError):
            pass
