"""A TCP relay on 127.0.0.1 in front of the real daemon that breaks
WebSockets as proxies do, while plain HTTP goes through: `cut` drops the
connection of every upgrade request, `strip` removes its Upgrade header
(the daemon then answers a plain GET /ws: 404).

`hold(request)` plays a client that stops reading: the connections whose
request head matches get nothing more of what the daemon sends until
`release()`. With `receive_buffer` the relay's sockets to the daemon take
only that much, so the daemon's own queue for a held connection fills
soon.

With `actions=True` it plays a poor link for the outbox: it reads what the
client sends (each WebSocket frame, each HTTP request) and records the
actions in `actions` (a dict per message: a WebSocket message that carries
a `key` or an `id`; a POST to .../actions or .../settle, with its
`Idempotency-Key` as `key`). `cut_at_action(how)` acts on the next one:
"after" forwards it and then cuts the client off, so the daemon commits it
and the answer is lost; "before" drops it and cuts. `refuse` turns every
new connection away (the client stays disconnected); `cut_all()` drops
every connection at once. It asks for no WebSocket compression then, so
that it can read the frames.

With `latency` (seconds) every byte reaches the other side that much later,
each way, in order: a slow link, where an action's answer comes a round
trip after its call."""
from __future__ import annotations

import asyncio
import json
import re
import socket
from typing import Any, Dict, List, Optional, Pattern, Set, Tuple

_UPGRADE = re.compile(rb"\r\nupgrade:[ \t]*websocket[^\r]*", re.I)
_EXTENSIONS = re.compile(rb"\r\nsec-websocket-extensions:[^\r]*", re.I)
_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.I)
_KEY = re.compile(rb"\r\nidempotency-key:[ \t]*([^\r]*)", re.I)
_POST = re.compile(rb"^POST /api/boards/([^/ ]+)/(actions|settle)[ ?]")
# How long the daemon's side of a connection cut "after" stays open: the
# daemon reads the action before it sees the end, and commits it.
_LINGER = 0.3


class _Pair:
    """One client connection and its connection to the daemon."""

    def __init__(self, client: asyncio.StreamWriter, upstream: asyncio.StreamWriter) -> None:
        self.client = client
        self.upstream = upstream
        self.cut = False  # the client was cut off: what the daemon sends goes nowhere

    def abort(self) -> None:
        self.cut = True
        self.client.transport.abort()
        self.upstream.transport.abort()


class _Late:
    """A writer that passes each write on `delay` seconds after it was made,
    in order; `close()` closes once what was written before it is passed on."""

    def __init__(self, writer: asyncio.StreamWriter, delay: float) -> None:
        self._writer = writer
        self._delay = delay
        self._queue: "asyncio.Queue[Tuple[float, Optional[bytes]]]" = asyncio.Queue()
        self.task = asyncio.ensure_future(self._run())

    def write(self, data: bytes) -> None:
        self._queue.put_nowait((asyncio.get_running_loop().time() + self._delay, data))

    async def drain(self) -> None:
        pass  # the queue takes everything: a slow link, not a small one

    def close(self) -> None:
        self._queue.put_nowait((asyncio.get_running_loop().time() + self._delay, None))

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, data = await self._queue.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if data is None:
                    break
                self._writer.write(data)
                await self._writer.drain()
        except (OSError, ConnectionError):
            pass
        finally:
            self._writer.close()


