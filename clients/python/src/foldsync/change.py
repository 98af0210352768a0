"""What a board's readers are told: one change per rev (or per resync), and
who else is looking."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

# Why a change is a resync (resynced true) rather than one patch.
EPOCH = "epoch"      # the board's history was cut (deleted and made again, restored)
PRUNED = "pruned"    # same epoch, but the daemon no longer keeps the missed patches
LAGGING = "lagging"  # the daemon dropped our queue and sent a snapshot


@dataclass(frozen=True)
class Change:
    board: str
    epoch: Optional[str]
    rev: Optional[int]
    ops: Optional[List[Dict[str, Any]]]  # None for a resync or a deletion
    state: Any                           # the board at `rev` (read-only; None: deleted)
    resynced: bool = False
    reason: Optional[str] = None         # EPOCH, PRUNED or LAGGING when resynced
    by: Optional[str] = None             # the session that made it (None: over HTTP)
    deleted: bool = False                # the board was deleted; a snapshot follows if it is made again


@dataclass(frozen=True)
class Presence:
    """The daemon's count of the connections subscribed to the board."""
    viewers: int
    following: Optional[int]             # how many follow its folds (None from a daemon that does not say)
