"""What a transport is to the client (client.py): a connection that hands
over the daemon's messages as dicts and takes the client's, so the client
keeps states, backoff, boards and actions whichever carries them.

Two implement it: websocket_transport.py (the WebSocket, one conversation)
and stream_transport.py (an event stream per board, actions by POST)."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, Optional, Protocol

log = logging.getLogger("foldsync")

WEBSOCKET = "websocket"
STREAM = "stream"
AUTO = "auto"  # the WebSocket, the stream when only HTTP gets through (client.py)

Message = Dict[str, Any]
Deliver = Callable[[Message], Awaitable[None]]


@dataclass(frozen=True)
class Ended:
    """How a connection ended."""
    reason: str
    code: Optional[int]  # the WebSocket close code, when there was one
    opened: bool         # it got as far as the daemon (an upgrade accepted, /healthz answered)


class Connection(Protocol):
    name: str
    # Whether answers (ack, error) come in order with the boards' messages.
    in_band: bool

    async def run(self, deliver: Deliver) -> Ended:
        """Hands every message to `deliver`, in order, until the connection ends."""

    async def send(self, message: Message) -> bool:
        """False when it could not be sent (no connection, or not carried by this transport)."""

    async def authenticate(self, token: str) -> bool:
        """Uses a new token from now on (on the open connection where the transport can)."""

    async def close(self, reason: Optional[str] = None, *, keep_answers: bool = False) -> None:
        """Ends it; `run` then returns with `reason` when given. With
        `keep_answers`, actions in flight out of band still deliver their answer."""


def parse_message(text: str) -> Optional[Message]:
    """One message, or None for what is not a JSON object (skipped: a newer
    daemon's oddity must not drop the connection)."""
    if not text:
        return None
    try:
        m = json.loads(text)
    except ValueError:
        log.warning("foldsync: skipped a message that is not JSON")
        return None
    return m if isinstance(m, dict) else None
