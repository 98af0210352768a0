"""The connection's states, as the client contract (docs/CLIENTS.md) names them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

CONNECTING = "connecting"
CONNECTED = "connected"
DISCONNECTED = "disconnected"  # with the reason and the next attempt's delay
CLOSED = "closed"              # after close(): nothing reconnects


@dataclass(frozen=True)
class ConnectionState:
    state: str
    reason: Optional[str] = None     # why the connection ended (disconnected)
    delay_ms: Optional[int] = None   # until the next attempt (disconnected)
