"""A board's optimistic state: the daemon's confirmed document with this
client's unanswered actions applied on top, in the order they were called
(docs/CLIENTS.md, "Optimistic state in Python"; the shared cases are
Tests/vectors/pending.json). No I/O: the board feeds it what it is told
and reads `shown()` back.

An action leaves once it is acknowledged and the confirmed rev has reached
its ack's rev, or at once when it is refused (it is then rolled back). Until
then it is applied on top, unless it is already part of the confirmed
document: it *landed* (a patch of ours, or one made over HTTP, that is
exactly this action applied to the board before it) or its ack's rev is
reached. Without the landing a toggle would show flipped twice between its
own patch and its ack."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence

from .errors import FoldError
from .rules import apply_action

# What a message carries beside the action itself: not the rules' business.
_ENVELOPE = ("board", "key", "id", "ifRev")


@dataclass
class PendingAction:
    key: str
    action: Dict[str, Any]         # the action without `board`, `key`, `id` or `ifRev`
    if_rev: Optional[int] = None
    landed: Optional[int] = None   # the rev of the patch that was this action
    acked: Optional[int] = None    # the rev of its ack

    def in_confirmed(self, rev: Optional[int]) -> bool:
        if self.landed is not None:
            return True
        return self.acked is not None and rev is not None and rev >= self.acked


def bare(message: Dict[str, Any]) -> Dict[str, Any]:
    """The action of a message, without what only the wire needs."""
    return {k: v for k, v in message.items() if k not in _ENVELOPE}


def applied(board: Any, action: Dict[str, Any]) -> Any:
    """`board` after `action` by the rules, or None when they refuse it."""
    try:
        return apply_action(board, action)[0]
    except (FoldError, ValueError, KeyError, TypeError):
        return None


class PendingActions:
    """The pending actions of one board, in call order."""

    def __init__(self) -> None:
        self._entries: List[PendingAction] = []

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def keys(self) -> List[str]:
        return [e.key for e in self._entries]

    def add(self, key: str, action: Dict[str, Any], if_rev: Optional[int] = None) -> None:
        self._entries.append(PendingAction(key, bare(action), if_rev))

    def patched(self, before: Any, after: Any, rev: int, by: Optional[str], sessions: Sequence[str]) -> None:
        """The daemon's patch took the confirmed board from `before` to
        `after` at `rev`. Only the first action not yet landed or acked can
        be the one it carries: the daemon answers a connection's actions on
        a board in order, and sends the originator its patch before its ack.
        `sessions`: this client's, the current connection's and those
        before it (a resume brings a patch made on the old connection)."""
        if by is not None and by not in sessions:
            return
        first = next((e for e in self._entries if e.landed is None and e.acked is None), None)
        if first is None or (first.if_rev is not None and first.if_rev != rev - 1):
            return
        if before is not None and applied(before, first.action) == after:
            first.landed = rev

    def acked(self, key: str, rev: int) -> None:
        for e in self._entries:
            if e.key == key:
                e.acked = rev

    def remove(self, key: str) -> Optional[PendingAction]:
        """Takes the action out (refused, expired, cancelled); None when it was not here."""
        for n, e in enumerate(self._entries):
            if e.key == key:
                return self._entries.pop(n)
        return None

    def settle(self, rev: Optional[int]) -> None:
        """Drops what the confirmed board at `rev` holds for good (acked and reached)."""
        self._entries = [e for e in self._entries if not (e.acked is not None and rev is not None and rev >= e.acked)]

    def shown(self, confirmed: Any, rev: Optional[int]) -> Any:
        """The state to show: `confirmed` itself when nothing applies on top.
        An action with `if_rev` applies only while the board is at that rev;
        one the rules refuse is skipped but kept (the daemon decides)."""
        state = confirmed
        if confirmed is None:
            return None
        for e in self._entries:
            if e.in_confirmed(rev) or (e.if_rev is not None and e.if_rev != rev):
                continue
            after = applied(state, e.action)
            if after is not None:
                state = after
        return state
