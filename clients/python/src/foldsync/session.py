"""One client's session with the daemon, as a machine: connecting (with a
token, asked again on `authExpiring`), `hello`, the subscriptions sent again
with `since` after every reconnect, each board's mirror, pending actions
and resync reasons (`epoch`, `pruned`, `lagging`; board_entry.py over
mirror.py and pending_actions.py), the outbox (outbox.py), and the backoff
between connections (backoff.py). The Python twin of
Sources/FoldSession/SessionMachine.swift; Tests/vectors/session.json pins
both, input by input.

Pure: no socket, no timer, no clock, no randomness of its own. `handle(input,
now, random)` takes one input, with the time in seconds and a number in
[0, 1] for the backoff, and returns what the shell must do. Inputs and
outputs are dicts of one key, in session.json's vocabulary:

  in:  start | token {token, failure, refresh} | received <message> |
       closed {reason, status} | retry | tick | subscribe {board} |
       act {call, board, action, ifRev} | cancel {call} | view {following} |
       close | suspend | resume | unsubscribe {board} | relinked
  out: connect {token, endpoint} | askToken {refresh} | send <message> | disconnect |
       state {name, reason, retryIn} | retry {after} | tick {after} |
       resolve {call, rev} | reject {call, code, message} | ready {board} |
       refused {board, code, message} | change <Change> (change.py) |
       presence {board, viewers, following} | deleted {board} |
       tokenFailed {message} | finished

`endpoints` is how many URLs the shell connects to: `connect` names one by
its index; after a failure the next is tried at once, and the backoff comes
between whole rounds (every URL failed since the last `hello`). `unsubscribe`:
a board dropped and not subscribed again. `relinked` is the Python client's
own (not in the vectors): the transport replaced under a live session (the
answers awaited on the old one are lost, the new one's `hello` follows).
`change` carries change.py's Change, what a board's readers are given; the vector runner
writes it in the vectors' words."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

from .backoff import Backoff
from .board_entry import BoardEntry
from .errors import FoldError
from .outbox import MAX_ACTIONS, MAX_AGE, Effect, Outbox

Output = Dict[str, Any]
# None, a fixed token, or "provider": the shell asks (askToken) before every connection and on authExpiring.
Token = Union[None, Tuple[str, str], str]
PROVIDER = "provider"
# A patch `by` one of this client's last sessions may be one of its actions landing.
SESSIONS_KEPT = 16

# Phases.
IDLE = "idle"
CONNECTING = "connecting"  # a token is being asked for, or a connection is opening
OPEN = "open"              # `hello` arrived on the current connection
WAITING = "waiting"        # between connections: a `retry` is due
SUSPENDED = "suspended"    # no connection until `resume`
CLOSING = "closing"
CLOSED = "closed"


class Session:
    def __init__(self, client_id: str, token: Token = None, max_actions: int = MAX_ACTIONS,
                 max_age: float = MAX_AGE, endpoints: int = 1) -> None:
        if token is not None and token != PROVIDER and not (isinstance(token, tuple) and token[0] == "value"):
            raise ValueError('foldsync: a session token is None, ("value", token) or "provider"')
        self.token = token
        self.phase = IDLE
        self.following = True
        self.sessions: List[str] = []  # this connection's session and the ones before it (hello)
        self._backoff = Backoff()
        self._endpoints = max(1, endpoints)
        self._endpoint = 0        # the URL in use, an index below `endpoints`
        self._failed_in_a_row = 0  # URLs that failed since the last hello
        self._entries: Dict[str, BoardEntry] = {}
        self._outbox = Outbox(client_id, max_actions, max_age)
        self._shown_as: Dict[int, Tuple[str, str, Dict[str, Any]]] = {}  # ticket -> (board, key, action as called)
        self._linked = False   # a connection exists (opening or open): a send has somewhere to go
        self._ticking = False  # a tick is due
        self._resume_when_closed = False  # `resume` came while the connection `suspend` closed was open
        self._out: List[Output] = []

    @property
    def client_id(self) -> str:
        return self._outbox.client_id

    @property
    def outbox_size(self) -> int:
        return len(self._outbox)

    @property
    def closed(self) -> bool:
        return self.phase in (CLOSING, CLOSED)

    def entry(self, board: str) -> Optional[BoardEntry]:
        """The board's mirror and pending actions, or None when it is not subscribed."""
        return self._entries.get(board)

    def called(self, ticket: int) -> Optional[Tuple[str, str, Dict[str, Any]]]:
        """(board, key, action as called) of an action still in the outbox."""
        return self._shown_as.get(ticket)

    def handle(self, input: Dict[str, Any], now: float, random: float = 0.5) -> List[Output]:
        [(kind, body)] = input.items()
        body = body if isinstance(body, dict) else {}
        self._out = []
        if kind == "start":
            if self.phase == IDLE:
                self._connect()
        elif kind == "token":
            self._token(body.get("token"), body.get("failure"), bool(body.get("refresh")))
        elif kind == "received":
            if self._linked:
                self._received(body, now)
        elif kind == "closed":
            self._closed(str(body.get("reason") or ""), body.get("status"), random)
        elif kind == "retry":
            if self.phase == WAITING:
                self._connect()
        elif kind == "subscribe":
            self._subscribe(body["board"])
        elif kind == "unsubscribe":
            if self._entries.pop(body["board"], None) is not None and self.phase == OPEN:
                self._send({"type": "unsubscribe", "board": body["board"]})
        elif kind == "relinked":
            if self._linked:
                self._outbox.lost()
        elif kind == "act":
            self._act(body["call"], body["board"], body["action"], body.get("ifRev"), now)
        elif kind == "cancel":
            self._run(self._outbox.cancel(body["call"]))
        elif kind == "view":
            self.following = bool(body["following"])
            if self.phase == OPEN:
                self._send({"type": "view", "following": self.following})
        elif kind == "close":
            self._close()
        elif kind == "suspend":
            if self.phase in (CONNECTING, OPEN, WAITING):
                self._resume_when_closed = False
                self.phase = SUSPENDED
                self._emit("state", name="suspended")
                if self._linked:
                    self._out.append({"disconnect": {}})
        elif kind == "resume":
            if self.phase in (SUSPENDED, WAITING):
                self._backoff.reset()
                self._failed_in_a_row = 0
                # Still closing the connection `suspend` ended: the next one opens once it is gone.
                if self._linked:
                    self._resume_when_closed = True
                else:
                    self._connect()
        elif kind == "tick":
            self._ticking = False
            if self.phase != CLOSED:
                self._run(self._outbox.tick(now))
        else:
            raise ValueError(f"foldsync: no session input {kind!r}")
        return self._out

    # ---- the connection ----

    def _emit(self, kind: str, **body: Any) -> None:
        self._out.append({kind: body})

    def _send(self, message: Dict[str, Any]) -> None:
        if self._linked:
            self._out.append({"send": message})

    def _connect(self) -> None:
        self.phase = CONNECTING
        self._emit("state", name="connecting")
        if self.token is None:
            self._open(None)
        elif self.token == PROVIDER:
            self._emit("askToken", refresh=False)
        else:
            self._open(self.token[1])

    def _open(self, token: Optional[str]) -> None:
        self._linked = True
        self._emit("connect", token=token, endpoint=self._endpoint)

    def _token(self, value: Optional[str], failure: Optional[str], refresh: bool) -> None:
        if failure is not None:
            self._emit("tokenFailed", message=failure)
        if refresh:
            if value is not None and self.phase == OPEN:
                self._send({"type": "auth", "token": value})
        elif self.phase == CONNECTING and not self._linked:
            self._open(value)

    def _closed(self, reason: str, status: Optional[int], random: float) -> None:
        if not self._linked:
            return
        self._linked = False
        self._outbox.lost()
        if status in (401, 403):
            # Whoever waits for a first snapshot hears the refusal now, not after a retry that will be refused too.
            for name in sorted(self._entries):
                if self._entries[name].awaited:
                    self._entries[name].awaited = False
                    self._emit("refused", board=name, code="forbidden", message=reason)
        if self.phase == CLOSING:
            self._finish()
            return
        if self.phase == SUSPENDED:
            if self._resume_when_closed:
                self._connect()
            self._resume_when_closed = False
            return
        # The next URL at once; the backoff only once every URL failed in a row.
        self._endpoint = (self._endpoint + 1) % self._endpoints
        self._failed_in_a_row += 1
        if self._failed_in_a_row < self._endpoints:
            self._emit("state", name="disconnected", reason=reason, retryIn=0)
            self._connect()
            return
        self._failed_in_a_row = 0
        self.phase = WAITING
        delay = self._backoff.next_seconds(random)
        self._emit("state", name="disconnected", reason=reason, retryIn=delay)
        self._emit("retry", after=delay)

    def _close(self) -> None:
        if self.closed:
            return
        was_linked = self._linked
        self.phase = CLOSING
        self._run(self._outbox.close_all())
        if was_linked:
            self._out.append({"disconnect": {}})
        else:
            self._finish()

    def _finish(self) -> None:
        self.phase = CLOSED
        for name in sorted(self._entries):
            if self._entries[name].awaited:
                self._entries[name].awaited = False
                self._emit("refused", board=name, code="closed", message="the client was closed")
        self._emit("state", name="closed")
        self._emit("finished")

    # ---- the daemon's messages ----

    def _received(self, m: Dict[str, Any], now: float) -> None:
        kind = m.get("type")
        if kind == "hello":
            session = m.get("session")
            if isinstance(session, str):
                self.sessions = (self.sessions + [session])[-SESSIONS_KEPT:]
            if self.phase not in (CONNECTING, OPEN):
                return
            self.phase = OPEN
            self._backoff.reset()
            self._failed_in_a_row = 0
            self._emit("state", name="connected")
            if not self.following:  # a connection follows until told otherwise
                self._send({"type": "view", "following": False})
            for name in sorted(self._entries):
                self._resubscribe(name)
            # Behind the subscribes on the same connection: the daemon has resubscribed each board before it judges them.
            self._run(self._outbox.ready(now))
        elif kind == "authExpiring":
            if self.token == PROVIDER:
                self._emit("askToken", refresh=True)
        elif kind == "ack":
            if isinstance(m.get("id"), str):
                rev = m.get("rev")
                self._run(self._outbox.answered(m["id"], rev if isinstance(rev, int) else 0, None))
        elif kind == "error":
            self._error(m)
        elif kind in ("snapshot", "patch", "presence", "deleted"):
            if m.get("board") in self._entries:
                self._apply(m["board"], m)

    def _error(self, m: Dict[str, Any]) -> None:
        code, text, board = str(m.get("code")), str(m.get("message", "")), m.get("board")
        if isinstance(m.get("id"), str):
            self._run(self._outbox.answered(m["id"], None, (code, text)))
        elif isinstance(board, str) and board in self._entries:
            if not self._entries[board].refused(code, text, self._out):
                del self._entries[board]

    def _resubscribe(self, name: str, resume: bool = True) -> None:
        self._send(self._entries[name].subscribe(resume))

    def _apply(self, name: str, m: Dict[str, Any]) -> None:
        board_out: List[Output] = []
        self._entries[name].apply(m, self.sessions, board_out,
                                  lambda: board_out.extend(self._effects(self._outbox.answers_dropped())))
        for output in board_out:
            if "send" in output:
                self._send(output["send"])
            else:
                self._out.append(output)

    # ---- what the application asks ----

    def _subscribe(self, name: str) -> None:
        if self.closed:
            self._emit("refused", board=name, code="closed", message="the client is closed")
            return
        e = self._entries.get(name)
        if e is not None:
            if e.mirror.state is not None:
                self._emit("ready", board=name)
            else:
                e.awaited = True
            return
        self._entries[name] = BoardEntry(name)
        if self.phase == OPEN:
            self._resubscribe(name, resume=False)

    def _act(self, ticket: int, board: str, action: Dict[str, Any], if_rev: Optional[int], now: float) -> None:
        if self.closed:
            self._emit("reject", call=ticket, code="closed", message="the client is closed: the action was not sent")
            return
        bare = {k: v for k, v in action.items() if k not in ("board", "key", "id", "ifRev")}
        self._run(self._outbox.call(ticket, board, bare, if_rev, now))
        items = self._outbox.items
        if not items or items[-1].ticket != ticket:
            return
        key = items[-1].key
        called = dict(bare, board=board)
        if if_rev is not None:
            called["ifRev"] = if_rev
        self._shown_as[ticket] = (board, key, called)
        e = self._entries.get(board)
        if e is not None:
            e.called(key, bare, if_rev, self._out)

    def _run(self, effects: List[Effect]) -> None:
        """Carries out what the outbox decided."""
        for output in self._effects(effects):
            if "send" in output:
                self._send(output["send"])
            else:
                self._out.append(output)
        if not self._ticking and len(self._outbox) and not self.closed:
            self._ticking = True
            self._emit("tick", after=1)

    def _effects(self, effects: List[Effect]) -> List[Output]:
        """The outputs the outbox's effects make, a board's rollback or move before the call's answer."""
        out: List[Output] = []
        for effect in effects:
            kind = effect[0]
            if kind == "send":
                out.append({"send": effect[1].message()})
            elif kind == "settle":
                out.append({"send": effect[1].settle_message()})
            elif kind == "resolve":
                _, ticket, rev = effect
                shown = self._shown_as.pop(ticket, None)
                e = self._entries.get(shown[0]) if shown else None
                if shown and e is not None:
                    e.acked(shown[1], rev, out)
                out.append({"resolve": {"call": ticket, "rev": rev}})
            else:
                _, ticket, code, message = effect
                shown = self._shown_as.pop(ticket, None)
                e = self._entries.get(shown[0]) if shown else None
                if shown and e is not None:
                    e.rejected(shown[1], shown[2], FoldError(code, message, shown[0]), out)
                out.append({"reject": {"call": ticket, "code": code, "message": message}})
        return out