class _ClientBytes:
    """Splits what a client sends into pieces the relay can act on: the
    request (head and body, by Content-Length), then, after an upgrade,
    WebSocket frames; each with the action it carries, if any."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._head_done = False
        self._websocket = False

    def push(self, data: bytes) -> List[Tuple[bytes, Optional[Dict[str, Any]]]]:
        self._buf += data
        pieces: List[Tuple[bytes, Optional[Dict[str, Any]]]] = []
        while self._buf:
            piece = self._request() if not self._head_done else self._frame() if self._websocket else None
            if piece is None and self._head_done and not self._websocket:
                piece = (bytes(self._buf), None)
                self._buf.clear()
            if piece is None:
                break
            pieces.append(piece)
        return pieces

    def _request(self) -> Optional[Tuple[bytes, Optional[Dict[str, Any]]]]:
        end = self._buf.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self._buf[:end + 4])
        m = _LENGTH.search(head)
        length = int(m.group(1)) if m else 0
        if len(self._buf) < end + 4 + length:
            return None
        body = bytes(self._buf[end + 4:end + 4 + length])
        del self._buf[:end + 4 + length]
        self._head_done = True
        if _UPGRADE.search(head):
            self._websocket = True
            return _EXTENSIONS.sub(b"", head), None
        post = _POST.match(head)
        if post is None:
            return head + body, None
        try:
            action = json.loads(body) if body else {}
        except ValueError:
            action = {}
        action = action if isinstance(action, dict) else {}
        action["board"] = post.group(1).decode()
        if post.group(2) == b"settle":
            action["type"] = "settle"
        key = _KEY.search(head)
        if key:
            action["key"] = key.group(1).decode().strip()
        return head + body, action

    def _frame(self) -> Optional[Tuple[bytes, Optional[Dict[str, Any]]]]:
        b = self._buf
        if len(b) < 2:
            return None
        size, at = b[1] & 0x7F, 2
        if size == 126:
            if len(b) < 4:
                return None
            size, at = int.from_bytes(b[2:4], "big"), 4
        elif size == 127:
            if len(b) < 10:
                return None
            size, at = int.from_bytes(b[2:10], "big"), 10
        mask = b""
        if b[1] & 0x80:
            mask, at = bytes(b[at:at + 4]), at + 4
        if len(b) < at + size:
            return None
        frame = bytes(b[:at + size])
        payload = bytes(b[at:at + size])
        del b[:at + size]
        if mask:
            payload = bytes(c ^ mask[i % 4] for i, c in enumerate(payload))
        action = None
        if frame[0] & 0x0F == 1:  # text: one message, or a batch of them a line each
            for line in payload.decode("utf-8", "replace").split("\n"):
                try:
                    m = json.loads(line)
                except ValueError:
                    continue
                if isinstance(m, dict) and ("key" in m or "id" in m):
                    action = m
        return frame, action


class Relay:
    def __init__(self, target_port: int, receive_buffer: Optional[int] = None, actions: bool = False,
                 latency: float = 0.0) -> None:
        self.target_port = target_port
        self.latency = latency
        self.receive_buffer = receive_buffer
        self.watch_actions = actions
        self._held: Optional[Pattern[bytes]] = None
        self._released = asyncio.Event()
        self._released.set()
        self.port = 0
        self.mode: Optional[str] = None  # None: pass everything; "cut" or "strip"
        self.upgrades_refused = 0
        self.refuse = False              # turn every new connection away
        self.actions: List[Dict[str, Any]] = []  # every action seen, in order (actions=True)
        self.cuts = 0                    # cuts made by cut_at_action
        self._cut_at: Optional[str] = None
        self._refuse_after_cut = False
        self._server: Optional[asyncio.AbstractServer] = None
        self._writers: Set[asyncio.StreamWriter] = set()
        self._pairs: Set[_Pair] = set()
        self._lingering: Set["asyncio.Task[None]"] = set()

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
        for t in list(self._lingering):
            t.cancel()

    def hold(self, request: bytes) -> None:
        """Stops passing the daemon's bytes on to the connections whose
        request head matches the regular expression `request`."""
        self._held = re.compile(request)
        self._released.clear()

    def release(self) -> None:
        self._held = None
        self._released.set()

    def cut_at_action(self, how: str, refuse: bool = False) -> None:
        """Acts on the next action a client sends: "after" forwards it, then
        cuts; "before" drops it and cuts. With `refuse`, new connections are
        turned away from that moment on (until `refuse` is set False)."""
        assert how in ("after", "before"), how
        self._cut_at = how
        self._refuse_after_cut = refuse

    def cut_all(self) -> None:
        """Drops every connection, both sides."""
        for pair in list(self._pairs):
            pair.abort()

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
        if self.refuse:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await self._upstream()
        except OSError:
            writer.close()
            return
        pair = _Pair(writer, up_writer)
        self._pairs.add(pair)
        self._writers.update((writer, up_writer))
        head: List[bytes] = []  # the request's first chunk, once read
        both = asyncio.gather(self._pipe(reader, up_writer, head, pair, inbound=True),
                              self._pipe(up_reader, writer, head, pair))
        try:
            await both
        except Exception:
            pass
        finally:
            self._pairs.discard(pair)
            for w in (writer, up_writer):
                self._writers.discard(w)
                w.close()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: List[bytes],
                    pair: _Pair, inbound: bool = False) -> None:
        # A request head fits in one read here (the clients are on loopback
        # and send it in one write).
        split = _ClientBytes() if inbound and self.watch_actions else None
        if self.latency > 0:
            late = _Late(writer, self.latency)
            self._lingering.add(late.task)
            late.task.add_done_callback(self._lingering.discard)
            writer = late  # type: ignore[assignment]
        while True:
            while not inbound and head and self._held is not None and self._held.search(head[0]):
                await self._released.wait()
            try:
                chunk = await reader.read(65536)
            except OSError:
                break
            if not chunk:
                break
            if inbound and not head:
                head.append(chunk)
            if inbound and self.mode and _UPGRADE.search(chunk):
                self.upgrades_refused += 1
                if self.mode == "cut":
                    break
                chunk = _UPGRADE.sub(b"", chunk)
            if pair.cut and not inbound:
                continue  # the client is gone: the daemon's answer is lost
            if split is None:
                writer.write(chunk)
                await writer.drain()
                continue
            for piece, action in split.push(chunk):
                how = None
                if action is not None:
                    self.actions.append(action)
                    how, self._cut_at = self._cut_at, None
                if how is not None:
                    self.cuts += 1
                    self.refuse = self.refuse or self._refuse_after_cut
                if how == "before":
                    self.cut_all()
                    return
                writer.write(piece)
                await writer.drain()
                if how == "after":
                    self._cut_off(pair)
                    await asyncio.sleep(_LINGER)
                    writer.close()
                    return
        writer.close()

    def _cut_off(self, pair: _Pair) -> None:
        """Every client loses its connections; the daemon keeps `pair`'s a
        moment longer (its answer goes nowhere)."""
        for other in list(self._pairs):
            if other is not pair:
                other.abort()
        pair.cut = True
        pair.client.transport.abort()
