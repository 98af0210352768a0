"""The connection's states, as the client contract (docs/CLIENTS.md) names
them, and the transport that carries the connection."""
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
    code: Optional[int] = None       # the WebSocket close code, when there was one (disconnected)


@dataclass(frozen=True)
class TransportChange:
    """`transport="auto"` moved the connection to another transport."""
    transport: str                   # "websocket" or "stream"
    reason: str
