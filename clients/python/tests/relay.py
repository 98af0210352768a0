"""A TCP relay on 127.0.0.1 in front of the real daemon that breaks
WebSockets as proxies do, while plain HTTP goes through: `cut` drops the
connection of every upgrade request, `strip` removes its Upgrade header
(the daemon then answers a plain GET /ws: 404).

`hold(request)` plays a client that stops reading: the connections whose
request head matches get nothing more of what the daemon sends until
`release()`. With `receive_buffer` the relay's sockets to the daemon take
only that much, so the daemon's own queue for a held connection fills
soon."""
from __future__ import annotations

import asyncio
import re
import socket
from typing import List, Optional, Pattern, Set, Tuple

_UPGRADE = re.compile(rb"\r\nupgrade:[ \t]*websocket[^\r]*", re.I)


class Relay:
    def __init__(self, target_port: int, receive_buffer: Optional[int] = None) -> None:
        self.target_port = target_port
        self.receive_buffer = receive_buffer
        self._held: Optional[Pattern[bytes]] = None
        self._released = asyncio.Event()
        self._released.set()
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

    def hold(self, request: bytes) -> None:
        """Stops passing the daemon's bytes on to the connections whose
        request head matches the regular expression `request`."""
        self._held = re.compile(request)
        self._released.clear()

    def release(self) -> None:
        self._held = None
        self._released.set()

    async def _upstream(self) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.receive_buffer is None:
            return await asyncio.open_connection("127.0.0.1", self.target_port)
        # The buffer is set before connecting: the window is agreed at the handshake.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.receive_buffer)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.target_port))
        except OSError:
            sock.close()
            raise
        return await asyncio.open_connection(sock=sock, limit=self.receive_buffer)

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await self._upstream()
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))
        head: List[bytes] = []  # the request's first chunk, once read
        both = asyncio.gather(self._pipe(reader, up_writer, head, inbound=True), self._pipe(up_reader, writer, head))
        try:
            await both
        except Exception:
            pass
        finally:
            for w in (writer, up_writer):
                self._writers.discard(w)
                w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: List[bytes],
                    inbound: bool = False) -> None:
        # A request head fits in one read here (the clients are on loopback
        # and send it in one write).
        while True:
            while not inbound and head and self._held is not None and self._held.search(head[0]):
                await self._released.wait()
            chunk = await reader.read(65536)
            if not chunk:
                break
            if inbound and not head:
                head.append(chunk)
            if inbound and self.mode and _UPGRADE.search(chunk):
                self.upgrades_refused += 1
                if self.mode == "cut":
                    break
                chunk = _UPGRADE.sub(b"", chunk)
            writer.write(chunk)
            await writer.drain()
        writer.close()
