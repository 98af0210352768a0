"""foldsync: an asyncio client for foldsyncd's shared boards.

    async with foldsync.connect("ws://127.0.0.1:7681/ws") as client:
        board = await client.subscribe("default")
        rev = await board.toggle("s1")
        async for change in board.changes():
            ...

The contract every foldsync client keeps is docs/CLIENTS.md; the wire
protocol is docs/PROTOCOL.md."""
from .backoff import backoff_delay
from .board import Board
from .change import Change, Presence, RolledBack
from .client import Client
from .connect import connect
from .errors import FoldError
from .mirror import BoardMirror
from .outbox import Outcome
from .patch import PatchError, apply_patch
from .pending_actions import PendingActions
from .rules import DEFAULT_LIMITS, Limits, apply_action
from .states import CLOSED, CONNECTED, CONNECTING, DISCONNECTED, ConnectionState, TransportChange
from .transport import Ended

__version__ = "0.1.0"
__all__ = [
    "Board", "BoardMirror", "Change", "Client", "ConnectionState", "Ended", "FoldError", "Outcome", "PatchError", "PendingActions", "Presence",
    "RolledBack",
    "TransportChange", "apply_patch", "backoff_delay", "connect",
    "DEFAULT_LIMITS", "Limits", "apply_action",
    "CONNECTING", "CONNECTED", "DISCONNECTED", "CLOSED",
]
