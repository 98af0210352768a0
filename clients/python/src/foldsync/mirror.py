"""A client's copy of one board: the twin of the terminal client's
BoardMirror (Sources/FoldClient) and the dashboard's clients/web/mirror.js.
Snapshots set it, patches move it one rev at a time within an epoch;
anything else asks the owner to subscribe again. No I/O: the owner feeds it
the daemon's messages and acts on the outcome."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from .patch import PatchError, apply_patch

# Outcome kinds, as in the Swift and JavaScript mirrors.
CHANGED = "changed"        # a snapshot or the next patch was applied
UNCHANGED = "unchanged"    # another board, a duplicate patch, a type not kept here
PRESENCE = "presence"
DELETED = "deleted"
OUT_OF_STEP = "outOfStep"  # subscribe again (with `since` when `position` has one)


@dataclass(frozen=True)
class Outcome:
    kind: str
    ops: Optional[List[Dict[str, Any]]] = None  # a patch's ops (None for a snapshot)
    reason: Optional[str] = None                # why out of step
    viewers: Optional[int] = None
    following: Optional[int] = None             # None from a daemon that does not send it


class BoardMirror:
    def __init__(self, board: str) -> None:
        self.board = board
        self.state: Any = None          # None until the first snapshot, and after a deletion
        self.epoch: Optional[str] = None
        self.rev: Optional[int] = None

    @property
    def position(self) -> Optional[Dict[str, Any]]:
        """Where to resume from (`since` of a subscribe), or None for a snapshot."""
        if self.state is None or self.epoch is None:
            return None
        return {"epoch": self.epoch, "rev": self.rev}

    def apply(self, m: Dict[str, Any]) -> Outcome:
        if "board" in m and m["board"] != self.board:
            return Outcome(UNCHANGED)
        kind = m.get("type")
        if kind == "snapshot":
            self.state, self.epoch, self.rev = m["state"], m["epoch"], m["rev"]
            return Outcome(CHANGED)
        if kind == "patch":
            return self._patch(m)
        if kind == "presence":
            return Outcome(PRESENCE, viewers=m.get("viewers"), following=m.get("following"))
        if kind == "deleted":
            self.clear()
            return Outcome(DELETED)
        return Outcome(UNCHANGED)

    def _patch(self, m: Dict[str, Any]) -> Outcome:
        # Before any snapshot (or after a patch that failed) a snapshot is on its way.
        if self.state is None or self.rev is None:
            return Outcome(UNCHANGED)
        rev = m.get("rev")
        if m.get("epoch") == self.epoch and isinstance(rev, int) and rev <= self.rev:
            return Outcome(UNCHANGED)  # already have it
        if m.get("epoch") != self.epoch or rev != self.rev + 1:
            return Outcome(OUT_OF_STEP, reason=f"patch {rev} does not follow rev {self.rev}")
        try:
            nxt = apply_patch(self.state, m.get("ops"))
        except PatchError as e:
            # The copy cannot be trusted any more: forgetting it makes the
            # next subscribe ask for a snapshot rather than a resume.
            self.state = None
            return Outcome(OUT_OF_STEP, reason=f"patch {rev} does not apply: {e}")
        self.state, self.rev = nxt, rev
        return Outcome(CHANGED, ops=m.get("ops"))

    def clear(self) -> None:
        self.state = self.epoch = self.rev = None
