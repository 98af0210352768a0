"""Actions awaiting their `ack` or `error` on the current connection,
matched by the `id` we sent. The client opens one for each action or
`settle` the session machine sends (its id is the action's key, outbox.py)
and forgets them when the connection ends; the machine itself matches the
answers that name their id. What this adds is the one refusal that names
none, told back through `on_unnamed` with the id it was matched to.

A `rate_limited` refusal names the action's id when the message had one
(the daemon reads it back for that); one without (a `view`, or a message
that was not JSON) is matched by order instead. The daemon
sends a connection its acks in the order the actions were sent, so when an
ack arrives, an action sent before it that is still unanswered was refused
without an id; and once as many such refusals are held as actions wait, they
are all refused. (A `view`, `auth` or `subscribe` refused for the rate while
actions wait is indistinguishable from an action's refusal: one of those
actions may then be reported `rate_limited` though it was committed.)"""
from __future__ import annotations

import asyncio
import itertools
from typing import Callable, Dict, List, Optional, Set, Tuple

from .errors import FoldError


class Pending:
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        # Insertion order is the order sent: each id is opened just before its send.
        self._waiting: Dict[str, "asyncio.Future[int]"] = {}
        self._out_of_band: Set[str] = set()    # sent where answers do not come with the boards' messages
        self._unclaimed: List[FoldError] = []  # id-less refusals not matched yet
        # Told of each id an id-less refusal was matched to (the client answers the session machine with it).
        self.on_unnamed: Optional[Callable[[str, FoldError], None]] = None

    def open(self, in_band: bool = True, action_id: Optional[str] = None) -> Tuple[str, "asyncio.Future[int]"]:
        """A new id (or `action_id`, an outbox key); `in_band` when its answer
        comes in order with the boards' messages (the WebSocket, not the
        stream's POSTs)."""
        action_id = action_id or f"py{next(self._ids)}"
        self.forget(action_id)  # sent again on this connection: its place is the new send's
        fut: "asyncio.Future[int]" = asyncio.get_running_loop().create_future()
        self._waiting[action_id] = fut
        if not in_band:
            self._out_of_band.add(action_id)
        return action_id, fut

    def awaits(self, message: Dict[str, object]) -> bool:
        """Whether `message` is the answer (ack or error) to an action still waiting."""
        action_id = message.get("id")
        return message.get("type") in ("ack", "error") and isinstance(action_id, str) and action_id in self._waiting

    def resolve(self, action_id: object, rev: int) -> None:
        if not isinstance(action_id, str) or action_id not in self._waiting:
            return
        for earlier in list(self._waiting):
            if earlier == action_id or not self._unclaimed:
                break
            self._settle(earlier, self._unclaimed.pop(0))
        fut = self._pop(action_id)
        if not fut.done():
            fut.set_result(rev)
        self._claim_all()

    def reject(self, action_id: object, error: FoldError) -> bool:
        fut = self._pop(action_id) if isinstance(action_id, str) and action_id in self._waiting else None
        if fut is None:
            return False
        if not fut.done():
            fut.set_exception(error)
        self._claim_all()
        return True

    def reject_unnamed(self, error: FoldError) -> None:
        """A refusal without an id (`rate_limited`)."""
        if self._waiting:  # else it answered a message that was not an action
            self._unclaimed.append(error)
            self._claim_all()

    def forget_in_band(self) -> None:
        """The daemon dropped this connection's queued answers (a `lagging`
        snapshot): the ids whose answer was to come in band are forgotten
        (the outbox sends those actions again with their keys and new ids;
        an answer to an old id that still comes is ignored). The id-less
        refusals held were for those actions too."""
        for action_id in [a for a in self._waiting if a not in self._out_of_band]:
            self._pop(action_id)
        self._unclaimed.clear()

    def forget(self, action_id: str) -> None:
        """An id whose message could not be sent: no answer will come."""
        if action_id in self._waiting:
            self._pop(action_id)

    def forget_all(self) -> None:
        """The connection ended: no answer will come for what waits (the
        outbox sends it again); the futures are dropped unanswered."""
        self._waiting.clear()
        self._out_of_band.clear()
        self._unclaimed.clear()

    def _claim_all(self) -> None:
        if self._unclaimed and len(self._unclaimed) >= len(self._waiting):
            for action_id in list(self._waiting):
                self._settle(action_id, self._unclaimed.pop(0))
            self._unclaimed.clear()

    def _settle(self, action_id: str, error: FoldError) -> None:
        if self.on_unnamed is not None:
            self.on_unnamed(action_id, error)
        fut = self._pop(action_id)
        if not fut.done():
            fut.set_exception(error)

    def _pop(self, action_id: str) -> "asyncio.Future[int]":
        self._out_of_band.discard(action_id)
        return self._waiting.pop(action_id)
