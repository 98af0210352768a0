"""The one error type callers catch."""
from __future__ import annotations

from typing import Optional

# Client-side codes, beside the protocol's (bad_request, unknown_type, not_found, conflict,
# invalid, forbidden, too_large, rate_limited, internal, unavailable):
DISCONNECTED = "disconnected"  # no connection could be had (connect() gave up)
CLOSED = "closed"              # the client was closed
RATE_LIMITED = "rate_limited"  # the protocol's, named: it is the one refusal that carries no id
EXPIRED = "expired"            # the protocol's (a settled key) and the outbox's: the action was never applied


class FoldError(Exception):
    """A refusal: the daemon's `error` message (or a refused upgrade's body),
    or one of the client-side codes above. Match on `code`; `message` is for
    people."""

    def __init__(self, code: str, message: str, board: Optional[str] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.board = board
