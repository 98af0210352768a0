"""The connection to foldsyncd and its life: connect, serve, back off,
reconnect and resume, until close(). The transport (websocket_transport.py,
stream_transport.py) only carries messages.

transport="auto" (the default): the WebSocket, and the stream when the
WebSocket cannot be had while HTTP can: FALLBACK_AFTER attempts in a row
that never got `hello`, each followed by a GET /healthz that answered (a
daemon that is simply down never sends the client to the stream). On the
stream a WebSocket is tried again every `websocket_retry_ms`; once the
daemon greets one it takes over on the spot (no change of state) and every
board is resubscribed on it with `since`. on_transport is told of each switch.

`reconnect=hook`, for an application that decides itself when to come back
(after a refusal its user must answer): `hook(end)` is asked each time a
connection ends; False leaves the client `disconnected` with `delay_ms`
None until `reconnect()`.

The session's decisions are the session machine's (session.py, pinned by
Tests/vectors/session.json): when to connect and with which token, the
backoff, `view` and the subscribes (with `since`) after `hello`, the
resync reasons, the outbox (actions kept until answered, sent again with
their key, settled past their age) and what each board shows. This module
is its shell: it opens and runs the transports, keeps the timers the
machine asks for, and hands what the machine says to boards, awaiting
tasks and listeners. Outside the machine: the choice of transport (auto),
the reconnect hook, a refusal that fails connect() at once, the wait for
`hello`, and `rate_limited` refusals without an id, matched to their
actions by order (pending.py) before the machine hears of them."""
from __future__ import annotations

import asyncio
import inspect
import itertools
import logging
import random
import secrets
import urllib.parse
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union

from websockets.exceptions import WebSocketException

from .board import Board
from .errors import CLOSED as CLOSED_CODE
from .errors import DISCONNECTED as DISCONNECTED_CODE
from .errors import RATE_LIMITED, FoldError
from .feed import Feed, Stream
from .handshake import Refused
from .history import fetch_history
from .http import http_answers, http_base
from .outbox import MAX_ACTIONS, MAX_AGE, Outcome
from .pending import Pending
from .session import PROVIDER, Output, Session
from .states import CLOSED, CONNECTED, CONNECTING, DISCONNECTED, ConnectionState, TransportChange
from .stream_transport import STREAM_IDLE_MS, StreamConnection
from .tokens import Tokens, TokenSource
from .transport import AUTO, STREAM, WEBSOCKET, Connection, Deliver, Ended, Message
from .websocket_transport import WebSocketConnection

log = logging.getLogger("foldsync")
# Refusals that trying again cannot cure, when they answer the very first
# attempt: a wrong token or a wrong URL fails connect() instead of retrying.
_FATAL_AT_FIRST = (401, 403, 404)
# The WebSocket attempts in a row that fail, with HTTP answering, before auto falls back to the stream.
FALLBACK_AFTER = 2
# How often a client on the stream tries the WebSocket again (auto).
WEBSOCKET_RETRY_MS = 60_000
_MODES = (AUTO, WEBSOCKET, STREAM)
# The application's say on reconnecting: given how the connection ended; False waits for reconnect().
ReconnectHook = Callable[[Ended], Union[bool, Awaitable[bool]]]


