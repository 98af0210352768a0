"""The outbox: every action from its call until its answer, in call order.

Each action carries a key, `<client id>-<n>`, which makes it exactly-once
at the daemon (PROTOCOL.md, Guarantee 8). So nothing is given up when the
network fails: an action called while the client is not connected waits
here, and an action whose connection ended before its answer came is sent
again with the same key once the client is back; the daemon answers it
once (applied then, or `duplicate` with the first answer's rev).

Bounds, so that an application offline for good is told so:
- `max_actions`: an action called while that many wait is refused at once
  with `expired` (never sent, so never applied).
- `max_age` seconds: an action never sent that is older is refused with
  `expired`. One that was sent, and whose answer was lost with its
  connection, is not sent again once older: `settle` asks the daemon what
  became of it, which answers with its rev (it was applied) or voids the
  key for good (`expired`: it was not, and never will be).

Cancelling the task that awaits an action takes it out when it was never
sent; a sent one is settled (its answer on the connection that carries it,
or `settle` after a reconnect), and the outcome goes to `outcomes` (the
client's `on_outbox`), since nobody awaits it any more.

The client (client.py) decides when to send; this module only keeps the
entries and their state, and tells `on_finish` of each entry it is done
with (the board rolls a refused action back, pending_actions.py)."""
from __future__ import annotations

import asyncio
import itertools
import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .errors import EXPIRED, FoldError
from .feed import Feed

MAX_ACTIONS = 1000
MAX_AGE = 600.0  # seconds; keep it below the daemon's --action-key-hours (24 h)


@dataclass(frozen=True)
class Outcome:
    """What became of an action whose awaiting task was cancelled: `rev` when
    it was applied (or was a no-op), else `error` (`expired`: never applied)."""
    key: str
    board: str
    action: Dict[str, Any] = field(compare=False)
    rev: Optional[int] = None
    error: Optional[FoldError] = None


class Entry:
    """One action waiting for its answer."""

    def __init__(self, key: str, message: Dict[str, Any], future: "asyncio.Future[int]", called_at: float) -> None:
        self.key = key
        self.message = message      # the action as sent, `board` and `key` included, without `id`
        self.future = future
        self.called_at = called_at  # loop.time() at the call
        self.carrier: Optional[object] = None  # the connection it is in flight on
        self.send_id: Optional[str] = None     # the `id` of that send: answers to older sends are stale
        self.sent = False        # it reached a connection once: it may have been applied
        self.settle = False      # past the bounds: ask what became of it instead of sending it again
        self.cancelled = False   # nobody awaits it: the outcome goes to Outbox.outcomes

    @property
    def board(self) -> str:
        return str(self.message.get("board"))

    def wire(self) -> Dict[str, Any]:
        """What to send for it now (without `id`): the action, or `settle`."""
        if self.settle:
            return {"type": "settle", "board": self.board, "key": self.key}
        return dict(self.message)


class Outbox:
    def __init__(self, max_actions: int = MAX_ACTIONS, max_age: float = MAX_AGE) -> None:
        if max_actions < 1 or max_age <= 0:
            raise ValueError("foldsync: outbox_max_actions is at least 1 and outbox_max_age above 0")
        self.max_actions = max_actions
        self.max_age = max_age
        # 16 lowercase hex digits from the system's cryptographic source: two
        # clients never share keys, so neither is taken for the other's repeat.
        self.client_id = secrets.token_hex(8)
        self._counter = itertools.count(1)
        self._entries: List[Entry] = []  # in call order, which is send order
        self.outcomes: Feed[Outcome] = Feed()
        # Called with each entry as it leaves, before its awaiter hears: (entry, rev, error).
        self.on_finish: Optional[Callable[[Entry, Optional[int], Optional[BaseException]], None]] = None

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, message: Dict[str, Any], now: float) -> Entry:
        """A new entry with the next key; FoldError `expired` when full."""
        if len(self._entries) >= self.max_actions:
            raise FoldError(EXPIRED, f"the outbox holds {self.max_actions} actions, its bound; this one was not sent",
                            message.get("board"))
        key = f"{self.client_id}-{next(self._counter)}"
        entry = Entry(key, dict(message, key=key), asyncio.get_running_loop().create_future(), now)
        self._entries.append(entry)
        return entry

    def next_to_send(self) -> Optional[Entry]:
        """The first entry, in call order, that is not in flight."""
        return next((e for e in self._entries if e.carrier is None), None)

    def sending(self, entry: Entry, carrier: object, send_id: str) -> None:
        entry.carrier, entry.send_id, entry.sent = carrier, send_id, True

    def not_sent(self, entry: Entry) -> None:
        """The send failed at once (the connection was going): it goes with the next one."""
        entry.carrier = entry.send_id = None

    def lost(self, carrier: object) -> None:
        """`carrier` ended: what was in flight on it waits again, to be sent
        again with its key (or settled, when cancelled or past the age)."""
        for e in self._entries:
            if e.carrier is carrier:
                e.carrier = e.send_id = None
                if e.cancelled:
                    e.settle = True

    def answered(self, entry: Entry, send_id: str, rev: Optional[int], error: Optional[BaseException]) -> None:
        """The answer to one send of `entry`; one to an older send is stale."""
        if entry.send_id != send_id or entry not in self._entries:
            return
        self._finish(entry, rev, error)

    def cancel(self, entry: Entry) -> bool:
        """The awaiting task was cancelled. True when a `settle` is to be sent."""
        entry.cancelled = True
        if entry not in self._entries:  # answered as it was cancelled
            if entry.future.done() and not entry.future.cancelled():
                error = entry.future.exception()
                self._publish(entry, None if error else entry.future.result(), error)
            return False
        if not entry.sent:
            self._finish(entry, None, FoldError(EXPIRED, "cancelled before it was sent", entry.board))
            return False
        if entry.carrier is None:
            entry.settle = True
            return True
        return False  # in flight on a live connection: its answer is the outcome

    def expire(self, now: float) -> bool:
        """Applies `max_age` to what is not in flight; True when something is to be settled."""
        to_settle = False
        for e in list(self._entries):
            if e.carrier is not None or now - e.called_at <= self.max_age:
                continue
            if not e.sent:
                self._finish(e, None, FoldError(
                    EXPIRED, f"waited {self.max_age:g} s without a connection; it was never sent", e.board))
            else:
                e.settle = True
                to_settle = True
        return to_settle

    def close(self, error: FoldError) -> None:
        """Rejects everything with `error` (close())."""
        for e in list(self._entries):
            self._finish(e, None, FoldError(error.code, error.message, e.board))
        self.outcomes.end()

    def _finish(self, entry: Entry, rev: Optional[int], error: Optional[BaseException]) -> None:
        self._entries.remove(entry)
        if self.on_finish is not None:
            self.on_finish(entry, rev, error)
        if entry.cancelled or entry.future.done():
            self._publish(entry, rev, error)
        elif error is not None:
            entry.future.set_exception(error)
        else:
            entry.future.set_result(rev)  # type: ignore[arg-type]

    def _publish(self, entry: Entry, rev: Optional[int], error: Optional[BaseException]) -> None:
        action = {k: v for k, v in entry.message.items() if k != "key"}
        fold = error if isinstance(error, FoldError) or error is None else FoldError("internal", str(error))
        self.outcomes.publish(Outcome(entry.key, entry.board, action, rev, fold))
