"""Opening the WebSocket: path /ws, subprotocol foldsync.v1 (or the batched
variant), the token as `Authorization: Bearer` on the upgrade. A refused
upgrade becomes a `Refused` carrying the daemon's error body."""
from __future__ import annotations

import json
from typing import Optional

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Subprotocol

from .errors import FoldError

# Batched frames hold several messages split by "\n"; fewer frames under load.
SUBPROTOCOLS = [Subprotocol("foldsync.v1.batch"), Subprotocol("foldsync.v1")]
# A board may be 4 MiB encoded (--max-board-bytes); leave room for a bigger daemon.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class Refused(FoldError):
    """The daemon answered the upgrade with an HTTP error (401, 403, 404, 503)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(code, message)
        self.status = status


def _refusal(e: InvalidStatus) -> Refused:
    status = e.response.status_code
    try:
        body = json.loads(e.response.body or b"{}")
        return Refused(status, str(body.get("code", "unavailable")), str(body.get("message", "")))
    except (ValueError, AttributeError):
        return Refused(status, "unavailable", f"HTTP {status}")


async def open_socket(url: str, token: Optional[str], timeout: float) -> ClientConnection:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    try:
        return await connect(url, subprotocols=SUBPROTOCOLS,
                             additional_headers=headers, open_timeout=timeout,
                             max_size=MAX_MESSAGE_BYTES)
    except InvalidStatus as e:
        raise _refusal(e) from None
