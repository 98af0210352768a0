"""HTTP/1.1 on asyncio streams, for the daemon's API beside its WebSocket
(history, the event stream, actions by POST, /healthz): one request per
TCP connection (`Connection: close`), the answer's head read whole and its
body either read whole (JSON, bounded) or taken as it arrives (a stream).
Only what the daemon and the proxies in front of it send is understood:
a body with Content-Length, chunked, or up to the end of the connection."""
from __future__ import annotations

import asyncio
import json
import ssl
import urllib.parse
from typing import Any, AsyncIterator, Dict, Optional, Tuple

# A head bigger than this is not an answer of ours (a proxy's error page has a small head too).
MAX_HEAD_BYTES = 64 * 1024
# A JSON answer read whole: a board may be 4 MiB encoded (--max-board-bytes), with room for a bigger daemon.
MAX_BODY_BYTES = 64 * 1024 * 1024
_READ = 64 * 1024


class HTTPError(Exception):
    """The answer could not be read as HTTP (or was too big); the network's own failures stay OSError."""


def http_base(ws_url: str) -> str:
    """http(s)://HOST[:PORT]/PREFIX for ws(s)://HOST[:PORT]/PREFIX/ws: the
    API sits beside the socket, also behind a proxy's path prefix."""
    u = urllib.parse.urlsplit(ws_url)
    scheme = {"ws": "http", "wss": "https"}.get(u.scheme, u.scheme)
    path = u.path[:-3] if u.path.endswith("/ws") else u.path.rstrip("/")
    return urllib.parse.urlunsplit((scheme, u.netloc, path, "", ""))


class Response:
    def __init__(self, status: int, headers: Dict[str, str], reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.status = status
        self.headers = headers  # names in lower case
        self._reader = reader
        self._writer = writer

    async def chunks(self, idle: Optional[float] = None) -> AsyncIterator[bytes]:
        """The body, piece by piece as it arrives; asyncio.TimeoutError when
        nothing at all comes for `idle` seconds."""
        async def read(n: int = _READ, exactly: bool = False) -> bytes:
            if exactly:
                return await asyncio.wait_for(self._reader.readexactly(n), idle)
            return await asyncio.wait_for(self._reader.read(n), idle)

        try:
            if self.headers.get("transfer-encoding", "").lower().endswith("chunked"):
                while True:
                    line = await asyncio.wait_for(self._reader.readline(), idle)
                    try:
                        size = int(line.split(b";", 1)[0].strip() or b"x", 16)
                    except ValueError:
                        raise HTTPError(f"a bad chunk size line: {line[:40]!r}") from None
                    if size == 0:
                        return  # trailers, if any, are of no use here
                    while size > 0:
                        piece = await read(min(size, _READ))
                        if not piece:
                            raise HTTPError("the connection ended inside a chunk")
                        size -= len(piece)
                        yield piece
                    await read(2, exactly=True)  # the chunk's CRLF
            elif "content-length" in self.headers:
                left = int(self.headers["content-length"])
                while left > 0:
                    piece = await read(min(left, _READ))
                    if not piece:
                        raise HTTPError("the connection ended before the body's end")
                    left -= len(piece)
                    yield piece
            else:
                while True:
                    piece = await read()
                    if not piece:
                        return
                    yield piece
        except asyncio.IncompleteReadError:
            raise HTTPError("the connection ended inside a chunk") from None
        except ValueError as e:  # a readline past the stream's limit, a bad content-length
            raise HTTPError(str(e)) from None

    async def read(self, limit: int = MAX_BODY_BYTES) -> bytes:
        body = bytearray()
        async for piece in self.chunks():
            body += piece
            if len(body) > limit:
                raise HTTPError(f"an answer over {limit} bytes")
        return bytes(body)

    async def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(await self.read())
        except ValueError:
            return None
        finally:
            self.close()

    def close(self) -> None:
        self._writer.close()


async def request(method: str, url: str, *, headers: Optional[Dict[str, str]] = None,
                  body: Optional[bytes] = None, timeout: float = 10.0) -> Response:
    """Sends one request and returns once the answer's head is in (within
    `timeout`, connecting included). The caller closes the Response."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ValueError(f"not an http(s) URL: {url}")
    port = u.port or (443 if u.scheme == "https" else 80)
    context = ssl.create_default_context() if u.scheme == "https" else None
    lines = [f"{method} {(u.path or '/') + ('?' + u.query if u.query else '')} HTTP/1.1",
             f"Host: {u.netloc}", "Connection: close", "User-Agent: foldsync-python"]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    if body is not None:
        lines.append(f"Content-Length: {len(body)}")
    raw = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")

    async def exchange() -> Response:
        reader, writer = await asyncio.open_connection(u.hostname, port, ssl=context,
                                                       limit=MAX_HEAD_BYTES)
        try:
            writer.write(raw)
            await writer.drain()
            status, answer_headers = await _head(reader)
        except BaseException:
            writer.close()
            raise
        return Response(status, answer_headers, reader, writer)
    return await asyncio.wait_for(exchange(), timeout)


async def _head(reader: asyncio.StreamReader) -> Tuple[int, Dict[str, str]]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        raise HTTPError("the connection ended before an HTTP answer") from None
    except asyncio.LimitOverrunError:
        raise HTTPError(f"an HTTP head over {MAX_HEAD_BYTES} bytes") from None
    status_line, *rest = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise HTTPError(f"not an HTTP answer: {status_line[:60]!r}")
    headers: Dict[str, str] = {}
    for line in rest:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


async def fetch_json(method: str, url: str, *, token: Optional[str] = None, body: Any = None,
                     timeout: float = 10.0) -> Tuple[int, Any]:
    """(status, the body as JSON or None), the whole exchange within `timeout`."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()

    async def exchange() -> Tuple[int, Any]:
        response = await request(method, url, headers=headers, body=data, timeout=timeout)
        return response.status, await response.json()
    return await asyncio.wait_for(exchange(), timeout)


async def http_answers(base: str, timeout: float = 5.0) -> bool:
    """Whether GET /healthz (no token needed) answers 200 within `timeout`:
    tells a WebSocket that cannot get through from a daemon that is not there."""
    try:
        status, _ = await fetch_json("GET", f"{base}/healthz", timeout=timeout)
    except (OSError, asyncio.TimeoutError, HTTPError, ValueError):
        return False
    return status == 200
