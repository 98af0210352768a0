"""The stream transport, for networks that break WebSockets (a proxy that
strips the upgrade, buffers frames or kills long-lived sockets): what the
daemon sends comes as Server-Sent Events, one GET /api/boards/NAME/events
per subscribed board, and each action is a POST /api/boards/NAME/actions.
It takes and hands over the protocol's messages, as the WebSocket does, so
the client does not know which one it holds, except for `in_band`.

What it makes up so that the client need not care:
- `hello`, once GET /healthz answers: the daemon is there. A stream has no
  session, so its `session` is None.
- `ack` and `error` from each POST's answer ({"rev"} or {"code",
  "message"}), with the action's id. The answer comes on its own exchange
  and may beat the board's patch down the stream: an ack waits until the
  board's stream has delivered its rev (at most ACK_WAIT seconds), so that,
  as on a WebSocket, the change is seen before the action resolves. The
  action's `key` goes as the `Idempotency-Key` header, and `settle` is
  POST /api/boards/NAME/settle. A POST waits until its board's stream is
  open (the board resubscribed on this connection).
- the end of the whole connection when a POST gets no answer (refused,
  cut, timed out, or not the daemon's): its outcome is unknown, and the
  client's outbox sends it again with its key after reconnecting.
- `error` naming the board when its stream is refused (401/403 forbidden,
  404 not_found): the client takes it as the subscribe's answer.
Any stream that ends or fails ends the whole connection: the client
reconnects with its backoff and resumes every board with `since`, which
travels as `Last-Event-ID: EPOCH:REV`. Not carried: `view` (a stream
always counts as following), `authenticated` and `authExpiring` (there is
no conversation): a JWT that expires ends the stream, and the reconnect
asks for a new token. The token goes as `Authorization: Bearer` on every
request."""
from __future__ import annotations

import asyncio
import codecs
import json
import logging
import urllib.parse
from typing import Dict, Optional, Set

from .handshake import MAX_MESSAGE_BYTES
from .http import HTTPError, Response, http_base, request
from .sse import EventStreamParser, SSEError
from .transport import STREAM, Deliver, Ended, Message, parse_message

log = logging.getLogger("foldsync")

# How long an ack waits for its rev to come down the board's stream.
ACK_WAIT = 5.0
# A stream from which nothing came (not even the daemon's heartbeat, every
# --stream-heartbeat seconds, 15 by default) for this long is taken as dead:
# a half-open TCP connection would otherwise hold it for good.
STREAM_IDLE_MS = 45_000
# An action's answer comes after its commit; past this the outcome is unknown.
POST_TIMEOUT = 60.0
_STREAMED = {"snapshot", "patch", "presence", "deleted"}


class _BoardStream:
    def __init__(self, rev: Optional[int]) -> None:
        self.rev = rev          # the last rev delivered (None: not known yet, or deleted)
        self.resets = 0         # snapshots and deletions delivered: an ack waiting is answered by them
        self.task: Optional["asyncio.Task[None]"] = None
        self.opened = asyncio.Event()  # the daemon accepted the stream (or refused it): actions may go