class Client:
    def __init__(self, url: str, token: TokenSource = None, *, open_timeout: float = 10.0,
                 transport: str = AUTO, websocket_retry_ms: int = WEBSOCKET_RETRY_MS,
                 stream_idle_ms: int = STREAM_IDLE_MS, reconnect: Optional[ReconnectHook] = None,
                 outbox_max_actions: int = MAX_ACTIONS, outbox_max_age: float = MAX_AGE) -> None:
        self.check(url, transport, reconnect)
        self.url = url
        self.identity: Optional[Dict[str, Any]] = None  # the last `authenticated` message
        self.session: Optional[str] = None              # this connection's session, from `hello`
        self._tokens = Tokens(token)
        self._token: Optional[str] = None               # the token the connection carries
        self._open_timeout = open_timeout
        self._mode = transport
        self._transport = STREAM if transport == STREAM else WEBSOCKET
        self._websocket_retry = websocket_retry_ms / 1000
        self._stream_idle_ms = stream_idle_ms
        self._socket_failures = 0   # WebSocket attempts in a row without hello while HTTP answered
        self._socket_failed = False  # the last attempt was a WebSocket that got no hello
        self._greeted = False        # the current attempt got its hello
        self._reconnect_hook = reconnect
        self._status = ConnectionState(CONNECTING)
        self._states: Feed[ConnectionState] = Feed()
        self._transports: Feed[TransportChange] = Feed()
        self._authenticated: Feed[Dict[str, Any]] = Feed()
        self._auth_expiring: Feed[Dict[str, Any]] = Feed()
        self._messages: Feed[Dict[str, Any]] = Feed()
        self._outcomes: Feed[Outcome] = Feed()
        self._boards: Dict[str, Board] = {}
        # 16 lowercase hex digits from the system's cryptographic source: two
        # clients never share keys, so neither is taken for the other's repeat.
        # The token is always asked of Tokens (a fixed one answers itself): authenticate() may change it.
        self._session = Session(secrets.token_hex(8), PROVIDER, outbox_max_actions, outbox_max_age)
        self._tickets = itertools.count(1)
        self._calls: Dict[int, Tuple["asyncio.Future[int]", str]] = {}  # ticket -> (its awaiter, its board)
        self._cancelled: Dict[int, Tuple[str, str, Dict[str, Any]]] = {}  # nobody awaits them: outcomes go to on_outbox
        self._pending = Pending()  # matches `rate_limited` without an id to the actions sent
        self._pending.on_unnamed = self._refused_unnamed
        self._attempt: "Optional[asyncio.Task[None]]" = None
        self._reconnects = 0        # reconnect() calls: one made while the hook is asked answers it
        self._token_asks = 0        # a token answer for an older ask is dropped
        self._retry: Optional[asyncio.TimerHandle] = None
        self._tick: Optional[asyncio.TimerHandle] = None
        self._held_end: Optional[Ended] = None  # how the last connection ended (for the hook and the state)
        self._conn: Optional[Connection] = None
        self._handover: Optional[Connection] = None  # a greeted WebSocket taking over from the stream
        self._upgrade: "Optional[asyncio.Task[None]]" = None
        self._connected = False
        self._closing = asyncio.Event()
        self._finished = asyncio.Event()
        self._first: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._side_tasks: "set[asyncio.Task[None]]" = set()
        self._outgoing: Dict[Connection, List[Dict[str, Any]]] = {}  # what waits to be written, per connection

    @staticmethod
    def check(url: str, transport: str, reconnect: Optional[ReconnectHook] = None) -> None:
        """ValueError for a URL that is not ws:// or wss://, or an unknown
        transport; TypeError for a reconnect hook that is not callable."""
        if urllib.parse.urlsplit(url).scheme not in ("ws", "wss"):
            raise ValueError(f"foldsync: {url} is not a ws:// or wss:// URL")
        if transport not in _MODES:
            raise ValueError(f'foldsync: no transport "{transport}" ("auto", "websocket" or "stream")')
        if reconnect is not None and not callable(reconnect):
            raise TypeError("foldsync: reconnect is a function (end) -> bool")

    # ---- the connection's state ----

    @property
    def state(self) -> str:
        """connecting, connected, disconnected or closed."""
        return self._status.state

    @property
    def status(self) -> ConnectionState:
        """The state with, when disconnected, its reason, close code and the next attempt's delay."""
        return self._status

    @property
    def transport(self) -> str:
        """What carries the connection: "websocket" or "stream"."""
        return self._transport

    def on_state(self, callback: Callable[[ConnectionState], None]) -> Callable[[], None]:
        """Calls `callback(ConnectionState)` on every transition; returns the function that stops it."""
        return self._states.listen(callback)

    def states(self) -> Stream[ConnectionState]:
        """Every transition from now on, ending after `closed`."""
        return self._states.stream()

    def on_transport(self, callback: Callable[[TransportChange], None]) -> Callable[[], None]:
        """Calls `callback(TransportChange(transport, reason))` each time
        transport="auto" moves to the other transport."""
        return self._transports.listen(callback)

    def on_authenticated(self, callback: Callable[[Dict[str, Any]], None]) -> Callable[[], None]:
        """Calls `callback(message)` with each `authenticated` of the daemon
        (name, permissions, boards, and `expires` for a JWT); also kept as
        `client.identity`. Never on the stream: it has no conversation."""
        return self._authenticated.listen(callback)

    def on_auth_expiring(self, callback: Callable[[Dict[str, Any]], None]) -> Callable[[], None]:
        """Calls `callback({"in": SECONDS})` when the daemon warns that the
        token expires; a token function is then asked anew by the client
        itself. Never on the stream."""
        return self._auth_expiring.listen(callback)

    def on_message(self, callback: Callable[[Dict[str, Any]], None]) -> Callable[[], None]:
        """Calls `callback(message)` with every message of the daemon (the
        parsed dict), after the client handled it: the boards and states it
        touches already show it. For an application that keeps its own copy."""
        return self._messages.listen(callback)

    @property
    def sessions(self) -> List[str]:
        """This client's sessions so far, the last 16."""
        return self._session.sessions

    @property
    def following(self) -> bool:
        return self._session.following

    @property
    def client_id(self) -> str:
        """16 hex digits, random per Client: the first part of every action's key."""
        return self._session.client_id

    @property
    def outbox_size(self) -> int:
        """How many actions wait for their answer (sent or not)."""
        return self._session.outbox_size

    def on_outbox(self, callback: Callable[[Outcome], None]) -> Callable[[], None]:
        """Calls `callback(Outcome(key, board, action, rev, error))` with what
        became of each action whose awaiting task was cancelled: `rev` when it
        was applied, else `error` (`expired`: removed before it was sent, or
        settled as never applied; `closed`: unknown, the client was closed)."""
        return self._outcomes.listen(callback)

    def _set_state(self, state: str, reason: Optional[str] = None, delay_ms: Optional[int] = None,
                   code: Optional[int] = None) -> None:
        self._status = ConnectionState(state, reason, delay_ms, code)
        self._states.publish(self._status)

    # ---- life ----

    async def start(self, timeout: Optional[float] = None) -> None:
        """Connects, and returns once connected (or raises FoldError)."""
        self._feed({"start": {}})
        try:
            await asyncio.wait_for(asyncio.shield(self._first), timeout)
        except asyncio.TimeoutError:
            reason = self._status.reason or "no answer"
            await self.close()
            raise FoldError(DISCONNECTED_CODE, f"not connected within {timeout} s: {reason}") from None
        except FoldError:
            await self.close()
            raise

    async def close(self) -> None:
        """Closes the connection for good: actions waiting reject with code
        `closed` (one that had been sent may or may not have been applied),
        every stream ends, nothing reconnects."""
        if not self._closing.is_set():
            self._closing.set()
            self._feed({"close": {}})
        await self._finished.wait()
        if self._attempt is not None:
            await asyncio.gather(self._attempt, return_exceptions=True)

    async def authenticate(self, token: str) -> bool:
        """Hands a new token to the open connection: an `auth` message on the
        WebSocket; on the stream, the token of the next requests. False when
        there is no connection."""
        conn = self._conn
        if conn is None or not isinstance(token, str) or not token:
            return False
        if not await conn.authenticate(token):
            return False
        self._token = self._tokens.current = token
        return True

    async def reconnect(self) -> None:
        """Drops the connection, if any, and connects at once, asking the
        token again (the backoff starts over): after the reconnect hook
        returned False, or when the user gave a new token. Actions waiting
        stay in the outbox. Nothing after close()."""
        if self._closing.is_set():
            return
        self._reconnects += 1
        self._cancel_retry()
        # Suspended, then resumed: the machine closes what is open and connects again once it is gone.
        self._feed({"suspend": {}})
        self._feed({"resume": {}})

    async def _may_reconnect(self, end: Ended) -> bool:
        """The reconnect hook's answer; one that raises is logged and taken as yes."""
        if self._reconnect_hook is None:
            return True
        try:
            answer = self._reconnect_hook(end)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception:
            log.exception("foldsync: the reconnect hook raised; reconnecting")
            return True
        return answer is not False

    # ---- the machine ----

    def _feed(self, input: Dict[str, Any]) -> None:
        """One input to the session machine; what it says is done at once, in order."""
        loop = asyncio.get_running_loop()
        for output in self._session.handle(input, loop.time(), random.random()):
            self._do(output)

    def _do(self, output: Output) -> None:
        [(kind, body)] = output.items()
        if kind == "send":
            self._send_now(body)
        elif kind == "state":
            self._state(body)
        elif kind == "connect":
            self._token = body["token"]
            self._attempt = self._spawn(self._connect(body["token"]))
        elif kind == "askToken":
            self._token_asks += 1
            self._spawn(self._ask_token(body["refresh"], self._token_asks))
        elif kind == "disconnect":
            self._disconnect()
        elif kind == "retry":
            self._retry_after(body["after"])
        elif kind == "tick":
            self._tick = asyncio.get_running_loop().call_later(body["after"], self._feed, {"tick": {}})
        elif kind in ("resolve", "reject"):
            self._answer(kind, body)
        elif kind == "tokenFailed":
            log.warning("foldsync: connecting without a token: the token function failed (%s)", body["message"])
        elif kind == "finished":
            self._finish()
        else:  # ready, refused, change, presence, deleted: a board's
            name = body.board if kind == "change" else body["board"]
            board = self._boards.get(name)
            if board is not None:
                board._tell([output], board._entry.seen_epoch)
                if kind == "refused" and self._session.entry(name) is None:
                    # Not subscribed again: the machine dropped it.
                    del self._boards[name]
                    board.end()

    def _state(self, body: Dict[str, Any]) -> None:
        name = body["name"]
        if name == "connected":
            # A switch of transport on a live client is no change of state.
            if self._status.state != CONNECTED:
                self._set_state(CONNECTED)
            if not self._first.done():
                self._first.set_result(None)
        elif name == "connecting":
            self._set_state(CONNECTING)
        elif name == "disconnected":
            # Said once the hook has answered (_retry_after).
            pass
        elif name == "closed":
            if not self._first.done():
                self._first.set_exception(FoldError(CLOSED_CODE, "the client was closed"))
                self._first.exception()
            self._set_state(CLOSED)

    def _retry_after(self, after: float) -> None:
        """Between connections: the hook has its say, then the state, then the wait."""
        end = self._held_end or Ended("closed", None, False)
        self._spawn(self._retry_when_allowed(end, after))

    async def _retry_when_allowed(self, end: Ended, after: float) -> None:
        reconnects = self._reconnects
        allowed = self._reconnect_hook is None or await self._may_reconnect(end)
        if self._closing.is_set() or self._reconnects != reconnects:
            return  # closed, or reconnect() was called meanwhile (the hook may call it): that answer stands
        if not allowed:
            self._set_state(DISCONNECTED, end.reason, None, end.code)
            if not self._first.done():
                # connect() has not returned: nobody holds the client to call reconnect().
                self._first.set_exception(FoldError(DISCONNECTED_CODE, f"not connected, and the reconnect "
                                                                       f"hook said not to retry: {end.reason}"))
                return
            self._feed({"suspend": {}})  # until reconnect()
            return
        self._set_state(DISCONNECTED, end.reason, int(round(after * 1000)), end.code)
        self._cancel_retry()
        self._retry = asyncio.get_running_loop().call_later(after, self._feed, {"retry": {}})

    def _cancel_retry(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
            self._retry = None

    async def _ask_token(self, refresh: bool, ask: int) -> None:
        try:
            token = await self._tokens.fetch()
        except Exception as e:
            log.exception("foldsync: the token function failed")  # with its traceback; tokenFailed follows
            if ask == self._token_asks and not refresh:
                self._feed({"token": {"token": None, "failure": f"{type(e).__name__}: {e}", "refresh": refresh}})
            return
        if ask != self._token_asks and not refresh:
            return  # asked again since: that answer opens the connection
        # The same token again would renew nothing.
        if refresh and (not token or token == self._token):
            return
        self._feed({"token": {"token": token, "refresh": refresh}})

    def _answer(self, kind: str, body: Dict[str, Any]) -> None:
        ticket = body["call"]
        fut, board = self._calls.pop(ticket, (None, None))
        cancelled = self._cancelled.pop(ticket, None)
        if cancelled is not None:
            board = cancelled[0]
        error = None if kind == "resolve" else FoldError(body["code"], body["message"], board)
        if cancelled is not None:
            self._outcomes.publish(Outcome(cancelled[1], cancelled[0], cancelled[2], body.get("rev"), error))
        elif fut is not None and not fut.done():
            if error is not None:
                fut.set_exception(error)
            else:
                fut.set_result(body["rev"])

    def _finish(self) -> None:
        self._cancel_retry()
        if self._tick is not None:
            self._tick.cancel()
        for t in list(self._side_tasks):
            if t is not asyncio.current_task() and t is not self._attempt:
                t.cancel()
        for board in list(self._boards.values()):
            board.end()
        for feed in (self._states, self._transports, self._authenticated, self._auth_expiring, self._messages,
                     self._outcomes):
            feed.end()
        self._finished.set()

    # ---- the transports ----

    async def _connect(self, token: Optional[str]) -> None:
        """One connection, from opening it to its end, told to the machine as `closed` (also when cancelled)."""
        end, status = Ended("closed", None, False), None
        try:
            end, status = await self._connect_once(token)
        finally:
            self._held_end = end
            if self._transport == WEBSOCKET and not self._greeted:
                self._socket_failed = True
            self._feed({"closed": {"reason": end.reason, "status": status}})

    async def _connect_once(self, token: Optional[str]) -> Tuple[Ended, Optional[int]]:
        self._greeted = False
        try:
            await self._count_socket_failures()
            if self._transport == WEBSOCKET:
                conn: Connection = await WebSocketConnection.open(self.url, token, self._open_timeout)
            else:
                conn = StreamConnection(self.url, token, open_timeout=self._open_timeout,
                                        idle_ms=self._stream_idle_ms)
        except Refused as e:
            if not self._first.done() and e.status in _FATAL_AT_FIRST and not await self._stripped(e):
                self._first.set_exception(e)
            return Ended(f"refused: HTTP {e.status} {e.code}: {e.message}", None, False), e.status
        except (OSError, asyncio.TimeoutError, WebSocketException) as e:
            return Ended(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__, None, False), None
        if self._closing.is_set():
            await conn.close()
        return await self._serve(conn), None

    def _disconnect(self) -> None:
        conn = self._conn
        if conn is not None:
            reason = "reconnect() was called" if not self._closing.is_set() else None
            self._spawn(conn.close(reason))
        elif self._attempt is not None and not self._attempt.done():
            self._attempt.cancel()

    async def _count_socket_failures(self) -> None:
        """auto: a WebSocket attempt that got no `hello` counts when HTTP
        answers (a daemon that is down fails both); enough of them in a row
        and the next attempt is on the stream."""
        if self._mode != AUTO or self._transport != WEBSOCKET or not self._socket_failed:
            return
        self._socket_failed = False
        answers = await http_answers(http_base(self.url))
        self._socket_failures = self._socket_failures + 1 if answers else 0
        if self._socket_failures >= FALLBACK_AFTER:
            self._use_transport(STREAM, f"{self._socket_failures} WebSocket attempts in a row failed "
                                        "while HTTP answered")

    async def _stripped(self, refusal: Refused) -> bool:
        """auto: a 404 to the upgrade while the daemon's HTTP answers beside
        it is a proxy that stripped the upgrade (the daemon answers a plain
        GET /ws so), not a wrong URL."""
        return refusal.status == 404 and self._mode == AUTO and await http_answers(http_base(self.url))

    async def _serve(self, conn: Connection) -> Ended:
        """Runs the connection (and the WebSocket that takes over from it, if any) until it ends."""
        loop = asyncio.get_running_loop()
        while True:
            self._conn = conn
            timer = None if self._connected else loop.call_later(self._open_timeout, self._no_hello, conn)
            try:
                end = await conn.run(self._receiver(conn))
            finally:
                if timer is not None:
                    timer.cancel()
            self._pending.forget_all()
            self._spawn(conn.close())  # a stream's POSTs in flight: their answers are no longer awaited
            following, self._handover = self._handover, None
            if following is None or self._closing.is_set():
                break
            # The WebSocket took over under the live session: what the stream
            # left unanswered goes again on it with its key, after its `hello`.
            self._feed({"relinked": {}})
            conn = following
        self._conn = None
        self._connected = False
        return end

    def _no_hello(self, conn: Connection) -> None:
        # A host that swallows packets would otherwise hold the attempt for minutes.
        if self._conn is conn and not self._connected:
            self._spawn(conn.close(f"no hello within {self._open_timeout:g} s"))

    def _receiver(self, conn: Connection) -> Deliver:
        async def receive(m: Message) -> None:
            # A retired connection's answers to actions still waiting are taken (a switch of transport).
            if self._conn is not conn and not self._pending.awaits(m):
                return
            try:
                self._dispatch(m)
                self._messages.publish(m)
            except Exception:
                # Our own bug on a message we could not handle: drop this
                # connection and start afresh, rather than die in `connected`.
                log.exception("foldsync: failed on a message; reconnecting")
                self._spawn(conn.close("the client failed on a message"))
        return receive

    # ---- the daemon's messages ----

    def _dispatch(self, m: Dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "hello":
            self._on_hello(m)
        elif kind == "ack":
            rev = m.get("rev")
            if isinstance(rev, int):
                self._pending.resolve(m.get("id"), rev)
        elif kind == "error":
            error = FoldError(str(m.get("code")), str(m.get("message", "")), m.get("board"))
            if error.code == RATE_LIMITED and m.get("id") is None and m.get("board") is None:
                self._pending.reject_unnamed(error)  # refused before it was read: no id (pending.py)
                return
            self._pending.reject(m.get("id"), error)
        elif kind == "authenticated":
            self.identity = m
            self._authenticated.publish(m)
        elif kind == "authExpiring":
            self._auth_expiring.publish({"in": m.get("in")})
        self._feed({"received": m})

    def _refused_unnamed(self, action_id: str, error: FoldError) -> None:
        """pending.py matched an id-less `rate_limited` to the action sent with `action_id` (its key)."""
        asyncio.get_running_loop().call_soon(
            self._feed, {"received": {"type": "error", "id": action_id, "code": error.code, "message": error.message}})

    def _on_hello(self, m: Dict[str, Any]) -> None:
        self.session = m.get("session")
        self._greeted = True
        self._connected = True
        self._cancel_retry()
        if self._transport == WEBSOCKET:
            self._socket_failures = 0
        elif self._mode == AUTO and self._upgrade is None:
            self._upgrade = self._spawn(self._upgrade_later())

    # ---- auto: back to the WebSocket ----

    def _use_transport(self, transport: str, reason: str) -> None:
        if self._transport == transport:
            return
        self._transport = transport
        if transport == WEBSOCKET:
            self._socket_failures = 0
        self._transports.publish(TransportChange(transport, reason))

    async def _upgrade_later(self) -> None:
        """On the stream: every websocket_retry_ms, a WebSocket beside it; the
        first the daemon greets becomes the connection."""
        try:
            while not self._closing.is_set() and self._transport == STREAM:
                await asyncio.sleep(self._websocket_retry)
                if self._closing.is_set() or self._transport != STREAM:
                    return
                if not self._connected:
                    continue
                ws: Optional[WebSocketConnection] = None
                hello: Optional[Message] = None
                try:
                    token = await self._tokens.fetch()
                    ws = await WebSocketConnection.open(self.url, token, self._open_timeout)
                    hello = await asyncio.wait_for(ws.first(), self._open_timeout)
                except Exception as e:  # refused, cut, or no hello: the stream carries on
                    log.debug("foldsync: the WebSocket still fails: %s", e)
                old = self._conn
                if (ws is not None and hello is not None and hello.get("type") == "hello"
                        and self._connected and old is not None and not self._closing.is_set()):
                    self._handover = ws
                    self._token = token
                    self._use_transport(WEBSOCKET, "the WebSocket works again")
                    await old.close("the WebSocket took over", keep_answers=True)
                    return
                if ws is not None:
                    await ws.close()
        finally:
            self._upgrade = None

    def _spawn(self, coro: Any) -> "asyncio.Task[None]":
        task = asyncio.ensure_future(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)
        return task

    def _send_now(self, m: Dict[str, Any]) -> None:
        """Sends on the current connection, in the order the machine said (one writer per connection)."""
        conn = self._conn
        if conn is None:
            return
        if m.get("type") == "auth":
            self._spawn(self.authenticate(str(m.get("token"))))
            return
        if isinstance(m.get("key"), str):
            self._pending.open(in_band=conn.in_band, action_id=m["key"])[1].add_done_callback(_retrieve)
        queue = self._outgoing.get(conn)
        if queue is None:
            queue = self._outgoing[conn] = []
            self._spawn(self._write(conn, queue))
        queue.append(m)

    async def _write(self, conn: Connection, queue: List[Dict[str, Any]]) -> None:
        try:
            while queue:
                await conn.send(queue.pop(0))
        finally:
            self._outgoing.pop(conn, None)

    # ---- what boards and callers ask ----

    async def subscribe(self, name: str) -> Board:
        """The board, once its snapshot has come (FoldError when refused).
        Subscribing twice gives the same Board."""
        if self._closing.is_set():
            raise FoldError(CLOSED_CODE, "the client was closed")
        board = self._boards.get(name)
        if board is None:
            board = self._boards[name] = Board(self, name)
        self._feed({"subscribe": {"board": name}})
        entry = self._session.entry(name)
        if entry is not None:
            board._entry = entry
        try:
            await asyncio.shield(board._ready)
        except FoldError:
            if self._boards.get(name) is board:
                del self._boards[name]
            raise
        return board

    async def _unsubscribe(self, board: Board) -> None:
        if self._boards.get(board.name) is board:
            del self._boards[board.name]
            self._feed({"unsubscribe": {"board": board.name}})
        board.end()

    async def _act(self, action: Dict[str, Any], board: Optional[Board] = None) -> int:
        """Puts the action in the outbox (shown on its board at once), and
        waits for its answer. Cancelling the awaiting task removes an action
        not sent yet, or settles a sent one (the outcome goes to on_outbox)."""
        if self._closing.is_set():
            raise FoldError(CLOSED_CODE, "the client was closed")
        ticket = next(self._tickets)
        fut: "asyncio.Future[int]" = asyncio.get_running_loop().create_future()
        name = str(action.get("board"))
        self._calls[ticket] = (fut, name)
        bare = {k: v for k, v in action.items() if k not in ("board", "key", "id", "ifRev")}
        self._feed({"act": {"call": ticket, "board": name, "action": bare, "ifRev": action.get("ifRev")}})
        try:
            return await fut
        except asyncio.CancelledError:
            self._calls.pop(ticket, None)
            called = self._session.called(ticket)
            if called is not None:
                board_name, key, message = called
                self._cancelled[ticket] = (board_name, key, message)
                self._feed({"cancel": {"call": ticket}})
            raise

    async def follow(self, following: bool) -> None:
        """Whether this connection follows the board's folds and focus (sends
        `view`; sent again after every reconnect)."""
        self._feed({"view": {"following": following}})

    async def _history(self, board: str, *, since: Optional[int], before: Optional[int],
                       limit: Optional[int]) -> Dict[str, Any]:
        return await fetch_history(self.url, board, self._tokens.current, since=since, before=before, limit=limit)

    # ---- async with ----

    async def __aenter__(self) -> "Client":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()



def _retrieve(fut: "asyncio.Future[int]") -> None:
    # pending.py's futures are bookkeeping here: the machine answers the call.
    if not fut.cancelled():
        fut.exception()
