"""What a board's readers are told: one change per rev (or per resync), one
per action called or rolled back (`local`), and who else is looking."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from .errors import FoldError

# Why a change is a resync (resynced true) rather than one patch.
EPOCH = "epoch"      # the board's history was cut (deleted and made again, restored)
PRUNED = "pruned"    # same epoch, but the daemon no longer keeps the missed patches
LAGGING = "lagging"  # the daemon dropped our queue and sent a snapshot


@dataclass(frozen=True)
class RolledBack:
    """An action taken out of the shown state: the daemon refused it, or the
    outbox gave up on it (`expired`, cancelled, `closed`)."""
    key: str
    action: Dict[str, Any]               # as called, with `board`, without `key`
    error: FoldError


@dataclass(frozen=True)
class Change:
    board: str
    epoch: Optional[str]
    rev: Optional[int]
    ops: Optional[List[Dict[str, Any]]]  # the daemon's, from the previous `confirmed` (None: resync, deletion, local)
    state: Any                           # the board shown: `confirmed` and our pending actions (read-only; None: deleted)
    resynced: bool = False
    reason: Optional[str] = None         # EPOCH, PRUNED or LAGGING when resynced
    by: Optional[str] = None             # the session that made it (None: over HTTP)
    deleted: bool = False                # the board was deleted; a snapshot follows if it is made again
    confirmed: Any = None                # the daemon's board at `rev` (equal to GET), before our pending actions
    local: bool = False                  # an action was called or rolled back here: `rev` and `confirmed` are unchanged
    rolled_back: Optional[RolledBack] = None  # the action a local change took out


@dataclass(frozen=True)
class Presence:
    """The daemon's count of the connections subscribed to the board."""
    viewers: int
    following: Optional[int]             # how many follow its folds (None from a daemon that does not say)
