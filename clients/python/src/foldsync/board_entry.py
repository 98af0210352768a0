"""One subscribed board inside the session machine (session.py): its mirror
(mirror.py), the pending actions shown on top (pending_actions.py), and the
decisions about it: what a snapshot means (the first: `ready`; a later one:
a resync, `epoch`, `pruned` or `lagging`), when to subscribe again, what a
call, an ack or a refusal shows. The client's Board (board.py) is a shell
over the same entry, so what the vectors pin is what the application sees.

Pure: each method appends outputs, in session.json's vocabulary, to the list
it is given (change carries a change.py Change)."""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

from .change import EPOCH, LAGGING, PRUNED, Change, RolledBack
from .errors import FoldError
from .mirror import CHANGED, DELETED, OUT_OF_STEP, PRESENCE, BoardMirror
from .patch import json_equal
from .pending_actions import PendingActions

Output = Dict[str, Any]


class BoardEntry:
    def __init__(self, board: str) -> None:
        self.board = board
        self.mirror = BoardMirror(board)
        self.pending = PendingActions()
        self.state: Any = None     # the mirror with the pending actions on top; the mirror's own when none apply
        self.awaited = True        # someone waits for the first snapshot (ready or refused)
        self.subscribing = False   # a subscribe is unanswered: a snapshot of the same epoch answering it is `pruned`
        self.deleted = False       # the next snapshot starts another epoch
        self.seen_epoch: Optional[str] = None  # the epoch readers last saw (a deletion names it)
        self._cut: Optional[Dict[str, Any]] = None  # the position a patch that did not apply left

    def _reshow(self) -> Any:
        self.pending.settle(self.mirror.rev)
        self.state = self.pending.shown(self.mirror.state, self.mirror.rev)
        return self.state

    def subscribe(self, resume: bool = True) -> Dict[str, Any]:
        """The subscribe to send: with `since` when resuming from a position."""
        self.subscribing = True
        m: Dict[str, Any] = {"type": "subscribe", "board": self.board}
        position = self.mirror.position if resume else None
        if position is not None:
            m["since"] = position
        return m

    def apply(self, m: Dict[str, Any], sessions: Sequence[str], out: List[Output],
              answers_dropped: Callable[[], None]) -> None:
        """One of the daemon's messages about this board. `answers_dropped`
        runs when a snapshot nobody asked for says the daemon dropped this
        connection's queue (its acks with it)."""
        had = self.mirror.position or self._cut
        before = self.mirror.state
        outcome = self.mirror.apply(m)
        if outcome.kind == CHANGED and m.get("type") == "snapshot":
            self._snapshot(had, out, answers_dropped)
        elif outcome.kind == CHANGED:
            self.subscribing = False
            if before is not None:
                self.pending.patched(before, self.mirror.state, self.mirror.rev, m.get("by"), sessions)  # type: ignore[arg-type]
            self._reshow()
            self._change(out, Change(self.board, self.mirror.epoch, self.mirror.rev, outcome.ops, self.state,
                                     by=m.get("by"), confirmed=self.mirror.state))
        elif outcome.kind == DELETED:
            self.deleted = True
            self._reshow()
            out.append({"deleted": {"board": self.board}})
        elif outcome.kind == OUT_OF_STEP:
            if self.mirror.state is None and had is not None:
                self._cut = had  # the patch did not apply: the mirror forgot its copy, not that it had one
            # Asked again without `since`: the snapshot that answers is the daemon's whole board (`pruned`), not a dropped queue.
            out.append({"send": self.subscribe(resume=False)})
        elif outcome.kind == PRESENCE:
            out.append({"presence": {"board": self.board, "viewers": outcome.viewers, "following": outcome.following}})

    def _snapshot(self, had: Optional[Dict[str, Any]], out: List[Output], answers_dropped: Callable[[], None]) -> None:
        epoch, rev = self.mirror.epoch, self.mirror.rev
        self._cut = None
        reason: Optional[str] = None
        if had is not None or self.deleted:
            if self.deleted or had is None or had["epoch"] != epoch:
                reason = EPOCH
            elif self.subscribing:
                reason = PRUNED
            else:
                reason = LAGGING
        if reason == LAGGING:
            # An unasked-for snapshot: acks queued behind it were dropped (PROTOCOL.md, Guarantee 2).
            answers_dropped()
        first = had is None and not self.deleted
        self.deleted = self.subscribing = False
        self._reshow()
        # The first snapshot is the board's start, not a change: `ready` says it.
        if not first:
            self._change(out, Change(self.board, epoch, rev, None, self.state, resynced=True, reason=reason,
                                     confirmed=self.mirror.state))
        self.seen_epoch = epoch
        if self.awaited:
            self.awaited = False
            out.append({"ready": {"board": self.board}})

    def refused(self, code: str, message: str, out: List[Output]) -> bool:
        """An `error` about the board with no action id: its subscription
        was refused or ended. False when the entry is to go (it never had a
        snapshot: it is not subscribed again)."""
        if self.awaited:
            self.awaited = False
            out.append({"refused": {"board": self.board, "code": code, "message": message}})
        if self.mirror.position is None:
            return False
        if code == "not_found" and self.mirror.state is not None:
            # Resubscribing found it gone: deleted while we were away.
            self.apply({"type": "deleted", "board": self.board}, (), out, lambda: None)
        return True

    def called(self, key: str, action: Dict[str, Any], if_rev: Optional[int], out: List[Output]) -> None:
        """An action called: shown at once."""
        was = self.state
        self.pending.add(key, action, if_rev)
        self._local(was, out)

    def acked(self, key: str, rev: int, out: List[Output]) -> None:
        was = self.state
        self.pending.acked(key, rev)
        self._local(was, out)

    def rejected(self, key: str, action: Dict[str, Any], error: FoldError, out: List[Output]) -> None:
        """Refused, expired, cancelled or closed: rolled back, and said so even when the state shown does not move."""
        was = self.state
        if self.pending.remove(key) is not None:
            self._local(was, out, RolledBack(key, {k: v for k, v in action.items() if k != "key"}, error))

    def _local(self, was: Any, out: List[Output], rolled_back: Optional[RolledBack] = None) -> None:
        state = self._reshow()
        if rolled_back is not None or not (was is state or json_equal(was, state)):
            self._change(out, Change(self.board, self.mirror.epoch, self.mirror.rev, None, state,
                                     confirmed=self.mirror.state, local=True, rolled_back=rolled_back))

    def _change(self, out: List[Output], change: Change) -> None:
        if self.mirror.state is not None and self.mirror.position is not None:
            out.append({"change": change})
