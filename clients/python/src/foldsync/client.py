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

Actions go through the outbox (outbox.py): each is sent, in call order,
once the client is connected and every board is resubscribed on that
connection (the subscribes go first and the daemon answers in order, so the
action's answer comes after the board's snapshot or resumed patches); what
a connection that ended left unanswered is sent again with its key on the
next one, and so is, on the same connection, what a `lagging` resync
dropped the answers of. Each action is shown on its board from its call
until its answer (board.py): the board hears of the call here and of the
answer from the outbox."""
from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import urllib.parse
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple, Union

from websockets.exceptions import WebSocketException

from .backoff import Backoff
from .board import Board
from .errors import CLOSED as CLOSED_CODE
from .errors import DISCONNECTED as DISCONNECTED_CODE
from .errors import RATE_LIMITED, FoldError
from .feed import Feed, Stream
from .handshake import Refused
from .history import fetch_history
from .http import http_answers, http_base
from .outbox import MAX_ACTIONS, MAX_AGE, Entry, Outbox, Outcome
from .pending import Pending
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
        self.sessions: List[str] = []                   # this client's sessions so far, the last 16
        self.following = True
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
        self._backoff = Backoff()
        self._reconnect_hook = reconnect
        self._wake = asyncio.Event()  # set by reconnect(): stop waiting for the next attempt
        self._again = False           # reconnect() was called: the next attempt comes at once
        self._status = ConnectionState(CONNECTING)
        self._states: Feed[ConnectionState] = Feed()
        self._transports: Feed[TransportChange] = Feed()
        self._authenticated: Feed[Dict[str, Any]] = Feed()
        self._auth_expiring: Feed[Dict[str, Any]] = Feed()
        self._messages: Feed[Dict[str, Any]] = Feed()
        self._boards: Dict[str, Board] = {}
        self._pending = Pending()
        self._outbox = Outbox(outbox_max_actions, outbox_max_age)
        self._outbox.on_finish = self._action_finished
        self._ready = False  # connected, and every board's subscribe sent on this connection: actions may go
        self._flusher: "Optional[asyncio.Task[None]]" = None
        self._ages: "Optional[asyncio.Task[None]]" = None
        self._conn: Optional[Connection] = None
        self._handover: Optional[Connection] = None  # a greeted WebSocket taking over from the stream
        self._upgrade: "Optional[asyncio.Task[None]]" = None
        self._connected = False
        self._closing = asyncio.Event()
        self._first: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._task: Optional["asyncio.Task[None]"] = None
        self._side_tasks: "set[asyncio.Task[None]]" = set()

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
    def client_id(self) -> str:
        """16 hex digits, random per Client: the first part of every action's key."""
        return self._outbox.client_id

    @property
    def outbox_size(self) -> int:
        """How many actions wait for their answer (sent or not)."""
        return len(self._outbox)

    def on_outbox(self, callback: Callable[[Outcome], None]) -> Callable[[], None]:
        """Calls `callback(Outcome(key, board, action, rev, error))` with what
        became of each action whose awaiting task was cancelled: `rev` when it
        was applied, else `error` (`expired`: removed before it was sent, or
        settled as never applied; `closed`: unknown, the client was closed)."""
        return self._outbox.outcomes.listen(callback)

    def _set_state(self, state: str, reason: Optional[str] = None, delay_ms: Optional[int] = None,
                   code: Optional[int] = None) -> None:
        self._status = ConnectionState(state, reason, delay_ms, code)
        self._states.publish(self._status)

    # ---- life ----

    async def start(self, timeout: Optional[float] = None) -> None:
        """Connects, and returns once connected (or raises FoldError)."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())
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
        if self._closing.is_set():
            if self._task is not None:
                await asyncio.gather(self._task, return_exceptions=True)
            return
        self._closing.set()
        for conn in (self._conn, self._handover):
            if conn is not None:
                await conn.close()
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for t in list(self._side_tasks):
            t.cancel()
        self._pending.forget_all()
        self._outbox.close(FoldError(CLOSED_CODE, "the client was closed"))
        if not self._first.done():
            self._first.set_exception(FoldError(CLOSED_CODE, "the client was closed"))
            self._first.exception()
        self._set_state(CLOSED)
        for board in list(self._boards.values()):
            board.end()
        for feed in (self._states, self._transports, self._authenticated, self._auth_expiring, self._messages):
            feed.end()

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
        self._backoff.reset()
        self._again = True
        self._wake.set()
        conn = self._conn
        if conn is not None:
            await conn.close("reconnect() was called")

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

    async def _run(self) -> None:
        while not self._closing.is_set():
            self._set_state(CONNECTING)
            reached, code, attempted, opened = False, None, False, False
            self._greeted = False
            conn: Optional[Connection] = None
            try:
                token = await self._tokens.fetch()
                self._token = token
                await self._count_socket_failures()
                attempted = True
                if self._transport == WEBSOCKET:
                    conn = await WebSocketConnection.open(self.url, token, self._open_timeout)
                else:
                    conn = StreamConnection(self.url, token, open_timeout=self._open_timeout,
                                            idle_ms=self._stream_idle_ms)
            except Refused as e:
                if not self._first.done() and e.status in _FATAL_AT_FIRST and not await self._stripped(e):
                    self._first.set_exception(e)
                    return
                reason = f"refused: HTTP {e.status} {e.code}: {e.message}"
            except (OSError, asyncio.TimeoutError, WebSocketException) as e:
                reason = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            except Exception as e:  # the token function's own failure
                log.exception("foldsync: could not connect")
                reason = f"token: {type(e).__name__}: {e}" if not attempted else f"{type(e).__name__}: {e}"
            if conn is not None:
                end, reached = await self._serve(conn)
                reason, code, opened = end.reason, end.code, end.opened
            if self._closing.is_set():
                return
            if attempted and self._transport == WEBSOCKET and not self._greeted:
                self._socket_failed = True
            if reached:
                self._backoff.reset()
            if self._again:  # reconnect(): straight to the next attempt
                self._again = False
                self._wake.clear()
                continue
            # A failed token function is no connection that ended: the hook is not asked (as in JS).
            if attempted and not await self._may_reconnect(Ended(reason, code, opened)):
                self._set_state(DISCONNECTED, reason, None, code)
                if not self._first.done():
                    # connect() has not returned: nobody holds the client to call reconnect().
                    self._first.set_exception(FoldError(DISCONNECTED_CODE, f"not connected, and the reconnect "
                                                                           f"hook said not to retry: {reason}"))
                    return
                await self._wake.wait()
            else:
                delay = self._backoff.next_delay_ms()
                self._set_state(DISCONNECTED, reason, delay, code)
                try:
                    await asyncio.wait_for(self._wake.wait(), delay / 1000)
                except asyncio.TimeoutError:
                    pass
            self._again = False
            self._wake.clear()

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

    async def _serve(self, conn: Connection) -> Tuple[Ended, bool]:
        """Runs the connection (and the WebSocket that takes over from it, if
        any) until it ends; returns how, and whether it reached `connected`."""
        loop = asyncio.get_running_loop()
        while True:
            self._conn = conn
            timer = None if self._connected else loop.call_later(self._open_timeout, self._no_hello, conn)
            try:
                end = await conn.run(self._receiver(conn))
            finally:
                if timer is not None:
                    timer.cancel()
            self._carrier_lost(conn)
            following, self._handover = self._handover, None
            if following is None or self._closing.is_set():
                break
            conn = following
        reached = self._connected
        self._conn = None
        self._connected = False
        return end, reached

    def _carrier_lost(self, conn: Connection) -> None:
        """`conn` carries nothing more (it ended, or the WebSocket took over
        from it): its unanswered actions wait to be sent again with their keys."""
        self._ready = False
        self._pending.forget_all()
        self._outbox.lost(conn)
        self._spawn(conn.close())  # a stream's POSTs in flight: their answers are no longer awaited

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
                await self._dispatch(m)
                self._messages.publish(m)
            except Exception:
                # Our own bug on a message we could not handle: drop this
                # connection and start afresh, rather than die in `connected`.
                log.exception("foldsync: failed on a message; reconnecting")
                self._spawn(conn.close("the client failed on a message"))
        return receive

    # ---- the daemon's messages ----

    async def _dispatch(self, m: Dict[str, Any]) -> None:
        kind = m.get("type")
        if kind == "hello":
            await self._on_hello(m)
        elif kind == "ack":
            rev = m.get("rev")
            if isinstance(rev, int):
                self._pending.resolve(m.get("id"), rev)
        elif kind == "error":
            error = FoldError(str(m.get("code")), str(m.get("message", "")), m.get("board"))
            if error.code == RATE_LIMITED and m.get("id") is None and m.get("board") is None:
                self._pending.reject_unnamed(error)  # refused before it was read: no id (pending.py)
            elif not self._pending.reject(m.get("id"), error) and m.get("board") in self._boards:
                self._boards[m["board"]].refused(error)
        elif kind == "authenticated":
            self.identity = m
            self._authenticated.publish(m)
        elif kind == "authExpiring":
            self._auth_expiring.publish({"in": m.get("in")})
            self._spawn(self._refresh_token())
        elif m.get("board") in self._boards:
            again = self._boards[m["board"]].receive(m)
            if again is not None:
                await self._send(again)

    async def _on_hello(self, m: Dict[str, Any]) -> None:
        conn_at_hello = self._conn
        self.session = m.get("session")
        if self.session is not None:
            # The last 16: a patch `by` one of them may be one of our actions (pending_actions).
            self.sessions = ([s for s in self.sessions if s != self.session] + [self.session])[-16:]
        self._greeted = True
        # A reconnect() made while this attempt was under way is answered by it.
        self._again = False
        self._wake.clear()
        self._connected = True
        if self._transport == WEBSOCKET:
            self._socket_failures = 0
        elif self._mode == AUTO and self._upgrade is None:
            self._upgrade = self._spawn(self._upgrade_later())
        if not self.following:  # a new connection follows until told otherwise
            await self._send({"type": "view", "following": False})
        for board in list(self._boards.values()):
            await self._send(board.subscribe_message())
        if self._conn is conn_at_hello:
            # Bounds first: what is past the age is settled, not sent again.
            self._outbox.expire(asyncio.get_running_loop().time())
            self._ready = True
            self._kick()
        # A switch of transport on a live client is no change of state.
        if self._status.state != CONNECTED:
            self._set_state(CONNECTED)
        if not self._first.done():
            self._first.set_result(None)

    async def _refresh_token(self) -> None:
        conn = self._conn
        try:
            token = await self._tokens.fetch()
        except Exception:
            log.exception("foldsync: the token function failed; the daemon will close at expiry")
            return
        # The same token again would renew nothing.
        if token and token != self._token and self._conn is conn:
            await self.authenticate(token)

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

    async def _send(self, m: Dict[str, Any]) -> bool:
        conn = self._conn
        if conn is None:
            return False
        return await conn.send(m)

    # ---- what boards and callers ask ----

    async def subscribe(self, name: str) -> Board:
        """The board, once its snapshot has come (FoldError when refused).
        Subscribing twice gives the same Board."""
        if self._closing.is_set():
            raise FoldError(CLOSED_CODE, "the client was closed")
        board = self._boards.get(name)
        if board is None:
            board = self._boards[name] = Board(self, name)
            if self._connected:
                await self._send(board.subscribe_message())
        try:
            await asyncio.shield(board._ready)
        except FoldError:
            if self._boards.get(name) is board:
                del self._boards[name]
            raise
        return board

    def _answers_lost(self) -> None:
        """A snapshot nobody asked for: the daemon dropped what was queued
        for this connection, acks and errors included (PROTOCOL.md,
        Guarantees 2). The actions whose answers may be among them are sent
        again with their keys: the daemon applies each now, or answers it
        with its first outcome (`duplicate`). Answers that come out of band
        (the stream's POSTs) were not queued there."""
        conn = self._conn
        if conn is None or not conn.in_band:
            return
        self._pending.forget_in_band()
        self._outbox.lost(conn)
        self._kick()

    async def _unsubscribe(self, board: Board) -> None:
        if self._boards.get(board.name) is board:
            del self._boards[board.name]
            await self._send({"type": "unsubscribe", "board": board.name})
        board.end()

    async def _act(self, action: Dict[str, Any], board: Optional[Board] = None) -> int:
        """Puts the action in the outbox, shows it on `board`, and waits for
        its answer. Cancelling the awaiting task removes an action not sent
        yet, or settles a sent one in the background (the outcome goes to
        on_outbox)."""
        if self._closing.is_set():
            raise FoldError(CLOSED_CODE, "the client was closed")
        entry = self._outbox.add(action, asyncio.get_running_loop().time())
        if board is not None and self._boards.get(board.name) is board:
            board.called(entry.key, entry.message)
        self._kick()
        if self._ages is None:
            self._ages = self._spawn(self._watch_ages())
        try:
            return await entry.future
        except asyncio.CancelledError:
            if self._outbox.cancel(entry):
                self._kick()
            raise

    def _action_finished(self, entry: Entry, rev: Optional[int], error: Optional[BaseException]) -> None:
        board = self._boards.get(entry.board)
        if board is not None:
            board.answered(entry.key, entry.message, rev, error)

    # ---- the outbox on the wire ----

    def _kick(self) -> None:
        """Sends what waits, in order, when actions may go (one sender at a
        time, so that the order called is the order sent)."""
        if self._ready and (self._flusher is None or self._flusher.done()):
            self._flusher = self._spawn(self._flush())

    async def _flush(self) -> None:
        while self._ready and not self._closing.is_set():
            entry, conn = self._outbox.next_to_send(), self._conn
            if entry is None or conn is None:
                return
            action_id, answer = self._pending.open(in_band=conn.in_band)
            self._outbox.sending(entry, conn, action_id)
            answer.add_done_callback(functools.partial(self._answered, entry, action_id))
            if not await conn.send(dict(entry.wire(), id=action_id)):
                # The connection is going: the next one sends it.
                self._pending.forget(action_id)
                self._outbox.not_sent(entry)
                return

    def _answered(self, entry: Entry, action_id: str, answer: "asyncio.Future[int]") -> None:
        error = answer.exception()
        self._outbox.answered(entry, action_id, None if error else answer.result(), error)

    async def _watch_ages(self) -> None:
        """Applies the age bound once a second while anything waits."""
        try:
            while len(self._outbox) and not self._closing.is_set():
                await asyncio.sleep(1)
                if self._outbox.expire(asyncio.get_running_loop().time()):
                    self._kick()
        finally:
            self._ages = None

    async def follow(self, following: bool) -> None:
        """Whether this connection follows the board's folds and focus (sends
        `view`; sent again after every reconnect)."""
        self.following = following
        if self._connected:
            await self._send({"type": "view", "following": following})

    async def _history(self, board: str, *, since: Optional[int], before: Optional[int],
                       limit: Optional[int]) -> Dict[str, Any]:
        return await fetch_history(self.url, board, self._tokens.current, since=since, before=before, limit=limit)

    # ---- async with ----

    async def __aenter__(self) -> "Client":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

