"""Actions awaiting their `ack` or `error`, matched by the `id` we sent."""
from __future__ import annotations

import asyncio
import itertools
from typing import Dict, Tuple

from .errors import FoldError


class Pending:
    def __init__(self) -> None:
        self._ids = itertools.count(1)
        self._waiting: Dict[str, "asyncio.Future[int]"] = {}

    def open(self) -> Tuple[str, "asyncio.Future[int]"]:
        action_id = f"py{next(self._ids)}"
        fut: "asyncio.Future[int]" = asyncio.get_running_loop().create_future()
        self._waiting[action_id] = fut
        return action_id, fut

    def resolve(self, action_id: object, rev: int) -> None:
        fut = self._waiting.pop(action_id, None) if isinstance(action_id, str) else None
        if fut is not None and not fut.done():
            fut.set_result(rev)

    def reject(self, action_id: object, error: FoldError) -> bool:
        fut = self._waiting.pop(action_id, None) if isinstance(action_id, str) else None
        if fut is None:
            return False
        if not fut.done():
            fut.set_exception(error)
        return True

    def reject_all(self, code: str, message: str) -> None:
        waiting, self._waiting = self._waiting, {}
        for fut in waiting.values():
            if not fut.done():
                fut.set_exception(FoldError(code, message))
