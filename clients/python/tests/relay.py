"""A TCP relay on 127.0.0.1 in front of the real daemon that breaks
WebSockets as proxies do, while plain HTTP goes through: `cut` drops the
connection of every upgrade request, `strip` removes its Upgrade header
(the daemon then answers a plain GET /ws: 404)."""
from __future__ import annotations

import asyncio
import re
from typing import Optional, Set

_UPGRADE = re.compile(rb"\r\nupgrade:[ \t]*websocket[^\r]*", re.I)


class Relay:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self.mode: Optional[str] = None  # None: pass everything; "cut" or "strip"
        self.upgrades_refused = 0
        self._server: Optional[asyncio.AbstractServer] = None
        self._writers: Set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for w in list(self._writers):
            w.transport.abort()
        if self._server is not None:
            await self._server.wait_closed()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        both = asyncio.gather(self._pipe(reader, up_writer, inbound=True), self._pipe(up_reader, writer))
        try:
            await both
        except Exception:
            pass
        finally:
            for w in (writer, up_writer):
                self._writers.discard(w)
                w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, inbound: bool = False) -> None:
        # A request head fits in one read here (the clients are on loopback
        # and send it in one write).
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                break
            if inbound and self.mode and _UPGRADE.search(chunk):
                self.upgrades_refused += 1
                if self.mode == "cut":
                    break
                chunk = _UPGRADE.sub(b"", chunk)
            writer.write(chunk)
            await writer.drain()
        writer.close()
