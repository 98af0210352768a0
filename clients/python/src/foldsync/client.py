"""The connection to foldsyncd and its life: connect, serve, back off,
reconnect and resume, until close()."""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, Callable, Dict, Optional, Tuple

from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, WebSocketException

from .backoff import Backoff
from .board import Board
from .errors import CLOSED as CLOSED_CODE
from .errors import DISCONNECTED as DISCONNECTED_CODE
from .errors import RATE_LIMITED, FoldError
from .feed import Feed, Stream
from .handshake import Refused, open_socket
from .history import fetch_history
from .pending import Pending
from .states import CLOSED, CONNECTED, CONNECTING, DISCONNECTED, ConnectionState
from .tokens import Tokens, TokenSource

log = logging.getLogger("foldsync")
# Refusals that trying again cannot cure, when they answer the very first
# attempt: a wrong token or a wrong URL fails connect() instead of retrying.
_FATAL_AT_FIRST = (401, 403, 404)


class Client:
    def __init__(self, url: str, token: TokenSource = None, *, open_timeout: float = 10.0) -> None:
        self.url = url
        self.identity: Optional[Dict[str, Any]] = None  # the last `authenticated` message
        self.session: Optional[str] = None              # this connection's session, from `hello`
        self.following = True
        self._tokens = Tokens(token)
        self._open_timeout = open_timeout
        self._backoff = Backoff()
        self._status = ConnectionState(CONNECTING)
        self._states: Feed[ConnectionState] = Feed()
        self._boards: Dict[str, Board] = {}
        self._pending = Pending()
        self._ws: Optional[ClientConnection] = None
        self._connected = False
        self._closing = asyncio.Event()
        self._first: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        self._task: Optional["asyncio.Task[None]"] = None
        self._side_tasks: "set[asyncio.Task[None]]" = set()

    # ---- the connection's state ----

    @property
    def state(self) -> str:
        """connecting, connected, disconnected or closed."""
        return self._status.state

    @property
    def status(self) -> ConnectionState:
        """The state with, when disconnected, its reason and the next attempt's delay."""
        return self._status

    def on_state(self, callback: Callable[[ConnectionState], None]) -> Callable[[], None]:
        """Calls `callback(ConnectionState)` on every transition; returns the function that stops it."""
        return self._states.listen(callback)

    def states(self) -> Stream[ConnectionState]:
        """Every transition from now on, ending after `closed`."""
        return self._states.stream()

    def _set_state(self, state: str, reason: Optional[str] = None, delay_ms: Optional[int] = None) -> None:
        self._status = ConnectionState(state, reason, delay_ms)
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
        """Closes the connection for good: pending actions reject with code
        `closed`, every stream ends, nothing reconnects."""
        if self._closing.is_set():
            if self._task is not None:
                await asyncio.gather(self._task, return_exceptions=True)
            return
        self._closing.set()
        ws = self._ws
        if ws is not None:
            try:
                await asyncio.wait_for(ws.close(), 2)
            except (asyncio.TimeoutError, WebSocketException, OSError):
                pass
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        for t in list(self._side_tasks):
            t.cancel()
        self._pending.reject_all(CLOSED_CODE, "the client was closed")
        if not self._first.done():
            self._first.set_exception(FoldError(CLOSED_CODE, "the client was closed"))
            self._first.exception()
        self._set_state(CLOSED)
        for board in list(self._boards.values()):
            board.end()
        self._states.end()

    async def _run(self) -> None:
        while not self._closing.is_set():
            self._set_state(CONNECTING)
            reached = False
            try:
                token = await self._tokens.fetch()
                ws = await open_socket(self.url, token, self._open_timeout)
            except Refused as e:
                if not self._first.done() and e.status in _FATAL_AT_FIRST:
                    self._first.set_exception(e)
                    return
                reason = f"refused: HTTP {e.status} {e.code}: {e.message}"
            except (OSError, asyncio.TimeoutError, WebSocketException) as e:
                reason = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
            except Exception as e:  # the token function's own failure
                log.exception("foldsync: could not connect")
                reason = f"{type(e).__name__}: {e}"
            else:
                reason, reached = await self._serve(ws)
            if self._closing.is_set():
                return
            if reached:
                self._backoff.reset()
            delay = self._backoff.next_delay_ms()
            self._set_state(DISCONNECTED, reason, delay)
            try:
                await asyncio.wait_for(self._closing.wait(), delay / 1000)
            except asyncio.TimeoutError:
                pass

    async def _serve(self, ws: ClientConnection) -> Tuple[str, bool]:
        """Reads until the connection ends; returns why, and whether it reached `connected`."""
        self._ws = ws
        why = "connection lost"
        try:
            while True:
                frame = await ws.recv()
                text = frame if isinstance(frame, str) else frame.decode("utf-8", "replace")
                for line in text.split("\n"):
                    m = _parse(line)
                    if m is not None:
                        await self._dispatch(m)
        except ConnectionClosed as e:
            # The exception's close frame, not ws.close_code: the same in every websockets >= 13.
            if e.rcvd is not None:
                why = f"closed {e.rcvd.code}" + (f": {e.rcvd.reason}" if e.rcvd.reason else "")
        except OSError as e:
            why = f"{type(e).__name__}: {e}"
        except Exception:
            # Our own bug on a message we could not handle: drop this
            # connection and start afresh, rather than die in `connected`.
            log.exception("foldsync: failed on a message; reconnecting")
            why = "the client failed on a message"
            await ws.close()
        finally:
            reached = self._connected
            self._ws = None
            self._connected = False
            if self._closing.is_set():
                self._pending.reject_all(CLOSED_CODE, "the client was closed")
            else:
                self._pending.reject_all(DISCONNECTED_CODE, "the connection dropped before the answer")
        return why, reached

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
        elif kind == "authExpiring":
            self._spawn(self._refresh_token())
        elif m.get("board") in self._boards:
            again = self._boards[m["board"]].receive(m)
            if again is not None:
                await self._send(again)

    async def _on_hello(self, m: Dict[str, Any]) -> None:
        self.session = m.get("session")
        self._connected = True
        if not self.following:  # a new connection follows until told otherwise
            await self._send({"type": "view", "following": False})
        for board in list(self._boards.values()):
            await self._send(board.subscribe_message())
        self._set_state(CONNECTED)
        if not self._first.done():
            self._first.set_result(None)

    async def _refresh_token(self) -> None:
        try:
            token = await self._tokens.fetch()
        except Exception:
            log.exception("foldsync: the token function failed; the daemon will close at expiry")
            return
        if token:
            await self._send({"type": "auth", "token": token})

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._side_tasks.add(task)
        task.add_done_callback(self._side_tasks.discard)

    async def _send(self, m: Dict[str, Any]) -> bool:
        ws = self._ws
        if ws is None:
            return False
        try:
            await ws.send(json.dumps(m))
            return True
        except (ConnectionClosed, OSError):
            return False

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

    async def _unsubscribe(self, board: Board) -> None:
        if self._boards.get(board.name) is board:
            del self._boards[board.name]
            await self._send({"type": "unsubscribe", "board": board.name})
        board.end()

    async def _act(self, action: Dict[str, Any]) -> int:
        if self._closing.is_set():
            raise FoldError(CLOSED_CODE, "the client was closed")
        if not self._connected:
            raise FoldError(DISCONNECTED_CODE, "not connected")
        action_id, answer = self._pending.open()
        if not await self._send(dict(action, id=action_id)):
            self._pending.reject(action_id, FoldError(DISCONNECTED_CODE, "not connected"))
        return await answer

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


def _parse(line: str) -> Optional[Dict[str, Any]]:
    """One message, or None for what is not a JSON object (skipped: a newer
    daemon's oddity must not drop the connection)."""
    if not line:
        return None
    try:
        m = json.loads(line)
    except ValueError:
        log.warning("foldsync: skipped a message that is not JSON")
        return None
    return m if isinstance(m, dict) else None