class StreamConnection:
    name = STREAM
    in_band = False

    def __init__(self, url: str, token: Optional[str], *, open_timeout: float = 10.0,
                 idle_ms: int = STREAM_IDLE_MS) -> None:
        self._base = http_base(url)
        self._token = token
        self._open_timeout = open_timeout
        self._idle = idle_ms / 1000
        self._deliver: Optional[Deliver] = None
        self._streams: Dict[str, _BoardStream] = {}
        self._posts: "Set[asyncio.Task[None]]" = set()
        self._progress = asyncio.Event()   # set and replaced whenever a stream moves on
        self._ended: "asyncio.Future[Ended]" = asyncio.get_running_loop().create_future()
        self._opened = False

    @property
    def _done(self) -> bool:
        return self._ended.done()

    def _finish(self, reason: str) -> None:
        if self._done:
            return
        self._ended.set_result(Ended(reason, None, self._opened))
        for board in list(self._streams):
            self._close_stream(board)
        self._moved_on()  # acks waiting are answered now

    async def run(self, deliver: Deliver) -> Ended:
        self._deliver = deliver
        try:
            response = await request("GET", f"{self._base}/healthz", timeout=self._open_timeout)
            response.close()
        except (OSError, asyncio.TimeoutError, HTTPError) as e:
            self._finish(f"could not connect: {type(e).__name__}: {e}" if str(e) else f"could not connect: {type(e).__name__}")
        else:
            if response.status != 200:
                self._finish(f"HTTP {response.status} from /healthz")
            elif not self._done:
                self._opened = True
                await self._hand({"type": "hello", "protocol": 1, "session": None})
        return await asyncio.shield(self._ended)

    async def _hand(self, m: Message) -> None:
        assert self._deliver is not None
        await self._deliver(m)

    async def send(self, message: Message) -> bool:
        if self._done:
            return False
        kind, board = message.get("type"), message.get("board")
        if kind == "subscribe" and isinstance(board, str):
            since = message.get("since")
            self._open_stream(board, since if isinstance(since, dict) else None)
        elif kind == "unsubscribe" and isinstance(board, str):
            self._close_stream(board)
        elif kind == "auth":
            return await self.authenticate(str(message.get("token")))
        elif kind == "view" or not isinstance(board, str):
            return False  # no conversation to say it in: a stream counts as following
        else:
            task = asyncio.ensure_future(self._post(board, message))
            self._posts.add(task)
            task.add_done_callback(self._posts.discard)
        return True

    async def authenticate(self, token: str) -> bool:
        # From the next request on: the open streams keep the token they were opened with.
        self._token = token
        return True

    async def close(self, reason: Optional[str] = None, *, keep_answers: bool = False) -> None:
        """Ends every stream; with `keep_answers` the POSTs in flight still
        deliver their answer (a switch to the WebSocket), else they are dropped."""
        self._finish(reason or "closed")
        if not keep_answers:
            for task in list(self._posts):
                task.cancel()

    # ---- one stream per board ----

    def _headers(self, **extra: str) -> Dict[str, str]:
        headers = dict(extra)
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        return headers

    def _url(self, board: str, what: str) -> str:
        return f"{self._base}/api/boards/{urllib.parse.quote(board, safe='')}/{what}"

    def _moved_on(self) -> None:
        event, self._progress = self._progress, asyncio.Event()
        event.set()

    def _open_stream(self, board: str, since: Optional[Dict[str, object]]) -> None:
        self._close_stream(board)
        rev = since.get("rev") if since else None
        s = _BoardStream(rev if isinstance(rev, int) else None)
        self._streams[board] = s
        s.task = asyncio.ensure_future(self._read_stream(board, s, since))

    def _close_stream(self, board: str) -> None:
        s = self._streams.pop(board, None)
        if s is None:
            return
        # A stream that resubscribes itself (a patch out of step) is not cancelled: it sees it is no longer current.
        if s.task is not None and s.task is not asyncio.current_task():
            s.task.cancel()
        self._moved_on()

    async def _read_stream(self, board: str, s: _BoardStream, since: Optional[Dict[str, object]]) -> None:
        def current() -> bool:
            return not self._done and self._streams.get(board) is s

        headers = self._headers(Accept="text/event-stream")
        if since:
            headers["Last-Event-ID"] = f"{since.get('epoch')}:{since.get('rev')}"
        response = None
        try:
            response = await request("GET", self._url(board, "events"), headers=headers,
                                     timeout=self._open_timeout)
            if not current():
                return
            s.opened.set()
            if response.status != 200:
                await self._refused(board, response)
                return
            parser = EventStreamParser(MAX_MESSAGE_BYTES)
            text = codecs.getincrementaldecoder("utf-8")("replace")
            async for piece in response.chunks(idle=self._idle):
                for event in parser.push(text.decode(piece)):
                    if event.type in _STREAMED:  # else a newer daemon's event: ignored
                        await self._stream_message(board, s, event.data)
                    if not current():
                        return
            self._finish(f"the event stream of '{board}' ended")
        except asyncio.TimeoutError:
            if current():
                self._finish(f"nothing on the event stream of '{board}' for {self._idle:g} s")
        except (OSError, HTTPError, SSEError) as e:
            if current():
                self._finish(f"the event stream of '{board}' failed: {type(e).__name__}: {e}")
        except asyncio.CancelledError:
            pass
        except Exception:
            # Our own bug on a message: start afresh rather than stay half-synced.
            log.exception("foldsync: failed on a message; reconnecting")
            if current():
                self._finish("the client failed on a message")
        finally:
            if response is not None:
                response.close()

    async def _refused(self, board: str, response: Response) -> None:
        body = await response.json()
        code = str(body.get("code", "internal")) if isinstance(body, dict) else "internal"
        message = str(body.get("message", "")) if isinstance(body, dict) else f"HTTP {response.status}"
        if self._streams.get(board) is None or self._done:
            return
        if response.status >= 500:
            # Too many connections, the daemon stopping: try again later, as after a refused upgrade.
            self._finish(f"HTTP {response.status} {code}: {message}")
            return
        del self._streams[board]
        await self._hand({"type": "error", "board": board, "code": code, "message": message})

    async def _stream_message(self, board: str, s: _BoardStream, data: str) -> None:
        m = parse_message(data)
        if m is None or not isinstance(m.get("type"), str):
            return
        m.setdefault("board", board)
        await self._hand(m)
        if m["type"] in ("snapshot", "patch"):
            rev = m.get("rev")
            s.rev = rev if isinstance(rev, int) else s.rev
            if m["type"] == "snapshot":
                s.resets += 1
            self._moved_on()
        elif m["type"] == "deleted":
            s.rev = None
            s.resets += 1
            self._moved_on()

    # ---- actions ----

    async def _post(self, board: str, message: Message) -> None:
        action_id, key = message.get("id"), message.get("key")
        headers = self._headers(**{"Content-Type": "application/json", "Accept": "application/json"})
        if message.get("type") == "settle":
            what, action = "settle", {"key": key}
        else:
            what = "actions"
            action = {k: v for k, v in message.items() if k not in ("board", "id", "key")}
            if isinstance(key, str):
                headers["Idempotency-Key"] = key
        s = self._streams.get(board)
        if s is not None:
            try:
                await asyncio.wait_for(s.opened.wait(), self._open_timeout)
            except asyncio.TimeoutError:
                pass  # the stream's own failure ends the connection; the POST still has its answer
        if self._done:
            return  # the connection ended meanwhile: the next one sends it
        try:
            response = await request("POST", self._url(board, what), headers=headers,
                                     body=json.dumps(action).encode(), timeout=POST_TIMEOUT)
            status, body = response.status, await asyncio.wait_for(response.json(), POST_TIMEOUT)
        except (OSError, asyncio.TimeoutError, HTTPError) as e:
            # It may or may not have reached the daemon: the outbox asks again, with its key, on the next connection.
            self._finish(f"POST /api/boards/{board}/{what} failed: {type(e).__name__}: {e}")
            return
        if not isinstance(body, dict):
            # Not the daemon's answer (a proxy's page): the outcome is just as unknown.
            self._finish(f"POST /api/boards/{board}/{what}: HTTP {status} without the daemon's answer")
            return
        rev = body.get("rev")
        if 200 <= status < 300 and isinstance(rev, int):
            await self._until_delivered(board, rev)
            ack = {"type": "ack", "id": action_id, "board": board, "rev": rev}
            if body.get("duplicate") is True:
                ack["duplicate"] = True
            await self._hand(ack)
        else:
            code, words = str(body.get("code", "internal")), str(body.get("message", ""))
            await self._hand({"type": "error", "id": action_id, "board": board, "code": code, "message": words})

    async def _until_delivered(self, board: str, rev: int) -> None:
        """Until the board's stream has delivered `rev` (or a snapshot or deletion
        after the ack came), the connection ended, or ACK_WAIT passed."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACK_WAIT
        s = self._streams.get(board)
        resets = s.resets if s is not None else 0
        while not self._done:
            s = self._streams.get(board)
            if s is None or s.resets != resets or (s.rev is not None and s.rev >= rev):
                return
            left = deadline - loop.time()
            if left <= 0:
                return
            try:
                await asyncio.wait_for(self._progress.wait(), left)
            except asyncio.TimeoutError:
                return
