"""The outbox: every action from its call until its answer, in call order,
as a pure machine: each input (a call, a connection ready or lost, an
answer, the clock, a cancel) returns the effects the session (session.py)
carries out. The Python twin of Sources/FoldSession/Outbox.swift and
clients/js/outbox.js; Tests/vectors/session.json pins it through the session.

Each action carries a key, `<client id>-<n>`, also the `id` of the message
that carries it, which makes it exactly-once at the daemon (PROTOCOL.md,
Guarantee 8). So nothing is given up when the network fails: an action
called while the client is not connected waits here, and an action whose
connection ended before its answer came is sent again with the same key
once the client is back; the daemon answers it once (applied then, or
`duplicate` with the first answer's rev).

Bounds, so that an application offline for good is told so:
- `max_actions`: an action called while that many wait is refused at once
  with `expired` (never sent, so never applied).
- `max_age` seconds: an action never sent that is older is refused with
  `expired`. One that was sent, and whose answer was lost with its
  connection, is not sent again once older: `settle` asks the daemon what
  became of it, which answers with its rev (it was applied) or voids the
  key for good (`expired`: it was not, and never will be).

Cancelling a call takes it out when it was never sent; a sent one is
settled, and the client hands the outcome to `on_outbox` (Outcome), since
nobody awaits it any more.

Effects: ("send", item) | ("settle", item) | ("resolve", ticket, rev) |
("reject", ticket, code, message)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .errors import FoldError

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


# Item phases.
WAITING = "waiting"    # never sent: the daemon has not seen it
SENT = "sent"          # sent on the connection that is up; its answer is awaited there
CUT = "cut"            # sent, and that connection ended before the answer
SETTLING = "settling"  # `settle` was sent for its key on the connection that is up

Effect = Tuple[Any, ...]


@dataclass
class Item:
    ticket: int
    board: str
    action: Dict[str, Any]  # the bare action: no board, key, id or ifRev
    if_rev: Optional[int]
    key: str
    called_at: float
    phase: str = WAITING
    settle_only: bool = False  # past its age, or cancelled: never sent again, only settled

    def message(self) -> Dict[str, Any]:
        """The action on the wire, its key as its id."""
        m = dict(self.action, board=self.board, key=self.key, id=self.key)
        if self.if_rev is not None:
            m["ifRev"] = self.if_rev
        return m

    def settle_message(self) -> Dict[str, Any]:
        return {"type": "settle", "board": self.board, "key": self.key, "id": self.key}


class Outbox:
    def __init__(self, client_id: str, max_actions: int, max_age: float) -> None:
        if max_actions < 1 or max_age <= 0:
            raise ValueError("foldsync: outbox_max_actions is at least 1 and outbox_max_age above 0")
        self.client_id = client_id
        self.max_actions = max_actions
        self.max_age = max_age
        self.items: List[Item] = []  # in call order, which is send order
        self._counter = 0
        self.connected = False  # a connection is up and has been told the subscriptions (ready)

    def __len__(self) -> int:
        return len(self.items)

    def call(self, ticket: int, board: str, action: Dict[str, Any], if_rev: Optional[int], now: float) -> List[Effect]:
        """A new action: sent at once when connected, else kept."""
        if len(self.items) >= self.max_actions:
            return [("reject", ticket, "expired",
                     f"the outbox holds {len(self.items)} actions, its bound; this one was not sent")]
        self._counter += 1
        item = Item(ticket, board, action, if_rev, f"{self.client_id}-{self._counter}", now)
        self.items.append(item)
        if not self.connected:
            return []
        item.phase = SENT
        return [("send", item)]

    def ready(self, now: float) -> List[Effect]:
        """A connection is up and every subscription was sent on it: what
        waits goes, in call order; what is past its age is settled instead."""
        self.connected = True
        out = self._expire(now)
        for item in self.items:
            if item.phase == WAITING or (item.phase == CUT and not item.settle_only):
                item.phase = SENT
                out.append(("send", item))
            elif item.phase == CUT:
                item.phase = SETTLING
                out.append(("settle", item))
        return out

    def lost(self) -> None:
        """The connection ended: every answer awaited on it is lost."""
        self.connected = False
        for item in self.items:
            if item.phase in (SENT, SETTLING):
                item.phase = CUT

    def answers_dropped(self) -> List[Effect]:
        """The daemon dropped this connection's queued answers (a `lagging`
        resync): what was sent goes again (a repeat is answered, not applied)."""
        out: List[Effect] = []
        for item in self.items:
            if item.phase == SENT:
                out.append(("send", item))
            elif item.phase == SETTLING:
                out.append(("settle", item))
        return out

    def answered(self, key: Any, rev: Optional[int], error: Optional[Tuple[str, str]]) -> List[Effect]:
        """The answer to the message with id `key`: an ack (`rev`) or an error ((code, message))."""
        item = next((i for i in self.items if i.key == key), None)
        if item is None or item.phase not in (SENT, SETTLING) or (rev is None and error is None):
            return []
        self.items.remove(item)
        if rev is not None:
            return [("resolve", item.ticket, rev)]
        code, message = error  # type: ignore[misc]
        if item.phase == SETTLING and code == "expired":
            message = f"the action was never applied, and now never will be ({message})"
        return [("reject", item.ticket, code, message)]

    def tick(self, now: float) -> List[Effect]:
        """Once a second while anything waits: what is past its age."""
        out = self._expire(now)
        if self.connected:
            for item in self.items:
                if item.settle_only and item.phase == CUT:
                    item.phase = SETTLING
                    out.append(("settle", item))
        return out

    def cancel(self, ticket: int) -> List[Effect]:
        """The application gave up on `ticket`: unsent, it goes (`expired`);
        sent, its key is settled, so it is either confirmed or never applied."""
        item = next((i for i in self.items if i.ticket == ticket), None)
        if item is None:
            return []
        if item.phase == WAITING:
            self.items.remove(item)
            return [("reject", ticket, "expired", "cancelled before it was sent: it was never applied")]
        if item.phase == SENT:
            item.settle_only = True
            item.phase = SETTLING
            return [("settle", item)]
        if item.phase == CUT:
            item.settle_only = True
        return []

    def close_all(self) -> List[Effect]:
        """close(): everything still waiting fails."""
        out: List[Effect] = [
            ("reject", item.ticket, "closed",
             "the client was closed before the answer came: the action may or may not have been applied"
             if item.phase != WAITING else "the client was closed before the action was sent: it was never applied")
            for item in self.items]
        self.items = []
        return out

    def _expire(self, now: float) -> List[Effect]:
        # Unsent items past their age fail; sent ones whose answer was lost are marked to be settled.
        out: List[Effect] = []
        kept: List[Item] = []
        for item in self.items:
            if item.phase == WAITING and now - item.called_at > self.max_age:
                out.append(("reject", item.ticket, "expired",
                            f"waited {int(self.max_age)} s without a connection; it was never sent, so never applied"))
            else:
                kept.append(item)
        self.items = kept
        for item in self.items:
            if item.phase == CUT and now - item.called_at > self.max_age:
                item.settle_only = True
        return out
